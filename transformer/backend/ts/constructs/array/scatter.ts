// scatter and its linear pair in TypeScript (constructs/array/scatter.ts).
import { REAL_ARRAY } from '../../../../constructs/array/ops';
import { allocate, assign, forCount, readOrZero } from './emit';
import { constant, elementAt, notIndex, setAt, throwRange } from './indices';
import { linearOpTs } from './linearOp';
import type { ConstructTsRule } from '../../types';

export const scatterTs = {
  //   if (idx.length !== vals.length) throw new RangeError(…);
  //   y = dest.slice(); const seen = new Uint8Array(y.length);
  //   for (let j = 0; j < idx.length; j++) { const b = idx[j]; (b not an index: throw); if (seen[b] === 1) throw …; seen[b] = 1; y[b] = vals[j]; }
  scatter: (ops, e, into) => {
    const f = ops.factory;
    const [dest, idx, vals] = e.nl.map((x) => ops.ref(x));
    const j = ops.fresh('j');
    const b = ops.fresh('b');
    const seen = ops.fresh('seen');
    const jId = f.createIdentifier(j);
    const bId = f.createIdentifier(b);
    const y = f.createIdentifier(into[0]);
    const m = f.createPropertyAccessExpression(idx, 'length');
    const n = f.createPropertyAccessExpression(y, 'length');
    const lengths = f.createIfStatement(
      f.createStrictInequality(m, f.createPropertyAccessExpression(vals, 'length')),
      throwRange(ops, [`scatter: ${e.nl[2]} has `, f.createPropertyAccessExpression(vals, 'length'), ` elements, ${e.nl[1]} has `, m]),
    );
    const range = f.createIfStatement(notIndex(ops, bId, n), throwRange(ops, [`scatter: ${e.nl[1]}[`, jId, '] = ', bId, ` is not an index of ${e.nl[0]} (length `, n, ')']));
    const repeat = f.createIfStatement(
      f.createStrictEquality(elementAt(ops, f.createIdentifier(seen), bId), f.createNumericLiteral(1)),
      throwRange(ops, [`scatter: ${e.nl[1]} repeats the index `, bId, '; scatter needs distinct indices']),
    );
    return [
      lengths,
      assign(ops, into[0], f.createCallExpression(f.createPropertyAccessExpression(dest, 'slice'), undefined, [])),
      constant(ops, seen, f.createNewExpression(f.createIdentifier('Uint8Array'), undefined, [n])),
      forCount(ops, j, m, [
        constant(ops, b, elementAt(ops, idx, jId)),
        range,
        repeat,
        setAt(ops, f.createIdentifier(seen), bId, f.createNumericLiteral(1)),
        setAt(ops, y, bId, elementAt(ops, vals, jId)),
      ]),
    ];
  },
  //   y = new Float64Array(n); for (k < n) y[k] = (ḋ[k] ?? 0); for (j < idx.length) y[idx[j]] = (v̇[j] ?? 0);
  lscatter: linearOpTs(2, (ops, [y], [n, idx], [d, v]) => {
    const f = ops.factory;
    const k = ops.fresh('k');
    const j = ops.fresh('j');
    const yId = f.createIdentifier(y);
    return [
      assign(ops, y, allocate(ops, REAL_ARRAY, ops.ref(n))),
      forCount(ops, k, ops.ref(n), [setAt(ops, yId, f.createIdentifier(k), readOrZero(ops, ops.ref(d), f.createIdentifier(k)))]),
      forCount(ops, j, f.createPropertyAccessExpression(ops.ref(idx), 'length'), [
        setAt(ops, yId, elementAt(ops, ops.ref(idx), f.createIdentifier(j)), readOrZero(ops, ops.ref(v), f.createIdentifier(j))),
      ]),
    ];
  }),
  //   d = new Float64Array(n); for (k < n) d[k] = (ȳ[k] ?? 0);
  //   v = new Float64Array(idx.length); for (j = idx.length − 1 … 0) { const b = idx[j]; v[j] = d[b]; d[b] = 0; }
  lunscatter: linearOpTs(2, (ops, [d, v], [n, idx], [y]) => {
    const f = ops.factory;
    const k = ops.fresh('k');
    const j = ops.fresh('j');
    const b = ops.fresh('b');
    const jId = f.createIdentifier(j);
    const bId = f.createIdentifier(b);
    const m = f.createPropertyAccessExpression(ops.ref(idx), 'length');
    const down = f.createForStatement(
      f.createVariableDeclarationList([f.createVariableDeclaration(j, undefined, undefined, f.createSubtract(m, f.createNumericLiteral(1)))], ops.ts.NodeFlags.Let),
      f.createGreaterThanEquals(jId, f.createNumericLiteral(0)),
      f.createPostfixDecrement(jId),
      f.createBlock(
        [
          constant(ops, b, elementAt(ops, ops.ref(idx), jId)),
          setAt(ops, f.createIdentifier(v), jId, elementAt(ops, f.createIdentifier(d), bId)),
          setAt(ops, f.createIdentifier(d), bId, f.createNumericLiteral(0)),
        ],
        true,
      ),
    );
    return [
      assign(ops, d, allocate(ops, REAL_ARRAY, ops.ref(n))),
      forCount(ops, k, ops.ref(n), [setAt(ops, f.createIdentifier(d), f.createIdentifier(k), readOrZero(ops, ops.ref(y), f.createIdentifier(k)))]),
      assign(ops, v, allocate(ops, REAL_ARRAY, m)),
      down,
    ];
  }),
} satisfies Record<string, ConstructTsRule>;
