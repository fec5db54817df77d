// The ts-patch entry (`"plugins": [{ "transform": "tsad/transformer" }]`): a program
// transformer factory `(program, config, extras) => TransformerFactory<SourceFile>`.
// Diagnostics go through `extras.addDiagnostic`, so `tspc` prints them and fails the build.
import type * as ts from 'typescript';
import { Report, diagnosticReporter, formatDiagnostic, rewriteSourceFile } from './rewrite';
import { trackDerivativeDependencies } from './fingerprint';
import { nodeHost } from './host';

export interface TransformerExtras {
  readonly ts?: typeof ts;
  readonly addDiagnostic?: (d: ts.Diagnostic) => unknown;
}

/** One reporter per program: a problem met from several files (or emit batches) is reported once. */
const reporters = new WeakMap<ts.Program, Report>();

export default function tsadTransformer(program: ts.Program, config?: unknown, extras: TransformerExtras = {}): ts.TransformerFactory<ts.SourceFile> {
  const host = nodeHost(extras.ts, config);
  const tsApi = host.ts;
  // Call sites compile other files' function bodies: the incremental builder must know.
  trackDerivativeDependencies(tsApi, program);
  const checker = program.getTypeChecker();
  let report = reporters.get(program);
  if (!report) {
    report = diagnosticReporter(tsApi, (d) => {
      // tsc fails a build with any diagnostic at all, so a note (TSAD2xxx: a function runs
      // taped) is printed instead: the build goes on and succeeds.
      if (d.category !== tsApi.DiagnosticCategory.Error) tsApi.sys.write(`${formatDiagnostic(tsApi, d)}${tsApi.sys.newLine}`);
      else if (extras.addDiagnostic) extras.addDiagnostic(d);
      else throw new Error(tsApi.flattenDiagnosticMessageText(d.messageText, '\n'));
    });
    reporters.set(program, report);
  }
  const reportOnce = report;
  return (ctx) => (sf) => rewriteSourceFile(host, checker, ctx, sf, reportOnce);
}

// CommonJS consumers (ts-patch's `require`) get the factory itself as well as `default`.
module.exports = Object.assign(tsadTransformer, { default: tsadTransformer });
