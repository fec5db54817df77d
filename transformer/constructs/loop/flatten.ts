// One flat stack for all runs of the loops nested in a loop's body (issue 22 item 1).
//
// U of an inner loop (unzip.ts) gives each run stacks of its own, `stack(pad, n[, stride])`
// filled by `put` at the inner counter, whose final values are residuals of the body around it:
// the outer loop then stacks one stack per run (a stack of stacks: an object per inner run, and
// a pointer to follow per run on the way back). Here, before the outer loop stacks its residuals,
// every such stack of reals becomes a region of one stack G the outer loop carries:
//
//   body_N:  let st₀ = stack(pad, n, s)                 ⇒  let off = size(G)
//                                                          let G' = extend(G, n, s)
//            let (c̄', st) = loop(n, ū, c̄, st₀)[|i, ū, c̄, st| { … put(st, x, i, s, f) … }]
//                                                       ⇒  let (c̄', G'') = loop(n, off, ū, c̄, G')[|i, o, ū, c̄, st| { … put(st, x, i, s, f, o) … }]
//            (…, st, …) residual                       ⇒  (…, off, …)
//   body_L:  loop(n, st, v̄ ; …)[|i, st, v̄ ; …| { … at(st, i, s, f) … }]
//                                                       ⇒  loop(n, G_f, v̄, off ; …)[|i, st, v̄, o ; …| { … at(st, i, s, f, o) … }]
//
// where G_f, the outer loop's final G, is an invariant of the outer linear loop. A run then costs
// one number on the outer loop's tape. A stack that is itself such a G one level down (started as
// `stack(pad)` and handed to a loop whose body only reads its size, extends it and puts at an
// offset: positions that are already absolute) is simply replaced by the outer G, so a nest of
// any depth keeps one stack of reals for all its inner runs. A while loop's stack, which it
// pushes on, takes G from offset size(G) on: its pushes land on G's top. Anything else (stacks
// of arrays, a stack read in some other way) keeps its stack of stacks.
import { REAL, binder, construct, lambda, letS, ret, stackType } from '../../ir/syntax';
import type { Binder, Expr, Lambda, Stmt } from '../../ir/syntax';
import { closedFreeVars } from '../../ir/freeVars';
import { forEachOperand } from '../../ir/traverse';
import type { UnzippedBody } from '../types';
import { STEP } from '../while/operands';

const FLAT = stackType(REAL);

type Let = Extract<Stmt, { tag: 'let' }>;
type Op = { readonly op: string; readonly nl: readonly string[]; readonly lin: readonly string[]; readonly bodies: readonly Lambda[] };

const constructOf = (s: Stmt | undefined, op: string): Op | undefined => (s?.tag === 'let' && s.rhs.tag === 'construct' && s.rhs.op === op ? s.rhs : undefined);

/** Whether statement s or expression e reads `name`. */
function readsIn(s: Stmt | Expr, name: string): boolean {
  if ('tag' in s && s.tag === 'unpack') return s.tuple === name;
  const e = 'rhs' in s ? s.rhs : (s as Expr);
  const free = closedFreeVars(e);
  return free.nl.has(name) || free.lin.has(name);
}

function count(xs: readonly string[], name: string): number {
  return xs.filter((x) => x === name).length;
}

/** Occurrences of `name` in the operands of e (its bodies are closed). */
function operandCount(e: Expr, name: string): number {
  let k = 0;
  forEachOperand(e, (n) => {
    if (n === name) k++;
  });
  return k;
}

type Names = { fresh(hint: string): string };

/**
 * A loop body whose stack parameter `param` is a chain of puts at the counter: the body putting at
 * a base, its new parameter after the counter. With `into` (the chain end of a flat stack the body
 * also carries, as chainEnd gives it), the puts continue that chain instead and `param` goes from
 * the parameters and carried result `slot` from the results.
 */
function rebasePuts(names: Names, body: Lambda, param: number, slot: number, into?: { readonly last: number; readonly name: string; readonly slot: number }): Lambda | undefined {
  const counter = body.nlParams[0];
  const off = binder(names.fresh('off'), REAL);
  const own = body.nlParams[param].name;
  let cur = into?.name ?? own;
  let mine = own;
  const stmts: Stmt[] = [];
  for (const [k, s] of body.body.stmts.entries()) {
    if (!readsIn(s, mine)) {
      stmts.push(s);
      continue;
    }
    const put = constructOf(s, 'put');
    if (!put || s.tag !== 'let' || s.nl.length !== 1 || (put.nl.length !== 3 && put.nl.length !== 5) || put.nl[0] !== mine || put.nl[2] !== counter.name || count(put.nl, mine) !== 1) return undefined;
    if (into && k <= into.last) return undefined;
    stmts.push(letS(s.nl, [], construct('put', [cur, ...put.nl.slice(1), off.name], [], [])));
    cur = mine = s.nl[0].name;
  }
  const r = body.body.result;
  if (r.tag !== 'ret' || r.nl[slot] !== mine || operandCount(r, mine) !== 1) return undefined;
  if (!into) return lambda([counter, off, ...body.nlParams.slice(1)], body.linParams, { stmts, result: r });
  if (r.nl[into.slot] !== into.name || operandCount(r, into.name) !== 1) return undefined;
  const result = ret(
    r.nl.flatMap((n, k) => (k === slot ? [] : k === into.slot ? [cur] : [n])),
    r.lin,
  );
  return lambda([counter, off, ...body.nlParams.slice(1).filter((p) => p.name !== own)], body.linParams, { stmts, result });
}

/** A linear loop body reading stack parameter `param` only at its counter: the body reading at a base, its last non-linear parameter. */
function rebaseReads(names: Names, body: Lambda, param: number): Lambda | undefined {
  const counter = body.nlParams[0];
  const st = body.nlParams[param].name;
  const off = binder(names.fresh('off'), REAL);
  const stmts: Stmt[] = [];
  for (const s of body.body.stmts) {
    if (!readsIn(s, st)) {
      stmts.push(s);
      continue;
    }
    const at = constructOf(s, 'at');
    if (!at || s.tag !== 'let' || (at.nl.length !== 2 && at.nl.length !== 4) || at.nl[0] !== st || at.nl[1] !== counter.name || count(at.nl, st) !== 1) return undefined;
    stmts.push(letS(s.nl, s.lin, construct('at', [...at.nl, off.name], [], at.bodies)));
  }
  if (readsIn(body.body.result, st)) return undefined;
  return lambda([...body.nlParams, off], body.linParams, { stmts, result: body.body.result });
}

/**
 * Where loop body `body` ends the chain of stack parameter `param` if it uses it at absolute
 * positions only (sizes, extends, puts at a base, inner loops it is carried through): the last
 * statement that touches it and its final name, handed back as result `slot`.
 */
function chainEnd(body: Lambda, param: number, slot: number): { last: number; name: string; slot: number } | undefined {
  let cur = body.nlParams[param].name;
  let last = -1;
  for (const [k, s] of body.body.stmts.entries()) {
    if (!readsIn(s, cur)) continue;
    if (s.tag !== 'let' || s.rhs.tag !== 'construct' || s.lin.length !== 0) return undefined;
    const e = s.rhs;
    if (count(e.nl, cur) !== 1 || e.lin.length !== 0) return undefined;
    last = k;
    if (e.op === 'size') continue;
    if (s.nl.length === 1 && e.nl[0] === cur && (e.op === 'extend' || (e.op === 'put' && e.nl.length % 2 === 0))) {
      cur = s.nl[0].name;
      continue;
    }
    const carried = s.nl.length;
    const c = e.nl.indexOf(cur) - (e.nl.length - carried);
    if (e.op !== 'loop' || c < 0 || e.bodies.length !== 1 || !chainEnd(e.bodies[0], e.bodies[0].nlParams.length - carried + c, c)) return undefined;
    cur = s.nl[c].name;
  }
  const r = body.body.result;
  return r.tag === 'ret' && r.nl[slot] === cur && operandCount(r, cur) === 1 ? { last, name: cur, slot } : undefined;
}

/** Whether loop body `body` only pushes on stack parameter `param`, handing the last push back as result `slot`. */
function pushesOnly(body: Lambda, param: number, slot: number): boolean {
  let cur = body.nlParams[param].name;
  for (const s of body.body.stmts) {
    if (!readsIn(s, cur)) continue;
    const push = constructOf(s, 'push');
    if (!push || s.tag !== 'let' || s.nl.length !== 1 || push.nl[0] !== cur || count(push.nl, cur) !== 1) return false;
    cur = s.nl[0].name;
  }
  const r = body.body.result;
  return r.tag === 'ret' && r.nl[slot] === cur && operandCount(r, cur) === 1;
}

/** A stack of reals made in the body for one inner loop, whose final value is a residual the linear half hands to one linear loop. */
interface Candidate {
  readonly at: number;
  readonly made: Op;
  readonly x: string;
  /** The inner loop's statement, in the primal and in the tangent. */
  readonly loop: number;
  readonly tloop: number;
  /** The carried slot, the residual, its tangent parameter, and its operand position in the linear loop. */
  readonly slot: number;
  readonly residual: number;
  readonly tp: string;
  readonly pos: number;
}

function candidates(h: UnzippedBody, carried: number): Candidate[] {
  const pr = h.primal.body.result as Extract<Expr, { tag: 'ret' }>;
  const stmts = h.primal.body.stmts;
  const tstmts = h.tangent.body.stmts;
  const residuals = pr.nl.slice(carried);
  const out: Candidate[] = [];
  stmts.forEach((s, d) => {
    const made = constructOf(s, 'stack');
    if (!made || s.tag !== 'let' || s.nl.length !== 1 || s.nl[0].type?.tag !== 'stack' || s.nl[0].type.elem.tag !== 'real') return;
    const x = s.nl[0].name;
    const users = stmts.map((t, u) => (u > d && readsIn(t, x) ? u : -1)).filter((u) => u >= 0);
    if (users.length !== 1 || readsIn(pr, x)) return;
    const L = stmts[users[0]] as Let;
    const loop = constructOf(L, 'loop') ?? constructOf(L, 'while');
    if (!loop || L.lin.length !== 0 || loop.lin.length !== 0 || loop.bodies.length !== (loop.op === 'while' ? 2 : 1) || count(loop.nl, x) !== 1) return;
    const slot = loop.nl.indexOf(x) - (loop.nl.length - L.nl.length);
    if (slot < 0) return;
    const y = L.nl[slot].name;
    const j = residuals.indexOf(y);
    if (j < 0 || count(pr.nl, y) !== 1 || stmts.some((t) => readsIn(t, y))) return;
    const tp = h.tangent.nlParams[j].name;
    const tUsers = tstmts.map((t, v) => (readsIn(t, tp) ? v : -1)).filter((v) => v >= 0);
    if (tUsers.length !== 1 || readsIn(h.tangent.body.result, tp)) return;
    const TL = tstmts[tUsers[0]] as Let;
    const tloop = constructOf(TL, 'loop');
    const pos = tloop ? tloop.nl.indexOf(tp) : -1;
    if (!tloop || pos < 1 || operandCount(TL.rhs, tp) !== 1 || tloop.bodies.length !== 1) return;
    out.push({ at: d, made, x, loop: users[0], tloop: tUsers[0], slot, residual: j, tp, pos });
  });
  return out;
}

/**
 * `h` with the stacks of reals its inner loops fill, one per run, turned into regions of one flat
 * stack: its primal takes the flat stack as a carried parameter after `carried` ones and hands it
 * on after its carried results, and its tangent takes the outer loop's final flat stack as its last
 * residual (an invariant: `flat`, for the caller to pass the outer loop's result). Undefined when
 * the body has no such stack. With `presize` (the loop that makes the flat stack, run once per
 * call), the primal also takes the trip count after its counter and reserves room for all
 * iterations once the first is done (stack/presize.ts).
 */
export function flattenInnerStacks(names: Names, h: UnzippedBody, carried: number, presize = false): { h: UnzippedBody; flat: Binder } | undefined {
  const pr = h.primal.body.result;
  if (pr.tag !== 'ret') return undefined;
  const found = candidates(h, carried);
  if (found.length === 0) return undefined;
  const stmts = h.primal.body.stmts;
  const tstmts = [...h.tangent.body.stmts];
  const g = binder(names.fresh('flat'), FLAT);
  const gf = binder(names.fresh('flat'), FLAT);
  const residuals = [...pr.nl.slice(carried)];
  const tParams = [...h.tangent.nlParams];
  const types = [...h.residuals];
  const dropped = new Set<number>();
  // Per statement: what replaces it (nothing for a stack made flat).
  const replace = new Map<number, Stmt[]>();
  let cur = g.name;
  let done = -1;
  for (const u of [...new Set(found.map((c) => c.loop))].sort((p, q) => p - q)) {
    const group = found.filter((c) => c.loop === u);
    if ((stmts[u] as Let).rhs.tag === 'construct' && ((stmts[u] as Let).rhs as Op).op === 'while') {
      // A while loop pushes on its stack: on G's top, from offset size(G) on.
      const [c] = group;
      const L = stmts[u] as Let;
      const loop = L.rhs as Op;
      const step = loop.bodies[STEP];
      const TL = tstmts[c.tloop] as Let;
      const tloop = TL.rhs as Op;
      const linBody = rebaseReads(names, tloop.bodies[0], c.pos);
      if (group.length !== 1 || c.at <= done || c.made.nl.length !== 1 || !pushesOnly(step, step.nlParams.length - L.nl.length + c.slot, c.slot) || !linBody) continue;
      const off = binder(names.fresh('off'), REAL);
      replace.set(c.at, [letS([off], [], construct('size', [cur], [], []))]);
      replace.set(u, [
        letS(
          L.nl,
          [],
          construct(
            'while',
            loop.nl.map((o) => (o === c.x ? cur : o)),
            [],
            loop.bodies,
          ),
        ),
      ]);
      cur = L.nl[c.slot].name;
      done = u;
      const offT = binder(names.fresh('off'), REAL);
      residuals[c.residual] = off.name;
      tParams[c.residual] = offT;
      types[c.residual] = REAL;
      tstmts[c.tloop] = letS(TL.nl, TL.lin, construct('loop', [...tloop.nl.map((o) => (o === c.tp ? gf.name : o)), offT.name], tloop.lin, [linBody]));
      continue;
    }
    const own = group.filter((c) => c.made.nl.length >= 2);
    const flats = group.filter((c) => c.made.nl.length === 1);
    if (own.length > 1 || flats.length > 1 || group.some((c) => c.at <= done)) continue;
    const L = stmts[u] as Let;
    const loop = L.rhs as Op;
    const body = loop.bodies[0];
    const K = L.nl.length;
    const paramOf = (c: Candidate) => body.nlParams.length - K + c.slot;
    const flat = flats[0];
    const end = flat ? chainEnd(body, paramOf(flat), flat.slot) : undefined;
    if (flat && !end) continue;
    const mine = own[0];
    const TL = tstmts[group[0].tloop] as Let;
    const tloop = TL.rhs as Op;
    if (group.some((c) => c.tloop !== group[0].tloop)) continue;
    let nlBody = body;
    let linBody = tloop.bodies[0];
    if (mine) {
      const b1 = rebasePuts(names, body, paramOf(mine), mine.slot, end);
      const b2 = rebaseReads(names, linBody, mine.pos);
      if (!b1 || !b2) continue;
      [nlBody, linBody] = [b1, b2];
    }
    // The primal: the flat stack flows through the loop, in the flat slot (or the own one).
    const through = flat ?? (mine as Candidate);
    const pre: Stmt[] = [];
    let into = cur;
    const off = binder(names.fresh('off'), REAL);
    if (mine) {
      const grown = binder(names.fresh('flat'), FLAT);
      pre.push(letS([off], [], construct('size', [cur], [], [])), letS([grown], [], construct('extend', [cur, ...mine.made.nl.slice(1)], [], [])));
      into = grown.name;
    }
    const gone = mine && flat ? mine.x : undefined;
    const operands = loop.nl.filter((o) => o !== gone).map((o) => (o === through.x ? into : o));
    const results = L.nl.filter((_, k) => !(gone && k === (mine as Candidate).slot));
    for (const c of group) replace.set(c.at, []);
    replace.set(mine?.at ?? flat.at, pre);
    replace.set(u, [letS(results, [], construct('loop', mine ? [operands[0], off.name, ...operands.slice(1)] : operands, [], [nlBody]))]);
    cur = L.nl[through.slot].name;
    done = u;
    // The linear half: the outer loop's final flat stack in place of each run's stacks.
    const tOperands = tloop.nl.map((o) => (group.some((c) => c.tp === o) ? gf.name : o));
    if (mine) {
      const offT = binder(names.fresh('off'), REAL);
      residuals[mine.residual] = off.name;
      tParams[mine.residual] = offT;
      types[mine.residual] = REAL;
      tOperands.push(offT.name);
    }
    if (flat) dropped.add(flat.residual);
    tstmts[group[0].tloop] = letS(TL.nl, TL.lin, construct('loop', tOperands, tloop.lin, [linBody]));
  }
  if (done < 0) return undefined;
  const out = stmts.flatMap((s, d) => replace.get(d) ?? [s]);
  const keep = <T>(xs: readonly T[]) => xs.filter((_, j) => !dropped.has(j));
  let params = [...h.primal.nlParams, g];
  if (presize) {
    // The trip count, an invariant after the counter (the caller passes it): room for all iterations after the first.
    const trips = binder(names.fresh('trips'), REAL);
    const sized = binder(names.fresh('flat'), FLAT);
    out.push(letS([sized], [], construct('presize', [cur, params[0].name, trips.name], [], [])));
    cur = sized.name;
    params = [params[0], trips, ...params.slice(1)];
  }
  const primal = lambda(params, [], { stmts: out, result: ret([...pr.nl.slice(0, carried), cur, ...keep(residuals), cur], pr.lin) });
  const tangent = lambda([...keep(tParams), gf], h.tangent.linParams, { stmts: tstmts, result: h.tangent.body.result });
  return { h: { primal, tangent, residuals: [...keep(types), FLAT] }, flat: gf };
}
