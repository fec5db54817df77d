// The ts-jest AST transformer (`{ name, version, factory }`). ts-jest hands us its compiler;
// tsad needs the type checker, so ts-jest must run with isolatedModules off. Users reach it as
// `tsad/jest` (see jest.ts); the transformer form adds it to ts-jest by this module's path, with a
// fixed version, because its own cache key already covers the import closure.
import type * as ts from 'typescript';
import { rewriteSourceFile, diagnosticReporter, formatDiagnostic } from './rewrite';
import { nodeHost } from './host';

export const name = 'tsad';
export const version = '1';

interface TsCompilerLike {
  readonly program?: ts.Program;
  readonly _languageService?: ts.LanguageService;
  readonly configSet?: { readonly compilerModule?: typeof ts };
}

export function factory(compiler: TsCompilerLike): ts.TransformerFactory<ts.SourceFile> {
  const host = nodeHost(compiler.configSet?.compilerModule);
  const tsApi = host.ts;
  return (ctx) => (sf) => {
    // The language service's current program is the one emitting `sf`; ts-jest's `program`
    // field can lag behind it, and a checker only knows the nodes of its own program.
    const current = compiler._languageService?.getProgram();
    const program = current?.getSourceFile(sf.fileName) === sf ? current : compiler.program;
    if (!program) throw new Error('tsad/jest needs the type checker: run ts-jest with isolatedModules: false');
    const errors: ts.Diagnostic[] = [];
    const out = rewriteSourceFile(
      host,
      program.getTypeChecker(),
      ctx,
      sf,
      // A note (a function that runs taped) is no error: the test runs.
      diagnosticReporter(tsApi, (d) => {
        if (d.category === tsApi.DiagnosticCategory.Error) errors.push(d);
      }),
    );
    if (errors.length > 0) throw new Error(`tsad: ${errors.length} error(s)\n${errors.map((d) => formatDiagnostic(tsApi, d)).join('\n')}`);
    return out;
  };
}
