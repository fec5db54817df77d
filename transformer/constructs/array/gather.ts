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
import { allocate, assign, forCount, readOrZero } from './emit';
import { count } from './fold';
import { constant, elementAt, indexAt, notIndex, setAt, throwRange } from './indices';
import { linearOp } from './linearOp';
import { nonLinearOnly } from '../shared/nonLinear';

const REAL_ARRAY = arrayType(REAL);

export function expectIndexArray(ops: CheckOps, op: string, t: Type): void {
  if (t.tag !== 'array' || t.elem.tag !== 'real') ops.error(`the index array of ${op} must be an array<real> of integers, got ${printType(t)}`);
}

export const gather: ConstructRule = {
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
  //   g = new Float64Array(idx.length);
  //   for (let j = 0; j < idx.length; j++) { const b = idx[j]; if (!(…b is an index of a…)) throw new RangeError(…); g[j] = a[b]; }
  emitTs: (ops, e, into) => {
    const f = ops.factory;
    const [a, idx] = e.nl.map((x) => ops.ref(x));
    const j = ops.fresh('j');
    const b = ops.fresh('b');
    const m = f.createPropertyAccessExpression(idx, 'length');
    const n = f.createPropertyAccessExpression(a, 'length');
    const check = f.createIfStatement(
      notIndex(ops, f.createIdentifier(b), n),
      throwRange(ops, [`gather: ${e.nl[1]}[`, f.createIdentifier(j), '] = ', f.createIdentifier(b), ` is not an index of ${e.nl[0]} (length `, n, ')']),
    );
    return [
      assign(ops, into[0], allocate(ops, ops.resultTypes[0], m)),
      forCount(ops, j, m, [
        constant(ops, b, elementAt(ops, idx, f.createIdentifier(j))),
        check,
        setAt(ops, f.createIdentifier(into[0]), f.createIdentifier(j), elementAt(ops, a, f.createIdentifier(b))),
      ]),
    ];
  },
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
  emit: (ops, [y], [, idx], [a]) => {
    const f = ops.factory;
    const j = ops.fresh('j');
    const m = f.createPropertyAccessExpression(ops.ref(idx), 'length');
    const read = readOrZero(ops, ops.ref(a), elementAt(ops, ops.ref(idx), f.createIdentifier(j)));
    return [assign(ops, y, allocate(ops, REAL_ARRAY, m)), forCount(ops, j, m, [setAt(ops, f.createIdentifier(y), f.createIdentifier(j), read)])];
  },
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
  //   r = new Float64Array(n); for (let j = 0; j < idx.length; j++) r[idx[j]] += (g[j] ?? 0);
  emit: (ops, [y], [n, idx], [g]) => {
    const f = ops.factory;
    const j = ops.fresh('j');
    const jId = f.createIdentifier(j);
    const m = f.createPropertyAccessExpression(ops.ref(idx), 'length');
    const add = f.createExpressionStatement(
      f.createBinaryExpression(elementAt(ops, f.createIdentifier(y), elementAt(ops, ops.ref(idx), jId)), ops.ts.SyntaxKind.PlusEqualsToken, readOrZero(ops, ops.ref(g), jId)),
    );
    return [assign(ops, y, allocate(ops, REAL_ARRAY, ops.ref(n))), forCount(ops, j, m, [add])];
  },
});
