// The playground's in-memory library (TypeScript's lib files and tsad's runtime sources), read
// from disk as the page's bundle holds them, and its emitted modules run as CommonJS.
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import * as runtime from '../../runtime/index';
import { LIB_DIR, type Library, RUNTIME_DIR } from '../../playground/src/compile';

const root = path.resolve(__dirname, '../..');

export function nodeLibrary(): Library {
  const files = new Map<string, string>();
  const libDir = path.dirname(require.resolve('typescript/lib/lib.es5.d.ts'));
  for (const name of fs.readdirSync(libDir)) {
    if (/^lib\.(es5|es20\d\d(\.\w+)*|decorators(\.\w+)*)\.d\.ts$/.test(name)) files.set(`${LIB_DIR}/${name}`, fs.readFileSync(path.join(libDir, name), 'utf8'));
  }
  for (const name of ['index.ts', 'tape.ts', 'webgpu/index.ts', 'webgpu/device.ts', 'webgpu/plan.ts', 'webgpu/run.ts']) {
    files.set(`${RUNTIME_DIR}/${name}`, fs.readFileSync(path.join(root, 'runtime', name), 'utf8'));
  }
  return { ts, files };
}

/** The ES module `runnable` emits, run as CommonJS with `tsad` the runtime: its exports. */
export function runModule(js: string): Record<string, any> {
  const cjs = ts.transpileModule(js, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText;
  const module = { exports: {} as Record<string, any> };
  const requireTsad = (name: string) => {
    if (name !== 'tsad') throw new Error(`unexpected import ${name} (a CPU module imports only tsad)`);
    return runtime;
  };
  new Function('require', 'module', 'exports', cjs)(requireTsad, module, module.exports);
  return module.exports;
}
