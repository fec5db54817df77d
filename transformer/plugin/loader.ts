// The loader behind `node --import tsad/register app.ts` (or `node -r tsad/register app.ts`): run
// TypeScript with tsad's derivatives compiled in and no build step, for scripts. Each TypeScript file is compiled
// when it is first required, through a language service over its project (the tsconfig.json
// found from the file upwards), so the type checker follows calls into other files exactly as
// under tspc. Nothing is cached between runs, so a derivative is never stale.
//
// The output is CommonJS whatever the tsconfig says: Node's CommonJS loader is the one whose
// file extensions a module can extend, and ES module hooks (registerHooks.ts) hand TypeScript
// files to it, which is what makes `--import` work as well as `-r`.
import * as path from 'path';
import nodeModule = require('module');
import { pathToFileURL } from 'url';
import { nodeHost } from './host';
import { Projects, TYPESCRIPT_EXTENSIONS } from './project';
import type { Host } from '../host';

/** Where a file is compiled: as CommonJS with inline source maps, so stack traces point into it. */
export class Loader {
  private readonly projects: Projects;

  constructor(host: Host = nodeHost()) {
    this.projects = new Projects(host, 'commonjs', 'tsad/register: cannot run this program:');
  }

  compile(file: string): string {
    const compiled = this.projects.compile(file);
    // As tsc prints them: a note says how a function runs (taped), and the program goes on.
    for (const note of compiled.notes) process.stderr.write(`${note}\n`);
    return compiled.code;
  }
}

/** Set on `process` once installed: two copies of tsad in one process install one loader. */
const INSTALLED = Symbol.for('tsad.register');

type CompileHook = (module: { _compile(code: string, filename: string): void }, filename: string) => void;

interface ModuleInternals {
  _resolveFilename(request: string, parent: { filename?: string | null } | undefined, ...rest: unknown[]): string;
}

const JS_TO_TS: Readonly<Record<string, readonly string[]>> = { '.js': ['.ts', '.tsx'], '.cjs': ['.cts'], '.mjs': ['.mts'] };

/**
 * TypeScript's own convention for ES module output: `import './model.js'` names the file that
 * model.ts becomes. When no such JavaScript file exists, a TypeScript file importing it gets
 * its TypeScript source, as tsc's module resolution does.
 */
function resolveJsToTs(internals: ModuleInternals): void {
  const resolve = internals._resolveFilename;
  internals._resolveFilename = function (request, parent, ...rest) {
    try {
      return resolve.call(this, request, parent, ...rest);
    } catch (e) {
      const ext = path.extname(request);
      const fromTypeScript = parent?.filename && TYPESCRIPT_EXTENSIONS.some((x) => parent.filename!.endsWith(x));
      if (!fromTypeScript || !request.startsWith('.') || !JS_TO_TS[ext]) throw e;
      for (const ts of JS_TO_TS[ext]) {
        try {
          return resolve.call(this, request.slice(0, -ext.length) + ts, parent, ...rest);
        } catch {}
      }
      throw e;
    }
  };
}

/** Installs the loader in this process; safe to call more than once. */
export function install(): void {
  const registry = process as unknown as { [INSTALLED]?: boolean };
  if (registry[INSTALLED]) return;
  registry[INSTALLED] = true;
  const loader = new Loader();
  const extensions = (nodeModule as unknown as { _extensions: Record<string, CompileHook> })._extensions;
  for (const ext of TYPESCRIPT_EXTENSIONS) extensions[ext] = (m, filename) => m._compile(loader.compile(filename), filename);
  resolveJsToTs(nodeModule as unknown as ModuleInternals);
  process.setSourceMapsEnabled(true);
  // Node 20.6 and later: the ES module loader (used for the entry under --import) must hand
  // TypeScript files to the CommonJS loader above instead of refusing their extension.
  const register = (nodeModule as { register?: (specifier: string, parentURL?: string) => void }).register;
  if (register) register(pathToFileURL(path.join(__dirname, 'registerHooks.js')).href);
}
