// The linear recurrences lscan, lfold, lrscan and lrfold in TypeScript (constructs/array/linearFold.ts).
import type * as ts from 'typescript';
import { REAL, arrayType } from '../../../../ir/syntax';
import { layout } from '../../../../constructs/array/linearFold';
import type { ConstructTsRule, EmitTsOps } from '../../types';
import { allocate, assign, declare, readOrZero } from './emit';

interface Shape {
  readonly forward: boolean;
  /** Collects the accumulator at every step (scan) or returns the last (fold). */
  readonly scan: boolean;
}

//   forward:  c1 = ċ1; (y1 = new Float64Array(n)); let t1;
//             for (let i = 0; i < n; i++) { …B(s[i] ; c1, (ẋ1[i] ?? 0))…; c1 = t1; (y1[i] = t1;) }
//   backward: c1 = 0 or ȳ1; x̄1 = new Float64Array(n); let t1, u1;
//             for (let i = n - 1; i >= 0; i--) { (c1 = c1 + (ȳ1[i] ?? 0);) …Bᵀ(s[i] ; c1)…; c1 = t1; x̄1[i] = u1; }
function emitLinearFold(s: Shape): ConstructTsRule {
  return (ops, e, into) => {
    const f = ops.factory;
    const counts = ops.arity(e.bodies[0]);
    const { r, k } = layout(e, s, counts.nl + counts.lin);
    const all = [...e.nl.slice(1), ...e.lin];
    const n = ops.ref(e.nl[0]);
    const i = ops.fresh('i');
    const iId = f.createIdentifier(i);
    const id = (x: string): ts.Expression => f.createIdentifier(x);
    const res = all.slice(0, r).map((a) => f.createElementAccessExpression(ops.ref(a), iId));
    const c = s.forward && s.scan ? all.slice(r, r + k).map((y) => ops.fresh(`${y}_acc`)) : into.slice(0, k);
    const temps = Array.from({ length: s.forward ? k : 2 * k }, (_, j) => ops.fresh(`t${j}`));
    const store = (y: string, t: string): ts.Statement => f.createExpressionStatement(f.createAssignment(f.createElementAccessExpression(id(y), iId), id(t)));
    const realArray = arrayType(REAL);
    if (s.forward) {
      const xs = all.slice(r + k).map((a) => readOrZero(ops, ops.ref(a), iId));
      const body = [...ops.emitBody(e.bodies[0], [...res, ...c.map(id), ...xs], temps), ...c.map((x, j) => assign(ops, x, id(temps[j]))), ...(s.scan ? into.map((y, j) => store(y, temps[j])) : [])];
      return [
        ...declare(ops, s.scan ? c : []),
        ...c.map((x, j) => assign(ops, x, ops.ref(all[r + j]))),
        ...(s.scan ? into.map((y) => assign(ops, y, allocate(ops, realArray, n))) : []),
        ...declare(ops, temps),
        forUp(ops, i, n, body),
      ];
    }
    const ys = s.scan ? all.slice(r) : [];
    const adds = ys.map((y, j) => assign(ops, c[j], f.createAdd(id(c[j]), readOrZero(ops, ops.ref(y), iId))));
    const body = [...adds, ...ops.emitBody(e.bodies[0], [...res, ...c.map(id)], temps), ...c.map((x, j) => assign(ops, x, id(temps[j]))), ...into.slice(k).map((y, j) => store(y, temps[k + j]))];
    return [
      ...c.map((x, j) => assign(ops, x, s.scan ? f.createNumericLiteral(0) : ops.ref(all[r + j]))),
      ...into.slice(k).map((y) => assign(ops, y, allocate(ops, realArray, n))),
      ...declare(ops, temps),
      forDown(ops, i, n, body),
    ];
  };
}

function forUp(ops: EmitTsOps, i: string, n: ts.Expression, body: readonly ts.Statement[]): ts.Statement {
  const f = ops.factory;
  return f.createForStatement(
    f.createVariableDeclarationList([f.createVariableDeclaration(i, undefined, undefined, f.createNumericLiteral(0))], ops.ts.NodeFlags.Let),
    f.createLessThan(f.createIdentifier(i), n),
    f.createPostfixIncrement(f.createIdentifier(i)),
    f.createBlock([...body], true),
  );
}

/** `for (let i = n - 1; i >= 0; i--) { body }` */
function forDown(ops: EmitTsOps, i: string, n: ts.Expression, body: readonly ts.Statement[]): ts.Statement {
  const f = ops.factory;
  return f.createForStatement(
    f.createVariableDeclarationList([f.createVariableDeclaration(i, undefined, undefined, f.createSubtract(n, f.createNumericLiteral(1)))], ops.ts.NodeFlags.Let),
    f.createGreaterThanEquals(f.createIdentifier(i), f.createNumericLiteral(0)),
    f.createPostfixDecrement(f.createIdentifier(i)),
    f.createBlock([...body], true),
  );
}

export const linearFoldTs = {
  lscan: emitLinearFold({ forward: true, scan: true }),
  lfold: emitLinearFold({ forward: true, scan: false }),
  lrscan: emitLinearFold({ forward: false, scan: true }),
  lrfold: emitLinearFold({ forward: false, scan: false }),
};
