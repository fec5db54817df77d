// Guards for transposition: the backward code of a branch's side runs inside a real branch on
// the same test.
//
// A linear select `c ? ȧ : ḃ` transposes to masks, `ā = c ? ȳ : 0`, `b̄ = c ? 0 : ȳ`, and the
// untaken alternative's 0 then flows back through that alternative's partials. Where one of them
// is infinite or NaN at the point (1/r at r = 0, the derivative of √ at 0, x/r at the origin)
// 0·∞ turns the whole gradient into NaN: JAX's `where` trap (jax#1052). A cond has the same trap
// where a branch reads a value computed before it (`l = log(x); x > 0 ? sin(l) : 0`): the
// untaken branch drops l's tangent, T gives it the cotangent 0, and 0 meets l's partial 1/x.
// Multiplying by the zero afterwards cannot be fixed locally; instead, before T walks a body, the
// linear statements that feed nothing but one side (its *cone*: every linear value is used once,
// so this is a walk back along single uses, a `dup` joining when all its copies do) move into that
// side's branch:
//
//   let (; s) = lselect(c ; a, b)   with a computed by A, b by B
//     ↝ let (; s) = cond(c, ū ; v̇̄)[|ū ; v̇̄| { A; a }, |ū ; v̇̄| { B; b }]
//
// (ū, v̇̄: what A and B read from outside; each body drops what the other side reads), and a cond
// whose rule names an operand's sole reader (ConstructRule.soleReader) takes the operand's cone
// into that body (ConstructRule.sink). T of a cond is branchwise, so the backward code of A runs
// only when c holds, and B's only when it does not: the untaken side's partials are never
// multiplied by anything. Forward code needs no guard (a select there discards the untaken side's
// value, NaN or not), so only T calls this; every reverse mode, and every forward mode obtained by
// transposing (the tangent of a pullback rule), goes through T. A branch is rewritten only when a
// cone reads a non-linear number (a partial that could be infinite): `c ? ȧ : ḃ` of plain
// tangents keeps its masks, and its work. Which primitives branch, and on which arguments, is
// their record's `branches`.
//
// Code that several branches on the same test discard together has no one branch to move into:
// the JVP of `v === 0 ? 0 : 1 / v` selects twice on the test (the value and its tangent), and
// both tangents read -1/v²·v̇, so f = jvp(h, …)[1] reaches -1/v² from two selects. Such code is
// wrapped in a branch of its own on the tests under which its results are read (several tests
// joined by `and`), with zeros in the other branch:
//
//   let (; a1, a2) = dup(a)       (a1, a2 read only where c does not hold)
//     ↝ let (; a1, a2) = cond(c, ū ; v̇̄)[|ū ; v̇̄| { drop(ū, v̇̄); zeros }, |ū ; v̇̄| { A; dup(a) }]
//
// so its backward code, too, runs only where its results are read.
import type { NameSupply } from '../ir/build';
import { closedFreeVars } from '../ir/freeVars';
import { forEachOperand, renameOperands, renameStmtOperands } from '../ir/traverse';
import { BOOL, Binder, Expr, Stmt, Type, binder, block, construct, drop, lambda, letS, lvar, nvar, prim, ret, zero } from '../ir/syntax';
import { LIN_PRIMS } from '../prims/registry';
import { constructRule } from '../constructs/registry';
import type { ConstructExpr, ConstructRule, Sides, Sunk } from '../constructs/types';

type LetStmt = Extract<Stmt, { tag: 'let' }>;

interface Reads {
  readonly nl: readonly string[];
  readonly lin: readonly string[];
}

function readsOf(s: Stmt): Reads {
  if (s.tag === 'unpack') return s.linear ? { nl: [], lin: [s.tuple] } : { nl: [s.tuple], lin: [] };
  if (s.rhs.tag === 'drop' || s.rhs.tag === 'block') {
    const f = closedFreeVars(s.rhs);
    return { nl: [...f.nl], lin: [...f.lin] };
  }
  // Bodies are closed: an expression reads its operands and nothing inside them.
  const out: { nl: string[]; lin: string[] } = { nl: [], lin: [] };
  forEachOperand(s.rhs, (n, linear) => (linear ? out.lin : out.nl).push(n));
  return out;
}

const linearOutputs = (s: Stmt): readonly Binder[] => (s.tag === 'unpack' ? (s.linear ? s.names : []) : s.lin);

/** The alternatives of a branching linear primitive: the linear argument each side returns, or null for a zero. */
function sidesOf(s: Stmt): readonly (number | null)[] | undefined {
  if (s.tag !== 'let' || s.rhs.tag !== 'lprim' || s.lin.length !== 1) return undefined;
  return LIN_PRIMS[s.rhs.op]?.branches;
}

type Sinking = Required<Pick<ConstructRule, 'soleReader' | 'sink' | 'branchTest'>>;

/** The rule of a construct whose bodies code can move into (a cond). */
function sinkingRule(e: ConstructExpr): Sinking | undefined {
  const rule = constructRule(e, 'transpose');
  return rule.soleReader && rule.sink && rule.branchTest ? { soleReader: rule.soleReader, sink: rule.sink, branchTest: rule.branchTest } : undefined;
}

function sinkingOf(s: Stmt): { e: ConstructExpr; rule: Sinking } | undefined {
  if (s.tag !== 'let' || s.rhs.tag !== 'construct') return undefined;
  const rule = sinkingRule(s.rhs);
  return rule && { e: s.rhs, rule };
}

/** A test and the body taken (0 where it holds, 1 where not), as one key. */
const underKey = (test: string, body: number): string => `${body}:${test}`;
const fromKey = (k: string): { test: string; body: number } => ({ body: Number(k[0]), test: k.slice(2) });

const isDrop = (s: Stmt): boolean => s.tag === 'let' && s.nl.length === 0 && s.lin.length === 0 && s.rhs.tag === 'drop';

/**
 * The branch (a key) under which statement s reads linear value v in one body only; undefined if
 * none, null where s never reads it (a drop, or a branch whose every body drops it).
 */
function branchReading(s: Stmt, v: string): string | null | undefined {
  if (isDrop(s)) return null;
  const sides = sidesOf(s);
  if (sides !== undefined) {
    const rhs = (s as LetStmt).rhs as Extract<Expr, { tag: 'lprim' }>;
    const body = sides.indexOf(rhs.lin.indexOf(v));
    return body < 0 ? undefined : underKey(rhs.nl[0], body);
  }
  const c = sinkingOf(s);
  if (c === undefined) return undefined;
  const body = c.rule.soleReader(c.e)[c.e.lin.indexOf(v)];
  return body === null ? null : body === undefined ? undefined : underKey(c.rule.branchTest(c.e), body);
}

/** Where a statement's linear results are read: under some branches only, nowhere, or anywhere (undefined). */
type Under = ReadonlySet<string> | 'never' | undefined;

/**
 * Per statement, the branches under which every linear result it binds is read (each result
 * reaches the body's result only through one side of a branch on each of these tests), or
 * 'never' where no result is read at all.
 */
function readOnlyUnder(stmts: readonly Stmt[], consumer: ReadonlyMap<string, number>): Under[] {
  const under: Under[] = new Array(stmts.length);
  for (let i = stmts.length - 1; i >= 0; i--) {
    const outs = linearOutputs(stmts[i]);
    // Each read result's branches; one never read is the intersection's unit.
    const each = outs.flatMap((o): Set<string>[] => {
      const c = consumer.get(o.name);
      if (c === undefined) return [new Set()];
      const k = branchReading(stmts[c], o.name);
      const then = under[c];
      if (k === null || then === 'never') return [];
      const own = new Set(then ?? []);
      if (k !== undefined) own.add(k);
      return [own];
    });
    if (each.length === 0) {
      under[i] = outs.length > 0 ? 'never' : undefined;
      continue;
    }
    // biome-ignore lint/performance/noAccumulatingSpread: an intersection: each step's set is no larger than the one before
    const all = each.reduce((a, b) => new Set([...a].filter((x) => b.has(x))));
    under[i] = all.size > 0 ? all : undefined;
  }
  return under;
}

/**
 * A branching primitive as the cond it is, `c ? a : b` ↝ `cond(c ; a, b)[|; a, b| { drop(b); a },
 * |; a, b| { drop(a); b }]` (a zero side returns a zero), so one rule moves code into both.
 */
function asCond(s: LetStmt, sides: readonly (number | null)[], types: ReadonlyMap<string, Type>, names: NameSupply): ConstructExpr | undefined {
  const rhs = s.rhs as Extract<Expr, { tag: 'lprim' }>;
  const resultType = s.lin[0].type ?? types.get(s.lin[0].name);
  if (resultType === undefined || rhs.lin.some((n) => !types.has(n))) return undefined;
  const bodies = sides.map((k) => {
    const params = rhs.lin.map((n) => binder(names.fresh(n), types.get(n)));
    const stmts: Stmt[] = params.filter((_, j) => j !== k).map((p) => letS([], [], drop(lvar(p.name))));
    let result: string;
    if (k === null) {
      result = names.fresh('zero');
      stmts.push(letS([], [binder(result, resultType)], zero(resultType)));
    } else {
      result = params[k].name;
    }
    return lambda([], params, block(stmts, ret([], [result])));
  });
  return construct('cond', [rhs.nl[0]], rhs.lin, bodies) as ConstructExpr;
}

/** A statement that may move into a branch: it computes linear values only, or drops them. */
function movable(s: Stmt): boolean {
  if (s.tag === 'unpack') return s.linear;
  if (s.nl.length > 0) return false;
  // A drop of a nested block would need its inner reads renamed; such drops stay outside.
  return !(s.rhs.tag === 'drop' && s.rhs.expr.tag === 'block');
}

/** A tiny max-heap of statement indices: the cone is decided from its end backwards. */
class MaxHeap {
  private readonly a: number[] = [];
  private readonly seen = new Set<number>();
  push(x: number): void {
    if (this.seen.has(x)) return;
    this.seen.add(x);
    const a = this.a;
    a.push(x);
    for (let i = a.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (a[p] >= a[i]) break;
      [a[p], a[i]] = [a[i], a[p]];
      i = p;
    }
  }
  pop(): number | undefined {
    const a = this.a;
    if (a.length === 0) return undefined;
    const top = a[0];
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && a[l] > a[m]) m = l;
        if (r < a.length && a[r] > a[m]) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i], a[m]];
        i = m;
      }
    }
    return top;
  }
}

/** What a group of statements reads from outside it, and the linear names it binds. */
interface Outside {
  readonly nl: readonly string[];
  readonly lin: readonly string[];
  readonly bound: ReadonlySet<string>;
}

function outsideOf(group: readonly Stmt[]): Outside {
  const bound = new Set(group.flatMap((t) => linearOutputs(t).map((b) => b.name)));
  const reads = group.map(readsOf);
  return { nl: reads.flatMap((r) => r.nl), lin: reads.flatMap((r) => r.lin).filter((n) => !bound.has(n)), bound };
}

/**
 * Rewrites the branches of a flat Linear B statement list ending in `result` (T's view of a
 * body): what feeds only one side of a select, or only one body of a cond, moves into that side's
 * branch, where a cone reads a number; what several branches on the same tests discard together
 * gets a branch of its own. `types` holds the type of every name the statements bind or read; a
 * branch with an untyped operand is left as it is.
 */
export function guardBranches(stmts: readonly Stmt[], result: Expr, types: ReadonlyMap<string, Type>, names: NameSupply): readonly Stmt[] {
  if (!stmts.some((s) => sidesOf(s) !== undefined || sinkingOf(s) !== undefined)) return stmts;
  const reads = stmts.map(readsOf);
  const definer = new Map<string, number>();
  const consumer = new Map<string, number>();
  // Where each non-linear name is bound (a test a later branch reads may be computed after s).
  const boundAt = new Map<string, number>();
  stmts.forEach((s, i) => {
    linearOutputs(s).forEach((b) => definer.set(b.name, i));
    if (s.tag === 'unpack' && !s.linear) s.names.forEach((b) => boundAt.set(b.name, i));
    if (s.tag === 'let') s.nl.forEach((b) => boundAt.set(b.name, i));
    reads[i].lin.forEach((n) => consumer.set(n, i));
  });
  const under = readOnlyUnder(stmts, consumer);
  const moved = new Uint8Array(stmts.length);
  const replaced = new Map<number, Stmt[]>();
  const literal = new Map<string, Expr>();
  for (const s of stmts) if (s.tag === 'let' && s.nl.length === 1 && s.lin.length === 0 && s.rhs.tag === 'lit') literal.set(s.nl[0].name, s.rhs);

  /** The statements that feed nothing but the `targets`, which statement `at` reads: indices in order. */
  const coneOf = (at: number, targets: ReadonlySet<string>): number[] => {
    const member = new Set<number>();
    const heap = new MaxHeap();
    for (const v of targets) {
      const d = definer.get(v);
      if (d !== undefined) heap.push(d);
    }
    for (let j = heap.pop(); j !== undefined; j = heap.pop()) {
      const s = stmts[j];
      if (moved[j] || !movable(s)) continue;
      const outs = linearOutputs(s);
      if (outs.length === 0) continue;
      const drops: number[] = [];
      const fed = outs.every((o) => {
        const c = consumer.get(o.name);
        if (c === undefined) return false;
        if (c === at) return targets.has(o.name);
        if (member.has(c)) return true;
        const u = stmts[c];
        // A copy that is only dropped joins with its drop.
        if (isDrop(u) && movable(u) && !moved[c]) {
          drops.push(c);
          return true;
        }
        return false;
      });
      if (!fed) continue;
      member.add(j);
      drops.forEach((c) => member.add(c));
      for (const n of reads[j].lin) {
        const k = definer.get(n);
        if (k !== undefined) heap.push(k);
      }
    }
    return [...member].sort((x, y) => x - y);
  };

  /** A group is worth a branch when it reads a number: a partial that may be infinite. */
  const hasPartials = (group: readonly Stmt[]): boolean =>
    group.some((s) =>
      readsOf(s).nl.some((n) => {
        const t = types.get(n);
        return t === undefined || (t.tag !== 'bool' && t.tag !== 'str');
      }),
    );

  /** The operands of branches taking the groups read from `outside`: a literal is bound again inside (U's rule). */
  const operandsOf = (outside: readonly Outside[]): Sides<string> | undefined => {
    const operands = { nl: firstSeen(outside.map((o) => o.nl)).filter((n) => !literal.has(n)), lin: firstSeen(outside.map((o) => o.lin)) };
    return [...operands.nl, ...operands.lin].some((n) => !types.has(n)) ? undefined : operands;
  };

  /** A body's parameters for `operands` and its statements: `group` reading them (each unread one dropped). */
  const bodyFor = (group: readonly Stmt[], outside: Outside, operands: Sides<string>): { params: Sides<Binder>; stmts: Stmt[] } => {
    const param = new Map<string, string>();
    const params = (ops: readonly string[]) =>
      ops.map((n) => {
        const p = names.fresh(n);
        param.set(n, p);
        return binder(p, types.get(n));
      });
    const nl = params(operands.nl);
    const lin = params(operands.lin);
    const rename = (n: string) => param.get(n) ?? n;
    const renameExpr = (x: Expr): Expr => (x.tag === 'drop' ? drop(renameExpr(x.expr)) : renameOperands(x, rename));
    const used = new Set([...outside.nl, ...outside.lin]);
    const literals = firstSeen([outside.nl])
      .filter((n) => literal.has(n))
      .map((n) => {
        const p = names.fresh(n);
        param.set(n, p);
        return letS([binder(p, types.get(n))], [], literal.get(n)!);
      });
    // Each body consumes every new parameter: what only another body's group reads is dropped.
    const out: Stmt[] = [
      ...literals,
      ...operands.nl.filter((n) => !used.has(n)).map((n) => letS([], [], drop(nvar(param.get(n)!)))),
      ...operands.lin.filter((n) => !used.has(n)).map((n) => letS([], [], drop(lvar(param.get(n)!)))),
    ];
    for (const t of group) out.push(t.tag === 'unpack' ? renameStmtOperands(t, rename) : { ...t, rhs: renameExpr(t.rhs) });
    return { params: { nl, lin }, stmts: out };
  };

  /** `e` (read by statement `at`) with each body's cone moved in; undefined when no cone is worth it. */
  const sinkInto = (at: number, lin: readonly string[], reader: readonly (number | null | undefined)[], bodies: number, build: () => ConstructExpr | undefined): ConstructExpr | undefined => {
    const cones = Array.from({ length: bodies }, (_, k) => coneOf(at, new Set(lin.filter((_, i) => reader[i] === k))));
    const groups = cones.map((cone) => cone.map((j) => stmts[j]));
    if (!groups.some(hasPartials)) return undefined;
    const e = build();
    if (e === undefined) return undefined;
    const rule = sinkingRule(e)!;
    const outside = groups.map(outsideOf);
    const operands = operandsOf(outside);
    if (operands === undefined) return undefined;
    const computed = new Map<number, string>();
    e.lin.forEach((v, i) => {
      const k = reader[i];
      if (typeof k === 'number' && outside[k].bound.has(v)) computed.set(i, v);
    });
    const sunk: Sunk = { operands, bodies: groups.map((g, k) => bodyFor(g, outside[k], operands)), computed };
    cones.forEach((c) => c.forEach((j) => (moved[j] = 1)));
    // The construct reads what its bodies now compute from.
    operands.lin.forEach((n) => consumer.set(n, at));
    return rule.sink(e, sunk);
  };

  /**
   * Statement `s` (at `at`, its results read only `under` those branches) and what feeds only it,
   * in a branch of its own taken where they hold, zeros in the other; undefined when not worth it.
   */
  const wrap = (at: number, s: Stmt, tests: ReadonlySet<string>): Stmt[] | undefined => {
    const outs = linearOutputs(s).map((b) => binder(b.name, b.type ?? types.get(b.name)));
    if (!movable(s) || outs.some((b) => b.type === undefined) || [...tests].some((k) => types.get(fromKey(k).test)?.tag !== 'bool')) return undefined;
    const cone = coneOf(at, new Set(readsOf(s).lin));
    const group = [...cone.map((j) => stmts[j]), s];
    if (!hasPartials(group)) return undefined;
    const outside = outsideOf(group);
    const operands = operandsOf([outside]);
    if (operands === undefined) return undefined;
    const { pred, taken, prelude } = joinTests([...tests].map(fromKey), names);
    const real = bodyFor(group, outside, operands);
    // Inside, the results get names of their own (the cond binds the outer ones).
    const inner = outs.map((b) => names.fresh(b.name));
    const last = real.stmts.length - 1;
    const t = real.stmts[last];
    const rebind = (bs: readonly Binder[]) => bs.map((_b, i) => binder(inner[i], outs[i].type));
    real.stmts[last] = t.tag === 'unpack' ? { ...t, names: rebind(t.names) } : { ...t, lin: rebind(t.lin) };
    const none = bodyFor([], { nl: [], lin: [], bound: new Set() }, operands);
    const zeros = outs.map((b) => binder(names.fresh('zero'), b.type));
    zeros.forEach((z) => none.stmts.push(letS([], [z], zero(z.type!))));
    const bodies = [
      lambda(real.params.nl, real.params.lin, block(real.stmts, ret([], inner))),
      lambda(
        none.params.nl,
        none.params.lin,
        block(
          none.stmts,
          ret(
            [],
            zeros.map((z) => z.name),
          ),
        ),
      ),
    ];
    cone.forEach((j) => (moved[j] = 1));
    return [...prelude, letS([], outs, construct('cond', [pred, ...operands.nl], operands.lin, taken === 0 ? bodies : [bodies[1], bodies[0]]))];
  };

  /**
   * Statement `s` (at `at`), whose results nothing reads, and what feeds only it: gone, its
   * results zeros (its partials would only ever meet a zero cotangent); undefined when it reads none.
   */
  const discard = (at: number, s: Stmt): Stmt[] | undefined => {
    const outs = linearOutputs(s).map((b) => binder(b.name, b.type ?? types.get(b.name)));
    if (!movable(s) || outs.some((b) => b.type === undefined)) return undefined;
    const cone = coneOf(at, new Set(readsOf(s).lin));
    const group = [...cone.map((j) => stmts[j]), s];
    if (!hasPartials(group)) return undefined;
    const outside = outsideOf(group);
    cone.forEach((j) => (moved[j] = 1));
    return [...firstSeen([outside.nl]).map((n) => letS([], [], drop(nvar(n)))), ...firstSeen([outside.lin]).map((n) => letS([], [], drop(lvar(n)))), ...outs.map((b) => letS([], [b], zero(b.type!)))];
  };

  for (let i = stmts.length - 1; i >= 0; i--) {
    if (moved[i]) continue;
    const s = stmts[i];
    const sides = sidesOf(s);
    let e: ConstructExpr | undefined;
    if (sides !== undefined) {
      // The cond is built only where a side has a cone worth moving.
      const rhs = (s as LetStmt).rhs as Extract<Expr, { tag: 'lprim' }>;
      e = sinkInto(
        i,
        rhs.lin,
        rhs.lin.map((_, j) => (sides[0] === j ? 0 : sides[1] === j ? 1 : undefined)),
        2,
        () => asCond(s as LetStmt, sides, types, names),
      );
    } else {
      const c = sinkingOf(s);
      if (c !== undefined) e = sinkInto(i, c.e.lin, c.rule.soleReader(c.e), c.e.bodies.length, () => c.e);
    }
    const current = e !== undefined ? { ...(s as LetStmt), rhs: e } : s;
    // Only the tests already computed at s can guard it; its results are read where all the
    // tests hold, so a branch on some of them runs it wherever it is needed too.
    const all = under[i];
    const tests = all === 'never' || all === undefined ? all : new Set([...all].filter((k) => (boundAt.get(fromKey(k).test) ?? -1) < i));
    const wrapped = tests === 'never' ? discard(i, current) : tests !== undefined && tests.size > 0 ? wrap(i, current, tests) : undefined;
    if (wrapped !== undefined) replaced.set(i, wrapped);
    else if (e !== undefined) replaced.set(i, [current]);
  }
  const out = stmts.flatMap((s, i) => (moved[i] ? [] : (replaced.get(i) ?? [s])));
  if (replaced.size === 0) return out;
  // A literal whose readers all moved is bound where they went; the outer binding goes.
  const read = new Set([...closedFreeVars(result).nl, ...out.flatMap((s) => readsOf(s).nl)]);
  return out.filter((s) => !(s.tag === 'let' && s.nl.length === 1 && literal.has(s.nl[0].name) && !read.has(s.nl[0].name)));
}

/**
 * One bool for several tests: the conjunction of each test or its negation, so that a single
 * branch runs where all hold. `taken`: the body that runs where `pred` is true (0) or false (1).
 */
function joinTests(tests: readonly { test: string; body: number }[], names: NameSupply): { pred: string; taken: number; prelude: Stmt[] } {
  if (tests.length === 1) return { pred: tests[0].test, taken: tests[0].body, prelude: [] };
  const prelude: Stmt[] = [];
  const holds = tests.map(({ test, body }) => {
    if (body === 0) return test;
    const n = names.fresh(`not_${test}`);
    prelude.push(letS([binder(n, BOOL)], [], prim('not', [test])));
    return n;
  });
  const pred = holds.reduce((a, b) => {
    const n = names.fresh('both');
    prelude.push(letS([binder(n, BOOL)], [], prim('and', [a, b])));
    return n;
  });
  return { pred, taken: 0, prelude };
}

function firstSeen(lists: readonly (readonly string[])[]): string[] {
  const out = new Set<string>();
  lists.forEach((l) => l.forEach((n) => out.add(n)));
  return [...out];
}
