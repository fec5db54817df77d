// J of an erased linear recurrence (linearFold.ts), for second derivatives: hvp is J of the
// erased gradient, which holds lfold/lrfold (reduce) and lscan/lrscan (scan). An erased
// recurrence is a fold that also reads its residual arrays s̄, so it is rewritten as a scan or
// reduce whose extra accumulators d̄ carry nothing (each step's d' is the step's s, dropped on
// entry) and differentiated with the fold's own J rule:
//
//   lfold(n, s̄, ċ̄, ẋ̄s)[B]   ≡ reduce(n, ċ̄, 0̄, ẋ̄s, s̄)[|c̄, d̄, x̄, s̄| drop(d̄); (B(s̄, c̄, x̄), s̄)]  (first k results)
//   lrfold(n, s̄, ȳ̄)[Bᵀ]     ≡ the same over the arrays reversed (lgather by n − 1 − i, which reads 0
//                            past a sparse array's end), the per-step cotangents x̄ collected as
//                            per-element outputs and reversed back; lrscan adds ȳ_i on entry.
//
// The residual arrays must be arrays of reals (the extra accumulators are reals); otherwise the
// error says so.
import { binder, lambda, letS, prim, ret, drop, nvar, arrayType, IrError, REAL } from '../../ir/syntax';
import type { Binder, Stmt, Type } from '../../ir/syntax';
import type { Tangent } from '../../prims/types';
import type { ConstructExpr, JvpOps } from '../types';
import { constructExpr, scoped } from './jvpScope';
import { scan } from './scan';
import { reduce } from './reduce';
import { lgather } from './gather';

const REAL_ARRAY = arrayType(REAL);
const construct = constructExpr;

export interface RecurrenceShape {
  readonly forward: boolean;
  readonly scan: boolean;
}

export function erasedRecurrenceJvp(ops0: JvpOps, e: ConstructExpr, results: readonly Binder[], s: RecurrenceShape, r: number, k: number): readonly Tangent[] {
  const { ops, know } = scoped(ops0);
  const { b } = ops;
  const n = e.nl[0];
  const residuals = e.nl.slice(1, 1 + r);
  residuals.forEach((x) => {
    const t = ops.typeOf(x);
    if (t.tag !== 'array' || t.elem.tag !== 'real') throw new IrError(`${e.op}: second derivatives need residual arrays of reals, got ${t.tag === 'array' ? `array<${t.elem.tag}>` : t.tag}`);
  });
  const rest = e.nl.slice(1 + r);
  const body = e.bodies[0];
  const sParams = body.nlParams.slice(0, r);
  const cParams = body.nlParams.slice(r, r + k);
  const zero = b.lit(0, 'zero');
  know(zero, REAL);
  const realBinder = (h: string, t: Type = REAL): Binder => binder(b.fresh(h), t);
  const dParams = residuals.map(() => realBinder('d'));
  const drops: Stmt[] = dParams.map((d) => letS([], [], drop(nvar(d.name))));
  const stepResults = Array.from({ length: s.forward ? k : 2 * k }, () => realBinder('r'));
  const step = letS(stepResults, [], body.body.result);
  const dummies = (t: Type): Binder[] => residuals.map(() => realBinder('dummy', t));

  if (s.forward) {
    const xParams = body.nlParams.slice(r + k);
    const lambdaBody = lambda([...cParams, ...dParams, ...xParams, ...sParams], [], {
      stmts: [...drops, ...body.body.stmts, step],
      result: ret([...stepResults.map((x) => x.name), ...sParams.map((p) => p.name)]),
    });
    const fold = construct(s.scan ? 'scan' : 'reduce', [n, ...rest.slice(0, k), ...residuals.map(() => zero), ...rest.slice(k, 2 * k), ...residuals], [], [lambdaBody]);
    const extra = dummies(s.scan ? REAL_ARRAY : REAL);
    extra.forEach((x) => know(x.name, x.type!));
    return (s.scan ? scan : reduce).jvp(ops, fold, [...results, ...extra]).slice(0, k);
  }

  // Backward: the arrays reversed, rev_i = n − 1 − i.
  const one = b.lit(1, 'one');
  const last = b.prim('sub', [n, one], 'last');
  const zeros = b.nl('zeros', construct('fill', [n, zero], [], []), REAL_ARRAY);
  const [i, z, m] = [realBinder('i'), realBinder('z'), realBinder('m')];
  const back = realBinder('back');
  const rev = b.nl(
    'rev',
    construct('map', [n, zeros, last], [], [lambda([i, z, m], [], { stmts: [letS([], [], drop(nvar(z.name))), letS([back], [], prim('sub', [m.name, i.name]))], result: ret([back.name]) })]),
    REAL_ARRAY,
  );
  [one, last].forEach((x) => know(x, REAL));
  [zeros, rev].forEach((x) => know(x, REAL_ARRAY));
  const reversed = (x: string): string => {
    const y = realBinder(`${x}_rev`, REAL_ARRAY);
    const [t] = lgather.jvp(ops, construct('lgather', [n, rev, x], [], []), [y]);
    know(y.name, REAL_ARRAY, t);
    return y.name;
  };
  const sRev = residuals.map(reversed);
  // lrscan's operands after the residuals are the k output cotangents ȳ̄s; lrfold's the k starting cotangents.
  const inputs = s.scan ? rest.slice(0, k).map(reversed) : Array.from({ length: k }, () => zeros);
  const accs = cParams.map(() => realBinder('acc'));
  const ins = cParams.map(() => realBinder('y'));
  const entry: Stmt[] = cParams.map((c, j) => (s.scan ? letS([c], [], prim('add', [accs[j].name, ins[j].name])) : letS([c], [], nvar(accs[j].name))));
  const ignore: Stmt[] = s.scan ? [] : ins.map((y) => letS([], [], drop(nvar(y.name))));
  const lambdaBody = lambda([...accs, ...dParams, ...ins, ...sParams], [], {
    stmts: [...drops, ...ignore, ...entry, ...body.body.stmts, step],
    result: ret([...stepResults.slice(0, k).map((x) => x.name), ...sParams.map((p) => p.name), ...stepResults.slice(k).map((x) => x.name)]),
  });
  const init = s.scan ? cParams.map(() => zero) : rest.slice(0, k);
  const fold = construct('reduce', [n, ...init, ...residuals.map(() => zero), ...inputs, ...sRev], [], [lambdaBody]);
  const extra = dummies(REAL);
  const outs = cParams.map(() => realBinder('xbar_rev', REAL_ARRAY));
  [...extra, ...outs].forEach((x) => know(x.name, x.type!));
  const dots = reduce.jvp(ops, fold, [...results.slice(0, k), ...extra, ...outs]);
  outs.forEach((x, j) => know(x.name, REAL_ARRAY, dots[k + r + j]));
  const xbars = outs.map((x, j) => lgather.jvp(ops, construct('lgather', [n, rev, x.name], [], []), [results[k + j]])[0]);
  return [...dots.slice(0, k), ...xbars];
}
