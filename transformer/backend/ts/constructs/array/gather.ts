// gather and its linear pair in TypeScript (constructs/array/gather.ts).
import { REAL_ARRAY } from '../../../../constructs/array/ops';
import { allocate, assign, forCount, readOrZero } from './emit';
import { constant, elementAt, notIndex, setAt, throwRange } from './indices';
import { linearOpTs } from './linearOp';
import type { ConstructTsRule } from '../../types';

export const gatherTs = {
  //   g = new Float64Array(idx.length);
  //   for (let j = 0; j < idx.length; j++) { const b = idx[j]; if (!(…b is an index of a…)) throw new RangeError(…); g[j] = a[b]; }
  gather: (ops, e, into) => {
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
  lgather: linearOpTs(2, (ops, [y], [, idx], [a]) => {
    const f = ops.factory;
    const j = ops.fresh('j');
    const m = f.createPropertyAccessExpression(ops.ref(idx), 'length');
    const read = readOrZero(ops, ops.ref(a), elementAt(ops, ops.ref(idx), f.createIdentifier(j)));
    return [assign(ops, y, allocate(ops, REAL_ARRAY, m)), forCount(ops, j, m, [setAt(ops, f.createIdentifier(y), f.createIdentifier(j), read)])];
  }),
  //   r = new Float64Array(n); for (let j = 0; j < idx.length; j++) r[idx[j]] += (g[j] ?? 0);
  lscatteradd: linearOpTs(2, (ops, [y], [n, idx], [g]) => {
    const f = ops.factory;
    const j = ops.fresh('j');
    const jId = f.createIdentifier(j);
    const m = f.createPropertyAccessExpression(ops.ref(idx), 'length');
    const add = f.createExpressionStatement(
      f.createBinaryExpression(elementAt(ops, f.createIdentifier(y), elementAt(ops, ops.ref(idx), jId)), ops.ts.SyntaxKind.PlusEqualsToken, readOrZero(ops, ops.ref(g), jId)),
    );
    return [assign(ops, y, allocate(ops, REAL_ARRAY, ops.ref(n))), forCount(ops, j, m, [add])];
  }),
} satisfies Record<string, ConstructTsRule>;
