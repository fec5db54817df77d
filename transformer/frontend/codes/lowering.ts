// Codes TSAD1100-1199: TypeScript outside the differentiable subset.
import type { DiagnosticSpec } from '../diagnostics';

export const LOWERING_CODES: Readonly<Record<number, DiagnosticSpec>> = {};
