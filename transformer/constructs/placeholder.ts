// A value of a given type made of literals only (and an empty stack or array for a stack or array type), which
// the cost model charges nothing for: what U fills a residual slot with when the code that
// would compute it does not run (the untaken branch of cond, a loop's empty stacks).
import { construct, lit, tuple } from '../ir/syntax';
import type { Type } from '../ir/syntax';
import type { Builder } from '../ir/build';
import { absentValue } from './absent';
import { spelledSize } from './shared/typeSize';

/**
 * A tuple bigger than this is not spelled out but `absent` (absent/index.ts: O(1) text): a cond's
 * packed slots hold those of every cond inside it, a loop's stacks those of every loop inside it,
 * so spelling them out would cost the depth at every level.
 */
const SPELLED_OUT = 16;

export function placeholder(b: Builder, t: Type): string {
  switch (t.tag) {
    case 'real':
      return b.nl('pad', lit(0), t);
    case 'bool':
      return b.nl('pad', lit(false), t);
    case 'str':
      return b.nl('pad', lit(''), t);
    case 'tuple':
      if (spelledSize(t) > SPELLED_OUT) return absentValue(b, t);
      return b.nl(
        'pad',
        tuple(
          false,
          t.elems.map((e) => placeholder(b, e)),
        ),
        t,
      );
    case 'stack':
      return emptyStack(b, t.elem);
    case 'array':
      return emptyArray(b, t.elem);
  }
}

/** `let a = fill(0, pad) []`: an empty array of `elem`s (no element is written: it costs 0). */
export function emptyArray(b: Builder, elem: Type): string {
  const n = b.nl('len', lit(0), { tag: 'real' });
  return b.nl('empty', construct('fill', [n, placeholder(b, elem)], [], []), { tag: 'array', elem });
}

/** `let st = stack(pad) []`: an empty stack of `elem`s (the operand only gives the type), or `stack(pad, n)` expecting n pushes. */
export function emptyStack(b: Builder, elem: Type, capacity?: string, stride?: string): string {
  const room = capacity === undefined ? [] : stride === undefined ? [capacity] : [capacity, stride];
  return b.nl('stack', construct('stack', [placeholder(b, elem), ...room], [], []), { tag: 'stack', elem });
}
