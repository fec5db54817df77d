// GradBench's runner (../shared/gradbench/run.sh) as the bench tests use it: whether it can run
// here, the small sizes the tests ask for, and one eval run that must end in `outcome success`.
import { execFileSync, spawnSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export const repoRoot = path.resolve(__dirname, '../..');
/** CI clones the repository next to shared/; GRADBENCH_DIR points elsewhere. */
export const gradbench = process.env.GRADBENCH_DIR ?? path.resolve(repoRoot, '../shared/gradbench');

/** Why the runner cannot run here, or undefined when it can. */
export function missingTools(): string | undefined {
  if (!fs.existsSync(path.join(gradbench, 'run.sh'))) return `no GradBench runner at ${gradbench} (set GRADBENCH_DIR)`;
  const py = spawnSync('python3', ['-c', 'import numpy, scipy, pydantic'], { encoding: 'utf8' });
  if (py.status !== 0) return 'python3 with numpy, scipy and pydantic is not available';
  const cxx = ['g++', 'c++'].some((c) => spawnSync(c, ['--version']).status === 0);
  if (!cxx) return 'no C++ compiler (g++ or c++)';
  return undefined;
}

/** Small sizes of every eval: each runs in seconds, and `manual` still validates every answer. */
export const SMALL: Record<string, string[]> = {
  hello: [],
  lse: ['-n', '10', '1000', '--min-seconds', '0'],
  llsq: ['-n', '16', '33', '-m', '3', '8', '--min-seconds', '0'],
  gmm: ['-d', '2', '5', '-k', '3', '-n', '20', '-m', '2', '--gamma', '0.7', '--min-seconds', '0'],
  kmeans: ['-k', '3', '10', '-n', '100', '-d', '2', '4', '--min-seconds', '0'],
  lstm: ['-l', '1', '2', '-c', '100', '--min-seconds', '0'],
  ba: ['--min', '1', '--max', '1', '--min-seconds', '0'],
};

/**
 * The flags of the tests' build of `manual` (GradBench's common.mk adds its own after them). -O0
 * where run.sh builds at -O3: the tests run small sizes and time nothing, so the answers `manual`
 * checks against are the same, and its seven tools cost ~20 s of CPU to build instead of ~33 s.
 * Without -march=native (NATIVE=no, as run.sh), so no FMA contracts a sum differently.
 */
const TEST_CXXFLAGS = '-std=c++17 -O0 -Wall -I../../cpp';

/** Where the tests' builds of `manual` are kept between runs. */
const cacheDir = path.join(repoRoot, 'node_modules', '.cache', 'tsad-gradbench-manual');

/** A lock older than this is left over from a killed run (a cold build takes ~1–2 minutes). */
const STALE_LOCK_MS = 10 * 60_000;

/** Every file under dir, relative to it, sorted. */
function filesUnder(dir: string, prefix = ''): string[] {
  return fs
    .readdirSync(path.join(dir, prefix), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(dir, path.join(prefix, e.name)) : [path.join(prefix, e.name)]))
    .sort();
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Whether the lock's holder is gone: older than any build, or its process has ended. */
function staleLock(lock: string): boolean {
  try {
    if (Date.now() - fs.statSync(lock).mtimeMs > STALE_LOCK_MS) return true;
    process.kill(Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8')), 0);
    return false;
  } catch (e: any) {
    // ENOENT: the lock is just made (no pid yet) or already gone; EPERM: a process not ours.
    return e?.code === 'ESRCH';
  }
}

/** Copies GradBench to `into` and builds `manual` there, as run.sh does but at TEST_CXXFLAGS. */
function buildManual(into: string): void {
  fs.rmSync(into, { recursive: true, force: true });
  fs.cpSync(gradbench, into, { recursive: true });
  // GradBench's files may be read-only; make writes bin/ and a later prune removes the folder.
  const writable = (p: string): void => {
    const stat = fs.statSync(p);
    fs.chmodSync(p, stat.mode | 0o200);
    if (stat.isDirectory()) for (const e of fs.readdirSync(p)) writable(path.join(p, e));
  };
  writable(into);
  const jobs = Math.min(7, os.availableParallelism?.() ?? os.cpus().length);
  try {
    execFileSync('make', ['-s', '-C', path.join(into, 'tools/manual'), `-j${jobs}`, 'NATIVE=no'], {
      env: { ...process.env, CXXFLAGS: TEST_CXXFLAGS },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  } catch (e: any) {
    throw new Error(`building GradBench's manual tools failed:\n${e.stderr}`);
  }
  fs.writeFileSync(path.join(into, '.built'), '');
}

let work: string | undefined;

/**
 * GradBench's work folder (run.sh's GRADBENCH_WORK) with `manual` built: one for every test file,
 * worker and run, where each test file built its own in /tmp (two cold builds of ~33 s of CPU on a
 * fresh machine, left behind). It lives under node_modules/.cache, named by a hash of GradBench's
 * files and the flags, so a changed GradBench gets a build of its own. The first process to need
 * it builds it under a lock (a folder: mkdir is atomic) into a folder of its own, renamed into
 * place when complete; the others wait for it. run.sh then finds it current and builds nothing, so
 * no run pulls it from under another (run.sh rebuilds a stale folder with rm -rf).
 */
export function manualWork(): string {
  if (work !== undefined) return work;
  const files = filesUnder(gradbench);
  const hash = createHash('sha256').update(TEST_CXXFLAGS);
  let newest = 0;
  for (const f of files) {
    newest = Math.max(newest, fs.statSync(path.join(gradbench, f)).mtimeMs);
    if (!f.split(path.sep).includes('__pycache__')) hash.update(`${f}\0`).update(fs.readFileSync(path.join(gradbench, f)));
  }
  const dir = path.join(cacheDir, hash.digest('hex').slice(0, 16));
  const built = path.join(dir, '.built');
  const lock = `${dir}.lock`;
  // A synchronous wait blocks jest's timeouts too, so it has a deadline of its own.
  const deadline = Date.now() + STALE_LOCK_MS;
  while (!fs.existsSync(built)) {
    if (Date.now() > deadline) throw new Error(`no build of GradBench's manual tools at ${dir} after ${STALE_LOCK_MS / 60_000} minutes (lock ${lock})`);
    try {
      fs.mkdirSync(lock);
    } catch (e: any) {
      // ENOENT: the cache folder is not there (yet, or removed since: node_modules/.cache is
      // anyone's to clear).
      if (e?.code === 'ENOENT') fs.mkdirSync(cacheDir, { recursive: true });
      else if (staleLock(lock)) fs.rmSync(lock, { recursive: true, force: true });
      else sleep(250);
      continue;
    }
    try {
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      if (!fs.existsSync(built)) {
        const partial = `${dir}.partial`;
        buildManual(partial);
        fs.renameSync(partial, dir);
        // Builds of other GradBench versions, untouched for a day: no run of these files uses them.
        for (const e of fs.readdirSync(cacheDir)) {
          const other = path.join(cacheDir, e);
          if (other !== dir && Date.now() - fs.statSync(other).mtimeMs > 86_400_000) fs.rmSync(other, { recursive: true, force: true });
        }
      }
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
  // run.sh rebuilds when one of GradBench's files is newer than .built; their contents are the
  // ones this build was made from (the folder's name), so the build is current: say so.
  if (fs.statSync(built).mtimeMs <= newest) {
    const now = new Date(Math.max(Date.now(), newest + 1000));
    fs.utimesSync(built, now, now);
  }
  work = dir;
  return dir;
}

/** Runs one eval against `tool` (a shell command) and checks that every answer was valid. */
export function expectOutcomeSuccess(name: string, tool: string, args: string[] = SMALL[name]): void {
  let stdout: string;
  try {
    stdout = execFileSync('bash', [path.join(gradbench, 'run.sh'), name, tool, '--', ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, GRADBENCH_WORK: manualWork() },
    });
  } catch (e: any) {
    throw new Error(`run.sh ${name} failed:\n${e.stdout}\n${e.stderr}`);
  }
  expect(stdout).not.toMatch(/INVALID|FAILED/);
  expect(stdout).toMatch(/^outcome success$/m);
  // Every evaluation row is there: two functions per size.
  expect(stdout.match(/ valid$/gm)?.length ?? 0).toBeGreaterThanOrEqual(2);
}
