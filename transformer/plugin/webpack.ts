// `tsad/webpack`: a webpack loader. `{ test: /\.ts$/, use: 'tsad/webpack' }` compiles each
// TypeScript module with tsad's derivatives and the project's type checker behind it
// (project.ts) to JavaScript, so no other TypeScript loader is needed. A tsad error is a module
// build error whose text names file, line, column and code. In watch mode every TypeScript file
// of the project is a dependency of each module tsad compiled: a call site's derivative inlines
// the bodies of the functions it differentiates, in whatever file they are.
import { nodeHost } from './host';
import { Projects, TsadBuildError } from './project';
import type { TsadPluginOptions } from './vite';

// The parts of webpack's loader context this loader uses (tsad does not depend on webpack).
interface LoaderContext {
  readonly resourcePath: string;
  getOptions?(): TsadPluginOptions | undefined;
  async(): (error: Error | null, code?: string, map?: string) => void;
  addDependency(file: string): void;
  emitWarning(warning: Error): void;
}

let shared: Projects | undefined;

function projects(options: TsadPluginOptions): Projects {
  shared ??= new Projects(nodeHost(undefined, { verbose: options.verbose === true }), 'esm', 'tsad: cannot build:');
  return shared;
}

export default function tsadLoader(this: LoaderContext, source: string): void {
  const done = this.async();
  try {
    const compiled = projects(this.getOptions?.() ?? {}).compile(this.resourcePath, source);
    for (const file of compiled.inputs) if (file !== this.resourcePath) this.addDependency(file);
    for (const note of compiled.notes) this.emitWarning(new Error(note));
    done(null, compiled.code, compiled.map);
  } catch (e) {
    done(e instanceof Error ? e : new TsadBuildError('tsad: cannot build:', [String(e)]));
  }
}

module.exports = Object.assign(tsadLoader, { default: tsadLoader });
