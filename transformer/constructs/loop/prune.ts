// Dropping what a counted loop computes for nobody: a carried value nobody reads after the loop
// that feeds only itself (and other dropped ones) inside it — the cotangent of a parameter outside
// `wrt`, accumulated by the reversed loop and then discarded — and an invariant operand the body
// no longer reads (a residual stack only that cotangent needed, which then goes from the forward
// loop in turn). Without this the loops keep computing them and keep their residuals on the tape.
//
//   let (x̄, ȳ) = loop(n, s, x̄₀, ȳ₀)[|i, u, a, b| { drop(u); …; (a', b') }]   ȳ unused, b only for b'
//   ⇒ let (x̄) = loop(n, x̄₀)[|i, a| { …; (a') }]
//
// The droppable carries are a fixed point: start from the unread results, and give up any whose
// carried parameter is live in the body once the kept results (every linear result, every
// statement other than a non-linear `drop`) are what must be computed.
import type { Expr, Stmt } from '../../ir/syntax';
import { ret } from '../../ir/syntax';
import { closedFreeVars } from '../../ir/freeVars';
import type { ConstructExpr } from '../types';
import { keptAlive } from '../effect';
import { nonLinearDrop } from '../prune';

/**
 * Inner loops pruned in the same go, at most this many levels down: the simplifier asks again at
 * each level as it walks into the bodies, so deeper ones are pruned then, and loops nested
 * thousands deep neither recurse that deep nor cost the square of their depth.
 */
const INNER_LEVELS = 16;

export function loopPrunePartly(e: ConstructExpr, keep: readonly boolean[], alive: (e: Expr) => boolean = keptAlive, level = 0): { expr: ConstructExpr; kept: boolean[] } | undefined {
  const [body] = e.bodies;
  const r = body?.body.result;
  if (!body || !r || r.tag !== 'ret' || r.nl.length !== keep.length) return undefined;
  const k = keep.length;
  const firstCarry = body.nlParams.length - k;
  const firstInit = e.nl.length - k;
  if (firstCarry < 1 || firstInit !== firstCarry) return undefined;
  const dropped = new Set<number>();
  keep.forEach((kept, j) => !kept && dropped.add(j));
  let pruned: { stmts: Stmt[]; live: Set<string> };
  for (;;) {
    pruned = pruneStmts(body.body.stmts, [...r.nl.filter((_, j) => !dropped.has(j)), ...r.lin], alive, level + 1);
    const needed = [...dropped].filter((j) => pruned.live.has(body.nlParams[firstCarry + j].name));
    if (needed.length === 0) break;
    for (const j of needed) dropped.delete(j);
  }
  // Parameter positions that go: unread invariants (after the counter) and dropped carries.
  const gone = new Set<number>();
  for (let p = 1; p < firstCarry; p++) if (!pruned.live.has(body.nlParams[p].name)) gone.add(p);
  for (const j of dropped) gone.add(firstCarry + j);
  const changed = pruned.stmts.length !== body.body.stmts.length || pruned.stmts.some((s, i) => s !== body.body.stmts[i]);
  if (gone.size === 0 && !changed) return undefined;
  const stays = (_: unknown, p: number) => !gone.has(p);
  const nlParams = body.nlParams.filter(stays);
  // A body is closed: a `drop` may name only what is still bound in it.
  const bound = new Set([...nlParams, ...body.linParams].map((b) => b.name));
  for (const s of pruned.stmts) for (const b of s.tag === 'unpack' ? s.names : [...s.nl, ...s.lin]) bound.add(b.name);
  const stmts = pruned.stmts.filter((s) => {
    const v = nonLinearDrop(s);
    return v === undefined || bound.has(v);
  });
  const expr: ConstructExpr = {
    ...e,
    nl: e.nl.filter(stays),
    bodies: [
      {
        ...body,
        nlParams,
        body: {
          stmts,
          result: ret(
            r.nl.filter((_, j) => !dropped.has(j)),
            r.lin,
          ),
        },
      },
    ],
  };
  return { expr, kept: keep.map((_, j) => !dropped.has(j)) };
}

/**
 * The statements that compute `roots`, and the variables they read (a backward pass; bodies are
 * pure): dead non-linear statements go, and an inner loop keeps only what is live after it, so
 * a cotangent carried through nested loops goes at every level. A check (or a throw) stays,
 * with what it reads: an inner loop holding one stays too, pruned to it.
 */
function pruneStmts(stmts: readonly Stmt[], roots: readonly string[], alive: (e: Expr) => boolean, level: number): { stmts: Stmt[]; live: Set<string> } {
  const live = new Set(roots);
  const out: Stmt[] = [];
  for (let i = stmts.length - 1; i >= 0; i--) {
    const s = stmts[i];
    if (s.tag === 'unpack') {
      if (!s.linear && !s.names.some((b) => live.has(b.name))) continue;
      live.add(s.tuple);
      out.push(s);
      continue;
    }
    if (nonLinearDrop(s) !== undefined) {
      out.push(s);
      continue;
    }
    if (s.nl.length + s.lin.length > 0 && s.lin.length === 0 && !s.nl.some((b) => live.has(b.name)) && !alive(s.rhs)) continue;
    let stmt: Stmt = s;
    if (s.lin.length === 0 && s.rhs.tag === 'construct' && s.rhs.op === 'loop' && level < INNER_LEVELS) {
      const inner = loopPrunePartly(
        s.rhs,
        s.nl.map((b) => live.has(b.name)),
        alive,
        level,
      );
      if (inner) stmt = { ...s, nl: s.nl.filter((_, j) => inner.kept[j]), rhs: inner.expr };
    }
    const free = closedFreeVars(stmt.tag === 'let' ? stmt.rhs : s.rhs);
    for (const n of free.nl) live.add(n);
    for (const n of free.lin) live.add(n);
    out.push(stmt);
  }
  out.reverse();
  return { stmts: out, live };
}
