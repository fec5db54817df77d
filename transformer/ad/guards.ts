// Guards for transposition: the backward code of a select's alternative runs under the select's
// own test, inside a real branch.
//
// A linear select `c ? ȧ : ḃ` transposes to masks, `ā = c ? ȳ : 0`, `b̄ = c ? 0 : ȳ`, and the
// untaken alternative's 0 then flows back through that alternative's partials. Where one of them
// is infinite or NaN at the point (1/r at r = 0, the derivative of √ at 0, x/r at the origin)
// 0·∞ turns the whole gradient into NaN: JAX's `where` trap (jax#1052). Multiplying by the zero
// afterwards cannot be fixed locally; instead, before T walks a body, the linear statements that
// feed nothing but one alternative (its *cone*: every linear value is used once, so this is a
// walk back along single uses, a `dup` joining when all its copies do) move into a linear cond
// on the same test:
//
//   let (; s) = lselect(c ; a, b)   with a computed by A, b by B
//     ↝ let (; s) = cond(c, ū ; v̇̄)[|ū ; v̇̄| { A; a }, |ū ; v̇̄| { B; b }]
//
// (ū, v̇̄: what A and B read from outside; each body drops what the other side reads). T of a cond
// is branchwise, so the backward code of A runs only when c holds, and B's only when it does not:
// the untaken side's partials are never multiplied by anything. Forward code needs no guard (a
// select there discards the untaken side's value, NaN or not), so only T calls this; every
// reverse mode, and every forward mode obtained by transposing (the tangent of a pullback rule),
// goes through T. A select is rewritten only when a cone reads a non-linear number (a partial
// that could be infinite): `c ? ȧ : ḃ` of plain tangents keeps its masks, and its work.
// Which primitives branch, and on which arguments, is their record's `branches`.
import type { NameSupply } from '../ir/build';
import { freeVars } from '../ir/freeVars';
import { renameOperands, renameStmtOperands } from '../ir/traverse';
import { Binder, Expr, Stmt, Type, binder, block, construct, drop, lambda, letS, lvar, nvar, ret, zero } from '../ir/syntax';
import { LIN_PRIMS } from '../prims/registry';

type LetStmt = Extract<Stmt, { tag: 'let' }>;

interface Reads {
  readonly nl: readonly string[];
  readonly lin: readonly string[];
}

function readsOf(s: Stmt): Reads {
  if (s.tag === 'unpack') return s.linear ? { nl: [], lin: [s.tuple] } : { nl: [s.tuple], lin: [] };
  const f = freeVars(s.rhs);
  return { nl: [...f.nl], lin: [...f.lin] };
}

const linearOutputs = (s: Stmt): readonly Binder[] => (s.tag === 'unpack' ? (s.linear ? s.names : []) : s.lin);

/** The alternatives of a branching linear primitive: the linear argument each side returns, or null for a zero. */
function sidesOf(s: Stmt): readonly (number | null)[] | undefined {
  if (s.tag !== 'let' || s.rhs.tag !== 'lprim' || s.lin.length !== 1) return undefined;
  return LIN_PRIMS[s.rhs.op]?.branches;
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

/**
 * Rewrites the selects of a flat Linear B statement list (T's view of a body) whose alternatives
 * have partials into conds that compute each alternative inside its branch. `types` holds the
 * type of every name the statements bind or read; a select with an untyped operand is left alone.
 */
export function guardBranches(stmts: readonly Stmt[], types: ReadonlyMap<string, Type>, names: NameSupply): readonly Stmt[] {
  if (!stmts.some((s) => sidesOf(s) !== undefined)) return stmts;
  const reads = stmts.map(readsOf);
  const definer = new Map<string, number>();
  const consumer = new Map<string, number>();
  stmts.forEach((s, i) => {
    linearOutputs(s).forEach((b) => definer.set(b.name, i));
    reads[i].lin.forEach((n) => consumer.set(n, i));
  });
  const moved = new Uint8Array(stmts.length);
  const replaced = new Map<number, Stmt>();

  /** The statements that feed nothing but `v`, read by statement `at`: indices in order. */
  const coneOf = (at: number, v: string): number[] => {
    const member = new Set<number>();
    const heap = new MaxHeap();
    const d = definer.get(v);
    if (d !== undefined) heap.push(d);
    for (let j = heap.pop(); j !== undefined; j = heap.pop()) {
      const s = stmts[j];
      if (moved[j] || !movable(s)) continue;
      const outs = linearOutputs(s);
      if (outs.length === 0) continue;
      const drops: number[] = [];
      const fed = outs.every((o) => {
        const c = consumer.get(o.name);
        if (c === undefined) return false;
        if (c === at) return o.name === v;
        if (member.has(c)) return true;
        const u = stmts[c];
        // A copy that is only dropped joins with its drop.
        if (u.tag === 'let' && u.nl.length === 0 && u.lin.length === 0 && u.rhs.tag === 'drop' && movable(u) && !moved[c]) {
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

  /** A cone is worth a branch when it reads a number: a partial that may be infinite. */
  const hasPartials = (cone: readonly number[]): boolean =>
    cone.some((j) => reads[j].nl.some((n) => {
      const t = types.get(n);
      return t === undefined || (t.tag !== 'bool' && t.tag !== 'str');
    }));

  for (let i = stmts.length - 1; i >= 0; i--) {
    const sides = sidesOf(stmts[i]);
    if (sides === undefined || moved[i]) continue;
    const s = stmts[i] as LetStmt;
    const rhs = s.rhs as Extract<Expr, { tag: 'lprim' }>;
    const cones = sides.map((k) => (k === null ? [] : coneOf(i, rhs.lin[k])));
    if (!cones.some(hasPartials)) continue;
    const guarded = guardedCond(stmts, reads, s, rhs, sides, cones, types, names);
    if (guarded === undefined) continue;
    cones.forEach((c) => c.forEach((j) => (moved[j] = 1)));
    replaced.set(i, guarded);
  }
  return stmts.flatMap((s, i) => (moved[i] ? [] : [replaced.get(i) ?? s]));
}

function firstSeen(lists: readonly (readonly string[])[]): string[] {
  const out = new Set<string>();
  lists.forEach((l) => l.forEach((n) => out.add(n)));
  return [...out];
}

/** The cond running each side's cone in its branch; undefined when a type is unknown. */
function guardedCond(
  stmts: readonly Stmt[],
  reads: readonly Reads[],
  s: LetStmt,
  rhs: Extract<Expr, { tag: 'lprim' }>,
  sides: readonly (number | null)[],
  cones: readonly number[][],
  types: ReadonlyMap<string, Type>,
  names: NameSupply,
): Stmt | undefined {
  const pred = rhs.nl[0];
  // What each side reads from outside its cone (the alternative itself when nothing computes it here).
  const outside = sides.map((k, side) => {
    const cone = cones[side];
    const bound = new Set(cone.flatMap((j) => linearOutputs(stmts[j]).map((b) => b.name)));
    const lin = cone.flatMap((j) => reads[j].lin).filter((n) => !bound.has(n));
    if (k !== null && !bound.has(rhs.lin[k])) lin.push(rhs.lin[k]);
    return { nl: cone.flatMap((j) => reads[j].nl), lin };
  });
  const nlOps = firstSeen(outside.map((o) => o.nl));
  const linOps = firstSeen(outside.map((o) => o.lin));
  const resultType = s.lin[0].type ?? types.get(s.lin[0].name);
  if (resultType === undefined || [...nlOps, ...linOps].some((n) => !types.has(n))) return undefined;

  const bodies = sides.map((k, side) => {
    const param = new Map<string, string>();
    const params = (ops: readonly string[]) => ops.map((n) => {
      const p = names.fresh(n);
      param.set(n, p);
      return binder(p, types.get(n));
    });
    const nlParams = params(nlOps);
    const linParams = params(linOps);
    const rename = (n: string) => param.get(n) ?? n;
    const renameExpr = (e: Expr): Expr => (e.tag === 'drop' ? drop(renameExpr(e.expr)) : renameOperands(e, rename));
    const used = new Set([...outside[side].nl, ...outside[side].lin]);
    const body: Stmt[] = [];
    // What only the other side reads is discarded here (each body consumes every linear parameter).
    nlOps.filter((n) => !used.has(n)).forEach((n) => body.push(letS([], [], drop(nvar(param.get(n)!)))));
    linOps.filter((n) => !used.has(n)).forEach((n) => body.push(letS([], [], drop(lvar(param.get(n)!)))));
    for (const j of cones[side]) {
      const t = stmts[j];
      body.push(t.tag === 'unpack' ? renameStmtOperands(t, rename) : { ...t, rhs: renameExpr(t.rhs) });
    }
    let result: string;
    if (k === null) {
      result = names.fresh('zero');
      body.push(letS([], [binder(result, resultType)], zero(resultType)));
    } else {
      result = rename(rhs.lin[k]);
    }
    return lambda(nlParams, linParams, block(body, ret([], [result])));
  });
  return letS([], s.lin, construct('cond', [pred, ...nlOps], linOps, bodies));
}
