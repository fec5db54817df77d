// reduce over arrays, strict, and `sreduce`, its erasure over sparse tangent arrays
// (docs/linear-a.md, "scan and reduce"; the shared rules are in fold.ts):
//
//   let y = reduce(n, ē, x̄s) [|ā, b̄| { body }]    y = e ⊙ x_0 ⊙ … ⊙ x_{n−1}, left to right
//
// The operator is a body, so any associative lambda is reduced (a non-commutative one too: the
// fold keeps the order), and `add`, `mul` (zeros included), `min` and `max` need no special
// case to be exact: the derivative is the linear recurrence `lfold` (linearFold.ts) whose
// transpose `lrfold` runs backwards through the per-element partials.
import { foldRule } from './fold';

export const reduce = foldRule('reduce', 'reduce', false);
export const sreduce = foldRule('sreduce', 'reduce', true);
