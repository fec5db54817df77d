// User-facing failures of the transformer. Deep code throws TsadDiagnosticError; the plugin
// turns it into a ts.Diagnostic in exactly one place. Anything else that escapes is a bug.
import type * as ts from 'typescript';
import { PLUGIN_CODES } from './codes/plugin';
import { LOWERING_CODES } from './codes/lowering';
import { INTERNAL_CODES } from './codes/internal';
import { LIMIT_CODES } from './codes/limits';
import { NOTE_CODES } from './codes/notes';
import type { DiagnosticSpec } from './codes/spec';

export type { DiagnosticSpec };

export const DIAGNOSTIC_CODES: Readonly<Record<number, DiagnosticSpec>> = { ...PLUGIN_CODES, ...LOWERING_CODES, ...LIMIT_CODES, ...NOTE_CODES, ...INTERNAL_CODES };

const BRAND = Symbol.for('tsad.diagnostic');

export class TsadDiagnosticError extends Error {
  readonly [BRAND] = true;
  constructor(
    readonly code: number,
    readonly node: ts.Node | undefined,
    message: string,
    /** More problems found in the same function (reported together). */
    readonly related: readonly TsadDiagnosticError[] = [],
  ) {
    super(message);
    this.name = 'TsadDiagnosticError';
  }

  /** "TSAD1001" */
  get codeText(): string {
    return `TSAD${this.code}`;
  }
}

export function isTsadDiagnostic(e: unknown): e is TsadDiagnosticError {
  return typeof e === 'object' && e !== null && (e as Record<symbol, unknown>)[BRAND] === true;
}

/** Message text with a hint appended: the code's, unless the case has a fitting one of its own. */
export function diagnosticMessage(code: number, message: string, own?: string): string {
  const hint = own ?? DIAGNOSTIC_CODES[code]?.hint;
  return hint ? `${message}\n  hint: ${hint}` : message;
}

/**
 * Code 0: a problem TypeScript reports itself (a syntax error, an unknown name). tsad adds no
 * second diagnostic for it, so the user sees one error, not a cascade; the call site that needed
 * the function still fails.
 */
export const REPORTED_BY_TYPESCRIPT = 0;

export function reportedByTypeScript(node: ts.Node, code: number, message: string): never {
  // In JavaScript sources (allowJs without checkJs) TypeScript may say nothing: then it is ours.
  if (/\.[cm]?jsx?$/.test(node.getSourceFile().fileName)) fail(code, node, message);
  throw new TsadDiagnosticError(REPORTED_BY_TYPESCRIPT, node, 'TypeScript reports an error here');
}

/** `hint`: the fix for this case when the code's generic hint would not fit it. */
export function fail(code: number, node: ts.Node | undefined, message: string, hint?: string): never {
  throw new TsadDiagnosticError(code, node, diagnosticMessage(code, message, hint));
}
