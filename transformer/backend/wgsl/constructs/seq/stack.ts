// The stacks of a gradient's residuals in sequential code (constructs/stack): a stack is a handle
// h into the heap, where heap[h] is the base of its numbers, heap[h + 1] how many were pushed and
// heap[h + 2] its room. `stack(x, n[, stride])` allocates room for ⌈n⌉ records with the header;
// `put` writes record i's field, `push` doubles the room when it is full (a copy, as the CPU
// path's growing array). Numbers, booleans (0 or 1) and stacks (their handles) are stored; the
// handle is what a stack of stacks holds. A tuple of those (a tuple accumulator's residuals) takes
// its width in consecutive numbers: sizes and room count elements, positions are scaled by the
// width, which put and push read off their value and at off its binder's type.
import { NotOnGpu } from '../../lowering';
import { position as positionOf } from '../../../../constructs/stack/position';
import type { Type } from '../../../../ir/types';
import { type SNum, type SeqLowerings, type SeqOps, type SVal, f32Of, snum } from '../../seqLowering';

const handle = (v: SVal | undefined): string => snum(v, 'a stack').code;

/** The numbers an element is stored as: a number, or a tuple's numbers in order. */
function elements(v: SVal | undefined): string[] {
  if (v?.kind === 'num') return [f32Of(v)];
  if (v?.kind === 'tup') return v.elems.flatMap(elements);
  throw new NotOnGpu('a stack of arrays');
}

/** How many numbers an element of type t takes. */
function widthOf(t: Type | undefined): number {
  if (t?.tag === 'tuple') return t.elems.reduce((w, x) => w + widthOf(x), 0);
  if (t?.tag === 'array' || t === undefined) throw new NotOnGpu('a stack of arrays');
  return 1;
}

/** An element of type t read back from its numbers (read(j): the j-th). */
function rebuild(S: SeqOps, t: Type, read: (j: number) => string, from = { j: 0 }): SVal {
  if (t.tag === 'tuple') return { kind: 'tup', elems: t.elems.map((x) => rebuild(S, x, read, from)) };
  return num(S, read(from.j++));
}

/** Number j of the element at a position, in a stack whose elements take w numbers. */
const scaled = (at: string, w: number, j: number): string => (w === 1 ? at : `(${at}) * ${w}.0 + ${j}.0`);

/** Record r's field (r, or r·stride + field), `base` values further on: put's and at's operands after the stack (and put's value). */
function position(indices: readonly SVal[]): string {
  const { r, stride, field, base } = positionOf(indices);
  const k = f32Of(snum(r, 'a stack position'));
  const within = stride === undefined ? k : `(${k} * ${f32Of(snum(stride, 'a stride'))} + ${f32Of(snum(field, 'a field'))})`;
  return base === undefined ? within : `(${within} + ${f32Of(snum(base, 'a stack offset'))})`;
}

/** Makes room for `more` elements of w numbers past the stack's size (doubling, as push does) and counts them in. */
function grow(S: SeqOps, h: string, more: string, w = 1): void {
  const size = S.bind(S.load(`${h} + 1.0`));
  const room = S.bind(S.load(`${h} + 2.0`));
  const need = S.bind(`${size} + ${more}`);
  S.line(`if (${need} > ${room}) {`);
  const grown = S.bind(`max(max(2.0 * ${room}, 8.0), ${need})`);
  const base = S.alloc(w === 1 ? grown : `${grown} * ${w}.0`);
  const old = S.bind(S.load(h));
  S.forRange(w === 1 ? size : `${size} * ${w}.0`, (k) => S.store(`${base} + ${k}`, S.load(`${old} + ${k}`)));
  S.store(h, base);
  S.store(`${h} + 2.0`, grown);
  S.line('}');
  S.store(`${h} + 1.0`, need);
}

const num = (S: SeqOps, code: string): SNum => ({ kind: 'num', code: S.bind(code), type: 'f32' });

export const stackSeqs = {
  stack: (S, _e, [pad, n, stride]) => {
    // A stack of arrays is refused where an array is put or pushed (the construct that makes it is named first).
    const w = pad?.kind === 'tup' ? elements(pad).length : 1;
    const records = n === undefined ? '0.0' : `ceil(${f32Of(snum(n, 'a stack capacity'))})`;
    const room = S.bind(`select(0.0, ${records} * ${stride === undefined ? '1.0' : f32Of(snum(stride, 'a stride'))}, ${records} > 0.0)`);
    const h = S.alloc(w === 1 ? `3.0 + ${room}` : `3.0 + ${room} * ${w}.0`);
    S.store(h, `${h} + 3.0`);
    S.store(`${h} + 1.0`, '0.0');
    S.store(`${h} + 2.0`, room);
    return [{ kind: 'num', code: h, type: 'f32' }];
  },
  put: (S, _e, [s, x, ...indices]) => {
    const xs = elements(x);
    const base = S.bind(S.load(handle(s)));
    const at = S.bind(position(indices));
    xs.forEach((v, j) => S.store(`${base} + ${scaled(at, xs.length, j)}`, v));
    return [s];
  },
  at: (S, _e, [s, ...indices], _lin, _env, binders) => {
    const t = binders[0]?.type;
    const w = widthOf(t);
    const base = S.bind(S.load(handle(s)));
    const at = S.bind(position(indices));
    return [rebuild(S, t!, (j) => S.load(`${base} + ${scaled(at, w, j)}`))];
  },
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
  // A zero tangent stack (handle −1) holds nothing.
  size: (S, _e, [s]) => [num(S, `select(0.0, ${S.load(`max(${handle(s)}, 0.0) + 1.0`)}, ${handle(s)} >= 0.0)`)],
  push: (S, _e, [s, x]) => {
    const h = handle(s);
    const xs = elements(x);
    const size = S.bind(S.load(`${h} + 1.0`));
    grow(S, h, '1.0', xs.length);
    const base = S.bind(S.load(h));
    xs.forEach((v, j) => S.store(`${base} + ${scaled(size, xs.length, j)}`, v));
    return [s];
  },
  // The erased tangent stacks of a second-order program (constructs/stack/linear.ts): sparse, a
  // zero stack is the handle −1 (no heap yet), a position never set reads as zero.
  lpush: (S, _e, nl, lin) => {
    const [k, s, x] = [...nl, ...lin];
    const xs = elements(x);
    const w = xs.length;
    const h = S.fresh('ts');
    S.line(`var ${h}: f32 = ${handle(s)};`);
    S.line(`if (${h} < 0.0) {`);
    const fresh = S.alloc('3.0');
    S.store(fresh, `${fresh} + 3.0`);
    S.store(`${fresh} + 1.0`, '0.0');
    S.store(`${fresh} + 2.0`, '0.0');
    S.line(`${h} = ${fresh};`);
    S.line('}');
    const at = S.bind(f32Of(snum(k, 'a stack position')));
    const size = S.bind(S.load(`${h} + 1.0`));
    S.line(`if (${at} + 1.0 > ${size}) {`);
    grow(S, h, `${at} + 1.0 - ${size}`, w);
    // The positions between the old size and k are holes: zeros, as the sparse stack reads them.
    const base = S.bind(S.load(h));
    S.forRange(w === 1 ? `${at} - ${size}` : `(${at} - ${size}) * ${w}.0`, (j) => S.store(`${base} + ${w === 1 ? size : `${size} * ${w}.0`} + ${j}`, '0.0'));
    S.line('}');
    const top = S.bind(S.load(h));
    xs.forEach((v, j) => S.store(`${top} + ${scaled(at, w, j)}`, v));
    return [{ kind: 'num', code: h, type: 'f32' }];
  },
  lat: (S, _e, nl, lin, _env, binders) => {
    const [i, s] = [...nl, ...lin];
    const t = binders[0]?.type;
    const w = widthOf(t);
    const h = S.bind(handle(s));
    const at = S.bind(f32Of(snum(i, 'a stack position')));
    const holds = S.fresh('holds');
    S.line(`var ${holds}: bool = false;`);
    S.line(`if (${h} >= 0.0) { ${holds} = ${at} < ${S.load(`${h} + 1.0`)}; }`);
    const base = S.bind(`select(0.0, ${S.load(`max(${h}, 0.0)`)}, ${holds})`);
    return [rebuild(S, t!, (j) => `select(0.0, ${S.load(`${base} + ${scaled(at, w, j)}`)}, ${holds})`)];
  },
} satisfies SeqLowerings;
