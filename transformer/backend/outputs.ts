// The helper that reports a flat Jacobian's `out` and `offset` arguments that do not fit
// (plan/syntax.ts, `output`), emitted once per module that needs it, as a plain function (no
// import). The wrapper keeps only the tests of the happy path and calls it when one fails: the
// messages stay out of the wrapper, which stays small enough for V8 to inline into the caller's
// loop (460 bytes of bytecode), and the `{ data, rows, cols, offset }` it returns is then never
// allocated when the caller does not keep it.
//
//   tsad$outputError(where, what, length, outName, offsetName, out, offset)  the TypeError or
//       RangeError for an offset that is not a non-negative integer, an `out` that is not a
//       Float64Array, or one shorter than offset + length.
import type * as ts from 'typescript';
import { helperStatements } from './helperSource';

export const OUTPUT_ERROR = 'tsad$outputError';

const SOURCE = `
function tsad$outputError(where, what, length, outName, offsetName, out, offset) {
  if (!Number.isInteger(offset) || offset < 0) return new TypeError(where + ": the offset argument '" + offsetName + "' must be a non-negative integer, got " + String(offset));
  const must = where + ": the output argument '" + outName + "' must be a Float64Array of at least " + length + ' numbers (' + what + ')';
  if (!(out instanceof Float64Array)) return new TypeError(must + ', got ' + (out === null ? 'null' : typeof out));
  return new RangeError(must + (offset ? ' after offset ' + offset : '') + ', got length ' + out.length);
}
`;

export function outputHelpers(t: typeof ts): ts.Statement[] {
  return helperStatements(t, 'tsad-outputs.js', SOURCE);
}
