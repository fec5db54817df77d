// Reads that hand their array on (docs/linear-a.md, "Writes"). J of a read-modify-write
// `h[j] = f(h[j])` reads the tangent ḣ and then updates it: restoreLinearity gives the two uses a
// `dup` each, and a dup is a second holder, so the update copies the whole tangent (once per
// iteration of a loop: n² for a loop over h). Where the first use of a dup's copies is a read
// with a `peek` twin (ConstructRule.peek: lindex ↦ lpeek), this pass drops the dup and lets the
// read hand the array on to the other copy's use:
//
//   let (; a1, a2) = dup(a)              ↝   let (; a2, y) = lpeek(i, w ; a)
//   let (; y) = lindex(i, w ; a1)
//
// Correct because a2's use comes after the read (the read is the first statement to touch either
// copy) and a, being linear, had the dup as its only use. Chains of dups (three uses) are done
// from the last dup to the first, each rewrite moving its source's use down to the read.
// Generic: only the records' `peek` facets are read.
import { constructRule, isConstruct } from '../constructs/registry';
import type { Block, Expr, FnDef, Stmt } from '../ir/syntax';
import { forEachOperand, holdsConstruct, mapChildren, visitExpr } from '../ir/traverse';

type Let = Extract<Stmt, { tag: 'let' }>;

/** The names a statement reads: its own operands, or everything under a drop or a nested block. */
function readsOf(s: Stmt, f: (name: string) => void): void {
  if (s.tag === 'unpack') return f(s.tuple);
  if (s.rhs.tag === 'drop' || s.rhs.tag === 'block') return visitExpr(s.rhs, { read: f });
  forEachOperand(s.rhs, f);
}

/** The blocks an expression holds directly: its bodies, a nested block (also under drops). */
function childBlocks(e: Expr): Block[] {
  while (e.tag === 'drop') e = e.expr;
  if (e.tag === 'block') return [e.block];
  return e.tag === 'construct' ? e.bodies.map((l) => l.body) : [];
}

/** The expression with its child blocks replaced by their rewritten versions. */
function withChildren(e: Expr, done: ReadonlyMap<Block, Block>): Expr {
  return mapChildren(
    e,
    (l) => ({ ...l, body: done.get(l.body) ?? l.body }),
    (x) => withChildren(x, done),
  );
}

/** One block's statements with its nested blocks rewritten already. */
function peekStmts(stmts: Stmt[]): Stmt[] {
  // The statement reading each name (a linear name is read once); the result reads the rest.
  const reader = new Map<string, number>();
  stmts.forEach((s, k) => readsOf(s, (n) => reader.has(n) || reader.set(n, k)));
  const removed = new Set<number>();
  for (let d = stmts.length - 1; d >= 0; d--) {
    const s = stmts[d];
    if (s.tag !== 'let' || s.rhs.tag !== 'dup' || s.lin.length !== 2) continue;
    const source = s.rhs.name;
    const [k0, k1] = s.lin.map((c) => reader.get(c.name) ?? stmts.length);
    const first = k0 <= k1 ? 0 : 1;
    const k = Math.min(k0, k1);
    if (k0 === k1 || k >= stmts.length) continue;
    const r = stmts[k] as Let;
    const e = r.rhs;
    if (r.tag !== 'let' || e.tag !== 'construct' || !isConstruct(e.op) || e.bodies.length > 0 || r.lin.length !== 1 || r.nl.length !== 0) continue;
    if (e.lin.length !== 1 || e.lin[0] !== s.lin[first].name || e.nl.includes(source)) continue;
    const peeked = constructRule(e, 'peek').peek?.(e, source);
    if (!peeked) continue;
    stmts[k] = { ...r, lin: [s.lin[1 - first], r.lin[0]], rhs: peeked };
    removed.add(d);
    reader.set(source, k);
  }
  return removed.size > 0 ? stmts.filter((_, k) => !removed.has(k)) : stmts;
}

/** The def with every dup-then-read of a peekable read rewritten, bodies included (the reads are constructs: a def without one stays as it is). */
export const peekReads = (d: FnDef): FnDef => (holdsConstruct(d.body) ? rewriteBlocks(d, peekStmts) : d);

/**
 * The def with `rule` applied to the statements of every block, bodies included, each block's
 * nested blocks rewritten before it. Blocks are listed with an explicit stack and rewritten
 * innermost first: nesting depth costs no JavaScript stack.
 */
export function rewriteBlocks(d: FnDef, rule: (stmts: Stmt[]) => Stmt[]): FnDef {
  const order: Block[] = [];
  const todo: Block[] = [d.body];
  while (todo.length > 0) {
    const b = todo.pop()!;
    order.push(b);
    for (const s of b.stmts) if (s.tag === 'let') todo.push(...childBlocks(s.rhs));
    todo.push(...childBlocks(b.result));
  }
  const done = new Map<Block, Block>();
  for (let k = order.length - 1; k >= 0; k--) {
    const b = order[k];
    const stmts = b.stmts.map((s) => (s.tag === 'let' && childBlocks(s.rhs).length > 0 ? { ...s, rhs: withChildren(s.rhs, done) } : s));
    done.set(b, { stmts: rule(stmts), result: childBlocks(b.result).length > 0 ? withChildren(b.result, done) : b.result });
  }
  return { ...d, body: done.get(d.body)! };
}
