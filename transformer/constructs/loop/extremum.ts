// J of a counted loop that keeps the best of its iterations (docs/linear-a.md, "Extremum folds"):
//
//   best = Math.min(best, d)                      (one carried value; max alike)
//   if (d < best) { best = d; arg = j; }          (every carried value replaced together, or kept)
//
// Both keep what one iteration k computed (or the initial values, when no iteration won), so the
// derivative is that iteration's: ċ' = k ≥ 0 ? J(then)(k) : ċ₀, where `then` is what the body
// computes for the carried values from the counter and the invariants alone. The primal loop
// stays the user's (its values exact, NaN and signed zeros included) and also carries k, the last
// iteration whose test held; the tangent is one cond that runs J of the body at k. Reverse mode
// then stores nothing per iteration and its backward pass touches iteration k only, as the
// reduce combinator's min rule (array/reduceSpecial.ts) does. Ties: min(best, d) keeps the
// accumulator (min's own derivative lets its first argument win), so the lowest index wins, as
// with `d < best`; min(d, best) lets the later element win, tracked with ≤.
//
// The shape is checked exactly; anything else gets the general rule: the values the body
// computes for the carried values may not depend on a carried value (only the test may).
import { binder, block, blockE, construct, drop, lambda, letS, lvar, nvar, prim, ret, tangentType, REAL } from '../../ir/syntax';
import type { Binder, Lambda, Stmt } from '../../ir/syntax';
import { freeVars } from '../../ir/freeVars';
import type { Tangent } from '../../prims/types';
import type { ConstructExpr, JvpOps } from '../types';
import { dotName } from '../../ir/names';
import { withoutEffects } from '../effect';

/** A recognised extremum loop: how to track the winning iteration, and the body of the kept values (its effects, a throw or a log, ran with the primal). */
export interface Extremum {
  /** The user's body, also carrying the winning counter: `|i, ū, c̄, at| … (c̄', at')`. */
  readonly track: (at: Binder, at2: string, wins: string) => Lambda;
  /** `|i, ū| …(kept values)`: what the winning iteration hands on, from the counter and invariants. */
  readonly kept: Lambda;
}

/** The names bound by statements that read (directly or not) one of `seeds`. */
function tainted(stmts: readonly Stmt[], seeds: Iterable<string>): Set<string> {
  const out = new Set(seeds);
  for (const s of stmts) {
    const names = s.tag === 'let' ? [...s.nl, ...s.lin].map((x) => x.name) : s.names.map((x) => x.name);
    const reads = s.tag === 'let' ? freeVars(s.rhs) : { nl: new Set([s.tuple]), lin: new Set<string>() };
    if ([...reads.nl, ...reads.lin].some((n) => out.has(n))) for (const n of names) out.add(n);
  }
  return out;
}

function readsAny(stmts: readonly Stmt[], names: ReadonlySet<string>): boolean {
  const f = freeVars(block(stmts, ret([])));
  return [...f.nl, ...f.lin].some((n) => names.has(n));
}

const isDropOf = (s: Stmt, names: ReadonlySet<string>): boolean =>
  s.tag === 'let' && s.nl.length === 0 && s.lin.length === 0 && s.rhs.tag === 'drop' && s.rhs.expr.tag === 'var' && names.has(s.rhs.expr.name);

const TESTS = { min: ['lt', 'le'], max: ['gt', 'ge'] } as const;

/** The extremum shape of a loop, or undefined (the general rule applies). */
export function recogniseExtremum(e: ConstructExpr): Extremum | undefined {
  if (e.lin.length !== 0 || e.bodies.length !== 1) return undefined;
  const body = e.bodies[0];
  if (body.linParams.length !== 0 || body.body.result.tag !== 'ret' || body.body.result.lin.length !== 0) return undefined;
  const results = body.body.result.nl;
  const carried = body.nlParams.slice(body.nlParams.length - results.length);
  const fixed = body.nlParams.slice(0, body.nlParams.length - results.length);
  if (carried.length === 0 || fixed.length === 0) return undefined;
  const stmts = body.body.stmts;
  const last = stmts[stmts.length - 1];
  if (last === undefined || last.tag !== 'let' || last.lin.length !== 0 || last.nl.length !== results.length || last.nl.some((b, i) => b.name !== results[i])) return undefined;
  const before = stmts.slice(0, -1);
  const dirty = tainted(
    before,
    carried.map((c) => c.name),
  );
  const clean = before.filter((s) => !readsAny([s], dirty));
  const rhs = last.rhs;

  // best = min(best, d) / min(d, best): one carried value.
  if (rhs.tag === 'prim' && (rhs.op === 'min' || rhs.op === 'max') && rhs.args.length === 2 && carried.length === 1) {
    const acc = carried[0].name;
    const first = rhs.args[0] === acc;
    const d = first ? rhs.args[1] : rhs.args[0];
    if (rhs.args[first ? 0 : 1] !== acc || d === acc || dirty.has(d)) return undefined;
    const test = TESTS[rhs.op][first ? 0 : 1];
    return {
      kept: lambda(fixed, [], withoutEffects(block(clean, ret([d])))),
      track: (at, at2, wins) =>
        lambda(
          [...body.nlParams, at],
          [],
          block(
            [...before, letS([binder(wins, { tag: 'bool' })], [], prim(test, [d, acc])), last, letS([binder(at2, REAL)], [], prim('select', [wins, fixed[0].name, at.name]))],
            ret([...results, at2]),
          ),
        ),
    };
  }

  // let c̄' = cond(w, ō)[|p̄| then][|q̄| q̄ kept]: the else body returns the carried values as they came.
  if (rhs.tag !== 'construct' || rhs.op !== 'cond' || rhs.lin.length !== 0 || rhs.bodies.length !== 2) return undefined;
  const [then, otherwise] = rhs.bodies;
  const operands = rhs.nl.slice(1);
  const els = otherwise.body.result;
  if (els.tag !== 'ret' || els.lin.length !== 0 || els.nl.length !== carried.length || then.linParams.length !== 0) return undefined;
  const identity = els.nl.every((n, m) => {
    const p = otherwise.nlParams.findIndex((q) => q.name === n);
    return p >= 0 && operands[p] === carried[m].name;
  });
  if (!identity) return undefined;
  // The then body may only drop the parameters that receive a value the carried ones decide.
  const dirtyParams = new Set(then.nlParams.filter((_, p) => dirty.has(operands[p])).map((q) => q.name));
  const thenStmts = then.body.stmts.filter((s) => !isDropOf(s, dirtyParams));
  if (readsAny(thenStmts, dirtyParams) || [...freeVars(then.body.result).nl].some((n) => dirtyParams.has(n))) return undefined;
  const binds = then.nlParams.flatMap((q, p) => (dirtyParams.has(q.name) ? [] : [letS([q], [], nvar(operands[p]))]));
  const w = rhs.nl[0];
  return {
    kept: lambda(fixed, [], withoutEffects(block([...clean, ...binds, ...thenStmts], then.body.result))),
    track: (at, at2) => lambda([...body.nlParams, at], [], block([...stmts, letS([binder(at2, REAL)], [], prim('select', [w, fixed[0].name, at.name]))], ret([...results, at2]))),
  };
}

/**
 * J of a recognised extremum loop: the user's loop, also tracking the winning counter k, then
 * `cond(k ≥ 0, k, ū ; u̇̄, ċ₀)[|k, ū ; u̇̄, ċ₀| J(kept)(k, ū ; u̇̄)][|…| ċ₀]`.
 */
export function extremumJvp(ops: JvpOps, e: ConstructExpr, results: readonly Binder[], shape: Extremum): readonly Tangent[] {
  const { b } = ops;
  const n = results.length;
  const invariants = e.nl.slice(1, e.nl.length - n);
  const inits = e.nl.slice(e.nl.length - n);
  const invDots = invariants.map((x) => ops.tangentOf(x));
  const initDots = inits.map((x) => ops.tangentOf(x));
  if ([...invDots, ...initDots].every((t) => t === null)) {
    b.bind([...results], [], e);
    return results.map(() => null);
  }
  const none = b.lit(-1, 'none');
  const at = binder(b.fresh('at'), REAL);
  const won = binder(b.fresh('won'), REAL);
  b.bind([...results, won], [], construct('loop', [...e.nl, none], [], [shape.track(at, b.fresh('at'), b.fresh('wins'))]));
  const zero = b.lit(0, 'zero');
  const found = b.test('ge', [won.name, zero], 'found');
  const dots = [...invDots.map((t, i) => t ?? b.zero(tangentType(ops.typeOf(invariants[i])), 'zero')), ...initDots.map((t, i) => t ?? b.zero(tangentType(ops.typeOf(inits[i])), 'zero'))];
  const types = results.map((r) => ops.typeOf(r.name));

  const j = ops.jvpBody(shape.kept, 1);
  const initParams = types.map((t) => binder(b.fresh('init_dot'), tangentType(t)));
  const kept = types.map((t) => binder(b.fresh('kept'), t));
  const keptDots = types.map((t) => binder(b.fresh('kept_dot'), tangentType(t)));
  const taken = lambda(
    j.nlParams,
    [...j.linParams, ...initParams],
    block(
      [...initParams.map((p) => letS([], [], drop(lvar(p.name)))), letS(kept, keptDots, blockE(j.body)), ...kept.map((k) => letS([], [], drop(nvar(k.name))))],
      ret(
        [],
        keptDots.map((k) => k.name),
      ),
    ),
  );
  const skipNl = j.nlParams.map((p) => binder(b.fresh(p.name), p.type));
  const skipLin = j.linParams.map((p) => binder(b.fresh(p.name), p.type));
  const skipInit = types.map((t) => binder(b.fresh('init_dot'), tangentType(t)));
  const skipped = lambda(
    skipNl,
    [...skipLin, ...skipInit],
    block(
      [...skipNl.map((p) => letS([], [], drop(nvar(p.name)))), ...skipLin.map((p) => letS([], [], drop(lvar(p.name))))],
      ret(
        [],
        skipInit.map((p) => p.name),
      ),
    ),
  );
  const resultDots = results.map((y, i) => binder(b.fresh(dotName(y.name)), tangentType(types[i])));
  b.bind([], resultDots, construct('cond', [found, won.name, ...invariants], dots, [taken, skipped]));
  return resultDots.map((d) => d.name);
}
