// The checks of one array's reads a loop's body makes, over all its iterations, as one range
// (frontend/readChecks.ts places it in the enclosing scope): the k whose reads happen (0 … ⌈T⌉ − 1,
// narrowed by the counts of loops inside that move with k), the smallest index any read makes and
// the largest, each end kept as affine forms so that the range moves on out of an enclosing loop.
import type { Builder } from '../ir/build';
import type { Value } from './values';
import { type Affine, type Lin, affineKey, emitLin, isConstant, isZero } from './affineIndices';

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
  /** What the access does, for the message: a write of a matrix element past its row is refused as a read past an end is ("reads" when absent). */
  readonly verb?: 'writes';
  /** The dimension of a matrix the index is in (its limit is that dimension, not the rows): ranges of two dimensions never merge. */
  readonly dim?: number;
  /** The index is a whole number ≥ 0 already (a loop counter from 0): no start check. */
  readonly natural?: boolean;
  /** One read where it is (not a range hoisted out of a loop inside). */
  readonly direct?: boolean;
  /** How many other reads of the array the range covers (named in the message). */
  readonly more?: number;
}

/** A check taken out of a loop's body: its read's index range and the counts of the loops it was in, affine in the counter. */
export interface Taken {
  readonly p: CheckedRange;
  readonly lo: readonly Affine[];
  readonly hi: readonly Affine[];
  readonly counts: readonly Affine[];
}

/**
 * The checks of the reads of one array a loop's body makes (under one guard), over all its
 * iterations, as one check in the enclosing scope: the smallest index any of them reads, and
 * the largest.
 */
export function rangeOver(b: Builder, group: readonly Taken[], trips: Value, copy: (n: string) => string, shared: { last?: string }): CheckedRange {
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
  return {
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
  };
}
