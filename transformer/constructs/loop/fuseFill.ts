// A loop fused with the loop that fills a stack it reads, element i at iteration i (ConstructRule
// .fuseFill, run by the simplifier on non-linear code; issue 22 item 4, docs/linear-a.md "Loops").
//
// U has the linear half recompute a cheap carried value into a stack before the loop reading it
// (recompute.ts); transposed, that loop runs backwards, reading element m − j − 1 at step j:
//
//   let (p̄_n, st) = loop(n, ā, p̄₀, st₀)[|i, ā, p̄, st| { P; (p̄', put(st, x, i)) }]
//   drop(p̄_n)
//   let r̄ = loop(n, ⌈n⌉, st, v̄, c̄₀)[|j, m, st, v̄, c̄| { i = m − j − 1; v = at(st, i); B }]
//
// When every carried value of B is a commutative accumulation (handed on unchanged, or updated by
// sums with itself read nowhere else: `c' = c + e`, erased laccums; or only read on its way by
// erased lpeeks), the order of the iterations does not matter but for floating-point rounding,
// so B may run i = 0, 1, …, and then P runs in step with it: one loop carrying p̄ beside c̄, x
// computed where v was read; no stack, no stores.
//
//   let (r̄, p̄_n') = loop(n, v̄, ā, c̄₀, p̄₀)[|i, v̄, ā, c̄, p̄| { P; let v = x; B; (c̄', p̄') }]
//
// The sums then run in the other order: the gradient differs from the stored one in the last
// bits (the tests compare with finite differences and hand-written gradients with a tolerance).
// A loop already running forward fuses the same way, without the commutativity condition, and
// so does a reversed loop whose filling loop runs backwards too (T's form, `i = m − j − 1` over
// the same trip count: rewind.ts's rewound positions): both visit i in the same order, so P runs
// in step with B and the fused loop keeps running backwards.
// Refused (undefined) unless P is straight-line code without effects, the stack reaches only this
// loop, the other results of the filling loop are only dropped, and both loops run n times.
import { binder, construct, drop, lambda, letS, lit, nvar, prim, ret } from '../../ir/syntax';
import type { Binder, Expr, Lambda, Stmt } from '../../ir/syntax';
import { closedFreeNonLinear } from '../../ir/freeVars';
import { renameOperands } from '../../ir/traverse';
import { PRIMS } from '../../prims/registry';
import type { ConstructExpr, FillOps } from '../types';
import { reversedBody } from './transpose';

type Let = Extract<Stmt, { tag: 'let' }>;

const isLet = (s: Stmt): s is Let => s.tag === 'let';
const readsOf = (s: Stmt): Set<string> => (s.tag === 'let' ? closedFreeNonLinear(s.rhs) : new Set([s.tuple]));

/** The statements of a block with the consumer at `k` fused with the loop filling its stack; undefined when the rule does not apply. */
export function fuseFill(ops: FillOps, stmts: readonly Stmt[], k: number, result: Expr): Stmt[] | undefined {
  const sB = stmts[k];
  if (!isLet(sB) || sB.rhs.tag !== 'construct' || sB.lin.length > 0) return undefined;
  const B = sB.rhs;
  if (B.lin.length > 0 || B.bodies.length !== 1) return undefined;
  const defined = new Map<string, Expr>();
  for (let q = 0; q < k; q++) {
    const s = stmts[q];
    if (isLet(s) && s.nl.length === 1) defined.set(s.nl[0].name, s.rhs);
  }
  const rev = reversedBody((n) => defined.get(n), B);
  const body: Lambda = rev?.body ?? B.bodies[0];
  const operands = rev?.operands ?? B.nl;
  const rB = body.body.result;
  if (rB.tag !== 'ret' || rB.lin.length > 0 || body.linParams.length > 0) return undefined;
  const kB = rB.nl.length;
  const nInvB = operands.length - 1 - kB;
  if (nInvB < 0) return undefined;
  const counter = body.nlParams[0].name;
  if (body.body.stmts.some((s) => isLet(s) && ops.hasEffect(s.rhs))) return undefined;
  // A reversed loop fuses running backwards with a filling loop that runs backwards too (its
  // count's ceiling, to write it so again), and forwards with one that runs forwards where its
  // iterations commute.
  const turns = rev !== undefined && commutes(ops, body, nInvB);
  const backwards = rev ? B.nl[1] : undefined;
  // An invariant stack the body reads only at its counter, filled by a loop of this block over the same count.
  for (let m = 0; m < nInvB; m++) {
    if (body.nlParams[1 + m].type?.tag !== 'stack') continue;
    const fused = fuseWith(ops, stmts, k, result, sB, B, body, operands, nInvB, operands[1 + m], counter, (n) => defined.get(n), backwards, turns);
    if (fused) return fused;
  }
  return undefined;
}

function fuseWith(
  ops: FillOps,
  stmts: readonly Stmt[],
  k: number,
  result: Expr,
  sB: Let,
  B: ConstructExpr,
  body: Lambda,
  operands: readonly string[],
  nInvB: number,
  stack: string,
  counter: string,
  definition: (name: string) => Expr | undefined,
  backwards: string | undefined,
  turns: boolean,
): Stmt[] | undefined {
  const a = stmts.findIndex((s, j) => j < k && isLet(s) && s.nl.some((x) => x.name === stack));
  if (a < 0) return undefined;
  const sA = stmts[a] as Let;
  const A0 = sA.rhs;
  if (A0.tag !== 'construct' || A0.op !== B.op || A0.lin.length > 0 || A0.bodies.length !== 1 || sA.lin.length > 0) return undefined;
  // Both running backwards, both are taken over their counter i; a reversed reader whose iterations do not commute needs that.
  const revA = backwards === undefined ? undefined : reversedBody(definition, A0);
  if (backwards !== undefined && !revA && !turns) return undefined;
  const A = revA ? { ...A0, nl: revA.operands, bodies: [revA.body] } : A0;
  if (A.nl[0] !== operands[0]) return undefined;
  const P = A.bodies[0];
  const rP = P.body.result;
  if (rP.tag !== 'ret' || rP.lin.length > 0 || rP.nl.length !== sA.nl.length) return undefined;
  const kA = rP.nl.length;
  const nInvA = A.nl.length - 1 - kA;
  if (nInvA < 0) return undefined;
  const iP = P.nlParams[0].name;
  const carriedA = P.nlParams.slice(1 + nInvA);
  // P: straight-line, and each stack it carries is put at the counter once, the put's result returned.
  const puts = new Map<string, { slot: number; value: string }>();
  const stacks = new Set<number>();
  for (const s of P.body.stmts) {
    if (!isLet(s) || s.lin.length > 0 || ops.hasEffect(s.rhs)) return undefined;
    if (s.rhs.tag === 'construct' && s.rhs.bodies.length > 0) return undefined;
    if (s.rhs.tag === 'construct' && s.rhs.op === 'put' && s.rhs.nl.length === 3 && s.rhs.nl[2] === iP && s.nl.length === 1) {
      const slot = carriedA.findIndex((p) => p.name === (s.rhs as ConstructExpr).nl[0]);
      if (slot < 0 || rP.nl[slot] !== s.nl[0].name) return undefined;
      puts.set(s.nl[0].name, { slot, value: s.rhs.nl[1] });
      stacks.add(slot);
    }
  }
  carriedA.forEach((p, c) => {
    if (p.type?.tag === 'stack' && !stacks.has(c)) stacks.add(-1);
  });
  if (stacks.has(-1)) return undefined;
  // A stack parameter is read by its put only; a put's result only returned.
  for (const s of P.body.stmts) {
    const reads = readsOf(s);
    const isPut = isLet(s) && puts.has(s.nl[0]?.name ?? '');
    for (const c of stacks) if (reads.has(carriedA[c].name) && !isPut) return undefined;
    for (const x of puts.keys()) if (reads.has(x)) return undefined;
  }
  const stackResults = new Set([...stacks].map((c) => sA.nl[c].name));
  const others = sA.nl.filter((_, c) => !stacks.has(c)).map((x) => x.name);
  // After A: its stacks reach only B (as operand q, once), its other results only drops.
  const dropped = new Set<number>();
  for (let j = a + 1; j < stmts.length; j++) {
    const s = stmts[j];
    if (isLet(s) && s.nl.length === 0 && s.lin.length === 0 && s.rhs.tag === 'drop' && s.rhs.expr.tag === 'var' && others.includes(s.rhs.expr.name)) {
      dropped.add(j);
      continue;
    }
    const reads = readsOf(s);
    if (others.some((x) => reads.has(x))) return undefined;
    if (j !== k && [...stackResults].some((x) => reads.has(x))) return undefined;
  }
  if ([...closedFreeNonLinear(result)].some((x) => others.includes(x) || stackResults.has(x))) return undefined;
  // Each stack is an invariant of B (its parameter's index, once), read only as `at(q, i)`.
  const invOperands = operands.slice(1, 1 + nInvB);
  const slots = new Map<number, string>();
  for (const x of stackResults) {
    const at = invOperands.indexOf(x);
    if (at < 0 || invOperands.lastIndexOf(x) !== at || B.nl.filter((y) => y === x).length !== 1) return undefined;
    const put = [...puts.values()].find((u) => sA.nl[u.slot].name === x)!;
    slots.set(at, put.value);
  }
  const stackParam = new Map([...slots].map(([m, value]) => [body.nlParams[1 + m].name, value]));
  const readsAt = new Map<number, string>();
  for (const [j, s] of body.body.stmts.entries()) {
    const e = isLet(s) ? s.rhs : undefined;
    if (e?.tag === 'construct' && e.op === 'at' && e.nl.length === 2 && stackParam.has(e.nl[0]) && e.nl[1] === counter && (s as Let).nl.length === 1) readsAt.set(j, stackParam.get(e.nl[0])!);
    else if ([...readsOf(s)].some((x) => stackParam.has(x))) return undefined;
  }
  if ([...closedFreeNonLinear(body.body.result)].some((x) => stackParam.has(x))) return undefined;
  // P renamed apart, its counter B's.
  const rename = new Map<string, string>([[iP, counter]]);
  const fresh = (x: Binder): Binder => {
    const n = ops.names.fresh(x.name);
    rename.set(x.name, n);
    return { ...x, name: n };
  };
  const invA = P.nlParams.slice(1, 1 + nInvA).map(fresh);
  const keptA = carriedA.map((p, c) => ({ p, c })).filter(({ c }) => !stacks.has(c));
  const carriedParams = keptA.map(({ p }) => fresh(p));
  const pStmts: Stmt[] = [];
  for (const s of P.body.stmts as Let[]) {
    if (puts.has(s.nl[0]?.name ?? '')) continue;
    const nl = s.nl.map(fresh);
    pStmts.push({ ...s, nl, rhs: renameOperands(s.rhs, (n) => rename.get(n) ?? n) });
  }
  const at = (n: string) => rename.get(n) ?? n;
  const bStmts = body.body.stmts.map((s, j) => (readsAt.has(j) ? letS([(s as Let).nl[0]], [], nvar(at(readsAt.get(j)!))) : s));
  const invB = body.nlParams.slice(1, 1 + nInvB).filter((_, j) => !slots.has(j));
  const fusedBody = lambda([body.nlParams[0], ...invB, ...invA, ...body.nlParams.slice(1 + nInvB), ...carriedParams], [], {
    stmts: [...pStmts, ...bStmts],
    result: ret([...rB(body), ...keptA.map(({ c }) => at(rP.nl[c]))]),
  });
  const finals = keptA.map(({ p }) => binder(ops.names.fresh(p.name), p.type ?? { tag: 'real' }));
  const fusedOperands = [operands[0], ...invOperands.filter((_, j) => !slots.has(j)), ...A.nl.slice(1, 1 + nInvA), ...operands.slice(1 + nInvB), ...keptA.map(({ c }) => A.nl[1 + nInvA + c])];
  const fusedE = revA === undefined || backwards === undefined ? construct(B.op, fusedOperands, [], [fusedBody]) : backwardsAgain(ops, B.op, fusedBody, fusedOperands, backwards);
  const out: Stmt[] = [];
  stmts.forEach((s, j) => {
    if (j === a || dropped.has(j)) return;
    if (j !== k) return void out.push(s);
    out.push(letS([...sB.nl, ...finals], [], fusedE));
    for (const f of finals) out.push(letS([], [], drop(nvar(f.name))));
  });
  return out;
}

/** A loop over i = 0, 1, … as T writes it running backwards: `loop(n, m, …)[|j, m, …| { i = m − j − 1; … }]`, m the count's ceiling. */
function backwardsAgain(ops: FillOps, op: string, body: Lambda, operands: readonly string[], m: string): Expr {
  const [i, ...rest] = body.nlParams;
  const [j, mP, one, left] = ['j', 'm', 'one', 'left'].map((x) => ops.names.fresh(x));
  const real = { tag: 'real' } as const;
  const stmts: Stmt[] = [letS([binder(one, real)], [], lit(1)), letS([binder(left, real)], [], prim('sub', [mP, j])), letS([binder(i.name, real)], [], prim('sub', [left, one])), ...body.body.stmts];
  return construct(op, [operands[0], m, ...operands.slice(1)], [], [lambda([binder(j, real), binder(mP, real), ...rest], [], { stmts, result: body.body.result })]);
}

const rB = (body: Lambda): readonly string[] => (body.body.result.tag === 'ret' ? body.body.result.nl : []);

/**
 * Whether the carried value `c` reaches `u` through a chain of links, each read by nothing but
 * the next: a sum with itself (PrimDef.sums: `c' = c + e`; an erased laccum,
 * ConstructRule.accumulatesErased) or a construct that only reads it and hands it on unchanged
 * (an erased lpeek, Threading.unchanged), never both kinds on one chain. `u` itself is read by no
 * statement. Along such a chain each iteration adds what does not depend on `c`, or reads a value
 * no iteration changes (`ā_i += y; ā_i += y` for a square, `(z̄, v) = lpeek(r, w, z̄)` in gmm's
 * loop over rows), so the iterations commute.
 */
function chainOf(ops: FillOps, stmts: readonly Stmt[], reads: readonly Set<string>[], c: string, u: string): boolean {
  let x = c;
  let sums = false;
  let peeks = false;
  while (x !== u) {
    const at = reads.flatMap((r, q) => (r.has(x) ? [q] : []));
    if (at.length !== 1) return false;
    const s = stmts[at[0]];
    if (!isLet(s) || s.lin.length > 0) return false;
    const e = s.rhs;
    const once = (xs: readonly string[]) => xs.filter((y) => y === x).length === 1;
    const sum = (e.tag === 'prim' && PRIMS[e.op]?.sums === true && once(e.args)) || (e.tag === 'construct' && e.bodies.length === 0 && once(e.nl) && e.nl[ops.accumulatesErased(e) ?? -1] === x);
    if (sum && s.nl.length === 1) {
      sums = true;
      x = s.nl[0].name;
      continue;
    }
    const t = e.tag === 'construct' && e.bodies.length === 0 ? ops.readsOnly(e) : undefined;
    if (!t || e.tag !== 'construct' || e.nl[t.array] !== x || !once(e.nl) || !s.nl[t.result]) return false;
    peeks = true;
    x = s.nl[t.result].name;
  }
  // Reads of a value the same iterations add to would see some of the others' sums: not both.
  return x !== c && !(sums && peeks) && !reads.some((r) => r.has(u));
}

/**
 * Whether each carried value of a loop body (after `nInv` invariants) is handed on unchanged or
 * reaches its update through a chain of sums with itself or of reads (chainOf), neither it nor a
 * link read by anything else: the iterations then commute up to rounding.
 */
function commutes(ops: FillOps, body: Lambda, nInv: number): boolean {
  const results = rB(body);
  const carried = body.nlParams.slice(1 + nInv);
  const stmts = body.body.stmts;
  const reads = stmts.map(readsOf);
  const resultFree = closedFreeNonLinear(body.body.result);
  const resultReads = (x: string) => results.filter((r) => r === x).length;
  return carried.every((c, t) => {
    const u = results[t];
    if (u === c.name) return true;
    return chainOf(ops, stmts, reads, c.name, u) && resultReads(u) === 1 && !resultFree.has(c.name);
  });
}
