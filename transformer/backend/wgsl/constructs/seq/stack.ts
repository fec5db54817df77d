// The stacks of a gradient's residuals in sequential code (constructs/stack): a stack is a handle
// h into the heap, where heap[h] is the base of its numbers, heap[h + 1] how many were pushed and
// heap[h + 2] its room. `stack(x, n[, stride])` allocates room for ⌈n⌉ records with the header;
// `put` writes record i's field, `push` doubles the room when it is full (a copy, as the CPU
// path's growing array). Numbers, booleans (0 or 1) and stacks (their handles) are stored; the
// handle is what a stack of stacks holds.
import { NotOnGpu } from '../../lowering';
import { position as positionOf } from '../../../../constructs/stack/position';
import { type SNum, type SeqLowerings, type SeqOps, type SVal, f32Of, snum } from '../../seqLowering';

const handle = (v: SVal | undefined): string => snum(v, 'a stack').code;

function element(v: SVal | undefined): string {
  if (v?.kind !== 'num') throw new NotOnGpu('a stack of arrays or tuples');
  return f32Of(v);
}

/** Record r's field (r, or r·stride + field), `base` values further on: put's and at's operands after the stack (and put's value). */
function position(indices: readonly SVal[]): string {
  const { r, stride, field, base } = positionOf(indices);
  const k = f32Of(snum(r, 'a stack position'));
  const within = stride === undefined ? k : `(${k} * ${f32Of(snum(stride, 'a stride'))} + ${f32Of(snum(field, 'a field'))})`;
  return base === undefined ? within : `(${within} + ${f32Of(snum(base, 'a stack offset'))})`;
}

/** Makes room for `more` values past the stack's size (doubling, as push does) and counts them in. */
function grow(S: SeqOps, h: string, more: string): void {
  const size = S.bind(S.load(`${h} + 1.0`));
  const room = S.bind(S.load(`${h} + 2.0`));
  const need = S.bind(`${size} + ${more}`);
  S.line(`if (${need} > ${room}) {`);
  const grown = S.bind(`max(max(2.0 * ${room}, 8.0), ${need})`);
  const base = S.alloc(grown);
  const old = S.bind(S.load(h));
  S.forRange(size, (k) => S.store(`${base} + ${k}`, S.load(`${old} + ${k}`)));
  S.store(h, base);
  S.store(`${h} + 2.0`, grown);
  S.line('}');
  S.store(`${h} + 1.0`, need);
}

const num = (S: SeqOps, code: string): SNum => ({ kind: 'num', code: S.bind(code), type: 'f32' });

export const stackSeqs = {
  stack: (S, _e, [, n, stride]) => {
    const records = n === undefined ? '0.0' : `ceil(${f32Of(snum(n, 'a stack capacity'))})`;
    const room = S.bind(`select(0.0, ${records} * ${stride === undefined ? '1.0' : f32Of(snum(stride, 'a stride'))}, ${records} > 0.0)`);
    const h = S.alloc(`3.0 + ${room}`);
    S.store(h, `${h} + 3.0`);
    S.store(`${h} + 1.0`, '0.0');
    S.store(`${h} + 2.0`, room);
    return [{ kind: 'num', code: h, type: 'f32' }];
  },
  put: (S, _e, [s, x, ...indices]) => {
    S.store(`${S.load(handle(s))} + ${position(indices)}`, element(x));
    return [s];
  },
  at: (S, _e, [s, ...indices]) => [num(S, S.load(`${S.load(handle(s))} + ${position(indices)}`))],
  // An inner loop's run reserves its room on the flat stack all runs share (constructs/stack/extend.ts).
  extend: (S, _e, [s, n, stride]) => {
    const records = f32Of(snum(n, 'the room of extend'));
    const per = stride === undefined ? '1.0' : f32Of(snum(stride, 'a stride'));
    grow(S, handle(s), S.bind(`select(0.0, ceil(${records}) * ${per}, ${records} > 0.0)`));
    return [s];
  },
  // Only the room of the stack changes on the CPU (one reservation instead of doublings): extend's
  // doubling gives the same values here.
  presize: (_S, _e, [s]) => [s],
  size: (S, _e, [s]) => [num(S, S.load(`${handle(s)} + 1.0`))],
  push: (S, _e, [s, x]) => {
    const h = handle(s);
    const size = S.bind(S.load(`${h} + 1.0`));
    grow(S, h, '1.0');
    S.store(`${S.load(h)} + ${size}`, element(x));
    return [s];
  },
} satisfies SeqLowerings;
