// The GradBench tool (bench/src/gradbench), built through the plugin with tspc and driven over its
// stdin/stdout protocol, as GradBench's evals drive it. The values are checked by hand here; the
// full runner (../shared/gradbench/run.sh) validates them against GradBench's own checks.
import { spawnSync } from 'child_process';
import * as path from 'path';

const root = path.resolve(__dirname, '../..');
const bench = path.join(root, 'bench');

beforeAll(() => {
  expect(spawnSync(process.execPath, [path.join(root, 'scripts', 'link-tsad.js'), bench]).status).toBe(0);
  const build = spawnSync(process.execPath, [path.join(root, 'node_modules', 'ts-patch', 'bin', 'tspc.js'), '-p', bench], { encoding: 'utf8' });
  // The build is clean: no error and no warning. Notes (TSAD2xxx: bench/src/taped.ts's functions
  // run taped on purpose) are the build saying how it compiled, with their indented lines.
  const output = (build.stdout + build.stderr).replace(/^.* - note TSAD2\d{3}: .*\n(?: {2}.*\n)*/gm, '');
  expect(output).toBe('');
  expect(build.status).toBe(0);
}, 120_000);

function session(messages: object[]): any[] {
  const input = messages.map((m) => JSON.stringify(m)).join('\n') + '\n';
  const r = spawnSync(process.execPath, [path.join(bench, 'dist', 'gradbench', 'tool.js')], { input, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

test('hello: square and its compiled gradient, with one timing per run', () => {
  const [start, define, square, double, missing, unknown] = session([
    { id: 0, kind: 'start', eval: 'hello' },
    { id: 1, kind: 'define', module: 'hello' },
    { id: 2, kind: 'evaluate', module: 'hello', function: 'square', input: 1.5 },
    { id: 3, kind: 'evaluate', module: 'hello', function: 'double', input: 2.25 },
    { id: 4, kind: 'define', module: 'nope' },
    { id: 5, kind: 'evaluate', module: 'hello', function: 'cube', input: 1 },
  ]);
  expect(start).toEqual({ id: 0, tool: 'tsad' });
  expect(define).toEqual({ id: 1, success: true });
  expect(square).toMatchObject({ id: 2, success: true, output: 2.25 });
  expect(double).toMatchObject({ id: 3, success: true, output: 4.5 });
  expect(double.timings).toHaveLength(1);
  expect(double.timings[0].name).toBe('evaluate');
  expect(missing).toEqual({ id: 4, success: false });
  expect(unknown).toMatchObject({ id: 5, success: false });
});
