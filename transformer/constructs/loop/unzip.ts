// U of a counted loop: the non-linear loop stacks each iteration's residuals, the linear loop
// reads them back by index.
//
// With U(body) = (body_N : |i, ū, c̄| -> (c̄', s̄), body_L : |s̄ ; u̇̄, ċ̄| -> (; ċ̄')) (ops.unzipBody):
//
//   U(let (c̄' ; ċ̄') = loop(n, ū, c̄ ; u̇̄, ċ̄)[body]) =
//     C:   let st̄₀ = stack(⊥) []                        one empty stack per stacked residual
//          let (c̄', st̄) = loop(n, ū, c̄, st̄₀)[|i, ū, c̄, st̄| {
//            let (c̄'', s̄) = body_N(i, ū, c̄) in (c̄'', push(st̄, s̄)) }]
//     ė_L: let (; ċ̄') = loop(n, st̄, ū_s ; u̇̄, ċ̄)[|i, st̄, ū_s ; u̇̄, ċ̄| {
//            let s̄ = at(st̄, i) in body_L(s̄ ; u̇̄, ċ̄) }]
//
// A residual that is the counter i is not stacked (the linear loop has its own counter, the
// same value), nor one that is an invariant parameter u (ū_s: the operand is passed to the
// linear loop once, not saved per iteration); every other residual is (JAX's scan: extensive
// residuals stacked, intensive ones passed as constants). n, the final stacks and ū_s are read by
// ė_L, so they become residuals of the enclosing function. Stack operations cost nothing, so
// W(C) + W(ė_L) = W(J loop) (n iterations of W(body_N) + W(body_L) = W(J body)).
import { binder, construct, lambda, letS, ret, stackType } from '../../ir/syntax';
import type { Binder, Expr, Lambda, Stmt, Type } from '../../ir/syntax';
import { InternalError } from '../../ir/syntax';
import type { Builder } from '../../ir/build';
import { emptyStack } from '../placeholder';
import type { ConstructExpr, Sides, UnzipOps, UnzippedBody } from '../types';

/** Where the linear loop gets each residual of a loop body from. */
export type ResidualSource = { readonly kind: 'counter' } | { readonly kind: 'invariant'; readonly operand: string } | { readonly kind: 'stacked'; readonly slot: number };

/** Sorts the residuals: the counter, invariant parameters (given with their operands), the rest stacked. */
export function residualSources(h: UnzippedBody, counter: string | undefined, invariants: readonly { param: string; operand: string }[]): { sources: ResidualSource[]; stacked: Type[] } {
  const stacked: Type[] = [];
  const sources = h.tangent.nlParams.map((r, j): ResidualSource => {
    if (r.name === counter) return { kind: 'counter' };
    const inv = invariants.find((u) => u.param === r.name);
    if (inv) return { kind: 'invariant', operand: inv.operand };
    stacked.push(h.residuals[j]);
    return { kind: 'stacked', slot: stacked.length - 1 };
  });
  return { sources, stacked };
}

/** Empty stacks for the stacked residuals, bound in `b`. */
export const emptyStacks = (b: Builder, stacked: readonly Type[], capacity?: string): string[] => stacked.map((t) => emptyStack(b, t, capacity));

/**
 * The non-linear body: body_N's statements, then a push of each stacked residual; it takes
 * `extra` parameters after body_N's and the stacks, and returns its carried results, `extraResults`
 * (computed by `extraStmts`) and the stacks.
 */
export function stackingBody(
  b: Builder,
  h: UnzippedBody,
  carried: number,
  sources: readonly ResidualSource[],
  stacked: readonly Type[],
  extra: { params: readonly Binder[]; stmts: readonly Stmt[]; results: readonly string[] } = { params: [], stmts: [], results: [] },
): Lambda {
  const r = h.primal.body.result;
  if (r.tag !== 'ret') throw new InternalError('loop: unzipBody must return a ret');
  const params = stacked.map((t) => binder(b.fresh('st'), stackType(t)));
  const pushes: Stmt[] = [];
  const pushed = params.map((p) => p.name);
  sources.forEach((s, j) => {
    if (s.kind !== 'stacked') return;
    const next = binder(b.fresh('st'), params[s.slot].type);
    pushes.push(letS([next], [], construct('push', [params[s.slot].name, r.nl[carried + j]], [], [])));
    pushed[s.slot] = next.name;
  });
  const stmts = [...h.primal.body.stmts, ...extra.stmts, ...pushes];
  return lambda([...h.primal.nlParams, ...extra.params, ...params], [], { stmts, result: ret([...r.nl.slice(0, carried), ...extra.results, ...pushed]) });
}

/**
 * The linear body `|i, st̄, ū_s ; ṗ̄| { let s̄ = at(st̄, i) in body_L(s̄ ; ṗ̄) }` and the non-linear
 * operands after the trip count that it takes: the stacks, then the invariant residuals.
 */
export function readingBody(b: Builder, h: UnzippedBody, sources: readonly ResidualSource[], stacks: readonly Binder[]): { body: Lambda; operands: string[] } {
  const residuals = h.tangent.nlParams;
  const counter = residuals.find((_, j) => sources[j].kind === 'counter') ?? binder(b.fresh('i'), { tag: 'real' });
  const stackParams = stacks.map((s) => binder(b.fresh('st'), s.type));
  const invParams: Binder[] = [];
  const invOperands: string[] = [];
  const reads: Stmt[] = [];
  residuals.forEach((r, j) => {
    const s = sources[j];
    if (s.kind === 'stacked') reads.push(letS([r], [], construct('at', [stackParams[s.slot].name, counter.name], [], [])));
    else if (s.kind === 'invariant') {
      invParams.push(r);
      invOperands.push(s.operand);
    }
  });
  const body = lambda([counter, ...stackParams, ...invParams], h.tangent.linParams, { stmts: [...reads, ...h.tangent.body.stmts], result: h.tangent.body.result });
  return { body, operands: [...stacks.map((s) => s.name), ...invOperands] };
}

export function loopUnzip(ops: UnzipOps, e: ConstructExpr, results: Sides<Binder>): Expr {
  const { b } = ops;
  const h = ops.unzipBody(e.bodies[0]);
  const k = results.nl.length;
  const params = e.bodies[0].nlParams;
  const nInv = e.nl.length - 1 - k;
  const invariants = params.slice(1, 1 + nInv).map((p, m) => ({ param: p.name, operand: e.nl[1 + m] }));
  const { sources, stacked } = residualSources(h, params[0].name, invariants);
  // A counted loop pushes once per iteration: its trip count sizes the stacks.
  const st0 = emptyStacks(b, stacked, e.nl[0]);
  const stFinal = stacked.map((t) => binder(b.fresh('st'), stackType(t)));
  b.bind([...results.nl, ...stFinal], [], construct(e.op, [...e.nl, ...st0], [], [stackingBody(b, h, k, sources, stacked)]));
  const lin = readingBody(b, h, sources, stFinal);
  return construct(e.op, [e.nl[0], ...lin.operands], e.lin, [lin.body]);
}

