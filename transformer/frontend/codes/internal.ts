// Code TSAD9000: a bug in tsad met while compiling a call site. It is reported like the user's
// problems (at the call and at the function it compiles) so that the rest of the build goes on,
// but its message says whose bug it is.
import type { DiagnosticSpec } from './spec';

export const INTERNAL_ERROR = 9000;

export const INTERNAL_CODES: Readonly<Record<number, DiagnosticSpec>> = {
  [INTERNAL_ERROR]: {
    title: 'internal error (a bug in tsad)',
    hint: 'please report it with the function and the call; TSAD_VERBOSE=1 (or "verbose": true in the plugin entry) prints the stack',
  },
};
