// J of an erased lhist/lrhist (histogram.ts), for second derivatives: the recurrence is rewritten
// as a reduceByIndex (`sreduceByIndex`: its arrays may be sparse tangents) and differentiated with
// the histogram's own J, as linearFoldJvp.ts does for folds:
//
//   lhist(M, idx, s̄, ḋ̄, v̇̄)[B] ≡ sreduceByIndex(zeros(M), zeros(M)…, ḋ̄, idx, zeros(n), s̄, v̇̄)
//                                  [|g, d̄, h̄, z, s̄, x̄| drop(g, d̄); (z, s̄, B(s̄, h̄, x̄))]
//
// The first histogram only fixes the length M (a tangent destination may be shorter); the next r
// pass the residuals through (each written into some bin, never read). lrhist runs over idx and
// the residuals reversed (lgather by n − 1 − i), its per-element cotangents collected as
// per-element outputs and reversed back. The residuals must be arrays of reals.
import { binder, lambda, letS, prim, ret, drop, nvar, arrayType, IrError, REAL } from '../../ir/syntax';
import type { Binder, Stmt, Type } from '../../ir/syntax';
import type { Tangent } from '../../prims/types';
import type { ConstructExpr, JvpOps } from '../types';
import { constructExpr, scoped } from './jvpScope';
import { lgather } from './gather';

const REAL_ARRAY = arrayType(REAL);
const construct = constructExpr;

export function erasedHistogramJvp(
  ops0: JvpOps,
  e: ConstructExpr,
  results: readonly Binder[],
  forward: boolean,
  r: number,
  k: number,
  histogram: { jvp: (ops: JvpOps, e: ConstructExpr, results: readonly Binder[]) => readonly Tangent[] },
): readonly Tangent[] {
  const { ops, know } = scoped(ops0);
  const { b } = ops;
  const [m, idx] = e.nl;
  const residuals = e.nl.slice(2, 2 + r);
  residuals.forEach((x) => {
    const t = ops.typeOf(x);
    if (t.tag !== 'array' || t.elem.tag !== 'real') throw new IrError(`${e.op}: second derivatives need residual arrays of reals`);
  });
  const rest = e.nl.slice(2 + r);
  const body = e.bodies[0];
  const sParams = body.nlParams.slice(0, r);
  const cParams = body.nlParams.slice(r, r + k);
  const real = (h: string, t: Type = REAL): Binder => binder(b.fresh(h), t);
  const zero = b.lit(0, 'zero');
  const n = b.nl('n', construct('len', [idx], [], []), REAL);
  const zm = b.nl('zm', construct('fill', [m, zero], [], []), REAL_ARRAY);
  const zn = b.nl('zn', construct('fill', [n, zero], [], []), REAL_ARRAY);
  know(zero, REAL);
  know(n, REAL);
  know(zm, REAL_ARRAY);
  know(zn, REAL_ARRAY);
  const g = real('g');
  const z = real('z');
  const dParams = residuals.map(() => real('d'));
  const drops: Stmt[] = [g, ...dParams].map((d) => letS([], [], drop(nvar(d.name))));
  const step = Array.from({ length: forward ? k : 2 * k }, () => real('r'));
  const stepS = letS(step, [], body.body.result);
  const dummyResults = [real('guard', REAL_ARRAY), ...residuals.map(() => real('dummy', REAL_ARRAY))];
  dummyResults.forEach((x) => know(x.name, REAL_ARRAY));

  if (forward) {
    const xParams = body.nlParams.slice(r + k);
    const lam = lambda([g, ...dParams, ...cParams, z, ...sParams, ...xParams], [], {
      stmts: [...drops, ...body.body.stmts, stepS],
      result: ret([z.name, ...sParams.map((p) => p.name), ...step.map((x) => x.name)]),
    });
    const hist = construct('sreduceByIndex', [zm, ...residuals.map(() => zm), ...rest.slice(0, k), idx, zn, ...residuals, ...rest.slice(k, 2 * k)], [], [lam]);
    return histogram.jvp(ops, hist, [...dummyResults, ...results]).slice(1 + r);
  }

  const one = b.lit(1, 'one');
  const last = b.prim('sub', [n, one], 'last');
  const [i, w, q] = [real('i'), real('w'), real('q')];
  const back = real('back');
  const rev = b.nl(
    'rev',
    construct('map', [n, zn, last], [], [lambda([i, w, q], [], { stmts: [letS([], [], drop(nvar(w.name))), letS([back], [], prim('sub', [q.name, i.name]))], result: ret([back.name]) })]),
    REAL_ARRAY,
  );
  know(one, REAL);
  know(last, REAL);
  know(rev, REAL_ARRAY);
  const reversed = (x: string): string => {
    const y = real(`${x}_rev`, REAL_ARRAY);
    const [t] = lgather.jvp(ops, construct('lgather', [n, rev, x], [], []), [y]);
    know(y.name, REAL_ARRAY, t);
    return y.name;
  };
  const idxRev = reversed(idx);
  const sRev = residuals.map(reversed);
  const accs = cParams.map(() => real('acc'));
  const ins = cParams.map(() => real('y'));
  const lam = lambda([g, ...dParams, ...accs, z, ...sParams, ...ins], [], {
    stmts: [...drops, ...ins.map((y) => letS([], [], drop(nvar(y.name)))), ...cParams.map((c, j) => letS([c], [], nvar(accs[j].name))), ...body.body.stmts, stepS],
    result: ret([z.name, ...sParams.map((p) => p.name), ...step.slice(0, k).map((x) => x.name), ...step.slice(k).map((x) => x.name)]),
  });
  const hist = construct('sreduceByIndex', [zm, ...residuals.map(() => zm), ...rest.slice(0, k), idxRev, zn, ...sRev, ...cParams.map(() => zn)], [], [lam]);
  const outs = cParams.map(() => real('vbar_rev', REAL_ARRAY));
  outs.forEach((x) => know(x.name, REAL_ARRAY));
  const dots = histogram.jvp(ops, hist, [...dummyResults, ...results.slice(0, k), ...outs]);
  outs.forEach((x, j) => know(x.name, REAL_ARRAY, dots[1 + r + k + j]));
  const vbars = outs.map((x, j) => lgather.jvp(ops, construct('lgather', [n, rev, x.name], [], []), [results[k + j]])[0]);
  return [...dots.slice(1 + r, 1 + r + k), ...vbars];
}
