// map and smap in TypeScript (constructs/array/map.ts): results preallocated (Float64Array for
// reals), one for loop, element results assigned to variables declared before it: no
// allocation per element.
import type * as ts from 'typescript';
import type { Binder } from '../../../../ir/syntax';
import { InternalError } from '../../../../ir/syntax';
import { classify, hasIndex, operandParams, paramType } from '../../../../constructs/array/map';
import type { ConstructTsRule } from '../../types';
import { allocate, assign, forCount, readOrZero } from './emit';

//   r1 = new Float64Array(n); …; let t1, …;
//   for (let k = 0; k < n; k++) { const i = k; const p = a[k]; const q = u; …body…; r1[k] = t1; … }
const emitMap: ConstructTsRule = (ops, e, into) => {
  const f = ops.factory;
  const n = ops.ref(e.nl[0]);
  const k = ops.fresh('k');
  const kId = f.createIdentifier(k);
  const params = operandParams(e);
  const arg = (x: string, p: Binder, linear: boolean): ts.Expression => {
    const t = ops.typeOf(x);
    const mapped = t === undefined ? undefined : classify(t, paramType(p));
    if (mapped === undefined) throw new InternalError(`emitTs: map operand ${x} has no type or does not fit ${p.name}`);
    if (mapped === 'invariant') return ops.ref(x);
    return linear || (e.op === 'smap' && paramType(p).tag === 'real') ? readOrZero(ops, ops.ref(x), kId) : f.createElementAccessExpression(ops.ref(x), kId);
  };
  const args = [...(hasIndex(e) ? [kId] : []), ...e.nl.slice(1).map((x, j) => arg(x, params.nl[j], false)), ...e.lin.map((x, j) => arg(x, params.lin[j], true))];
  const temps = into.map((y) => ops.fresh(`${y}_k`));
  const decl = f.createVariableStatement(
    undefined,
    f.createVariableDeclarationList(
      temps.map((t) => f.createVariableDeclaration(t)),
      ops.ts.NodeFlags.Let,
    ),
  );
  const stores = into.map((y, j) => f.createExpressionStatement(f.createAssignment(f.createElementAccessExpression(f.createIdentifier(y), kId), f.createIdentifier(temps[j]))));
  // Every element reads an invariant array: none may update it in place (EmitTsOps.owned).
  const invariants = [...e.nl.slice(1), ...e.lin].filter(
    (x, j) => ops.typeOf(x)?.tag === 'array' && classify(ops.typeOf(x)!, paramType(j < e.nl.length - 1 ? params.nl[j] : params.lin[j - e.nl.length + 1])) === 'invariant',
  );
  return [
    ...invariants.flatMap((x) => ops.release(ops.ref(x))),
    ...into.map((y, j) => assign(ops, y, allocate(ops, ops.resultTypes[j], n))),
    ...(temps.length > 0 ? [decl] : []),
    forCount(ops, k, n, [...ops.emitBody(e.bodies[0], args, temps), ...stores]),
  ];
};

export const mapTs = { map: emitMap, smap: emitMap };
