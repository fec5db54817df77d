// GradBench's runner (../shared/gradbench/run.sh) as the bench tests use it: whether it can run
// here, the small sizes the tests ask for, and one eval run that must end in `outcome success`.
import { execFileSync, spawnSync } from 'child_process';
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
 * Runs one eval against `tool` (a shell command) and checks that every answer was valid. Each
 * test file passes its own `work` name: run.sh copies the runner and compiles `manual` into its
 * work folder when that is missing or stale (rm -rf first), so two jest workers sharing one
 * folder could pull it from under each other.
 */
export function expectOutcomeSuccess(work: string, name: string, tool: string, args: string[] = SMALL[name]): void {
  let stdout: string;
  try {
    stdout = execFileSync('bash', [path.join(gradbench, 'run.sh'), name, tool, '--', ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, GRADBENCH_WORK: path.join(os.tmpdir(), `gradbench-work-${work}`) },
    });
  } catch (e: any) {
    throw new Error(`run.sh ${name} failed:\n${e.stdout}\n${e.stderr}`);
  }
  expect(stdout).not.toMatch(/INVALID|FAILED/);
  expect(stdout).toMatch(/^outcome success$/m);
  // Every evaluation row is there: two functions per size.
  expect(stdout.match(/ valid$/gm)?.length ?? 0).toBeGreaterThanOrEqual(2);
}
