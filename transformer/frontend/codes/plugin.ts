// Codes TSAD1001-1099: markers, call sites, project set-up.
import type { DiagnosticSpec } from '../diagnostics';

export const PLUGIN_CODES: Readonly<Record<number, DiagnosticSpec>> = {};
