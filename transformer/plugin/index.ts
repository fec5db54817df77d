// The ts-patch entry (`"plugins": [{ "transform": "tsad/transformer" }]`): a program
// transformer factory `(program, config, extras) => TransformerFactory<SourceFile>`.
// Diagnostics go through `extras.addDiagnostic`, so `tspc` prints them and fails the build.
import type * as ts from 'typescript';
import { rewriteSourceFile, toDiagnostic } from './rewrite';
import { trackDerivativeDependencies } from './fingerprint';

export interface TransformerExtras {
  readonly ts?: typeof ts;
  readonly addDiagnostic?: (d: ts.Diagnostic) => number | void;
}

export default function tsadTransformer(program: ts.Program, _config?: unknown, extras: TransformerExtras = {}): ts.TransformerFactory<ts.SourceFile> {
  const tsApi: typeof ts = extras.ts ?? require('typescript');
  // Call sites compile other files' function bodies: the incremental builder must know.
  trackDerivativeDependencies(tsApi, program);
  const checker = program.getTypeChecker();
  return (ctx) => (sf) =>
    rewriteSourceFile(tsApi, checker, ctx, sf, (e, file) => {
      const d = toDiagnostic(tsApi, e, file);
      if (extras.addDiagnostic) extras.addDiagnostic(d);
      else throw new Error(tsApi.flattenDiagnosticMessageText(d.messageText, '\n'));
    });
}

// CommonJS consumers (ts-patch's `require`) get the factory itself as well as `default`.
module.exports = Object.assign(tsadTransformer, { default: tsadTransformer });
