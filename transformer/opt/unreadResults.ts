// Results of a called function that no caller reads. A def whose every call site drops some of
// its results still computed them: a Hessian-vector product calls the erased JVP of the gradient,
// which returns the gradient and its tangent, and keeps only the tangent; when that JVP is too
// large to inline, the gradient's last lines and the loop accumulations only they read were
// emitted and run for nothing (the demo's simulated Hessian).
//
//   def g(x̄ ;) -> (a, b ;) { …; (y, z ;) }      every call: let (u, v) = g(x̄) … drop(u)
//   ⇒ def g.keep_1(x̄ ;) -> (b ;) { …; (z ;) }   let v = g.keep_1(x̄)
//
// The narrower def is a new def beside g, named after the results it keeps: g itself stays as it
// was for whoever else may call it (the backend shares a def between call sites by name, so a
// name never changes meaning). The callers only lose a binder and a drop; the narrower def is
// simplified, and the dead-code pass takes out what only the dropped results needed (carried
// values of loops included, constructs/loop/prune.ts). Entries keep their signatures. Non-linear
// defs only (this runs on erased, fused programs).
import type { Binder, Block, Expr, FnDef, Program, Stmt } from '../ir/syntax';
import { binder, letS, ret } from '../ir/syntax';
import { NameSupply } from '../ir/build';
import { calleesFirst, calleesOfDef, defMap } from '../ir/program';
import { namesIn, rewriteDef, visitDef } from '../ir/traverse';
import { keptResultsName } from '../ir/names';
import { keptCalls } from './keptCalls';
import { simplifyDef } from './simplify';

/** `drop(v)` or `drop((v, w))` of non-linear variables: the names it drops, else undefined. */
function dropped(s: Stmt): readonly string[] | undefined {
  if (s.tag !== 'let' || s.nl.length + s.lin.length > 0 || s.rhs.tag !== 'drop') return undefined;
  const e = s.rhs.expr;
  if (e.tag === 'var' && !e.linear) return [e.name];
  if (e.tag === 'ret' && e.lin.length === 0) return e.nl;
  return undefined;
}

/**
 * Per callee, which results some call site in `d` may read: every result for a call that is not a
 * `let` of its own (`arity`), else those whose binders are read other than by a drop.
 */
function readResults(d: FnDef, arity: (fn: string) => number, out: Map<string, boolean[]>): void {
  const reads = new Map<string, number>();
  const binders: { fn: string; nl: readonly Binder[] }[] = [];
  const letCalls = new Set<Expr>();
  const count = (n: string, by: number) => reads.set(n, (reads.get(n) ?? 0) + by);
  visitDef(d, {
    stmt: (s) => {
      // The visitor reads a drop's names once each: taken back here.
      for (const n of dropped(s) ?? []) count(n, -1);
      if (s.tag === 'let' && s.rhs.tag === 'call' && s.lin.length === 0) {
        letCalls.add(s.rhs);
        binders.push({ fn: s.rhs.fn, nl: s.nl });
      }
    },
    expr: (e) => {
      if (e.tag === 'call' && !letCalls.has(e)) out.set(e.fn, new Array<boolean>(arity(e.fn)).fill(true));
    },
    read: (n) => count(n, 1),
  });
  for (const { fn, nl } of binders) {
    const seen = out.get(fn) ?? nl.map(() => false);
    nl.forEach((b, k) => {
      if ((reads.get(b.name) ?? 0) > 0) seen[k] = true;
    });
    out.set(fn, seen);
  }
}

/**
 * The def without the results `keep` leaves out, simplified (what only they needed goes). A body
 * whose result is not a tuple of names (a call handing its results on) binds them first.
 */
function narrowed(d: FnDef, keep: readonly boolean[], name: string, p: Program): FnDef {
  const r = d.body.result;
  let stmts = d.body.stmts;
  let results: readonly string[];
  if (r.tag === 'ret') results = r.nl;
  else {
    const names = new NameSupply(namesIn(d));
    const binders = d.nlResults.map((t) => binder(names.fresh('result'), t));
    stmts = [...stmts, letS(binders, [], r)];
    results = binders.map((b) => b.name);
  }
  const body: Block = {
    stmts,
    result: ret(
      results.filter((_, k) => keep[k]),
      [],
    ),
  };
  return simplifyDef({ ...d, name, nlResults: d.nlResults.filter((_, k) => keep[k]), body }, keptCalls(p));
}

/** The call sites of `from` bind only the kept results of `to`. */
function redirect(d: FnDef, from: string, to: string, keep: readonly boolean[]): FnDef {
  return rewriteDef(d, {
    stmt: (s, emit) => {
      if (s.tag === 'let' && s.rhs.tag === 'call' && s.rhs.fn === from) emit({ ...s, nl: s.nl.filter((_, k) => keep[k]), rhs: { ...s.rhs, fn: to } });
      else emit(s);
    },
  });
}

/**
 * `p` with every def reachable from `entries` (the entries excepted) that returns results no call
 * site reads replaced, at its call sites, by a def without them; the callers are simplified again.
 */
export function dropUnreadResults(p: Program, entries: readonly string[]): Program {
  let q = p;
  const roots = new Set(entries);
  // One def narrowed per round, callers first: its own callees' unread results show after it.
  for (let round = 0; round < q.defs.length; round++) {
    const byName = defMap(q);
    const order = calleesFirst(q, entries);
    const read = new Map<string, boolean[]>();
    for (const n of order) readResults(byName.get(n)!, (fn) => byName.get(fn)?.nlResults.length ?? 0, read);
    const target = [...order].reverse().find((n) => {
      const d = byName.get(n)!;
      const seen = read.get(n);
      return (
        !roots.has(n) &&
        seen !== undefined &&
        d.linParams.length === 0 &&
        d.linResults.length === 0 &&
        seen.length === d.nlResults.length &&
        seen.some((k) => !k) &&
        seen.some((k) => k) &&
        !byName.has(keptResultsName(n, seen))
      );
    });
    if (target === undefined) return q;
    const keep = read.get(target)!;
    const name = keptResultsName(target, keep);
    const d = narrowed(byName.get(target)!, keep, name, q);
    const calls = keptCalls(q);
    const defs: FnDef[] = [];
    // Only the callers whose call sites were read: one the entries do not reach keeps calling g.
    const reach = new Set(order);
    for (const x of q.defs) {
      const callsIt = x.name !== target && reach.has(x.name) && calleesOfDef(x).includes(target);
      defs.push(callsIt ? simplifyDef(redirect(x, target, name, keep), calls) : x);
      if (x.name === target) defs.push(d);
    }
    q = { ...q, defs };
  }
  return q;
}
