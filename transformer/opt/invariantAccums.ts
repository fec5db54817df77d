// Accumulations at a loop-invariant index summed in a local (scalar promotion, issue 22).
//
// A backward loop whose body adds to its carried cotangent at one index that every run of the
// body sees the same (`μ̄[c·d + col] += y_r` in a loop over r) reads and writes that element once
// per run. Where the body does nothing else with the array, the loop can carry the running sum
// as a real instead and add it once after the loop: `s = 0; for r { s += y_r }; μ̄[c·d + col] += s`.
// The add after the loop runs only when the loop ran (`trip > 0`): a loop that runs zero times
// adds nothing, and its index may then be outside the array. The sums are associated differently
// (as in hand-written code), nothing else changes.
//
// Runs on finished, erased programs before opt/ownedChains.ts (which then proves the array owned
// through the guarded add as through any branch), inner loops first. Generic over constructs:
// loops by their records (repeats, carries, invariants), adds by Threading.adds.
import { constructRule, isConstruct } from '../constructs/registry';
import type { ConstructExpr, Counts, Threading } from '../constructs/types';
import { arityOf } from '../language/arity';
import type { CalleeCounts } from './sourceDefs';
import { readCounts } from './readCounts';
import { NameSupply } from '../ir/build';
import { BOOL, REAL, binder, block, construct, drop, lambda, letS, lit, nvar, prim, ret } from '../ir/syntax';
import type { Binder, Block, FnDef, Lambda, Stmt } from '../ir/syntax';
import { mapChildren, namesIn } from '../ir/traverse';

type Callee = CalleeCounts;

class InvariantAccums {
  constructor(
    private readonly callee: Callee,
    private readonly names: NameSupply,
  ) {}

  private fresh(hint: string): string {
    return this.names.fresh(`${hint}_sum`);
  }

  private bodyArity = (body: Lambda): Counts => arityOf(body.body.result, this.callee);

  block(b: Block): Block {
    let changed = false;
    const out: Stmt[] = [];
    for (const s of b.stmts) {
      if (s.tag !== 'let') {
        out.push(s);
        continue;
      }
      const rhs = mapChildren(s.rhs, (l) => ({ ...l, body: this.block(l.body) }));
      let stmts: Stmt[] = [rhs === s.rhs ? s : { ...s, rhs }];
      if (rhs.tag === 'construct' && isConstruct(rhs.op)) stmts = this.loop(stmts[0] as Stmt & { tag: 'let' }, rhs);
      changed ||= stmts.length !== 1 || stmts[0] !== s;
      out.push(...stmts);
    }
    const result = mapChildren(b.result, (l) => ({ ...l, body: this.block(l.body) }));
    return changed || result !== b.result ? { stmts: out, result } : b;
  }

  /** The loop statement with each carried array that only takes adds at an invariant index carrying their sum instead. */
  private loop(s: Stmt & { tag: 'let' }, given: ConstructExpr): Stmt[] {
    const rule = constructRule(given, 'invariantAccums');
    if (!rule.repeats || !rule.carries || given.bodies.length !== 1 || given.lin.length > 0 || s.lin.length > 0) return [s];
    const inv = rule.invariants?.(given, this.bodyArity);
    if (inv?.body !== 0 || inv.trip === undefined) return [s];
    let e = given;
    let binders = [...s.nl];
    const before: Stmt[] = [];
    const after: Stmt[] = [];
    for (const slot of rule.carries(e, this.bodyArity)) {
      if (slot.result === undefined || slot.body !== 0 || !s.nl[slot.result]?.type) continue;
      const body = e.bodies[0];
      const outside = (name: string): string | undefined => {
        const k = body.nlParams.findIndex((p) => p.name === name);
        return k < inv.param || k >= inv.param + inv.count ? undefined : e.nl[inv.operand + (k - inv.param)];
      };
      const param = body.nlParams[slot.param].name;
      const counts = readCounts(body.body);
      const r = body.body.result;
      if (counts.get(param) !== 1 || r.tag !== 'ret') continue;
      const k = body.body.stmts.findIndex((t) => t.tag === 'let' && t.rhs.tag === 'construct' && t.rhs.nl.includes(param));
      const add = body.body.stmts[k];
      if (add?.tag !== 'let' || add.rhs.tag !== 'construct' || !isConstruct(add.rhs.op)) continue;
      const a = add.rhs;
      const t = constructRule(a, 'invariantAccums').threads?.(a);
      if (!t?.adds || a.nl[t.array] !== param || a.lin.length > 0 || a.bodies.length > 0) continue;
      const next = add.nl[t.result]?.name;
      // The array read once (by the add), its next value only handed back, in its own slot.
      if (next === undefined || counts.get(next) !== 1 || r.nl[slot.result] !== next || r.nl.filter((n) => n === next).length !== 1) continue;
      // Every other operand of the add (index, witness) the same in every run.
      const others = a.nl.map((n, j) => (j === t.array || j === t.adds!.value ? n : outside(n)));
      if (others.some((n) => n === undefined)) continue;
      const sumIn = this.fresh('acc');
      const sumOut = this.fresh('acc');
      const zero = this.fresh('zero');
      const stmts = [...body.body.stmts];
      stmts[k] = letS([binder(sumOut, REAL)], [], prim('add', [sumIn, a.nl[t.adds.value]]));
      const resultNl = r.nl.map((n) => (n === next ? param : n));
      e = {
        ...e,
        nl: [...e.nl, zero],
        bodies: [{ ...body, nlParams: [...body.nlParams, binder(sumIn, REAL)], body: block(stmts, ret([...resultNl, sumOut], r.lin)) }],
      };
      // The loop's new last result is the sum; the array it returns is the one before the add after it.
      const sum = this.fresh('acc');
      const last = s.nl[slot.result];
      const held = this.fresh(last.name);
      before.push(letS([binder(zero, REAL)], [], lit(0)));
      binders = [...binders.map((b) => (b === last ? binder(held, b.type) : b)), binder(sum, REAL)];
      after.push(...this.addAfter(a, t, others as string[], e.nl[inv.trip], held, sum, last));
      // The construct must carry the sum where it was appended (its last operand, parameter, result).
      const grown = rule.carries(e, this.bodyArity).at(-1);
      const lastParam = e.bodies[0].nlParams.length - 1;
      if (!grown || grown.operand !== e.nl.length - 1 || grown.param !== lastParam || grown.result !== binders.length - 1) return [s];
    }
    if (e === given) return [s];
    return [...before, { ...s, nl: binders, rhs: e }, ...after];
  }

  /** `last = trip > 0 ? add(array, sum) : array`, the add being the loop's own with the sum as its value. */
  private addAfter(a: ConstructExpr, t: Threading, operands: readonly string[], trip: string, array: string, sum: string, last: Binder): Stmt[] {
    const c0 = this.fresh('c');
    const ran = this.fresh('ran');
    const args = operands.map((n, j) => (j === t.array ? array : j === t.adds?.value ? sum : n));
    const params = (tag: string) => args.map((_, j) => binder(this.fresh(`${tag}${j}`)));
    // The taken body: the add over its parameters; the other hands the array back.
    const taken = params('p');
    const out = this.fresh('r');
    const takenBody = block([letS([binder(out, last.type)], [], { ...a, nl: taken.map((p) => p.name) })], ret([out]));
    const skipped = params('q');
    const skippedBody = block(
      skipped.flatMap((p, j) => (j === t.array ? [] : [letS([], [], drop(nvar(p.name)))])),
      ret([skipped[t.array].name]),
    );
    return [
      letS([binder(c0, REAL)], [], lit(0)),
      letS([binder(ran, BOOL)], [], prim('gt', [trip, c0])),
      letS([last], [], construct('cond', [ran, ...args], [], [lambda(taken, [], takenBody), lambda(skipped, [], skippedBody)])),
    ];
  }
}

/** The def with each loop's adds at a loop-invariant index into a carried array summed in a local and added once after the loop. */
export function promoteInvariantAccums(def: FnDef, callee: Callee): FnDef {
  const pass = new InvariantAccums(callee, new NameSupply(namesIn(def)));
  const body = pass.block(def.body);
  return body === def.body ? def : { ...def, body };
}
