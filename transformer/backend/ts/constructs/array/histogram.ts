// reduceByIndex and its linear recurrences lhist and lrhist in TypeScript (constructs/array/histogram.ts).
import type * as ts from 'typescript';
import { REAL, arrayType } from '../../../../ir/syntax';
import { histograms, layout } from '../../../../constructs/array/histogram';
import type { ConstructTsRule } from '../../types';
import { allocate, assign, declare, forCount, readOrZero } from './emit';
import { constant, elementAt, notIndex, setAt, throwRange } from './indices';

//   h1 = new Float64Array(M); for (k < M) h1[k] = d1[k]; o1 = new Float64Array(n); let t1, …;
//   for (let i = 0; i < n; i++) { const b = idx[i]; (not an integer: throw);
//     if (b >= 0 && b < M) { const a = h1[b]; const v = x1[i]; …body…; h1[b] = t1; o1[i] = t2; } }
function emitHistogram(sparse: boolean): ConstructTsRule {
  return (ops, e, into) => {
    const f = ops.factory;
    const k = histograms(e);
    const mixed = e.lin.length > 0;
    const counts = ops.arity(e.bodies[0]);
    const idx = ops.ref(e.nl[k]);
    const n = f.createPropertyAccessExpression(idx, 'length');
    const mName = ops.fresh('m');
    const m = f.createIdentifier(mName);
    const i = ops.fresh('i');
    const iId = f.createIdentifier(i);
    const bName = ops.fresh('b');
    const bId = f.createIdentifier(bName);
    const kk = mixed ? k : 0;
    // Result positions: histograms nl [0, k) and lin [counts.nl, counts.nl + kk); the rest per-element outputs.
    const histAt = [...Array.from({ length: k }, (_, j) => j), ...Array.from({ length: kk }, (_, j) => counts.nl + j)];
    const outAt = into.map((_, p) => p).filter((p) => !histAt.includes(p));
    const dests = [...e.nl.slice(0, k), ...e.lin.slice(0, kk)];
    const temps = into.map((y) => ops.fresh(`${y}_i`));
    const id = (x: string): ts.Expression => f.createIdentifier(x);
    const elem = (x: string, tangent: boolean): ts.Expression => (tangent || sparse ? readOrZero(ops, ops.ref(x), iId) : elementAt(ops, ops.ref(x), iId));
    const hist = (j: number): ts.Expression => elementAt(ops, id(into[histAt[j]]), bId);
    const args = [
      ...Array.from({ length: k }, (_, j) => hist(j)),
      ...e.nl.slice(k + 1).map((x) => elem(x, false)),
      ...Array.from({ length: kk }, (_, j) => hist(k + j)),
      ...e.lin.slice(kk).map((x) => elem(x, true)),
    ];
    const copies = dests.map((d, j) => {
      const c = ops.fresh('c');
      return [
        assign(ops, into[histAt[j]], allocate(ops, ops.resultTypes[histAt[j]] ?? arrayType(REAL), m)),
        forCount(ops, c, m, [setAt(ops, id(into[histAt[j]]), id(c), readOrZero(ops, ops.ref(d), id(c)))]),
      ];
    });
    const inRange = f.createLogicalAnd(f.createGreaterThanEquals(bId, f.createNumericLiteral(0)), f.createLessThan(bId, m));
    const update = [...ops.emitBody(e.bodies[0], args, temps), ...histAt.map((p) => setAt(ops, id(into[p]), bId, id(temps[p]))), ...outAt.map((p) => setAt(ops, id(into[p]), iId, id(temps[p])))];
    const lengths = e.nl
      .slice(k + 1)
      .map((x) =>
        f.createIfStatement(
          sparse ? f.createGreaterThan(f.createPropertyAccessExpression(ops.ref(x), 'length'), n) : f.createStrictInequality(f.createPropertyAccessExpression(ops.ref(x), 'length'), n),
          throwRange(ops, [`${e.op}: ${x} has `, f.createPropertyAccessExpression(ops.ref(x), 'length'), ` elements, ${e.nl[k]} has `, n]),
        ),
      );
    return [
      ...lengths,
      constant(ops, mName, f.createPropertyAccessExpression(ops.ref(e.nl[0]), 'length')),
      ...copies.flat(),
      ...outAt.map((p) => assign(ops, into[p], allocate(ops, ops.resultTypes[p] ?? arrayType(REAL), n))),
      ...declare(ops, temps),
      forCount(ops, i, n, [
        constant(ops, bName, elementAt(ops, idx, iId)),
        f.createIfStatement(notIndex(ops, bId), throwRange(ops, [`${e.op}: ${e.nl[k]}[`, iId, '] = ', bId, ' is not an integer'])),
        f.createIfStatement(inRange, f.createBlock(update, true)),
      ]),
    ];
  };
}

//   h1 = new Float64Array(M); for (c < M) h1[c] = (ḋ1[c] ?? 0);  (backward: v̄1 = new Float64Array(n))
//   for (i …) { const b = idx[i]; if (b >= 0 && b < M) { …body(s[i] ; h1[b], (v̇1[i] ?? 0))…; h1[b] = t1; (v̄1[i] = u1;) } }
function emitLinearHistogram(s: { readonly forward: boolean }): ConstructTsRule {
  return (ops, e, into) => {
    const f = ops.factory;
    const counts = ops.arity(e.bodies[0]);
    const { r, k } = layout(e, s, counts.nl + counts.lin);
    const all = [...e.nl.slice(2), ...e.lin];
    const m = ops.ref(e.nl[0]);
    const idx = ops.ref(e.nl[1]);
    const n = f.createPropertyAccessExpression(idx, 'length');
    const i = ops.fresh('i');
    const iId = f.createIdentifier(i);
    const bName = ops.fresh('b');
    const bId = f.createIdentifier(bName);
    const id = (x: string): ts.Expression => f.createIdentifier(x);
    const res = all.slice(0, r).map((a) => elementAt(ops, ops.ref(a), iId));
    const hs = into.slice(0, k);
    const temps = Array.from({ length: s.forward ? k : 2 * k }, (_, j) => ops.fresh(`t${j}`));
    const copies = all.slice(r, r + k).flatMap((d, j) => {
      const c = ops.fresh('c');
      return [assign(ops, hs[j], allocate(ops, arrayType(REAL), m)), forCount(ops, c, m, [setAt(ops, id(hs[j]), id(c), readOrZero(ops, ops.ref(d), id(c)))])];
    });
    const vals = s.forward ? all.slice(r + k).map((a) => readOrZero(ops, ops.ref(a), iId)) : [];
    const update = [
      ...ops.emitBody(e.bodies[0], [...res, ...hs.map((h) => elementAt(ops, id(h), bId)), ...vals], temps),
      ...hs.map((h, j) => setAt(ops, id(h), bId, id(temps[j]))),
      ...(s.forward ? [] : into.slice(k).map((v, j) => setAt(ops, id(v), iId, id(temps[k + j])))),
    ];
    const inRange = f.createLogicalAnd(f.createGreaterThanEquals(bId, f.createNumericLiteral(0)), f.createLessThan(bId, m));
    const body = [constant(ops, bName, elementAt(ops, idx, iId)), f.createIfStatement(inRange, f.createBlock(update, true))];
    const loop = s.forward
      ? forCount(ops, i, n, body)
      : f.createForStatement(
          f.createVariableDeclarationList([f.createVariableDeclaration(i, undefined, undefined, f.createSubtract(n, f.createNumericLiteral(1)))], ops.ts.NodeFlags.Let),
          f.createGreaterThanEquals(iId, f.createNumericLiteral(0)),
          f.createPostfixDecrement(iId),
          f.createBlock(body, true),
        );
    return [...copies, ...(s.forward ? [] : into.slice(k).map((v) => assign(ops, v, allocate(ops, arrayType(REAL), n)))), ...declare(ops, temps), loop];
  };
}

export const histogramTs = {
  reduceByIndex: emitHistogram(false),
  sreduceByIndex: emitHistogram(true),
  lhist: emitLinearHistogram({ forward: true }),
  lrhist: emitLinearHistogram({ forward: false }),
};
