// Takes that are put back (docs/linear-a.md, "Writes"). T of a read-modify-write `h[j] = h[j] + e`
// takes h̄_j out of the cotangent (ltake: read it and zero it), and the read of h[j] then adds a
// copy of it back at j (laccum): h̄ ends as it was, after two in-place updates and their ownership
// checks per iteration. Where the record of the take says what reads without taking
// (ConstructRule.putBack: ltake then laccum at its index is lpeek), the pair becomes that read:
//
//   let (; ā2, t) = ltake(i, w ; ā)          ↝   let (; ā3, t) = lpeek(i, w ; ā)
//   let (; t1, t2) = dup(t)                        let (; t2) = (; t)
//   …                                              …
//   let (; ā3) = laccum(i, w' ; ā2, t1)
//
// Correct because ā2 (linear) has the accumulation as its only use, so nothing between the two
// sees the array, and ā3 is bound before its first use. The copy added back may come from a
// chain of dups of t; the dup it comes from keeps its other copy. Generic: only the records'
// `putBack` facets are read.
import { constructRule, isConstruct } from '../constructs/registry';
import { ret } from '../ir/syntax';
import type { FnDef, Stmt } from '../ir/syntax';
import { rewriteBlocks } from './peek';
import { holdsConstruct } from '../ir/traverse';

type Let = Extract<Stmt, { tag: 'let' }>;

const isLet = (s: Stmt | undefined): s is Let => s?.tag === 'let';

function untakeStmts(stmts: Stmt[]): Stmt[] {
  // The statement binding each linear name.
  const binder = new Map<string, number>();
  stmts.forEach((s, k) => isLet(s) && s.lin.forEach((b) => binder.set(b.name, k)));
  const removed = new Set<number>();
  stmts.forEach((s, k) => {
    const back = s.tag === 'let' ? s.rhs : undefined;
    if (!isLet(s) || back?.tag !== 'construct' || back.bodies.length > 0 || back.lin.length !== 2 || s.lin.length !== 1 || s.nl.length !== 0) return;
    const [array, value] = back.lin;
    const t = binder.get(array);
    const takeStmt = t === undefined ? undefined : stmts[t];
    if (!isLet(takeStmt) || takeStmt.rhs.tag !== 'construct' || !isConstruct(takeStmt.rhs.op)) return;
    const take = takeStmt.rhs;
    if (takeStmt.lin.length !== 2 || takeStmt.lin[0].name !== array || take.bodies.length > 0) return;
    const putBack = constructRule(take, 'untake').putBack;
    if (!putBack) return;
    // `value` is one copy of a dup whose source is the taken value or, through dups, a copy of it.
    const d = binder.get(value);
    const dupStmt = d === undefined ? undefined : stmts[d];
    if (!isLet(dupStmt) || dupStmt.rhs.tag !== 'dup' || dupStmt.lin.length !== 2) return;
    let source = dupStmt.rhs.name;
    for (let guard = 0; source !== takeStmt.lin[1].name && guard < stmts.length; guard++) {
      const up = stmts[binder.get(source) ?? -1];
      if (!isLet(up) || up.rhs.tag !== 'dup') return;
      source = up.rhs.name;
    }
    if (source !== takeStmt.lin[1].name) return;
    const read = putBack(take, back);
    if (!read) return;
    stmts[t!] = { ...takeStmt, lin: [s.lin[0], takeStmt.lin[1]], rhs: read };
    const other = dupStmt.lin.find((b) => b.name !== value)!;
    stmts[d!] = { ...dupStmt, lin: [other], rhs: ret([], [dupStmt.rhs.name]) };
    removed.add(k);
  });
  return removed.size > 0 ? stmts.filter((_, k) => !removed.has(k)) : stmts;
}

/** The def with every take that is put back rewritten as a read, bodies included (takes are constructs: a def without one stays as it is). */
export const untakeWrites = (d: FnDef): FnDef => (holdsConstruct(d.body) ? rewriteBlocks(d, untakeStmts) : d);
