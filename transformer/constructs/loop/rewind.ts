// U of a counted loop: a carried position that an inner loop moves by a fixed step per inner
// iteration is rewound by the backward pass from its final value instead of stacked (issue 22;
// docs/linear-a.md, "Loops").
//
// The shape (GradBench gmm's walk over a packed triangle, `li` carried over the columns):
//
//   loop(n, ū, p₀, …)[|i, ū, p, …| { T; let (…, p', …) = loop(m_i, …, p, …)[|k, …, q, …| { …; q + c }]; … (p', …) }]
//
// where the inner trip count m_i is computed from i and ū alone by cheap primitives (T), and c is
// a nonzero integer literal. Iteration i then ends with p + c·t_i, t_i = (m_i > 0 ? ⌈m_i⌉ : 0),
// *when every value p takes is an integer of at most 2²³*: each addition is then exact (in f64 and
// in the GPU's f32), and so is its inverse. The values of a monotone sequence lie between its ends, so it is enough to check
// p₀ and the loop's final value p_n, once, in the linear half. The forward half stores nothing
// per iteration for p; the linear half gets p_n (one residual per run) and runs
//
//   ė_L: let ok = whole(p₀) ∧ 1/p₀ ≠ −∞ ∧ whole(p_n)        whole(x): trunc(x) === x ∧ |x| ≤ 2²³
//        let st_b = loop(ok ? 0 : n, ū, p₀)[T; put p at i; p moved by c, ⌈m_i⌉ times]   the exact replay
//        let (_, st_r) = loop(n, ⌈n⌉, ū, p_n, stack(n))[|j, m, ū, q, st| { i = m − j − 1; T;
//                          let q' = q − c·t_i in (q', put(st, q', i)) }]
//        the linear loop, reading p at i as cond(ok)[at(st_r, i)][at(st_b, i)]
//
// The rewinding loop runs backwards, as T makes the linear loop run, so the simplifier fuses the
// two (fuseFill.ts, "both backwards"): the backward loop carries p down from p_n, with no stack.
// −0 is excluded at the start (p₀ = −0 stays −0 through steps of zero trips, which p_n − … would
// give as +0); a fractional, NaN, −0 or large start, or a large end, takes the exact replay of
// the forward recurrence, the same operations in the same order: the values are the forward
// ones bit for bit on both paths. Only under a policy that recomputes cheap bindings.
import { BOOL, REAL, binder, block, construct, drop, lambda, letS, lit, nvar, prim, ret, stackType } from '../../ir/syntax';
import type { Binder, Lambda, Stmt } from '../../ir/syntax';
import type { Builder } from '../../ir/build';
import { renameOperands } from '../../ir/traverse';
import { PRIMS } from '../../prims/registry';
import { emptyStack } from '../placeholder';
import type { ConstructExpr, UnzippedBody } from '../types';
import { type Let, bodyDefs, bodyParams } from './bodyDefs';

export interface Rewound {
  /** The unzipped body without the rewound residuals. */
  readonly h: UnzippedBody;
  /** Binds the guards and loops in `lb` (the linear half's statements) and wraps the linear body to read the positions. */
  readonly attach: (lb: Builder, n: string, body: Lambda, operands: readonly string[]) => { body: Lambda; operands: string[] };
}

/** One rewound carried value: its slot, its step per inner iteration and how the inner trip count is computed. */
interface Walk {
  /** The residual's position in the body's residuals. */
  readonly residual: number;
  /** The carried slot (0-based among the carried values). */
  readonly slot: number;
  readonly step: number;
  /** The statements computing the inner trip count from the counter and invariants, in body order. */
  readonly trip: readonly Let[];
  readonly tripName: string;
}

/**
 * The residuals of `h` that are carried positions an inner loop of the same construct moves by a
 * literal step, split off; undefined when there are none. `params` are the loop body's non-linear
 * parameters (the counter, `nInv` invariants, the carried values), `operands` the loop's,
 * `finals` the binders of its carried results in the enclosing scope.
 */
export function rewindCarried(h: UnzippedBody, params: readonly Binder[], nInv: number, operands: readonly string[], finals: readonly Binder[], op: string): Rewound | undefined {
  const r = h.primal.body.result;
  if (r.tag !== 'ret') return undefined;
  const { counter, invariants, carried } = bodyParams(params, nInv);
  const k = carried.length;
  if (finals.length !== k) return undefined;
  const { defs, results, alias, resolve } = bodyDefs(h.primal.body.stmts);
  const fixed = new Set([counter, ...invariants.map((p) => p.name)]);
  const isCheap = (s: Let): boolean => s.rhs.tag === 'lit' || (s.rhs.tag === 'prim' && PRIMS[s.rhs.op]?.cheap === true);
  /** The cheap statements computing `name` from the counter and invariants; undefined if there are others. */
  const tripSlice = (name: string): Let[] | undefined => {
    const stmts = new Set<Let>();
    const todo = [name];
    while (todo.length > 0) {
      const x = todo.pop()!;
      if (fixed.has(x)) continue;
      // Read through a renaming, the copy would need the renaming too: not rewound.
      if (alias.has(x)) return undefined;
      const s = defs.get(x);
      if (!s || !isCheap(s) || stmts.size > 8) return undefined;
      if (stmts.has(s)) continue;
      stmts.add(s);
      if (s.rhs.tag === 'prim') todo.push(...s.rhs.args);
    }
    return h.primal.body.stmts.filter((s): s is Let => stmts.has(s as Let));
  };
  const walks: Walk[] = [];
  h.residuals.forEach((t, j) => {
    if (t.tag !== 'real') return;
    const slot = carried.findIndex((p) => p.name === resolve(r.nl[k + j]));
    if (slot < 0 || walks.some((w) => w.slot === slot)) return;
    const found = results.get(resolve(r.nl[slot]));
    if (!found) return;
    const inner = found.s.rhs;
    if (inner.tag !== 'construct' || inner.op !== op || inner.lin.length > 0 || inner.bodies.length !== 1) return;
    const step = innerStep(inner, found.s.nl.length, found.at, (x) => resolve(x) === carried[slot].name);
    if (step === undefined) return;
    const trip = tripSlice(inner.nl[0]);
    if (trip === undefined) return;
    walks.push({ residual: j, slot, step, trip, tripName: inner.nl[0] });
  });
  if (walks.length === 0) return undefined;
  const gone = new Set(walks.map((w) => w.residual));
  const reduced: UnzippedBody = {
    primal: { ...h.primal, body: { stmts: h.primal.body.stmts, result: ret(r.nl.filter((_, j) => j < k || !gone.has(j - k))) } },
    tangent: { ...h.tangent, nlParams: h.tangent.nlParams.filter((_, j) => !gone.has(j)) },
    residuals: h.residuals.filter((_, j) => !gone.has(j)),
  };
  const attach = (lb: Builder, n: string, body: Lambda, linOperands: readonly string[]) => {
    const i = body.nlParams[0].name;
    const params: Binder[] = [];
    const reads: Stmt[] = [];
    const more: string[] = [];
    for (const w of walks) {
      const start = operands[1 + nInv + w.slot];
      const ok = exactGuard(lb, start, finals[w.slot].name);
      const replayed = replay(lb, n, ok, start, w, invariants, operands.slice(1, 1 + nInv), counter);
      const rewound = rewind(lb, n, finals[w.slot].name, w, invariants, operands.slice(1, 1 + nInv), counter);
      // The linear body reads the position as the rewound stack's element, or the replayed one's where the guard failed.
      const [stR, stB, okP] = [binder(lb.fresh('st'), stackType(REAL)), binder(lb.fresh('st'), stackType(REAL)), binder(lb.fresh('ok'), BOOL)];
      params.push(stR, stB, okP);
      more.push(rewound, replayed, ok);
      const x = h.tangent.nlParams[w.residual];
      const atR = binder(lb.fresh(`${x.name}_at`), REAL);
      const [a1, s1, i1, a2, s2, i2, v] = ['pos', 'st', 'i', 'pos', 'st', 'i', 'pos'].map((base) => lb.fresh(base));
      const fromStack = lambda(
        [binder(a2, REAL), binder(s2, stackType(REAL)), binder(i2, REAL)],
        [],
        block([letS([], [], drop(nvar(a2))), letS([binder(v, REAL)], [], construct('at', [s2, i2], [], []))], ret([v])),
      );
      const rewoundHere = lambda([binder(a1, REAL), binder(s1, stackType(REAL)), binder(i1, REAL)], [], block([letS([], [], drop(nvar(s1))), letS([], [], drop(nvar(i1)))], ret([a1])));
      reads.push(letS([atR], [], construct('at', [stR.name, i], [], [])), letS([x], [], construct('cond', [okP.name, atR.name, stB.name, i], [], [rewoundHere, fromStack])));
    }
    return {
      body: lambda([...body.nlParams, ...params], body.linParams, { stmts: [...reads, ...body.body.stmts], result: body.body.result }),
      operands: [...linOperands, ...more],
    };
  };
  return { h: reduced, attach };
}

/**
 * The step of the carried value at result `at` of the inner loop `inner` (with `results` results)
 * when its operand is the outer position (`isPosition`) and its body's update is `q + c` or `q − c`
 * for its own parameter q and a nonzero integer literal c; undefined otherwise.
 */
function innerStep(inner: ConstructExpr, nResults: number, at: number, isPosition: (x: string) => boolean): number | undefined {
  const body = inner.bodies[0];
  const nInv = inner.nl.length - 1 - nResults;
  const rr = body.body.result;
  if (nInv < 0 || at >= nResults || body.nlParams.length !== inner.nl.length || rr.tag !== 'ret' || rr.nl.length !== nResults) return undefined;
  if (!isPosition(inner.nl[1 + nInv + at])) return undefined;
  const q = body.nlParams[1 + nInv + at].name;
  const { defs, resolve } = bodyDefs(body.body.stmts);
  const update = defs.get(resolve(rr.nl[at]))?.rhs;
  if (update?.tag !== 'prim' || (update.op !== 'add' && update.op !== 'sub')) return undefined;
  const literal = (x: string): number | undefined => {
    const e = defs.get(resolve(x))?.rhs;
    return e?.tag === 'lit' && typeof e.value === 'number' && Number.isSafeInteger(e.value) && e.value !== 0 ? e.value : undefined;
  };
  const [a, b] = update.args.map(resolve);
  if (a === q && literal(b) !== undefined) return update.op === 'add' ? literal(b) : -literal(b)!;
  if (update.op === 'add' && b === q && literal(a) !== undefined) return literal(a);
  return undefined;
}

/**
 * `whole(p₀) ∧ 1/p₀ ≠ −∞ ∧ whole(p_n)`, whole(x) being `trunc(x) === x ∧ |x| ≤ 2²³`: every value
 * between them an integer of at most 2²³, and no −0 start (of those integers, only −0 has 1/p₀ = −∞).
 * 2²³ and not 2³¹ because the same IR runs on the GPU in f32 (the WGSL backend has no `toint32`):
 * there the integers up to 2²⁴ are exact, and so is every difference of two ends of at most 2²³.
 */
function exactGuard(lb: Builder, start: string, end: string): string {
  const whole = (x: string) => lb.test('and', [lb.test('eq', [lb.prim('trunc', [x], 'int'), x], 'integral'), lb.test('le', [lb.prim('abs', [x], 'size'), lb.lit(2 ** 23, 'limit')], 'small')], 'whole');
  const signed = lb.test('ne', [lb.prim('div', [lb.lit(1, 'one'), start], 'inv'), lb.lit(-Infinity, 'minus')], 'signed');
  return lb.test('and', [lb.test('and', [whole(start), signed], 'exact'), whole(end)], 'exact');
}

/** The trip count's statements under fresh names, reading `fixed` through `rename`; the renamed trip count. */
function copyTrip(lb: Builder, w: Walk, rename: Map<string, string>): { stmts: Stmt[]; trip: string } {
  const stmts = w.trip.map((s) => {
    const nl = s.nl.map((x) => {
      const fresh = lb.fresh(x.name);
      rename.set(x.name, fresh);
      return { ...x, name: fresh };
    });
    return { ...s, nl, rhs: renameOperands(s.rhs, (x) => rename.get(x) ?? x) };
  });
  return { stmts, trip: rename.get(w.tripName) ?? w.tripName };
}

/** Fresh parameters for the invariants the trip count reads, with their operands, recorded in `rename`. */
function invariantParams(
  lb: Builder,
  invariants: readonly Binder[],
  operands: readonly string[],
  w: Walk,
  counter: string,
  rename: Map<string, string>,
  counterName: string,
): { params: Binder[]; operands: string[] } {
  rename.set(counter, counterName);
  const read = new Set(w.trip.flatMap((s) => (s.rhs.tag === 'prim' ? s.rhs.args : [])));
  read.add(w.tripName);
  const params: Binder[] = [];
  const ops: string[] = [];
  invariants.forEach((p, m) => {
    if (!read.has(p.name)) return;
    const fresh = binder(lb.fresh(p.name), p.type ?? REAL);
    rename.set(p.name, fresh.name);
    params.push(fresh);
    ops.push(operands[m]);
  });
  return { params, operands: ops };
}

/** `let (q_0, st) = loop(n, ⌈n⌉, ū, p_n, stack(n))[…q' = q − c·t_i; put(st, q', i)…]`, q_0 dropped: the rewound positions. */
function rewind(lb: Builder, n: string, end: string, w: Walk, invariants: readonly Binder[], invOperands: readonly string[], counter: string): string {
  const rename = new Map<string, string>();
  const [j, m, i, left, one] = ['j', 'm', 'i', 'left', 'one'].map((base) => lb.fresh(base));
  const inv = invariantParams(lb, invariants, invOperands, w, counter, rename, i);
  const trip = copyTrip(lb, w, rename);
  const [q, st, zero, runs, ceil, t, step, stepT, q1, st1] = ['q', 'st', 'zero', 'runs', 'trips', 'trips', 'step', 'moved', 'q', 'st'].map((base) => lb.fresh(base));
  const stmts: Stmt[] = [
    letS([binder(one, REAL)], [], lit(1)),
    letS([binder(left, REAL)], [], prim('sub', [m, j])),
    letS([binder(i, REAL)], [], prim('sub', [left, one])),
    ...trip.stmts,
    letS([binder(zero, REAL)], [], lit(0)),
    letS([binder(runs, BOOL)], [], prim('gt', [trip.trip, zero])),
    letS([binder(ceil, REAL)], [], prim('ceil', [trip.trip])),
    letS([binder(t, REAL)], [], prim('select', [runs, ceil, zero])),
    letS([binder(step, REAL)], [], lit(w.step)),
    letS([binder(stepT, REAL)], [], prim('mul', [step, t])),
    letS([binder(q1, REAL)], [], prim('sub', [q, stepT])),
    letS([binder(st1, stackType(REAL))], [], construct('put', [st, q1, i], [], [])),
  ];
  const body = lambda([binder(j, REAL), binder(m, REAL), ...inv.params, binder(q, REAL), binder(st, stackType(REAL))], [], block(stmts, ret([q1, st1])));
  const count = lb.prim('ceil', [n], 'count');
  const st0 = emptyStack(lb, REAL, n);
  const [q0, stR] = [lb.fresh('q'), lb.fresh('st')];
  lb.bind([binder(q0, REAL), binder(stR, stackType(REAL))], [], construct('loop', [n, count, ...inv.operands, end, st0], [], [body]));
  lb.stmt(letS([], [], drop(nvar(q0))));
  return stR;
}

/**
 * The forward recurrence again, run ⌈n⌉ times where the guard fails and none where it holds: p put
 * at i, then moved by c ⌈m_i⌉ times. The positions exactly as the forward loop computed them.
 */
function replay(lb: Builder, n: string, ok: string, start: string, w: Walk, invariants: readonly Binder[], invOperands: readonly string[], counter: string): string {
  const rename = new Map<string, string>();
  const i = lb.fresh('i');
  const inv = invariantParams(lb, invariants, invOperands, w, counter, rename, i);
  const trip = copyTrip(lb, w, rename);
  // The inner loop: |k, q| q + c.
  const [kk, q, c, q1] = ['k', 'q', 'step', 'q'].map((base) => lb.fresh(base));
  const innerBody = lambda(
    [binder(kk, REAL), binder(q, REAL)],
    [],
    block([letS([], [], drop(nvar(kk))), letS([binder(c, REAL)], [], lit(w.step)), letS([binder(q1, REAL)], [], prim('add', [q, c]))], ret([q1])),
  );
  const [p, st, p1, st1] = ['p', 'st', 'p', 'st'].map((base) => lb.fresh(base));
  const outerBody = lambda(
    [binder(i, REAL), ...inv.params, binder(p, REAL), binder(st, stackType(REAL))],
    [],
    block(
      [...trip.stmts, letS([binder(st1, stackType(REAL))], [], construct('put', [st, p, i], [], [])), letS([binder(p1, REAL)], [], construct('loop', [trip.trip, p], [], [innerBody]))],
      ret([p1, st1]),
    ),
  );
  // No run where the guard holds: the stack stays empty, and the linear body never reads it.
  const runs = lb.prim('select', [ok, lb.lit(0, 'zero'), n], 'replays');
  const [pN, stB] = [lb.fresh('p'), lb.fresh('st')];
  lb.bind([binder(pN, REAL), binder(stB, stackType(REAL))], [], construct('loop', [runs, ...inv.operands, start, emptyStack(lb, REAL, runs)], [], [outerBody]));
  lb.stmt(letS([], [], drop(nvar(pN))));
  return stB;
}
