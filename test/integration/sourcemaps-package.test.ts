// The source maps the package ships resolve: every `sources` entry of every packed .js.map is
// either a file in the package or carried inline (`sourcesContent`). The package holds dist/
// but not the TypeScript sources, so without inline sources a debugger or a stack-trace tool
// would find nothing behind `../../runtime/index.ts`.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

const root = path.resolve(__dirname, '../..');

/** The files `npm pack` would put in the package, relative to the root (dist/ is built by `npm test`). */
function packedFiles(): string[] {
  const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', timeout: 120_000 });
  expect(r.status).toBe(0);
  // npm may print warnings before the JSON.
  const json = JSON.parse(r.stdout.slice(r.stdout.indexOf('[')));
  return json[0].files.map((f: { path: string }) => f.path.split(path.sep).join('/'));
}

test('every packed source map resolves inside the package or inline', () => {
  const files = packedFiles();
  const packed = new Set(files);
  const maps = files.filter((f) => f.endsWith('.js.map'));
  expect(maps).toEqual(expect.arrayContaining(['dist/runtime/index.js.map', 'dist/transformer/plugin/index.js.map']));
  const unresolved: string[] = [];
  for (const file of maps) {
    const map = JSON.parse(fs.readFileSync(path.join(root, file), 'utf8'));
    expect(map.version).toBe(3);
    expect(map.sources.length).toBeGreaterThan(0);
    map.sources.forEach((source: string, i: number) => {
      const inline = typeof map.sourcesContent?.[i] === 'string' && map.sourcesContent[i].length > 0;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), map.sourceRoot ?? '', source));
      if (!inline && !packed.has(target)) unresolved.push(`${file}: ${source}`);
    });
  }
  expect(unresolved).toEqual([]);
}, 120_000);

test('the inline sources are the sources the JavaScript was built from', () => {
  const map = JSON.parse(fs.readFileSync(path.join(root, 'dist/runtime/index.js.map'), 'utf8'));
  expect(map.sources).toEqual(['../../runtime/index.ts']);
  // A line of the runtime that no build step rewrites.
  expect(map.sourcesContent[0]).toContain('export function differentiable<F extends Fn>(fn: F, options?: DifferentiableOptions): F;');
});
