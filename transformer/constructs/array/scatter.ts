// scatter and its linear pair (docs/linear-a.md, "gather, scatter, reduceByIndex"):
//
//   let y = scatter(dest, idx, vals) []      a copy of dest with y[idx_j] = vals_j           work len dest + len idx
//   let (; ẏ) = lscatter(n, idx ; ḋ, v̇) []   the same on tangents (ḋ padded to n)            work n + len idx
//   let (; d̄, v̄) = lunscatter(n, idx ; ȳ) []  v̄_j = ȳ[idx_j]; d̄ = ȳ with the idx slots zeroed  work n + len idx
//
// Every idx_j is an index of dest, idx and vals have one length, and no index repeats: a
// repeated index is an error naming the argument (the Futhark rule needs distinct indices: with
// a repeat, which write wins is an accident of the order, and an overwritten value gets no
// cotangent). J: scatter ↦ lscatter(len dest, idx ; ḋ, v̇) (scatter is linear in dest and vals
// jointly). T: lscatter ↔ lunscatter, from ⟨lscatter(ḋ, v̇), ȳ⟩ = Σ_{k ∉ idx} ḋ_k ȳ_k + Σ_j v̇_j ȳ[idx_j].
import { typeEquals, binder, construct, letS, arrayType, tangentType, IrError, REAL } from '../../ir/syntax';
import type { Type } from '../../ir/syntax';
import type { Value } from '../../ir/value';
import { printType } from '../../ir/printType';
import type { CheckOps, ConstructRule } from '../types';
import { dotName } from '../../ir/names';
import { count } from './fold';
import { indexAt, sameLength } from './indices';
import { expectIndexArray } from './gather';
import { linearOp } from './linearOp';
import { nonLinearOnly } from '../shared/nonLinear';

const REAL_ARRAY = arrayType(REAL);

/** The slots idx writes, checked: indices of an array of n, none repeated. */
function slots(op: string, names: readonly string[], idx: readonly Value[], n: number): number[] {
  const seen = new Map<number, number>();
  return idx.map((_, j) => {
    const b = indexAt(op, names[1], idx, j, names[0], n);
    const earlier = seen.get(b);
    if (earlier !== undefined) throw new IrError(`${op}: ${names[1]} repeats the index ${b} (at ${earlier} and ${j}); scatter needs distinct indices`);
    seen.set(b, j);
    return b;
  });
}

export const scatter: ConstructRule = {
  checks: true,
  combinator: true,
  name: 'scatter',
  arity: () => ({ nl: 1, lin: 0 }),
  typeRule: (ops, e, t) => {
    if (e.bodies.length !== 0 || t.nl.length !== 3 || t.lin.length !== 0) {
      ops.error('scatter takes a destination, an index array and the values: scatter(dest, idx, vals) []');
      return { nl: [REAL_ARRAY], lin: [] };
    }
    const [dest, idx, vals] = t.nl;
    expectIndexArray(ops, 'scatter', idx);
    if (dest.tag !== 'array' || !typeEquals(dest, vals)) ops.error(`scatter needs a destination array and values of the same array type, got ${printType(dest)} and ${printType(vals)}`);
    return { nl: [dest], lin: [] };
  },
  impl: (ops, e, v) => {
    const [dest, idx, vals] = v.nl as Value[][];
    sameLength('scatter', [e.nl[1], e.nl[2]], [idx, vals]);
    ops.charge(dest.length + idx.length);
    const y = [...dest];
    slots('scatter', e.nl, idx, dest.length).forEach((b, j) => (y[b] = vals[j]));
    return { nl: [y], lin: [] };
  },
  jvp: (ops, e, results) => {
    const [dest, idx, vals] = e.nl;
    ops.b.bind([...results], [], e);
    const dots = [dest, vals].map((x) => ops.tangentOf(x));
    if (dots.every((d) => d === null)) return [null];
    const t = ops.typeOf(dest);
    if (t.tag !== 'array' || t.elem.tag !== 'real') throw new IrError(`the tangent of scatter is implemented for arrays of reals only, not ${printType(t)}`);
    const lin = dots.map((d) => d ?? ops.b.zero(REAL_ARRAY, 'zero'));
    const n = binder(ops.b.fresh('n'), REAL);
    ops.b.stmt(letS([n], [], construct('len', [dest], [], [])));
    const y = binder(ops.b.fresh(dotName(results[0].name)), tangentType(t));
    ops.b.bind([], [y], construct('lscatter', [n.name, idx], lin, []));
    return [y.name];
  },
  ...nonLinearOnly('scatter'),
};

function types(op: string, inputs: number) {
  return (ops: CheckOps, [n, idx]: readonly Type[], xs: readonly Type[]): Type[] => {
    if (n.tag !== 'real') ops.error(`the length of ${op} must be real, got ${printType(n)}`);
    expectIndexArray(ops, op, idx);
    xs.forEach((x) => {
      if (x.tag !== 'array' || x.elem.tag !== 'real') ops.error(`${op} needs arrays of reals, got ${printType(x)}`);
    });
    return Array.from({ length: inputs }, () => REAL_ARRAY);
  };
}

const at = (a: Value, k: number): number => ((a as Value[])[k] as number | undefined) ?? 0;

export const lscatter = linearOp({
  name: 'lscatter',
  coefficients: 2,
  inputs: 2,
  outputs: 1,
  type: types('lscatter', 1),
  run: ([n, idx], [d, v], charge) => {
    const m = count(n, 'lscatter');
    const is = idx as Value[];
    charge(m + is.length);
    const y = Array.from({ length: m }, (_, k) => at(d, k));
    is.forEach((_, j) => (y[indexAt('lscatter', 'idx', is, j, 'the array', m)] = at(v, j)));
    return [y];
  },
  transpose: 'lunscatter',
});

export const lunscatter = linearOp({
  name: 'lunscatter',
  coefficients: 2,
  inputs: 1,
  outputs: 2,
  type: types('lunscatter', 2),
  run: ([n, idx], [y], charge) => {
    const m = count(n, 'lunscatter');
    const is = idx as Value[];
    charge(m + is.length);
    const d = Array.from({ length: m }, (_, k) => at(y, k));
    const v: number[] = new Array<number>(is.length).fill(0);
    // Last to first: with a repeated index (only in hand-written linear code) the last write won, and gets the cotangent.
    for (let j = is.length - 1; j >= 0; j--) {
      const b = indexAt('lunscatter', 'idx', is, j, 'the array', m);
      v[j] = d[b];
      d[b] = 0;
    }
    return [d, v];
  },
  transpose: 'lscatter',
});
