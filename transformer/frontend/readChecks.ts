// Checked reads: `a[i]` that JavaScript would read past an end (i ≥ length, i < 0, or i not an
// integer) reads `undefined`, which makes the value NaN; a derivative that never computes the
// value (grad) would otherwise return finite numbers. So every element the source reads is
// checked with one `within(lo, hi, length, "… reads 'x[r + 1]'")` (constructs/array/checks.ts:
// kept when unread, moved by no pass; lo whole and ≥ 0, hi + 1 ≤ length; emitted as one test,
// `lo >>> 0 === lo && hi < length`, the message built by the runtime only when it fails),
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
// positions its index moves; only reads at one position leave its body here. The affine forms
// are affineIndices.ts's, the range over a loop's iterations hoistedRange.ts's.
import type { Builder } from '../ir/build';
import type { Block, Stmt } from '../ir/syntax';
import { NUMBER } from './shapes';
import type { Value } from './values';
import { type Affine, Affinity, type Carried, type Defs, affineKey, copyOut, inductions, isConstant, isZero, sameLengths } from './affineIndices';
import { type CheckedRange, type Taken, rangeOver } from './hoistedRange';

export type { CheckedRange } from './hoistedRange';

interface Pending extends CheckedRange {
  /** The names the check statements bind: removed from the body when the check moves out. */
  readonly bound: readonly string[];
}

/** What the checks need from the array lowering. */
export interface CheckSite {
  b(): Builder;
  atMost(n: Value, limit: Value, what: string): Value;
  /** lo, checked with hi as indices of elements of an array of `limit` (constructs/array/checks.ts, within). */
  within(lo: Value, hi: Value, limit: Value, what: string, runs?: string): Value;
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
      p.verb === range.verb &&
      p.dim === range.dim &&
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
    // A step that is not a literal (r.whole: the indices between the ends are whole where it is):
    // a start of NaN where it is not, as no whole number is between two elements.
    const least = (): string => r.lo.slice(1).reduce((m, x) => b.prim('min', [m, x], 'lo'), r.lo[0]);
    // Several starts in one range (reads of one array at other indices, x[k] beside x[0]): each
    // must be whole, as the least being whole says nothing of x[k] at k = 1.5.
    let whole = r.whole;
    if (!r.natural && r.lo.length > 1) {
      for (const x of r.lo) {
        const w = b.test('eq', [b.prim('floor', [x], 'whole'), x], 'whole');
        whole = whole === undefined ? w : b.test('and', [whole, w], 'whole');
      }
    }
    const lo = r.natural ? b.lit(0, 'zero') : whole === undefined ? least() : b.prim('select', [whole, least(), b.lit(Number.NaN, 'fraction')], 'lo');
    const hi = r.hi.slice(1).reduce((m, x) => b.prim('max', [m, x], 'hi'), r.hi[0]);
    const verb = r.verb ?? 'reads';
    const which = r.more ? `${verb} '${r.what}' (and ${r.more} more of its elements)` : `${verb} '${r.what}'`;
    this.site.within(num(lo), num(hi), r.limit(r.source), which, when);
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
        // A read at a position the index moves, under a test (`i + 1 < n ? v * x[i + 1] : v`):
        // its gather reads leniently (arrayClosures.ts), so its check stays in the body too.
        if (!fixed) {
          if (p.runs === undefined) for (const x of p.bound) moved.add(x);
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
      const key = JSON.stringify([p.source, p.what, p.verb, p.dim, p.runs, p.whole, [lo, hi, counts as Affine[]].map((fs) => fs.map(affineKey))]);
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
        const key = JSON.stringify([t.p.source, t.p.verb, t.p.dim, t.p.runs, t.p.whole, t.counts.map(affineKey)]);
        groups.set(key, [...(groups.get(key) ?? []), t]);
      }
      const shared = {};
      for (const group of groups.values()) this.check(rangeOver(b, group, trips, (n) => copyOut(b, n, defs, bodyNames, copies), shared));
    };
  }
}

/** The names bound by the statements a builder recorded since `start`. */
function boundSince(b: Builder, start: number): string[] {
  return b.since(start).flatMap((st) => (st.tag === 'let' ? st.nl.map((x) => x.name) : []));
}
