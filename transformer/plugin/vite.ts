// `tsad/vite`: tsad in Vite (and Rollup, whose plugin interface Vite's is). `plugins: [tsad()]`
// in vite.config.ts compiles the derivatives of every TypeScript module that uses tsad, with the
// project's type checker behind it (project.ts), before Vite strips the types. A tsad error
// fails the build, or shows in the dev server's overlay, at its file, line and column. In the
// dev server an edit to any TypeScript file re-transforms every module tsad compiled: a call
// site `grad(f)` depends on the body of `f` wherever it lives, so none is served stale.
import { nodeHost } from './host';
import { Projects, TsadBuildError, mayUseTsad } from './project';

export interface TsadPluginOptions {
  /** An internal error's diagnostic (TSAD9000) carries its stack, as under TSAD_VERBOSE=1. */
  readonly verbose?: boolean;
}

const TYPESCRIPT_MODULE = /\.[cm]?tsx?$/;

// The parts of Vite's and Rollup's plugin interfaces this plugin uses, so that tsad needs
// neither package to build; they check it structurally where it is used.
interface TransformContext {
  warn(message: string): void;
  error(e: { message: string; id?: string; loc?: { file?: string; line: number; column: number } }): never;
}
interface ModuleNode {
  readonly file: string | null;
}
interface HotUpdateContext {
  readonly file: string;
  readonly modules: ModuleNode[];
  readonly server: { readonly moduleGraph: { getModulesByFile(file: string): Set<ModuleNode> | undefined } };
}

/** What the plugin adds to Vite's configuration (Rollup has no such hook and ignores it). */
interface ConfigAddition {
  readonly ssr: { readonly external: string[] };
  readonly optimizeDeps: { readonly include: string[] };
}

export interface TsadVitePlugin {
  readonly name: 'tsad';
  readonly enforce: 'pre';
  config(): ConfigAddition;
  transform(this: TransformContext, code: string, id: string): { code: string; map: unknown } | null;
  handleHotUpdate(context: HotUpdateContext): ModuleNode[] | undefined;
}

/** The file of a module id without Vite's query (`?v=…`, `?import`). */
function fileOf(id: string): string {
  const query = id.indexOf('?');
  return query < 0 ? id : id.slice(0, query);
}

export default function tsad(options: TsadPluginOptions = {}): TsadVitePlugin {
  const projects = new Projects(nodeHost(undefined, { verbose: options.verbose === true }), 'esm', 'tsad: cannot build:');
  const compiled = new Set<string>();
  return {
    name: 'tsad',
    enforce: 'pre',
    // Compiled modules import tsad's runtime (the helpers their derivatives call), which is
    // CommonJS. Vite converts a dependency it finds under node_modules, but not a linked one
    // (`npm link`, a workspace): there the dev server would serve the CommonJS file as an ES
    // module. So the runtime is always a dependency: Node loads it for SSR, and the browser gets
    // it pre-bundled.
    config: () => ({ ssr: { external: ['tsad'] }, optimizeDeps: { include: ['tsad'] } }),
    transform(code, id) {
      const file = fileOf(id);
      if (!TYPESCRIPT_MODULE.test(file) || file.includes('/node_modules/') || id.startsWith('\0') || !mayUseTsad(code)) return null;
      try {
        const out = projects.compile(file, code);
        compiled.add(file);
        for (const note of out.notes) this.warn(note);
        return { code: out.code, map: out.map === undefined ? null : JSON.parse(out.map) };
      } catch (e) {
        if (!(e instanceof TsadBuildError)) throw e;
        const loc = e.place && { file: e.place.file, line: e.place.line, column: e.place.column - 1 };
        return this.error({ message: e.message, id: file, ...(loc ? { loc } : {}) });
      }
    },
    handleHotUpdate({ file, modules, server }) {
      if (!TYPESCRIPT_MODULE.test(file)) return undefined;
      const affected = new Set(modules);
      for (const f of compiled) for (const m of server.moduleGraph.getModulesByFile(f) ?? []) affected.add(m);
      return [...affected];
    },
  };
}

// CommonJS consumers and `import tsad from 'tsad/vite'` in an ES module config both get the factory.
module.exports = Object.assign(tsad, { default: tsad });
