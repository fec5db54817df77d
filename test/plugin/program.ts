// A whole multi-file program through the ts-patch entry (`tsad/transformer`'s default export),
// driven through TypeScript's API the way tspc drives it: one transformer factory per program,
// diagnostics through `extras.addDiagnostic`, every file emitted in one `program.emit()`.
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import tsadTransformer from '../../transformer/plugin/index';
import { runtimeEntry } from '../../transformer/plugin/transform';
import { workDir } from './harness';

let counter = 0;

export interface ProgramBuild {
  readonly dir: string;
  /** Emitted JavaScript by source name (`helper.ts` -> its .js text). */
  readonly js: Record<string, string>;
  readonly diagnostics: readonly ts.Diagnostic[];
  /** TypeScript's own diagnostics for the project's files. */
  readonly typeErrors: readonly ts.Diagnostic[];
  /** `file(line,col): TSADxxxx` for each diagnostic, file relative to the project. */
  readonly where: readonly string[];
  /** Loads an emitted module (its imports resolve to the other emitted files). */
  require(name: string): any;
}

export function buildProgram(files: Record<string, string>, options: ts.CompilerOptions = {}): ProgramBuild {
  const dir = path.join(workDir(), `program${counter++}`);
  const out = path.join(dir, 'dist');
  fs.mkdirSync(out, { recursive: true });
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  const compilerOptions: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    strict: true,
    skipLibCheck: true,
    types: [],
    outDir: out,
    paths: { tsad: [runtimeEntry()] },
    ...options,
  };
  const program = ts.createProgram(
    Object.keys(files).map((n) => path.join(dir, n)),
    compilerOptions,
  );
  const own = (sf: ts.SourceFile) => path.relative(dir, sf.fileName) in files;
  const typeErrors = program
    .getSourceFiles()
    .filter(own)
    .flatMap((sf) => ts.getPreEmitDiagnostics(program, sf));
  const diagnostics: ts.Diagnostic[] = [];
  const before = tsadTransformer(program, {}, { ts, addDiagnostic: (d) => void diagnostics.push(d) });
  const js: Record<string, string> = {};
  program.emit(
    undefined,
    (name, text, _bom, _onError, sources) => {
      // Only the project's own files (tsad's runtime is part of the program, but resolves from
      // the package when the emitted code runs).
      const source = sources?.[0] && path.relative(dir, sources[0].fileName);
      if (!source || !(source in files) || !name.endsWith('.js')) return;
      js[source] = text;
      fs.writeFileSync(path.join(out, source.replace(/\.ts$/, '.js')), text);
    },
    undefined,
    false,
    { before: [before] },
  );
  const where = diagnostics.map((d) => {
    const { line, character } = d.file!.getLineAndCharacterOfPosition(d.start!);
    return `${path.relative(dir, d.file!.fileName)}(${line + 1},${character + 1}): ${ts.flattenDiagnosticMessageText(d.messageText, '\n').split(':')[0]}`;
  });
  return { dir, js, diagnostics, typeErrors, where, require: (name) => require(path.join(out, name.replace(/\.ts$/, '.js'))) };
}
