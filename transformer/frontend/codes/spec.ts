// The shape of a row of the diagnostic code tables (plugin.ts, lowering.ts).

export interface DiagnosticSpec {
  /** Short title used in docs/diagnostics.md. */
  readonly title: string;
  /** How to fix it; appended to every message with this code. */
  readonly hint?: string;
}
