// Checked reads: `a[i]` that JavaScript would read past an end (i ≥ length, i < 0, or i not an
// integer) reads `undefined`, which makes the value NaN; a derivative that never computes the
// value (grad) would otherwise return finite numbers. So every element the source reads is
// checked with `atmost` (constructs/array/checks.ts: kept when unread, moved by no pass), in two:
//   end:    atmost(hi + 1, length, "… reads 'x[r + 1]' past its end")      "(3 > 2)"
//   start:  atmost(lo is a whole number ≥ 0 ? 0 : 1, 0, "… before its start or between two elements")
// where lo = hi = i for one read. Checking every read would cost compares per element, so a
// counted loop (for, for…of, forEach, a reduce's fold) that closes takes out of its body the
// checks made unconditionally there (not in a branch) whose indices are affine in its counter k:
// over k = 0 … ⌈T⌉ − 1, f(k) = c·k + r takes its extremes at the ends, so one check of the range
// runs before the loop, only where it runs (T > 0: an inner loop may run no iteration, and then
// JavaScript reads nothing). The range keeps its ends as lists of affine forms (folded with min
// and max only where a check is emitted), and the trip counts of the loops it came out of, so it
// moves again when the enclosing loop closes; a count affine in k (a triangle's inner loop)
// narrows the k that read. A position the loop steps by a literal (`li++`) is affine too. A read
// whose index is not affine (x[idx[i]]), or under an `if`, keeps its check where it is; a `?:`
// side (both are computed) checks under its test. A map's own zip and gathers check the reads at
// positions its index moves; only reads at one position leave its body here.
import type { Builder } from '../ir/build';
import { REAL, binder, construct, prim as primE } from '../ir/syntax';
import type { Block, Expr, Stmt, Type } from '../ir/syntax';
import { constructRule } from '../constructs/registry';
import { NUMBER } from './shapes';
import type { Value } from './values';

/** One checked read, or a hoisted range of them: the indices lo … hi of a length, when `runs`. */
export interface CheckedRange {
  /** The smallest index is the least of these, the largest the greatest of those (several reads of one array). */
  readonly lo: readonly string[];
  readonly hi: readonly string[];
  /** Whether the reads happen at all (a bool; absent: always). */
  readonly runs?: string;
  /** Trip counts of the loops the reads are in (moved out of): the reads happen where all are > 0. */
  readonly counts?: readonly string[];
  /** What else must hold for every index to be whole (a loop's step, when it is not a literal). */
  readonly whole?: string;
  /** The length of the array (or matrix) `source` names in the current scope. */
  readonly limit: (source: string) => Value;
  /** The array (or matrix) whose length it is: a check moves where it is the same (copied out of a tuple). */
  readonly source: string;
  /** The read in the source, for the message: "reads 'x[r + 1]' past its end". */
  readonly what: string;
  /** The index is a whole number ≥ 0 already (a loop counter from 0): no start check. */
  readonly natural?: boolean;
  /** One read where it is (not a range hoisted out of a loop inside). */
  readonly direct?: boolean;
  /** How many other reads of the array the range covers (named in the message). */
  readonly more?: number;
}

interface Pending extends CheckedRange {
  /** The names the check statements bind: removed from the body when the check moves out. */
  readonly bound: readonly string[];
}

/** What the checks need from the array lowering. */
export interface CheckSite {
  b(): Builder;
  atMost(n: Value, limit: Value, what: string): Value;
  /** lo, checked with hi as indices of elements of an array of `limit` (constructs/array/checks.ts, within). */
  within(lo: Value, hi: Value, limit: Value, what: string): Value;
}

/** A linear combination Σ terms[name]·name + c of names defined outside a loop body. */
interface Lin {
  readonly c: number;
  readonly terms: ReadonlyMap<string, number>;
}

/** f(k) = kc·k + rest, k the loop's counter. */
interface Affine {
  readonly kc: Lin;
  readonly rest: Lin;
}

const ZERO: Lin = { c: 0, terms: new Map() };
const constant = (c: number): Lin => ({ c, terms: new Map() });
const isConstant = (l: Lin): boolean => l.terms.size === 0;
const isZero = (l: Lin): boolean => isConstant(l) && l.c === 0;

function plus(a: Lin, b: Lin, s = 1): Lin {
  const terms = new Map(a.terms);
  for (const [n, v] of b.terms) {
    const w = (terms.get(n) ?? 0) + s * v;
    if (w === 0) terms.delete(n);
    else terms.set(n, w);
  }
  return { c: a.c + s * b.c, terms };
}

function times(a: Lin, s: number): Lin {
  if (s === 0) return ZERO;
  return { c: a.c * s, terms: new Map([...a.terms].map(([n, v]) => [n, v * s])) };
}

export class ReadChecks {
  /** The checks each scope's builder holds at its own level (not in a branch or loop inside it). */
  private readonly pending = new WeakMap<Builder, Pending[]>();

  /** The tests of the `?:` sides being lowered (both sides are computed, one is taken): a read there is checked only where its side is. */
  private readonly guards: string[] = [];

  /** The element reads lowered under such a test: no loop checks them as if every iteration made them. */
  private readonly guardedReads = new Set<string>();

  constructor(private readonly site: CheckSite) {}

  /** Lowers `f` as the side of a `?:` taken where the bool `taken` holds. */
  under<T>(taken: string, f: () => T): T {
    const b = this.site.b();
    const mark = b.length;
    this.guards.push(taken);
    try {
      return f();
    } finally {
      this.guards.pop();
      for (const st of b.since(mark)) if (st.tag === 'let' && st.rhs.tag === 'construct' && st.rhs.op === 'index') for (const x of st.nl) this.guardedReads.add(x.name);
    }
  }

  /** Whether the element read bound to `name` was lowered on a side JavaScript evaluates only under a test. */
  guarded(name: string): boolean {
    return this.guardedReads.has(name);
  }

  /** Checks the range in the current scope (one read: lo = hi = its index). */
  check(checked: CheckedRange): void {
    const b = this.site.b();
    let range = checked;
    for (const g of this.guards) range = { ...range, runs: range.runs === undefined ? g : b.test('and', [range.runs, g], 'runs') };
    const list = this.pending.get(b) ?? [];
    // The same element read twice in one scope: one check.
    const same = (p: CheckedRange) =>
      String(p.lo) === String(range.lo) &&
      String(p.hi) === String(range.hi) &&
      p.runs === range.runs &&
      String(p.counts) === String(range.counts) &&
      p.whole === range.whole &&
      p.source === range.source &&
      p.what === range.what &&
      p.more === range.more;
    if (list.some(same)) return;
    const start = b.length;
    this.emit(b, range);
    const bound = boundSince(b, start);
    list.push({ ...range, bound });
    this.pending.set(b, list);
  }

  private emit(b: Builder, r: CheckedRange): void {
    const num = (name: string): Value => ({ name, shape: NUMBER });
    let when = r.runs;
    for (const c of r.counts ?? []) {
      const runs = b.test('lt', [b.lit(0, 'zero'), c], 'runs');
      when = when === undefined ? runs : b.test('and', [when, runs], 'runs');
    }
    // Where the reads do not happen, an empty range (0 … −1) passes.
    const guarded = (x: string, otherwise: number): string => (when ? b.prim('select', [when, x, b.lit(otherwise, 'none')], 'checked') : x);
    // A step that is not a literal (r.whole: the indices between the ends are whole where it is):
    // a start of NaN where it is not, as no whole number is between two elements.
    const least = r.lo.slice(1).reduce((m, x) => b.prim('min', [m, x], 'lo'), r.lo[0]);
    const first = r.whole === undefined ? least : b.prim('select', [r.whole, least, b.lit(Number.NaN, 'fraction')], 'lo');
    const lo = r.natural ? b.lit(0, 'zero') : guarded(first, 0);
    const hi = guarded(
      r.hi.slice(1).reduce((m, x) => b.prim('max', [m, x], 'hi'), r.hi[0]),
      -1,
    );
    const which = r.more ? `reads '${r.what}' (and ${r.more} more of its elements)` : `reads '${r.what}'`;
    this.site.within(num(lo), num(hi), r.limit(r.source), which);
  }

  /**
   * A counted loop's body was lowered into `body` (its builder `inner`); the loop is about to be
   * bound in the current scope. Each unconditional check of the body whose index is affine in
   * `counter` leaves it for one check of the whole range here, under T > 0. `own` names what the
   * body binds itself (its parameters); `covered` says a check the loop's trip count already does.
   */
  hoist(inner: Builder, body: Block, counter: string, trips: Value, carried: readonly Carried[], covered: (r: CheckedRange) => boolean = () => false): void {
    this.take(inner, body, counter, trips, carried)(covered);
  }

  /**
   * `hoist` in two steps, for a map whose zip needs the body without them first: the checks
   * leave the body now; the function given back places them, but those `covered` (by the zip's
   * own check of the lengths).
   */
  take(
    inner: Builder,
    body: Block,
    counter: string,
    trips: Value,
    carried: readonly Carried[],
    onlyInvariant = false,
    params: readonly string[] = [],
  ): (covered: (r: CheckedRange) => boolean) => void {
    // A map's element parameters are the body's own too (a guard `v > 0` is not invariant).
    const own = new Set([...carried.map((c) => c.param), ...params]);
    const list = this.pending.get(inner);
    if (!list || list.length === 0) return () => {};
    this.pending.delete(inner);
    const defs: Defs = new Map();
    const bodyNames = new Set(own);
    bodyNames.add(counter);
    for (const st of body.stmts) {
      for (const x of st.tag === 'let' ? [...st.nl, ...st.lin] : st.names) bodyNames.add(x.name);
      if (st.tag === 'let' && st.nl.length === 1 && st.lin.length === 0) defs.set(st.nl[0].name, st);
      if (st.tag === 'unpack' && !st.linear) for (const x of st.names) defs.set(x.name, st);
    }
    const moved = new Set<string>();
    const taken: Taken[] = [];
    const analysis = new Affinity(defs, bodyNames, counter, inductions(body, carried, defs));
    const lengths = sameLengths(body, carried, defs);
    const keys = new Set<string>();
    // An array written in the body (`update`s of one from outside or of such a parameter) is as long as that one.
    const measured = (a: string): string => {
      let at = a;
      for (let st = defs.get(at); st?.tag === 'let' && st.rhs.tag === 'construct' && st.rhs.op === 'update'; st = defs.get(at)) at = st.rhs.nl[0];
      return lengths.get(at) ?? at;
    };
    for (const p0 of list) {
      const p = { ...p0, source: measured(p0.source) };
      const los = analysis.invariant(p.source) ? p.lo.map((x) => analysis.of(x)) : [undefined];
      const his = p.hi.map((x) => analysis.of(x));
      const lo = los.every((f) => f !== undefined) ? (los as Affine[]) : undefined;
      const hi = his.every((f) => f !== undefined) ? (his as Affine[]) : undefined;
      const runs = p.runs === undefined ? undefined : analysis.invariant(p.runs);
      const whole = p.whole === undefined ? undefined : analysis.invariant(p.whole);
      // A map checks the reads its index moves (a zip, a gather): only those it moves out stay ours.
      if (onlyInvariant) {
        const fixed = lo && hi && [...lo, ...hi].every((f) => isZero(f.kc));
        // One position, read only where a test of the element holds (`v > 0 ? v * x[j] : v`): no
        // gather reads it, so its check stays in the body, under that test.
        if (fixed && (runs === false || whole === false)) continue;
        if (!fixed) {
          for (const x of p.bound) moved.add(x);
          continue;
        }
      }
      if (!lo || !hi || runs === false || whole === false) continue;
      // A loop inside that runs only for some k (a triangle's r from c + 1): its count, affine in k
      // with a whole step, narrows the k whose reads count; another count leaves the check here.
      const counts = (p.counts ?? []).map((c) => analysis.of(c));
      if (counts.some((c) => !c || !(isZero(c.kc) || (isConstant(c.kc) && Number.isInteger(c.kc.c))))) continue;
      // A fractional step: the indices between the ends may be fractions while the ends are not.
      if ([...lo, ...hi].some((f) => isConstant(f.kc) && !Number.isInteger(f.kc.c))) continue;
      for (const x of p.bound) moved.add(x);
      // The same range read twice (before and after a write into the array): one check.
      const key = JSON.stringify([p.source, p.what, p.runs, p.whole, [lo, hi, counts as Affine[]].map((fs) => fs.map(affineKey))]);
      if (keys.has(key)) continue;
      keys.add(key);
      taken.push({ p, lo, hi, counts: counts as Affine[] });
    }
    // The block is settled: an unread check result has its `drop`, which goes with it.
    const goes = (st: Stmt): boolean => st.tag === 'let' && (st.nl.some((x) => moved.has(x.name)) || (st.rhs.tag === 'drop' && st.rhs.expr.tag === 'var' && moved.has(st.rhs.expr.name)));
    if (moved.size > 0) (body.stmts as Stmt[]).splice(0, body.stmts.length, ...body.stmts.filter((st) => !goes(st)));
    return (covered) => {
      const b = this.site.b();
      const copies = new Map<string, string>();
      const groups = new Map<string, Taken[]>();
      for (const t of taken) {
        if (covered(t.p)) continue;
        const key = JSON.stringify([t.p.source, t.p.runs, t.p.whole, t.counts.map(affineKey)]);
        groups.set(key, [...(groups.get(key) ?? []), t]);
      }
      const shared = {};
      for (const group of groups.values()) this.place(b, group, trips, (n) => copyOut(b, n, defs, bodyNames, copies), shared);
    };
  }

  /**
   * The checks of the reads of one array a loop's body makes (under one guard), over all its
   * iterations, as one check in the enclosing scope: the smallest index any of them reads, and
   * the largest.
   */
  private place(b: Builder, group: readonly Taken[], trips: Value, copy: (n: string) => string, shared: { last?: string }): void {
    const value = (l: Lin): string => emitLin(b, l, copy);
    const last = (): string => (shared.last ??= b.prim('sub', [b.prim('ceil', [trips.name], 'trips'), b.lit(1, 'one')], 'last'));
    const first = group[0].p;
    // The k whose reads happen: 0 … last, narrowed by the counts of loops inside that move with k
    // (A + B·k > 0: k < A/−B for B < 0, k > −A/B for B > 0); `count` is how many (> 0: some).
    let kmin: string | undefined;
    let kmax: string | undefined;
    const counts: string[] = [];
    for (const c of group[0].counts) {
      if (isZero(c.kc)) {
        counts.push(value(c.rest));
        continue;
      }
      const a = value(c.rest);
      const step = c.kc.c;
      if (step < 0) {
        const bound = b.prim('sub', [b.prim('ceil', [b.prim('div', [a, b.lit(-step, 'step')], 'q')], 'q'), b.lit(1, 'one')], 'bound');
        kmax = b.prim('min', [kmax ?? last(), bound], 'kmax');
      } else {
        const bound = b.prim('add', [b.prim('floor', [b.prim('div', [b.prim('neg', [a], 'a'), b.lit(step, 'step')], 'q')], 'q'), b.lit(1, 'one')], 'bound');
        kmin = kmin === undefined ? b.prim('max', [b.lit(0, 'zero'), bound], 'kmin') : b.prim('max', [kmin, bound], 'kmin');
      }
    }
    const narrowed = kmin !== undefined || kmax !== undefined;
    const upper = (): string => kmax ?? last();
    // How many k read: T itself, or kmax − kmin + 1 (NaN anywhere: none, as JavaScript runs none).
    const count = narrowed ? b.prim('add', [b.prim('sub', [upper(), kmin ?? b.lit(0, 'zero')], 'span'), b.lit(1, 'one')], 'count') : trips.name;
    counts.unshift(count);
    const at = (f: Affine, k: string | undefined): string => {
      if (k === undefined || isZero(f.kc)) return value(f.rest);
      const step = isConstant(f.kc) && f.kc.c === 1 ? k : b.prim('mul', [value(f.kc), k], 'step');
      return isZero(f.rest) ? step : b.prim('add', [value(f.rest), step], 'at');
    };
    // The smallest of lo(k), the largest of hi(k): at the first or the last k, by the step's sign.
    const extreme = (f: Affine, least: boolean): string => {
      if (isZero(f.kc)) return value(f.rest);
      if (isConstant(f.kc)) return at(f, f.kc.c >= 0 === least ? kmin : upper());
      return b.prim(least ? 'min' : 'max', [at(f, kmin), at(f, upper())], least ? 'lo' : 'hi');
    };
    const runsAll = first.runs === undefined ? undefined : copy(first.runs);
    // A step that is not a literal must be whole when the loop runs twice or more.
    let wholeAll = first.whole === undefined ? undefined : copy(first.whole);
    const steps = new Set<string>();
    const lo = new Map<string, string>();
    const hi = new Map<string, string>();
    for (const r of group) {
      for (const f of [...r.lo, ...r.hi]) {
        const key = JSON.stringify([f.kc.c, [...f.kc.terms]]);
        if (isConstant(f.kc) || steps.has(key)) continue;
        steps.add(key);
        const once = b.test('le', [count, b.lit(1, 'one')], 'once');
        const step = value(f.kc);
        const w = b.test('or', [once, b.test('eq', [b.prim('floor', [step], 'whole'), step], 'whole')], 'whole');
        wholeAll = wholeAll === undefined ? w : b.test('and', [wholeAll, w], 'whole');
      }
      // Each end stays an affine form of its own (folded with min and max where the check is
      // emitted), so that the check moves on out of an enclosing loop; the same form once.
      // A step whose sign is not known gives both ends to both lists.
      for (const [fs, ends, least] of [
        [r.lo, lo, true],
        [r.hi, hi, false],
      ] as const) {
        for (const f of fs) {
          const key = JSON.stringify(affineKey(f));
          if (ends.has(key)) continue;
          if (isZero(f.kc) || isConstant(f.kc)) ends.set(key, extreme(f, least));
          else {
            ends.set(key, at(f, kmin));
            ends.set(`${key}+`, at(f, upper()));
          }
        }
      }
    }
    const more = group.reduce((n, r) => n + 1 + (r.p.more ?? 0), 0) - 1;
    this.check({
      ...first,
      source: copy(first.source),
      lo: [...lo.values()],
      hi: [...hi.values()],
      runs: runsAll,
      counts,
      whole: wholeAll,
      natural: group.every((r) => r.p.natural),
      direct: false,
      more,
    });
  }
}

/** A check taken out of a loop's body: its read's index range and the counts of the loops it was in, affine in the counter. */
interface Taken {
  readonly p: Pending;
  readonly lo: readonly Affine[];
  readonly hi: readonly Affine[];
  readonly counts: readonly Affine[];
}

const affineKey = (f: Affine) => [f.kc.c, [...f.kc.terms], f.rest.c, [...f.rest.terms]];

/** A value a loop carries: its parameter in the body, its value before the loop. */
export interface Carried {
  readonly param: string;
  readonly init: string;
  /** A typed array (its length cannot change): the same length as init if the body only writes into it. */
  readonly typed?: boolean;
}

/**
 * The typed arrays a loop carries that its body only writes elements of (a chain of `update`s
 * back to the parameter, frontend/arrayBasics.ts): as long as their value before the loop, which
 * stands for them in a moved check's length.
 */
function sameLengths(body: Block, carried: readonly Carried[], defs: Defs): Map<string, string> {
  const out = new Map<string, string>();
  if (body.result.tag !== 'ret') return out;
  const result = body.result.nl;
  carried.forEach((c, i) => {
    if (!c.typed) return;
    let at: string | undefined = result[i];
    for (let steps = 0; at !== undefined && at !== c.param && steps < 1000; steps++) {
      const st = defs.get(at);
      at = st?.tag === 'let' && st.rhs.tag === 'construct' && st.rhs.op === 'update' ? st.rhs.nl[0] : undefined;
    }
    if (at === c.param) out.set(c.param, c.init);
  });
  return out;
}

/**
 * The positions a loop moves by a fixed whole step (`li++`, `p += 3`): the parameter whose new
 * value is itself plus a literal is init + step·k at the start of iteration k.
 */
function inductions(body: Block, carried: readonly Carried[], defs: Defs): Map<string, Affine> {
  const out = new Map<string, Affine>();
  if (body.result.tag !== 'ret') return out;
  const literal = (n: string): number | undefined => {
    const st = defs.get(n);
    return st?.tag === 'let' && st.rhs.tag === 'lit' && typeof st.rhs.value === 'number' ? st.rhs.value : undefined;
  };
  carried.forEach((c, i) => {
    const next = body.result.tag === 'ret' ? body.result.nl[i] : undefined;
    const st = next === undefined ? undefined : defs.get(next);
    if (st?.tag !== 'let' || st.rhs.tag !== 'prim' || (st.rhs.op !== 'add' && st.rhs.op !== 'sub')) return;
    const [a, b] = st.rhs.args;
    const step = a === c.param ? literal(b) : st.rhs.op === 'add' && b === c.param ? literal(a) : undefined;
    if (step === undefined || !Number.isInteger(step)) return;
    out.set(c.param, { kc: constant(st.rhs.op === 'sub' ? -step : step), rest: { c: 0, terms: new Map([[c.init, 1]]) } });
  });
  return out;
}

/** The names bound by the statements a builder recorded since `start`. */
function boundSince(b: Builder, start: number): string[] {
  return b.since(start).flatMap((st) => (st.tag === 'let' ? st.nl.map((x) => x.name) : []));
}

/** A body's statements by the names they bind: a let of one value, or an unpack (of a tuple, an object). */
type Defs = Map<string, Stmt>;

/** Affine forms of a loop body's names in its counter, over names from outside the body. */
class Affinity {
  private readonly memo = new Map<string, Affine | undefined>();
  private readonly pure = new Map<string, boolean>();

  constructor(
    private readonly defs: Defs,
    private readonly bodyNames: ReadonlySet<string>,
    private readonly counter: string,
    private readonly steps: ReadonlyMap<string, Affine>,
  ) {}

  /** Is `name` the same on every iteration, and computable outside (true), or not (false)? */
  invariant(name: string): boolean {
    if (!this.bodyNames.has(name)) return true;
    if (name === this.counter) return false;
    const known = this.pure.get(name);
    if (known !== undefined) return known;
    this.pure.set(name, false);
    const st = this.defs.get(name);
    if (st?.tag === 'unpack') {
      const ok = this.invariant(st.tuple);
      this.pure.set(name, ok);
      return ok;
    }
    const rhs = st?.rhs;
    const on = rhs?.tag === 'construct' ? constructRule(rhs, 'readChecks').passesOn : undefined;
    const args = rhs?.tag === 'construct' && on !== undefined ? [rhs.nl[on]] : rhs ? operandsOf(rhs) : undefined;
    const ok = args?.every((a) => this.invariant(a)) === true;
    this.pure.set(name, ok);
    return ok;
  }

  /** Body statements computing the same from the same (c·d in two reads): one name, so their forms compare equal. */
  private readonly shapes = new Map<string, string>();

  private canonical(name: string): string {
    const st = this.defs.get(name);
    if (st?.tag !== 'let' || st.rhs.tag !== 'prim') return name;
    const key = `${st.rhs.op}(${st.rhs.args.map((a) => this.canonical(a)).join(',')})`;
    const known = this.shapes.get(key);
    if (known !== undefined) return known;
    this.shapes.set(key, name);
    return name;
  }

  of(name: string): Affine | undefined {
    if (this.memo.has(name)) return this.memo.get(name);
    this.memo.set(name, undefined);
    const f = this.compute(name);
    this.memo.set(name, f);
    return f;
  }

  private compute(name: string): Affine | undefined {
    if (name === this.counter) return { kc: constant(1), rest: ZERO };
    const walked = this.steps.get(name);
    if (walked) return walked;
    const st = this.defs.get(name);
    const rhs = st?.tag === 'let' ? st.rhs : undefined;
    if (rhs?.tag === 'lit') return typeof rhs.value === 'number' ? { kc: ZERO, rest: constant(rhs.value) } : undefined;
    if (rhs?.tag === 'var') return this.of(rhs.name);
    if (rhs?.tag === 'prim') {
      const [a, b] = rhs.args.map((x) => this.of(x));
      if (rhs.op === 'add' && a && b) return { kc: plus(a.kc, b.kc), rest: plus(a.rest, b.rest) };
      if (rhs.op === 'sub' && a && b) return { kc: plus(a.kc, b.kc, -1), rest: plus(a.rest, b.rest, -1) };
      if (rhs.op === 'neg' && a) return { kc: times(a.kc, -1), rest: times(a.rest, -1) };
      if (rhs.op === 'mul' && a && b) {
        const scaled = (f: Affine, s: Affine): Affine | undefined => {
          if (!isZero(s.kc)) return undefined;
          if (isConstant(s.rest)) return { kc: times(f.kc, s.rest.c), rest: times(f.rest, s.rest.c) };
          // k·d: the step is the invariant d (the rest must then be a number times d, or none).
          if (isConstant(f.kc) && isConstant(f.rest) && s.rest.terms.size > 0) return { kc: times(s.rest, f.kc.c), rest: times(s.rest, f.rest.c) };
          return undefined;
        };
        const r = scaled(a, b) ?? scaled(b, a);
        if (r) return r;
      }
    }
    // The checked count `atmost(n, …)` is n (ConstructRule.passesOn).
    if (rhs?.tag === 'construct') {
      const on = constructRule(rhs, 'readChecks').passesOn;
      if (on !== undefined) return this.of(rhs.nl[on]);
    }
    return this.invariant(name) ? { kc: ZERO, rest: { c: 0, terms: new Map([[this.canonical(name), 1]]) } } : undefined;
  }
}

/** The names a pure statement's right side reads, or undefined when it is not pure (a construct, a call). */
function operandsOf(rhs: Expr): readonly string[] | undefined {
  if (rhs.tag === 'lit') return [];
  if (rhs.tag === 'var' && !rhs.linear) return [rhs.name];
  if (rhs.tag === 'prim') return rhs.args;
  // An array's length (arrays.length), the same before the loop as in it.
  if (rhs.tag === 'construct' && rhs.op === 'len') return rhs.nl;
  return undefined;
}

/** An invariant of the body, computed in the enclosing scope: a name from outside as it is, a body statement copied. */
function copyOut(b: Builder, name: string, defs: Defs, bodyNames: ReadonlySet<string>, copies: Map<string, string>): string {
  if (!bodyNames.has(name)) return name;
  const done = copies.get(name);
  if (done) return done;
  const st = defs.get(name)!;
  if (st.tag === 'unpack') {
    // The whole tuple unpacked once here, each part under a fresh name.
    const tuple = copyOut(b, st.tuple, defs, bodyNames, copies);
    const fresh = st.names.map((x) => binder(b.fresh(x.name), x.type));
    b.unpack(false, fresh, tuple);
    st.names.forEach((x, i) => copies.set(x.name, fresh[i].name));
    return copies.get(name)!;
  }
  const rhs = st.rhs;
  // A checked count is its count: the check itself stays where it is.
  const on = rhs.tag === 'construct' ? constructRule(rhs, 'readChecks').passesOn : undefined;
  if (on !== undefined && rhs.tag === 'construct') return copyOut(b, rhs.nl[on], defs, bodyNames, copies);
  const type: Type = st.nl[0].type ?? REAL;
  const args = (operandsOf(rhs) ?? []).map((a) => copyOut(b, a, defs, bodyNames, copies));
  let fresh: string;
  if (rhs.tag === 'prim') fresh = b.nl(name, primE(rhs.op, args), type);
  else if (rhs.tag === 'construct') fresh = b.nl(name, construct(rhs.op, args, [], []), type);
  else if (rhs.tag === 'var') fresh = args[0];
  else fresh = b.nl(name, rhs, type);
  copies.set(name, fresh);
  return fresh;
}

/** Σ terms + c in the enclosing scope. */
function emitLin(b: Builder, l: Lin, copy: (n: string) => string): string {
  let acc: string | undefined;
  for (const [n, v] of l.terms) {
    const term = v === 1 ? copy(n) : b.prim('mul', [b.lit(v, 'coef'), copy(n)], 'term');
    acc = acc === undefined ? term : b.prim('add', [acc, term], 'sum');
  }
  if (acc === undefined) return b.lit(l.c, 'at');
  return l.c === 0 ? acc : b.prim('add', [acc, b.lit(l.c, 'offset')], 'sum');
}
