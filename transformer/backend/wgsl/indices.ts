// Lengths and indices on the device. Values are f32, which holds every integer only up to 2^24,
// so lengths and counts travel as exact u32s and the indices a body computes from its map index
// (i, i ± 1, a length, their minimum...) as exact i32s beside their f32 value. An index the device
// holds only as an f32 (read from an array, or the result of f32 arithmetic such as a product)
// is exact below 2^24; at or above, it may be a rounded integer, and using it as an index of an
// array longer than 2^24 flags a check (the call rejects) instead of reading a neighbour.
import { MAX_ELEMENTS } from '../../../runtime/webgpu/plan';
import type { Typed } from './prims';

export { MAX_ELEMENTS };

/** 2^24: below it every integer is an f32; the GPU path's old limit on lengths. */
export const F32_EXACT = 16777216;

/**
 * A count (a host register: a length, a loop bound) in the scalar slots as two f32 halves,
 * `slot` the high 16 bits and `slot + 1` the low 16 bits (both exact in f32): the u32 WGSL
 * expression of it. The runtime writes them (plan.ts, `counts`).
 */
export const countAt = (slot: number): string => `(u32(S[${slot}]) * 65536u + u32(S[${slot + 1}]))`;

/** The WGSL test that `j` (an f32 index) reads element `u32(j)` of an array of `n` (u32 WGSL) elements. */
export const f32IndexIn = (j: string, n: string): string => `(${j} >= 0.0 && u32(${j}) < ${n})`;

/**
 * The WGSL test that `j` (f32) may be a rounded integer used as an index of an array of `n`
 * elements: at or above 2^24 in an array longer than that.
 */
export const f32IndexAmbiguous = (j: string, n: string): string => `(${j} >= ${F32_EXACT}.0 && ${n} > ${F32_EXACT}u)`;

/**
 * An index read from f32 data (a gather's, a scatter's, a bin) into an array of `n` (u32 WGSL)
 * elements: `ok` tests that it is an integer there; `check` is the line flagging an ambiguous one
 * (`fail`: the check's WGSL, LoweringOps.failCheck of AMBIGUOUS_INDEX).
 */
export function dataIndex(j: string, n: string, fail: string): { ok: string; check: string } {
  return { ok: `(${j} >= 0.0 && ${j} == floor(${j}) && u32(${j}) < ${n})`, check: `if ${f32IndexAmbiguous(j, n)} { ${fail} }` };
}

/** What a check names when an f32 index was ambiguous. */
export const AMBIGUOUS_INDEX =
  'an index held as an f32 number is 2^24 or more, where f32 numbers skip integers (lengths and the map index are exact; an index read from an array or computed with f32 arithmetic such as a product is not)';

/** The exact integer form of a body's number, beside its f32 value: i32 WGSL and a bound on its magnitude. */
export interface IntForm {
  readonly code: string;
  readonly max: number;
}

const I32_MAX = 2 ** 31 - 1;

/**
 * The primitives with an exact integer form when all their operands have one: the integer WGSL
 * and the bound of its magnitude, or undefined past i32 (the f32 value is used then). Products
 * are not here: `2 * i` of a long array would pass 2^31; it is f32 arithmetic (exact below 2^24,
 * checked above).
 */
export const INT_PRIMS: Readonly<Record<string, (args: readonly IntForm[]) => IntForm | undefined>> = {
  add: ([a, b]) => within(`(${a.code} + ${b.code})`, a.max + b.max),
  sub: ([a, b]) => within(`(${a.code} - ${b.code})`, a.max + b.max),
  neg: ([a]) => within(`(-${a.code})`, a.max),
  abs: ([a]) => within(`abs(${a.code})`, a.max),
  min: (args) =>
    args.length === 0
      ? undefined
      : within(
          args.map((a) => a.code).reduce((x, y) => `min(${x}, ${y})`),
          Math.max(...args.map((a) => a.max)),
        ),
  max: (args) =>
    args.length === 0
      ? undefined
      : within(
          args.map((a) => a.code).reduce((x, y) => `max(${x}, ${y})`),
          Math.max(...args.map((a) => a.max)),
        ),
  floor: ([a]) => a,
  ceil: ([a]) => a,
  round: ([a]) => a,
  trunc: ([a]) => a,
  fround: ([a]) => a,
  stop_gradient: ([a]) => a,
};

const within = (code: string, max: number): IntForm | undefined => (max <= I32_MAX ? { code, max } : undefined);

/**
 * The conditions (WGSL) under which an f32 result computed from `args` went through a rounded
 * integer: an operand's integer form past 2^24 (its f32 value rounded), or what operands carried
 * (an element of an array a map wrote from such a value: its taint slot). Used as an index, the
 * result is then ambiguous.
 */
export function roundsOf(args: readonly { readonly int?: IntForm; readonly rounds?: readonly string[] }[]): string[] {
  const out = new Set<string>();
  for (const a of args) {
    for (const r of a.rounds ?? []) out.add(r);
    if (a.int && a.int.max >= F32_EXACT) out.add(`abs(${a.int.code}) >= ${F32_EXACT}`);
  }
  return [...out];
}

/** The conditions under which a value written to an array is a rounded integer, or came from one. */
export const writtenRounds = (v: { readonly int?: IntForm; readonly rounds?: readonly string[] }): string[] => roundsOf([v]);

/** WGSL: one of the conditions `rounds` holds. */
export const roundedSource = (rounds: readonly string[]): string => `(${rounds.map((r) => `(${r})`).join(' || ')})`;

/** The condition that an array's taint slot (Arr.taint) is set. */
export const tainted = (slot: number): string => `S[${slot}] != 0.0`;

/** The line refusing the elements of `a` as indices where a map tainted it (none when it cannot be). */
export const taintCheck = (a: { readonly taint?: number }, fail: string): string => (a.taint === undefined ? '' : `if (${tainted(a.taint)}) { ${fail} }`);

const COMPARISONS: Readonly<Record<string, string>> = { lt: '<', le: '<=', gt: '>', ge: '>=', eq: '==', ne: '!=' };

/**
 * A comparison with an integer on at least one side, exactly as JavaScript compares the numbers
 * (f32(i) may round; tsad_icmp does not), or undefined when the primitive is not a comparison or
 * neither side has an integer form. Equality of a large integer with a large f32 number (which may
 * be a rounded index, the arg-min of a long array) flags `ambiguous`.
 */
export function intComparison(op: string, args: readonly (Typed & { int?: IntForm })[], ambiguous: () => string): { code: string; lines: string[] } | undefined {
  const sym = COMPARISONS[op];
  if (!sym || args.length !== 2 || args.some((a) => a.type !== 'f32')) return undefined;
  const [x, y] = args;
  if (x.int && y.int) return { code: `(${x.int.code} ${sym} ${y.int.code})`, lines: [] };
  if (!x.int && !y.int) return undefined;
  // i ⋚ v as the sign of tsad_icmp(i, v); with the integer on the right, the sign flips.
  const [i, v, flip] = x.int ? [x.int, y.code, false] : [y.int!, x.code, true];
  const cmp = `tsad_icmp(${i.code}, ${v})`;
  const signed = flip ? `(0 ${sym} ${cmp})` : `(${cmp} ${sym} 0)`;
  // NaN: every comparison false but !=.
  const code = op === 'ne' ? `(${v} != ${v} || ${signed})` : `(${v} == ${v} && ${signed})`;
  const lines = (op === 'eq' || op === 'ne') && i.max >= F32_EXACT ? [`if (abs(${v}) >= ${F32_EXACT}.0 && abs(f32(${i.code})) >= ${F32_EXACT}.0) { ${ambiguous()} }`] : [];
  return { code, lines };
}

/**
 * The helpers of exact comparison, prepended to kernels with WGSL_HELPERS. `tsad_icmp(i, v)`: −1,
 * 0 or 1 as i is below, equal to or above v (v not NaN: the caller tests that). f32(i)
 * rounds monotonically, so f32(i) < v implies i < v; where f32(i) == v, v is an integer (i
 * exact, or |v| ≥ 2^24) and i32(v) compares exactly.
 */
export const INDEX_HELPERS = `
fn tsad_icmp(i: i32, v: f32) -> i32 {
  let f = f32(i);
  if (f < v) { return -1; }
  if (f > v) { return 1; }
  let j = i32(v);
  return select(select(0, 1, i > j), -1, i < j);
}
`;
