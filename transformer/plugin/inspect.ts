// `tsad inspect FILE.ts`: every stage between a marked TypeScript function and the code the
// plugin emits for it — the Linear A it lowers to, its JVP, the unzipped primal and linear
// parts, the transposed linear part, and the generated TypeScript. For debugging derivatives and
// for learning how the passes work; it prints exactly what the plugin compiles.
import * as fs from 'fs';
import * as path from 'path';
import type * as ts from 'typescript';
import { InputError, Io } from './io';
import type { Stage } from './stages';
import { markerOf, useTypeScript } from '../frontend/markers';
import { TapedModule } from '../taped';
import { stagesOf } from '../stages';
import { formatDiagnostic, toDiagnostic } from './rewrite';
import { Host, nodeHost, runtimeEntry } from './host';

export interface InspectOptions {
  readonly file: string;
  readonly fn?: string;
  readonly stages: readonly Stage[];
}

const TS_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts'];

/**
 * Why FILE cannot be inspected, or undefined when it is a TypeScript source file. Checked
 * before the compiler sees it: TypeScript silently ignores a file it would not compile
 * (`.js` without allowJs, `.json`, a directory), and "no marked functions" would mislead.
 */
function unsuitable(file: string): string | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (e) {
    return `cannot read ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`;
  }
  const kinds = TS_EXTENSIONS.join(', ');
  if (stat.isDirectory()) return `${file} is a directory; tsad inspect takes one TypeScript file (${kinds})`;
  const lower = file.toLowerCase();
  if (/\.d\.[mc]?ts$/.test(lower)) return `${file} is a declaration file: it has no function bodies to differentiate; inspect the .ts source`;
  const ext = path.extname(lower);
  if (ext === '.lina') return `${file} is a Linear A program; use 'tsad ir check ${file}' and the other 'tsad ir' commands`;
  if (['.js', '.jsx', '.mjs', '.cjs'].includes(ext)) return `${file} is JavaScript; tsad inspect reads the TypeScript source of marked functions (${kinds})`;
  if (!TS_EXTENSIONS.includes(ext)) return `${file} is not a TypeScript file; tsad inspect reads ${kinds}`;
  try {
    fs.accessSync(file, fs.constants.R_OK);
  } catch (e) {
    return `cannot read ${file}: ${(e as Error).message}`;
  }
  return undefined;
}

/** Syntax errors are shown this many at a time; the first usually explains the rest. */
const MAX_SYNTAX_ERRORS = 5;

export function inspectFile(o: InspectOptions, io: Io): number {
  const problem = unsuitable(o.file);
  if (problem) throw new InputError(problem);
  const file = path.resolve(o.file);
  let host: Host;
  try {
    host = nodeHost();
  } catch {
    throw new InputError('tsad inspect needs the typescript package: npm install --save-dev typescript');
  }
  const tsApi = host.ts;
  useTypeScript(tsApi);
  const program = tsApi.createProgram([file], {
    target: tsApi.ScriptTarget.ES2022,
    module: tsApi.ModuleKind.CommonJS,
    strict: true,
    skipLibCheck: true,
    types: [],
    paths: { tsad: [runtimeEntry()] },
  });
  const sf = program.getSourceFile(file);
  if (!sf) throw new InputError(`TypeScript did not load ${o.file} as a source file`);
  // Lowering half-parsed code would report errors about the parser's recovery, not the code.
  const syntax = program.getSyntacticDiagnostics(sf);
  if (syntax.length > 0) {
    syntax.slice(0, MAX_SYNTAX_ERRORS).forEach((d) => io.err(formatTsDiagnostic(tsApi, d)));
    const more = syntax.length - MAX_SYNTAX_ERRORS;
    io.err(`tsad: ${o.file} has syntax errors${more > 0 ? ` (${more} more not shown)` : ''}; fix them first`);
    return 1;
  }
  const checker = program.getTypeChecker();
  const found = stagesOf(host, checker, sf, o);
  if (found.functions.length === 0) {
    const have = found.marked;
    throw new InputError(
      o.fn === undefined ? `no marked functions in ${o.file} (mark one with /** @differentiable */)` : `no marked function '${o.fn}' in ${o.file}${have.length ? ` (marked: ${have.join(', ')})` : ''}`,
    );
  }
  let status = 0;
  const several = o.stages.length > 1 || found.functions.length > 1;
  // What the plugin runs taped is no failure: the note says so and why. No copy is made here, so
  // the context is only the factory.
  const taped = new TapedModule(tsApi, checker, { factory: tsApi.factory } as ts.TransformationContext, sf, true);
  for (const { name, decl, stages, error } of found.functions) {
    for (const [stage, text] of stages) io.out(several ? `// ---- ${name}: ${stage} ----\n${text.trimEnd()}\n` : text.trimEnd());
    if (error && taped.wouldRunTaped(error, decl, () => markerOf(decl, checker))) {
      io.out(formatDiagnostic(tsApi, toDiagnostic(tsApi, taped.note(decl, error), sf)));
    } else if (error) {
      io.err(formatDiagnostic(tsApi, toDiagnostic(tsApi, error, sf)));
      status = 1;
    }
  }
  return status;
}

function formatTsDiagnostic(tsApi: typeof ts, d: ts.Diagnostic): string {
  const text = tsApi.flattenDiagnosticMessageText(d.messageText, '\n');
  if (!d.file || d.start === undefined) return `error TS${d.code}: ${text}`;
  const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
  return `${d.file.fileName}:${line + 1}:${character + 1} - error TS${d.code}: ${text}`;
}
