// Codes TSAD2001-2099: notes. A note is not a problem: it tells how the build compiled
// something (a function that runs taped) and never fails the build.
import type { DiagnosticSpec } from './spec';

export const NOTE_CODES: Readonly<Record<number, DiagnosticSpec>> = {
  2001: {
    title: 'runs taped',
    hint: 'taped code costs memory and time per operation at run time (docs/frontend.md, "Taped mode"); write the recursion as a loop (and call functions by name) for compiled code, or mark the function @differentiable({ taped: false }) to make this the error it was (TSAD1109, TSAD1105)',
  },
};

/** Is this code a note (TSAD2xxx) rather than an error? */
export function isNote(code: number): boolean {
  return code >= 2000 && code < 3000;
}
