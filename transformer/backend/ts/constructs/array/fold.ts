// scan and reduce in TypeScript (constructs/array/fold.ts), strict or over sparse tangent arrays.
import type * as ts from 'typescript';
import { REAL, arrayType } from '../../../../ir/syntax';
import { type FoldKind, accumulators } from '../../../../constructs/array/fold';
import type { ConstructTsRule, EmitTsOps } from '../../types';
import { allocate, assign, declare, forCount, readOrZero } from './emit';

//   (reduce: the accumulators are the results themselves; a mixed fold, J's, carries its tangents beside)
//   c1 = e1; …; y1 = new Float64Array(n); …; let t1, …;
//   for (let i = 0; i < n; i++) { const a = c1; const b = x[i]; …body…; c1 = t1; y1[i] = t1; o1[i] = t2; }
function emitFold(kind: FoldKind, sparse: boolean): ConstructTsRule {
  return (ops, e, into) => {
    const f = ops.factory;
    const k = accumulators(e);
    const mixed = e.lin.length > 0;
    const resultsNl = ops.arity(e.bodies[0]).nl;
    const n = ops.ref(e.nl[0]);
    const i = ops.fresh('i');
    const iId = f.createIdentifier(i);
    const range = (m: number, from = 0): number[] => Array.from({ length: m }, (_, j) => from + j);
    // Where the accumulators are among the results (and the body's results): the first k of each sort.
    const accAt = [...range(k), ...(mixed ? range(k, resultsNl) : [])];
    const acc = accAt.map((p) => (kind === 'reduce' ? into[p] : ops.fresh(`${into[p]}_acc`)));
    const arrayAt = range(into.length).filter((p) => kind === 'scan' || !accAt.includes(p));
    const temps = into.map((y) => ops.fresh(`${y}_i`));
    const elem = (x: string, tangent: boolean): ts.Expression => (tangent || (sparse && isReal(ops, x)) ? readOrZero(ops, ops.ref(x), iId) : f.createElementAccessExpression(ops.ref(x), iId));
    const id = (x: string): ts.Expression => f.createIdentifier(x);
    const args = [...acc.slice(0, k).map(id), ...e.nl.slice(1 + k).map((x) => elem(x, false)), ...acc.slice(k).map(id), ...e.lin.slice(k).map((x) => elem(x, true))];
    const init = [...e.nl.slice(1, 1 + k), ...e.lin.slice(0, k)];
    const stores = [
      ...acc.map((c, j) => assign(ops, c, id(temps[accAt[j]]))),
      ...arrayAt.map((p) => f.createExpressionStatement(f.createAssignment(f.createElementAccessExpression(id(into[p]), iId), id(temps[p])))),
    ];
    return [
      ...declare(ops, kind === 'scan' ? acc : []),
      ...acc.map((c, j) => assign(ops, c, ops.ref(init[j]))),
      ...arrayAt.map((p) => assign(ops, into[p], allocate(ops, ops.resultTypes[p] ?? arrayType(REAL), n))),
      ...declare(ops, temps),
      forCount(ops, i, n, [...ops.emitBody(e.bodies[0], args, temps), ...stores]),
    ];
  };
}

const isReal = (ops: EmitTsOps, x: string): boolean => {
  const t = ops.typeOf(x);
  return t?.tag === 'array' && t.elem.tag === 'real';
};

export const foldTs = {
  scan: emitFold('scan', false),
  sscan: emitFold('scan', true),
  reduce: emitFold('reduce', false),
  sreduce: emitFold('reduce', true),
};
