// `transform(sourceText, options)`: compile one TypeScript module through tsad in memory, for
// tools, tests and the playground. The tsad runtime resolves from this package. Paths go
// through TypeScript's own system (`ts.sys`), the rest of the host through host.ts.
import type * as ts from 'typescript';
import { rewriteSourceFile, diagnosticReporter, formatDiagnostic } from './rewrite';
import { nodeHost, runtimeEntry } from './host';

export { runtimeEntry };

export interface TransformOptions {
  readonly fileName?: string;
  readonly compilerOptions?: ts.CompilerOptions;
  /** Throw an Error listing every tsad diagnostic as file:line:col (default true). */
  readonly throwOnError?: boolean;
  /** An internal error's diagnostic (TSAD9000) carries its stack, as under TSAD_VERBOSE=1. */
  readonly verbose?: boolean;
  /** `false`: recursion and function values are errors, never taped (the plugin option `taped: false`). */
  readonly taped?: boolean;
}

export interface TransformResult {
  readonly outputText: string;
  readonly sourceMapText?: string;
  /** tsad's diagnostics (the user's own type errors are in `typeErrors`). */
  readonly diagnostics: readonly ts.Diagnostic[];
  readonly typeErrors: readonly ts.Diagnostic[];
  /** Every diagnostic, formatted `file:line:col - error CODE: message`. */
  readonly messages: readonly string[];
}

/** Library and runtime declaration files never change within a process: parse them once. */
const sharedFiles = new Map<string, ts.SourceFile>();

export function transform(sourceText: string, options: TransformOptions = {}): TransformResult {
  const tsad = nodeHost(undefined, { verbose: options.verbose, taped: options.taped });
  const tsApi = tsad.ts;
  const resolve = (name: string) => tsApi.sys.resolvePath(name);
  const fileName = resolve(options.fileName ?? 'input.ts');
  const compilerOptions: ts.CompilerOptions = {
    target: tsApi.ScriptTarget.ES2022,
    module: tsApi.ModuleKind.CommonJS,
    strict: true,
    sourceMap: true,
    skipLibCheck: true,
    types: [],
    paths: { tsad: [runtimeEntry()] },
    ...options.compilerOptions,
  };
  const host = tsApi.createCompilerHost(compilerOptions);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, onError, create) => {
    if (resolve(name) === fileName) return tsApi.createSourceFile(name, sourceText, version, true);
    const key = `${name}|${JSON.stringify(version)}`;
    const cached = sharedFiles.get(key);
    if (cached) return cached;
    const sf = getSourceFile(name, version, onError, create);
    if (sf && name.endsWith('.d.ts')) sharedFiles.set(key, sf);
    return sf;
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => resolve(name) === fileName || fileExists(name);
  const program = tsApi.createProgram([fileName], compilerOptions, host);
  const sf = program.getSourceFile(fileName)!;
  const typeErrors = tsApi.getPreEmitDiagnostics(program, sf);
  const diagnostics: ts.Diagnostic[] = [];
  let outputText = '';
  let sourceMapText: string | undefined;
  const checker = program.getTypeChecker();
  program.emit(
    sf,
    (name, text) => {
      if (name.endsWith('.map')) sourceMapText = text;
      else if (/\.(c|m)?js$/.test(name)) outputText = text;
    },
    undefined,
    false,
    {
      before: [
        (ctx) => (file) =>
          rewriteSourceFile(
            tsad,
            checker,
            ctx,
            file,
            diagnosticReporter(tsApi, (d) => diagnostics.push(d)),
          ),
      ],
    },
  );
  const messages = [...typeErrors, ...diagnostics].map((d) => formatDiagnostic(tsApi, d));
  // Notes (TSAD2xxx) are in `diagnostics` and `messages` but fail nothing.
  const errors = diagnostics.filter((d) => d.category === tsApi.DiagnosticCategory.Error);
  if (errors.length > 0 && options.throwOnError !== false) {
    throw new Error(`tsad: ${errors.length} error(s)\n${errors.map((d) => formatDiagnostic(tsApi, d)).join('\n')}`);
  }
  return { outputText, sourceMapText, diagnostics, typeErrors, messages };
}
