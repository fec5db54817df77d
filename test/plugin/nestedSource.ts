// The nested functions of deepNesting.test.ts, and a build that stops before printing, shared by
// the test and its small-stack worker (deepOnSmallStack.ts).
import type * as ts from 'typescript';
import { diagnosticReporter, formatDiagnostic, rewriteSourceFile } from '../../transformer/plugin/rewrite';
import { nodeHost } from '../../transformer/plugin/host';

export type Kind = 'if' | 'for';

/**
 * `depth` conditionals (each taken: x > -k - 1 at x = 0.8) or counted loops (once each, the
 * innermost six twice), with one update of y per level, as a marked function when `marked`.
 */
export function nested(kind: Kind, depth: number, marked: boolean): string {
  const lines = marked ? ["import { differentiable, grad } from 'tsad';", 'export const f = differentiable((x: number): number => {'] : ['export const f = (x: number): number => {'];
  lines.push('  let y = x;');
  for (let k = 0; k < depth; k++) {
    if (kind === 'if') lines.push(`if (x > ${-k - 1}) {`, 'y = 0.9 * y + 0.1 * Math.sin(y + x);');
    else lines.push(`for (let i = 0; i < ${k >= depth - 6 ? 2 : 1}; i++) {`, 'y = 0.9 * y + 0.1 * Math.sin(y + i * x);');
  }
  for (let k = 0; k < depth; k++) lines.push('}');
  lines.push('  return y;', marked ? '});' : '};');
  if (marked) lines.push('export const g = grad(f);');
  return lines.join('\n') + '\n';
}

/**
 * TypeScript's own diagnostics of `source` (as file `fileName`, importing `tsad` from `runtime`,
 * host.ts's runtimeEntry()) and tsad's, from its transformer alone: no printing, so TypeScript's
 * emitter never runs.
 */
export function diagnosticsWithoutPrinting(tsApi: typeof ts, fileName: string, runtime: string, source: string): { typeScript: number; tsad: string[] } {
  const options: ts.CompilerOptions = { target: tsApi.ScriptTarget.ES2022, module: tsApi.ModuleKind.CommonJS, strict: true, skipLibCheck: true, types: [], paths: { tsad: [runtime] } };
  const host = tsApi.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, onError, create) => (name === fileName ? tsApi.createSourceFile(name, source, version, true) : getSourceFile(name, version, onError, create));
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === fileName || fileExists(name);
  const program = tsApi.createProgram([fileName], options, host);
  const file = program.getSourceFile(fileName)!;
  const typeScript = program.getSemanticDiagnostics(file).length;
  const found: ts.Diagnostic[] = [];
  const report = diagnosticReporter(tsApi, (d) => found.push(d));
  tsApi.transform(file, [(ctx) => (sf) => rewriteSourceFile(nodeHost(tsApi), program.getTypeChecker(), ctx, sf, report)], options);
  return { typeScript, tsad: found.map((d) => formatDiagnostic(tsApi, d)) };
}
