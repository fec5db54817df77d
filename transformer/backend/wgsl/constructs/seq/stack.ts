// The stacks of a gradient's residuals in sequential code (constructs/stack): a stack is a handle
// h into the heap, where heap[h] is the base of its numbers, heap[h + 1] how many were pushed and
// heap[h + 2] its room. `stack(x, n[, stride])` allocates room for ⌈n⌉ records with the header;
// `put` writes record i's field, `push` doubles the room when it is full (a copy, as the CPU
// path's growing array). Numbers, booleans (0 or 1) and stacks (their handles) are stored; the
// handle is what a stack of stacks holds.
import { NotOnGpu } from '../../lowering';
import { type SNum, type SeqLowerings, type SeqOps, type SVal, f32Of, snum } from '../../seqLowering';

const handle = (v: SVal | undefined): string => snum(v, 'a stack').code;

function element(v: SVal | undefined): string {
  if (v?.kind !== 'num') throw new NotOnGpu('a stack of arrays or tuples');
  return f32Of(v);
}

/** Record i's field: i, or i·stride + field. */
function position(i: SVal | undefined, stride: SVal | undefined, field: SVal | undefined): string {
  const r = f32Of(snum(i, 'a stack position'));
  return stride === undefined ? r : `(${r} * ${f32Of(snum(stride, 'a stride'))} + ${f32Of(snum(field, 'a field'))})`;
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
  put: (S, _e, [s, x, i, stride, field]) => {
    S.store(`${S.load(handle(s))} + ${position(i, stride, field)}`, element(x));
    return [s];
  },
  at: (S, _e, [s, i, stride, field]) => [num(S, S.load(`${S.load(handle(s))} + ${position(i, stride, field)}`))],
  size: (S, _e, [s]) => [num(S, S.load(`${handle(s)} + 1.0`))],
  push: (S, _e, [s, x]) => {
    const h = handle(s);
    const size = S.bind(S.load(`${h} + 1.0`));
    const room = S.bind(S.load(`${h} + 2.0`));
    S.line(`if (${size} >= ${room}) {`);
    const grown = S.bind(`max(2.0 * ${room}, 8.0)`);
    const base = S.alloc(grown);
    const old = S.bind(S.load(h));
    const k = S.fresh('k');
    S.line(`var ${k} = 0.0;`);
    S.line(`for (; ${k} < ${size}; ${k} = ${k} + 1.0) {`);
    S.store(`${base} + ${k}`, S.load(`${old} + ${k}`));
    S.line('}');
    S.line(`if (${k} < ${size}) { ${S.cutShort()} }`);
    S.store(h, base);
    S.store(`${h} + 2.0`, grown);
    S.line('}');
    S.store(`${S.load(h)} + ${size}`, element(x));
    S.store(`${h} + 1.0`, `${size} + 1.0`);
    return [s];
  },
} satisfies SeqLowerings;
