// U of a counted loop: carried values whose recurrence is cheap are recomputed by the linear half
// instead of stacked by the non-linear one (issue 22 item 4; docs/linear-a.md, "Loops").
//
// A carried value p that every iteration updates with a few primitives their records call cheap
// (PrimDef.cheap: one add or multiply) from itself, other such carried values, the counter,
// invariant parameters and literals (a power `p *= t`, a running product, a counter kept by
// hand) is known at iteration i from the loop's operands alone. When the body's residuals
// include it, the forward loop stacks it no more: the linear half runs the recurrence again,
// from the carried operand, just before its own loop:
//
//   ė_L: let (p̄_n, st_p) = loop(n, ū_p, p̄₀, stack(⊥, n))[|i, ū_p, p̄, st| {
//          p̄' = update(i, ū_p, p̄)                 the body's own statements for it
//          (p̄', put(st, p, i)) }]
//        drop(p̄_n)
//        the linear loop, reading p at(st_p, i) as it reads a stacked residual
//
// The tape keeps p̄₀ and ū_p (read once), not n values: a loop nested in another stores nothing per
// inner iteration for them (llsq: every power of t, 16 MB per call at GradBench's size). The stack
// exists only while the linear half runs one run of the loop. Work: the update runs once more
// per iteration (at most MAX_STEPS cheap primitives per recomputed value), so W(f.fwd) + W(f.lin)
// exceeds W(f.jvp) by that much. Same trip count as the forward loop (⌈n⌉ runs, none for n ≤ 0),
// same operations on the same operands in the same order: the recomputed values are bit for bit
// the stored ones. Only under a policy that recomputes cheap bindings (not 'save').
import { binder, construct, drop, lambda, letS, nvar, ret, stackType, REAL } from '../../ir/syntax';
import type { Binder, Lambda, Stmt } from '../../ir/syntax';
import { Builder } from '../../ir/build';
import { PRIMS } from '../../prims/registry';
import { emptyStack } from '../placeholder';
import type { UnzippedBody } from '../types';
import { type Let, bodyDefs, bodyParams } from './bodyDefs';

/** The most cheap primitives the update of one recomputed carried value may take. */
const MAX_STEPS = 4;

export interface Recomputed {
  /** The unzipped body without the recomputed residuals. */
  readonly h: UnzippedBody;
  /** Binds the recurrence's run in `lb` (the linear half's statements) and wraps the linear body to read its stacks. */
  readonly attach: (lb: Builder, n: string, body: Lambda, operands: readonly string[]) => { body: Lambda; operands: string[] };
}

/**
 * The residuals of `h` that are carried parameters with a cheap recurrence, split off; undefined
 * when there are none. `params` are the loop body's non-linear parameters (the counter, `nInv`
 * invariants, then the carried values, one per carried operand), `operands` the loop's.
 */
export function recomputeCarried(h: UnzippedBody, params: readonly Binder[], nInv: number, operands: readonly string[]): Recomputed | undefined {
  const r = h.primal.body.result;
  if (r.tag !== 'ret') return undefined;
  const { counter, invariants, carried } = bodyParams(params, nInv);
  const k = carried.length;
  // Names bound to other names (`let (y, z) = (a, b)`, how J hands the carried values on): followed.
  const { defs, alias, resolve } = bodyDefs(h.primal.body.stmts);
  const isCheap = (s: Let): boolean => s.lin.length === 0 && (s.rhs.tag === 'lit' || (s.rhs.tag === 'prim' && PRIMS[s.rhs.op]?.cheap === true));
  const fixed = new Set([counter, ...invariants.map((p) => p.name)]);
  /** The statements computing `name` from the parameters, and the carried parameters they read; undefined if not all cheap. */
  const slice = (name: string): { stmts: Set<Let>; reads: Set<string> } | undefined => {
    const stmts = new Set<Let>();
    const reads = new Set<string>();
    const todo = [name];
    while (todo.length > 0) {
      const x = resolve(todo.pop()!);
      if (fixed.has(x)) continue;
      if (carried.some((p) => p.name === x)) {
        reads.add(x);
        continue;
      }
      const s = defs.get(x);
      if (!s || !isCheap(s)) return undefined;
      if (stmts.has(s)) continue;
      stmts.add(s);
      if (stmts.size > MAX_STEPS) return undefined;
      if (s.rhs.tag !== 'prim') continue;
      // An argument read through an alias would need the aliasing statement too: not recomputed.
      if (s.rhs.args.some((a) => alias.has(a))) return undefined;
      todo.push(...s.rhs.args);
    }
    return { stmts, reads };
  };
  // The carried values whose update is cheap and reads only other such values: shrink to a fixpoint.
  const slices = new Map(carried.map((p, c) => [p.name, slice(r.nl[c])] as const));
  const updated = (c: number): string => resolve(r.nl[c]);
  let changed = true;
  while (changed) {
    changed = false;
    for (const [p, s] of slices) {
      if (s && [...s.reads].some((q) => !slices.get(q))) {
        slices.set(p, undefined);
        changed = true;
      }
    }
  }
  const gone = h.residuals.map((t, j) => t.tag === 'real' && slices.get(resolve(r.nl[k + j])) !== undefined);
  if (!gone.some((g) => g)) return undefined;
  // The carried values the recomputed ones need, and the statements updating them, in body order.
  const needed = new Set<string>();
  const todo = r.nl
    .slice(k)
    .filter((_, j) => gone[j])
    .map(resolve);
  while (todo.length > 0) {
    const p = todo.pop()!;
    if (needed.has(p)) continue;
    needed.add(p);
    todo.push(...slices.get(p)!.reads);
  }
  const run = carried.map((p, c) => ({ p, c })).filter(({ p }) => needed.has(p.name));
  const stmtSet = new Set<Let>();
  for (const { p } of run) for (const s of slices.get(p.name)!.stmts) stmtSet.add(s);
  const stmts = h.primal.body.stmts.filter((s): s is Let => stmtSet.has(s as Let));
  const read = new Set<string>();
  for (const s of stmts) if (s.rhs.tag === 'prim') s.rhs.args.forEach((a) => read.add(a));
  // An update that is an invariant itself (`p = u`) reads it too.
  for (const { c } of run) read.add(updated(c));
  const invs = invariants.map((p, m) => ({ p, operand: operands[1 + m] })).filter(({ p }) => read.has(p.name));
  const residualParams = h.tangent.nlParams.filter((_, j) => gone[j]);
  const stored = r.nl
    .slice(k)
    .filter((_, j) => gone[j])
    .map(resolve);
  const reduced: UnzippedBody = {
    primal: { ...h.primal, body: { stmts: h.primal.body.stmts, result: ret(r.nl.filter((_, j) => j < k || !gone[j - k])) } },
    tangent: { ...h.tangent, nlParams: h.tangent.nlParams.filter((_, j) => !gone[j]) },
    residuals: h.residuals.filter((_, j) => !gone[j]),
  };
  const attach = (lb: Builder, n: string, body: Lambda, linOperands: readonly string[]) => {
    const st0 = stored.map(() => emptyStack(lb, REAL, n));
    const stParams = stored.map(() => binder(lb.fresh('st'), stackType(REAL)));
    const puts: Stmt[] = [];
    const pushed = stored.map((x, q) => {
      const next = binder(lb.fresh('st'), stackType(REAL));
      puts.push(letS([next], [], construct('put', [stParams[q].name, x, counter], [], [])));
      return next.name;
    });
    const recurrence = lambda([params[0], ...invs.map((u) => u.p), ...run.map((u) => u.p), ...stParams], [], {
      stmts: [...stmts, ...puts],
      result: ret([...run.map((u) => updated(u.c)), ...pushed]),
    });
    const finals = run.map((u) => binder(lb.fresh(u.p.name), u.p.type ?? REAL));
    const stacks = stored.map(() => binder(lb.fresh('st'), stackType(REAL)));
    lb.bind([...finals, ...stacks], [], construct('loop', [n, ...invs.map((u) => u.operand), ...run.map((u) => operands[1 + nInv + u.c]), ...st0], [], [recurrence]));
    for (const f of finals) lb.stmt(letS([], [], drop(nvar(f.name))));
    // The linear body reads each recomputed value where it read it from the stack U made before.
    const i = body.nlParams[0].name;
    const readParams = stored.map(() => binder(lb.fresh('st'), stackType(REAL)));
    const reads = residualParams.map((x, q) => letS([x], [], construct('at', [readParams[q].name, i], [], [])));
    return {
      body: lambda([...body.nlParams, ...readParams], body.linParams, { stmts: [...reads, ...body.body.stmts], result: body.body.result }),
      operands: [...linOperands, ...stacks.map((s) => s.name)],
    };
  };
  return { h: reduced, attach };
}
