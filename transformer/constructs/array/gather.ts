// gather and its linear pair (docs/linear-a.md, "gather, scatter, reduceByIndex"):
//
//   let g = gather(a, idx) []              g_j = a[idx_j], j < len idx (each idx_j an index of a)   work len idx
//   let (; ġ) = lgather(n, idx ; ȧ) []     ġ_j = ȧ[idx_j] (0 past ȧ's end)                          work len idx
//   let (; ā) = lscatteradd(n, idx ; ḡ) [] ā = zeros(n); ā[idx_j] += ḡ_j (repeated indices add up)    work len idx
//
// J: gather(a, idx) ↦ lgather(len a, idx ; ȧ) (linear in a; the indices get no tangent).
// T: gather ↔ scatter-add, from ⟨lgather(ȧ), ḡ⟩ = Σ_j ȧ[idx_j] ḡ_j = ⟨ȧ, lscatteradd(ḡ)⟩.
// The length n travels with the linear forms so that the scatter-add knows the cotangent's size.
import { binder, construct, letS, arrayType, tangentType, IrError, REAL } from '../../ir/syntax';
import type { Type } from '../../ir/syntax';
import type { Value } from '../../ir/value';
import { printType } from '../../ir/printType';
import type { CheckOps, ConstructRule } from '../types';
import { dotName } from '../../ir/names';
import { count } from './fold';
import { indexAt } from './indices';
import { linearOp } from './linearOp';
import { nonLinearOnly } from '../shared/nonLinear';

const REAL_ARRAY = arrayType(REAL);

export function expectIndexArray(ops: CheckOps, op: string, t: Type): void {
  if (t.tag !== 'array' || t.elem.tag !== 'real') ops.error(`the index array of ${op} must be an array<real> of integers, got ${printType(t)}`);
}

export const gather: ConstructRule = {
  checks: true,
  combinator: true,
  name: 'gather',
  fresh: true,
  arity: () => ({ nl: 1, lin: 0 }),
  typeRule: (ops, e, t) => {
    if (e.bodies.length !== 0 || t.nl.length !== 2 || t.lin.length !== 0) {
      ops.error('gather takes an array and an index array: gather(a, idx) []');
      return { nl: [REAL_ARRAY], lin: [] };
    }
    const [a, idx] = t.nl;
    expectIndexArray(ops, 'gather', idx);
    if (a.tag !== 'array') {
      ops.error(`gather needs an array, got ${printType(a)}`);
      return { nl: [REAL_ARRAY], lin: [] };
    }
    return { nl: [a], lin: [] };
  },
  impl: (ops, e, v) => {
    const a = v.nl[0] as Value[];
    const idx = v.nl[1] as Value[];
    ops.charge(idx.length);
    return { nl: [idx.map((_, j) => a[indexAt('gather', e.nl[1], idx, j, e.nl[0], a.length)])], lin: [] };
  },
  jvp: (ops, e, results) => {
    const [a, idx] = e.nl;
    ops.b.bind([...results], [], e);
    const aDot = ops.tangentOf(a);
    if (aDot === null) return [null];
    const t = ops.typeOf(a);
    if (t.tag !== 'array' || t.elem.tag !== 'real') throw new IrError(`the tangent of gather is implemented for arrays of reals only, not ${printType(t)}`);
    const n = binder(ops.b.fresh('n'), REAL);
    ops.b.stmt(letS([n], [], construct('len', [a], [], [])));
    const g = binder(ops.b.fresh(dotName(results[0].name)), tangentType(t));
    ops.b.bind([], [g], construct('lgather', [n.name, idx], [aDot], []));
    return [g.name];
  },
  ...nonLinearOnly('gather'),
};

function linearTypes(op: string) {
  return (ops: CheckOps, [n, idx]: readonly Type[], [x]: readonly Type[]): Type[] => {
    if (n.tag !== 'real') ops.error(`the length of ${op} must be real, got ${printType(n)}`);
    expectIndexArray(ops, op, idx);
    if (x.tag !== 'array' || x.elem.tag !== 'real') ops.error(`${op} needs an array<real>, got ${printType(x)}`);
    return [REAL_ARRAY];
  };
}

export const lgather = linearOp({
  name: 'lgather',
  coefficients: 2,
  inputs: 1,
  outputs: 1,
  type: linearTypes('lgather'),
  run: ([n, idx], [a], charge) => {
    const m = count(n, 'lgather');
    const is = idx as Value[];
    charge(is.length);
    return [is.map((_, j) => ((a as Value[])[indexAt('lgather', 'idx', is, j, 'the array', m)] as number | undefined) ?? 0)];
  },
  transpose: 'lscatteradd',
});

export const lscatteradd = linearOp({
  name: 'lscatteradd',
  coefficients: 2,
  inputs: 1,
  outputs: 1,
  type: linearTypes('lscatteradd'),
  run: ([n, idx], [g], charge) => {
    const m = count(n, 'lscatteradd');
    const is = idx as Value[];
    charge(is.length);
    const r: number[] = new Array<number>(m).fill(0);
    is.forEach((_, j) => (r[indexAt('lscatteradd', 'idx', is, j, 'the array', m)] += ((g as Value[])[j] as number | undefined) ?? 0));
    return [r];
  },
  transpose: 'lgather',
});
