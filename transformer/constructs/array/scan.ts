// scan (inclusive) over arrays, strict, and `sscan`, its erasure over sparse tangent arrays
// (docs/linear-a.md, "scan and reduce"; the shared rules are in fold.ts):
//
//   let ȳ = scan(n, ē, x̄s) [|ā, b̄| { body }]      y_i = y_{i−1} ⊙ x_i, y_{−1} = e
//
// Its derivative is the linear recurrence `lscan` (linearFold.ts), whose transpose `lrscan` runs
// backwards; for `add` that is the suffix sums of the cotangents.
import { foldRule } from './fold';

export const scan = foldRule('scan', 'scan', false);
export const sscan = foldRule('sscan', 'scan', true);
