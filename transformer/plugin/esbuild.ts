// `tsad/esbuild`: tsad in esbuild. `plugins: [tsad()]` in esbuild's build options compiles the
// derivatives of every TypeScript file that uses tsad, with the project's type checker behind
// it (project.ts); esbuild bundles the JavaScript that comes out. A tsad error is an esbuild
// error at its file, line and column; in watch mode the files the derivatives read are watched.
import * as fs from 'fs';
import * as path from 'path';
import { nodeHost } from './host';
import { Projects, TsadBuildError, mayUseTsad } from './project';
import type { TsadPluginOptions } from './vite';

export type { TsadPluginOptions } from './vite';

// The parts of esbuild's plugin interface this plugin uses (tsad does not depend on esbuild).
interface OnLoadArgs {
  readonly path: string;
}
interface OnLoadResult {
  contents?: string;
  loader?: 'js';
  resolveDir?: string;
  watchFiles?: string[];
  warnings?: { text: string }[];
  errors?: { text: string; location?: { file: string; line: number; column: number; lineText: string } | null }[];
}
interface PluginBuild {
  onLoad(options: { filter: RegExp }, callback: (args: OnLoadArgs) => Promise<OnLoadResult | undefined>): void;
}

export interface TsadEsbuildPlugin {
  readonly name: 'tsad';
  setup(build: PluginBuild): void;
}

export default function tsad(options: TsadPluginOptions = {}): TsadEsbuildPlugin {
  return {
    name: 'tsad',
    setup(build) {
      const projects = new Projects(nodeHost(undefined, { verbose: options.verbose === true }), 'esm', 'tsad: cannot build:');
      build.onLoad({ filter: /\.[cm]?tsx?$/ }, async ({ path: file }) => {
        if (file.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        const text = await fs.promises.readFile(file, 'utf8');
        if (!mayUseTsad(text)) return undefined;
        try {
          const out = projects.compile(file, text);
          // esbuild reads an input's inline map and composes it into the bundle's.
          const map = out.map === undefined ? '' : `//# sourceMappingURL=data:application/json;base64,${Buffer.from(out.map).toString('base64')}\n`;
          // In watch mode an edit to any file the derivatives read rebuilds this one.
          return { contents: out.code + map, loader: 'js', resolveDir: path.dirname(file), watchFiles: [...out.inputs], warnings: out.notes.map((text) => ({ text })) };
        } catch (e) {
          if (!(e instanceof TsadBuildError)) throw e;
          const p = e.place;
          return { errors: [{ text: e.message, location: p ? { file: p.file, line: p.line, column: p.column - 1, lineText: p.lineText } : null }] };
        }
      });
    },
  };
}

// CommonJS consumers and `import tsad from 'tsad/esbuild'` in an ES module both get the factory.
module.exports = Object.assign(tsad, { default: tsad });
