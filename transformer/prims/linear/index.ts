// The linear primitives: everything a tangent program may do besides zero, dup and drop.
// Each acts leafwise on its type τ; its transpose is stated with the adjoint identity it uses.
// There is deliberately no linear subtraction: its transpose would need a negation on top of
// the fan-out, breaking the paper's amortized work bound W(Tė) + n ≤ W(ė) + m; `ladd` plus
// `lneg` costs the same forward and transposes for the same price.
import type { LinPrimDef } from '../types';
import { BOOL, REAL } from '../../ir/syntax';

export const ladd: LinPrimDef = {
  name: 'ladd',
  nlArity: 0,
  linArity: 2,
  nlTypes: [],
  impl: (_, [a, b]) => a + b,
  // ⟨ȧ + ḃ, ÿ⟩ = ⟨ȧ, ÿ⟩ + ⟨ḃ, ÿ⟩: the cotangent fans out.
  transpose: ({ b, ct, resultType }) => b.dup(ct, resultType),
  erase: 'add',
};

export const lneg: LinPrimDef = {
  name: 'lneg',
  nlArity: 0,
  linArity: 1,
  nlTypes: [],
  impl: (_, [a]) => -a,
  // ⟨−ȧ, ÿ⟩ = ⟨ȧ, −ÿ⟩
  transpose: ({ b, ct, resultType, bars }) => [b.lprim('lneg', [], [ct], bars[0], resultType)],
  erase: 'neg',
};

export const scale: LinPrimDef = {
  name: 'scale',
  nlArity: 1,
  linArity: 1,
  nlTypes: [REAL],
  impl: ([u], [v]) => (u as number) * v,
  // ⟨u·v̇, ÿ⟩ = ⟨v̇, u·ÿ⟩: scaling by a constant is self-adjoint.
  transpose: ({ b, nl: [u], ct, resultType, bars }) => [b.lprim('scale', [u], [ct], bars[0], resultType)],
  erase: 'mul',
};

// u·v̇ with 0·u = 0 for every u, infinite ones included (text format; AD guards selects with
// branches instead, ad/guards.ts).
export const scale0: LinPrimDef = {
  name: 'scale0',
  nlArity: 1,
  linArity: 1,
  nlTypes: [REAL],
  impl: ([u], [v]) => (v === 0 ? 0 : (u as number) * v),
  // ⟨u·v̇, ÿ⟩ = ⟨v̇, u·ÿ⟩, with the same convention for an exact zero.
  transpose: ({ b, nl: [u], ct, resultType, bars }) => [b.lprim('scale0', [u], [ct], bars[0], resultType)],
  erase: 'mul0',
};

export const lselect: LinPrimDef = {
  name: 'lselect',
  nlArity: 1,
  linArity: 2,
  nlTypes: [BOOL],
  impl: ([c], [a, b]) => (c ? a : b),
  // ⟨c ? ȧ : ḃ, ÿ⟩ = ⟨ȧ, c ? ÿ : 0⟩ + ⟨ḃ, c ? 0 : ÿ⟩. Masks rather than selects against a
  // zero: a mask is self-adjoint, so transposing again costs the same instead of transposing
  // a zero arm into a dropped cotangent each time.
  transpose: ({ b, nl: [c], ct, resultType, bars }) => {
    const [c1, c2] = b.dup(ct, resultType);
    return [b.lprim('lmask', [c], [c1], bars[0], resultType), b.lprim('lmaskn', [c], [c2], bars[1], resultType)];
  },
  erase: 'select',
  branches: [0, 1],
};

// c ? v̇ : 0, the transpose of one arm of lselect. ⟨c ? v̇ : 0, ÿ⟩ = ⟨v̇, c ? ÿ : 0⟩: self-adjoint.
export const lmask: LinPrimDef = {
  name: 'lmask',
  nlArity: 1,
  linArity: 1,
  nlTypes: [BOOL],
  impl: ([c], [v]) => (c ? v : 0),
  transpose: ({ b, nl: [c], ct, resultType, bars }) => [b.lprim('lmask', [c], [ct], bars[0], resultType)],
  erase: 'mask',
  branches: [0, null],
};

// c ? 0 : v̇, the other arm; self-adjoint likewise.
export const lmaskn: LinPrimDef = {
  name: 'lmaskn',
  nlArity: 1,
  linArity: 1,
  nlTypes: [BOOL],
  impl: ([c], [v]) => (c ? 0 : v),
  transpose: ({ b, nl: [c], ct, resultType, bars }) => [b.lprim('lmaskn', [c], [ct], bars[0], resultType)],
  erase: 'maskn',
  branches: [null, 0],
};
