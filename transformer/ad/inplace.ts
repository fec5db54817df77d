// In-place writes (docs/linear-a.md, "Arrays", "Writes"). The IR has value semantics: `update(a,
// i, v)` returns a changed copy and a stays as it was, which is what lets J, U and T treat every
// version of an array the source overwrites as a value of its own. The backend would pay for that
// with a copy per write (n² to fill an n-array), so this pass, run on finished programs just
// before they are emitted, turns a construct with an in-place twin (ConstructRule.inPlace) into
// that twin where nobody can tell the difference:
//
// - the array is *unique*: bound in this block by a construct that allocates its results
//   (ConstructRule.fresh: fill, map, an update), or a carried parameter of a loop body whose
//   operand was unique and read last by the loop and whose body hands back a unique array
//   (ConstructRule.carries), or the loop's result for such a slot; and no statement before the
//   write could have kept a reference to it (one whose results hold no array or stack cannot);
// - and the write is its last reader: nothing after it in the block, nor the block's result,
//   reads the old version.
//
// Anything else stays an update, a copy: a function's parameters (the caller's arrays), a
// version kept on a residual stack for the reverse sweep, an array a branch writes. Generic
// over constructs: only the records' facets are read.
import { constructRule, isConstruct } from '../constructs/registry';
import type { CarrySlot, ConstructExpr, Counts } from '../constructs/types';
import { arityOf } from '../ir/arity';
import type { Block, Expr, FnDef, Lambda, Stmt, Type } from '../ir/syntax';
import { mapChildren, visitExpr } from '../ir/traverse';

type Callee = (fn: string) => Counts | undefined;

/** Whether a value of this type can hold a reference to an array (an array, a stack, a tuple of them). */
const holdsArrays = (t: Type | undefined): boolean => t === undefined || t.tag === 'array' || t.tag === 'stack' || (t.tag === 'tuple' && t.elems.some(holdsArrays));

const readsOf = (e: Expr): Set<string> => {
  const out = new Set<string>();
  visitExpr(e, { read: (n) => out.add(n) });
  return out;
};

const stmtReads = (s: Stmt): Set<string> => (s.tag === 'unpack' ? new Set([s.tuple]) : readsOf(s.rhs));

/** How many times a name is an operand of the expression itself. */
function operandCount(e: ConstructExpr, name: string): number {
  let k = 0;
  for (const n of e.nl) if (n === name) k++;
  for (const n of e.lin) if (n === name) k++;
  return k;
}

const asConstruct = (e: Expr): ConstructExpr | undefined => (e.tag === 'construct' && isConstruct(e.op) ? e : undefined);

interface Analysed {
  readonly block: Block;
  /** The names the block's result hands on unique (its `ret` operands read once there and nowhere else). */
  readonly uniqueResults: readonly boolean[];
}

class InPlace {
  constructor(private readonly callee: Callee) {}

  private bodyArity = (body: Lambda): Counts => arityOf(body.body.result, this.callee);

  /** The block with in-place twins where safe, given the names that are unique on entry. */
  block(b: Block, uniqueOnEntry: ReadonlySet<string>): Analysed {
    const reads = b.stmts.map(stmtReads);
    const resultReads = readsOf(b.result);
    const lastUse = new Map<string, number>();
    reads.forEach((rs, k) => rs.forEach((n) => lastUse.set(n, k)));
    resultReads.forEach((n) => lastUse.set(n, Infinity));
    const unique = new Set(uniqueOnEntry);
    const out: Stmt[] = [];
    b.stmts.forEach((s, k) => {
      if (s.tag === 'unpack') {
        unique.delete(s.tuple);
        out.push(s);
        return;
      }
      const e = asConstruct(s.rhs);
      const rule = e && constructRule(e, 'inplace');
      const diesHere = (x: string) => unique.has(x) && lastUse.get(x) === k && e !== undefined && operandCount(e, x) === 1;
      let rhs: Expr = s.rhs;
      const freshResults = new Set<number>();
      if (e && rule?.inPlace && diesHere(e.nl[rule.inPlace.operand])) {
        rhs = { ...e, op: rule.inPlace.op };
      } else if (e && rule?.carries) {
        const { expr, uniqueResults } = this.carrying(e, rule.carries(e, this.bodyArity), diesHere);
        rhs = expr;
        uniqueResults.forEach((r) => freshResults.add(r));
      } else {
        rhs = mapChildren(s.rhs, (l) => ({ ...l, body: this.block(l.body, new Set()).block }));
      }
      const fresh = rule?.fresh === true;
      const keepsNothing = !s.nl.some((x) => holdsArrays(x.type)) && !s.lin.some((x) => holdsArrays(x.type));
      // A statement that could keep a reference to one of its operands makes that operand shared.
      if (!fresh && !keepsNothing) for (const n of reads[k]) unique.delete(n);
      s.nl.forEach((x, j) => {
        if ((fresh || freshResults.has(j)) && x.type?.tag === 'array') unique.add(x.name);
      });
      out.push(rhs === s.rhs ? s : { ...s, rhs });
    });
    const result = b.result;
    const retNames = result.tag === 'ret' ? result.nl : [];
    const uniqueResults = retNames.map((n) => unique.has(n) && retNames.filter((m) => m === n).length === 1);
    return { block: { stmts: out, result: mapChildren(result, (l) => ({ ...l, body: this.block(l.body, new Set()).block })) }, uniqueResults };
  }

  /**
   * A construct whose bodies carry values from run to run (a loop): a carried parameter is unique
   * when its operand dies here unique and the body hands back a unique value in its slot; the
   * largest set of slots for which that holds is found by dropping the slots that fail.
   */
  private carrying(e: ConstructExpr, slots: readonly CarrySlot[], diesHere: (x: string) => boolean): { expr: Expr; uniqueResults: number[] } {
    let candidates = slots.filter((c) => diesHere(e.nl[c.operand]));
    for (;;) {
      const bodies = e.bodies.map((l, j) => {
        const params = new Set(candidates.filter((c) => c.body === j).map((c) => l.nlParams[c.param].name));
        return this.block(l.body, params);
      });
      const holding = candidates.filter((c) => bodies[c.body].uniqueResults[c.result] === true);
      if (holding.length === candidates.length) {
        const expr: Expr = { ...e, bodies: e.bodies.map((l, j) => ({ ...l, body: bodies[j].block })) };
        return { expr, uniqueResults: candidates.map((c) => c.result) };
      }
      candidates = holding;
    }
  }
}

/** The def with each update that provably nobody else sees turned into its in-place twin. */
export function markInPlace(def: FnDef, callee: Callee): FnDef {
  const body = new InPlace(callee).block(def.body, new Set()).block;
  return body === def.body ? def : { ...def, body };
}
