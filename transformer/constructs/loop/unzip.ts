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
// linear loop once, not saved per iteration), nor the length of one (a witness U replaced by its
// length: computed once before the loop); every other residual is (JAX's scan: extensive
// residuals stacked, intensive ones passed as constants). n, the final stacks and ū_s are read by
// ė_L, so they become residuals of the enclosing function. Stack operations cost nothing, so
// W(C) + W(ė_L) = W(J loop) (n iterations of W(body_N) + W(body_L) = W(J body)).
import { REAL, binder, blockE, construct, lambda, letS, lit, prim, ret, stackType } from '../../ir/syntax';
import type { Binder, Expr, Lambda, Stmt, Type } from '../../ir/syntax';
import { InternalError } from '../../ir/syntax';
import { Builder } from '../../ir/build';
import { recomputeCarried } from './recompute';
import { rewindCarried } from './rewind';
import { emptyStack } from '../placeholder';
import { packDeepResiduals } from './pack';
import { flattenInnerStacks } from './flatten';
import type { ConstructExpr, Sides, UnzipOps, UnzippedBody } from '../types';
import { type ResidualSource, residualSources } from '../shared/residuals';

/** Empty stacks for the stacked residuals, bound in `b`; with a capacity (the trip count), each holds that many records. */
export function emptyStacks(b: Builder, stacked: readonly Type[], capacity?: string, strides?: readonly number[]): string[] {
  return stacked.map((t, k) => {
    const stride = strides?.[k] ?? 1;
    return emptyStack(b, t, capacity, capacity === undefined || stride === 1 ? undefined : b.lit(stride, 'stride'));
  });
}

/**
 * The non-linear body: body_N's statements, then a push of each stacked residual; it takes
 * `extra` parameters after body_N's and the stacks, and returns its carried results, `extraResults`
 * (computed by `extraStmts`) and the stacks. With `counter` (a counted loop's, whose stacks have
 * room for its trip count), iteration i puts its record at position i (stack/put.ts) instead.
 * With `reserveAt` (the number of the iteration, for a loop whose trip count is unknown and whose
 * stacks start empty), a stack of records reserves room for one record (stack/extend.ts) and puts
 * its fields there: one room check per iteration instead of one per number.
 */
export function stackingBody(
  b: Builder,
  h: UnzippedBody,
  carried: number,
  sources: readonly ResidualSource[],
  stacked: readonly Type[],
  extra: { params: readonly Binder[]; stmts: readonly Stmt[]; results: readonly string[] } = { params: [], stmts: [], results: [] },
  counter?: string,
  reserveAt?: string,
): Lambda {
  const r = h.primal.body.result;
  if (r.tag !== 'ret') throw new InternalError('loop: unzipBody must return a ret');
  const params = stacked.map((t) => binder(b.fresh('st'), stackType(t)));
  const pushes: Stmt[] = [];
  const pushed = params.map((p) => p.name);
  const reserved = new Set<number>();
  sources.forEach((s, j) => {
    if (s.kind !== 'stacked') return;
    const next = binder(b.fresh('st'), params[s.slot].type);
    let x = r.nl[carried + j];
    if (s.flag) {
      // A boolean in a record of numbers: 1 or 0.
      const [one, zero, n] = [b.fresh('one'), b.fresh('zero'), b.fresh('flag')].map((v) => binder(v, REAL));
      pushes.push(letS([one], [], lit(1)), letS([zero], [], lit(0)), letS([n], [], prim('select', [x, one.name, zero.name])));
      x = n.name;
    }
    const at = counter ?? (s.stride === 1 ? undefined : reserveAt);
    if (at === undefined) pushes.push(letS([next], [], construct('push', [pushed[s.slot], x], [], [])));
    else if (s.stride === 1) pushes.push(letS([next], [], construct('put', [pushed[s.slot], x, at], [], [])));
    else {
      const [stride, field] = [b.fresh('stride'), b.fresh('field')].map((n) => binder(n, REAL));
      pushes.push(letS([stride], [], lit(s.stride)), letS([field], [], lit(s.field)));
      if (counter === undefined && !reserved.has(s.slot)) {
        reserved.add(s.slot);
        const [one, room] = [binder(b.fresh('one'), REAL), binder(b.fresh('st'), params[s.slot].type)];
        pushes.push(letS([one], [], lit(1)), letS([room], [], construct('extend', [pushed[s.slot], one.name, stride.name], [], [])));
        pushed[s.slot] = room.name;
      }
      pushes.push(letS([next], [], construct('put', [pushed[s.slot], x, at, stride.name, field.name], [], [])));
    }
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
    if (s.kind === 'stacked' && s.stride === 1) reads.push(letS([r], [], construct('at', [stackParams[s.slot].name, counter.name], [], [])));
    else if (s.kind === 'stacked') {
      // Field f of record i.
      const [stride, field] = [b.fresh('stride'), b.fresh('field')].map((n) => binder(n, REAL));
      reads.push(letS([stride], [], lit(s.stride)), letS([field], [], lit(s.field)));
      if (!s.flag) reads.push(letS([r], [], construct('at', [stackParams[s.slot].name, counter.name, stride.name, field.name], [], [])));
      else {
        const [n, zero] = [b.fresh('flag'), b.fresh('zero')].map((v) => binder(v, REAL));
        reads.push(letS([n], [], construct('at', [stackParams[s.slot].name, counter.name, stride.name, field.name], [], [])), letS([zero], [], lit(0)), letS([r], [], prim('ne', [n.name, zero.name])));
      }
    } else if (s.kind === 'invariant') {
      invParams.push(r);
      invOperands.push(s.operand);
    }
  });
  const body = lambda([counter, ...stackParams, ...invParams], h.tangent.linParams, { stmts: [...reads, ...h.tangent.body.stmts], result: h.tangent.body.result });
  return { body, operands: [...stacks.map((s) => s.name), ...invOperands] };
}

/**
 * Residuals that are the length of an invariant array parameter (a witness the body replaced by
 * its length, ad/unzip.ts), or of a carried array every run of the body hands on at the length it
 * was given (written element by element: ad/lengths.ts): the same in every iteration, so computed
 * once before the loop from the operand and passed as an invariant instead of stacked per iteration.
 * `params` are the body's parameters with their operands (the invariants, then the carried values,
 * the last `carried` of the body's parameters).
 */
export function invariantLengths(ops: UnzipOps, h: UnzippedBody, params: readonly { param: string; operand: string }[], carried: number): { param: string; operand: string }[] {
  const { b } = ops;
  const residuals = new Set(h.tangent.nlParams.map((r) => r.name));
  const lengthOf = ops.lengthParams(h.primal);
  const r = h.primal.body.result;
  const results = r.tag === 'ret' ? r.nl : [];
  const nlParams = h.primal.nlParams;
  // The parameters whose length every iteration sees unchanged: invariants, and carried values the body hands on at their length.
  const steady = new Map<number, string>();
  params.forEach((u, m) => {
    const k = nlParams.findIndex((p) => p.name === u.param);
    const c = m - (params.length - carried);
    if (k >= 0 && (c < 0 || lengthOf.get(results[c]) === k)) steady.set(k, u.operand);
  });
  const out: { param: string; operand: string }[] = [];
  const computed = new Map<string, string>();
  for (const s of h.primal.body.stmts) {
    if (s.tag !== 'let' || s.nl.length !== 1 || s.lin.length !== 0 || !residuals.has(s.nl[0].name)) continue;
    const e = s.rhs;
    if (e.tag !== 'construct' || e.op !== 'len' || e.nl.length !== 1 || e.bodies.length !== 0) continue;
    const k = lengthOf.get(e.nl[0]);
    const operand = k === undefined ? undefined : steady.get(k);
    if (operand === undefined) continue;
    let n = computed.get(operand);
    if (n === undefined) computed.set(operand, (n = b.nl(`${operand}_len`, construct('len', [operand], [], []), REAL)));
    out.push({ param: s.nl[0].name, operand: n });
  }
  return out;
}

export function loopUnzip(ops: UnzipOps, e: ConstructExpr, results: Sides<Binder>): Expr {
  const { b } = ops;
  const k = results.nl.length;
  const params = e.bodies[0].nlParams;
  const nInv = e.nl.length - 1 - k;
  const whole = ops.unzipBody(e.bodies[0]);
  // Carried values with a cheap recurrence: run again by the linear half, not stacked (recompute.ts).
  const again = ops.recomputesCheap ? recomputeCarried(whole, params, nInv, e.nl) : undefined;
  // Positions an inner loop moves by a fixed step: rewound by the linear half from their final values (rewind.ts).
  const back = ops.recomputesCheap ? rewindCarried(again?.h ?? whole, params, nInv, e.nl, results.nl, e.op) : undefined;
  const unpacked = back?.h ?? again?.h ?? whole;
  const direct = params.slice(1, 1 + nInv).map((p, m) => ({ param: p.name, operand: e.nl[1 + m] }));
  const carried = params.slice(1 + nInv).map((p, m) => ({ param: p.name, operand: e.nl[1 + nInv + m] }));
  const lengths = [...direct, ...invariantLengths(ops, unpacked, [...direct, ...carried], k)];
  // The stacks of the loops inside, one per run, as regions of one flat stack this loop carries (flatten.ts).
  const flattened = flattenInnerStacks(b, unpacked, k, !ops.nested);
  // The outermost loop's flat stack is sized after its first iteration: it takes its trip count twice.
  const operands = flattened && !ops.nested ? [e.nl[0], ...e.nl] : e.nl;
  const flat = flattened ? [binder(b.fresh('flat'), stackType(REAL))] : [];
  const invariants = flattened ? [...lengths, { param: flattened.flat.name, operand: flat[0].name }] : lengths;
  const kk = k + flat.length;
  const h = packDeepResiduals(ops, flattened?.h ?? unpacked, kk, new Set([params[0].name, ...invariants.map((u) => u.param)]));
  const { sources, stacked, strides } = residualSources(h, params[0].name, invariants, ops.nested);
  // A counted loop pushes one record per iteration: its trip count sizes the stacks.
  const st0 = emptyStacks(b, stacked, e.nl[0], strides);
  const flat0 = flat.map(() => emptyStack(b, REAL));
  const stFinal = stacked.map((t) => binder(b.fresh('st'), stackType(t)));
  b.bind([...results.nl, ...flat, ...stFinal], [], construct(e.op, [...operands, ...flat0, ...st0], [], [stackingBody(b, h, kk, sources, stacked, undefined, h.primal.nlParams[0].name)]));
  const lin = readingBody(b, h, sources, stFinal);
  if (!again && !back) return construct(e.op, [e.nl[0], ...lin.operands], e.lin, [lin.body]);
  const lb = new Builder(b.names);
  let read = { body: lin.body, operands: lin.operands };
  if (again) read = again.attach(lb, e.nl[0], read.body, read.operands);
  if (back) read = back.attach(lb, e.nl[0], read.body, read.operands);
  return blockE(lb.finish(construct(e.op, [e.nl[0], ...read.operands], e.lin, [read.body])));
}
