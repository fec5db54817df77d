// Temporary projects that consume this repository as their `tsad` package, for the tests that
// run real builds (tspc, the TypeScript API, ts-jest).
import * as fs from 'fs';
import * as path from 'path';
import { tempDir } from '../temp';

export const root = path.resolve(__dirname, '../..');
export const nm = path.join(root, 'node_modules');
export const tspc = path.join(nm, 'ts-patch', 'bin', 'tspc.js');

/** A fresh directory with `tsad` and the given packages linked into node_modules, and the files (removed after the file's tests). */
export function project(files: Record<string, string>, links: readonly string[] = ['typescript', 'ts-patch'], prefix = 'tsad-int-'): string {
  const dir = tempDir(prefix);
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync(root, path.join(dir, 'node_modules', 'tsad'), 'dir');
  for (const l of links) {
    fs.mkdirSync(path.dirname(path.join(dir, 'node_modules', l)), { recursive: true });
    fs.symlinkSync(path.join(nm, l), path.join(dir, 'node_modules', l), 'dir');
  }
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}
