// What the construct lowerings of sequential code (constructs/seq/) see of the sequential
// lowering (sequential.ts): code that runs inside ONE invocation of a single-invocation kernel,
// as WGSL statements. A loop whose iterations the backend cannot run in parallel runs there,
// with everything inside it: scalar code, reads and writes of arrays by index, the residual
// stacks of a gradient, nested loops, conds and combinators (as WGSL loops). Values are WGSL
// expressions; arrays and stacks created in sequential code live in one heap array (plan.ts,
// `heap`), allocated by bumping a pointer. An interface, so the lowerings import no part of
// sequential.ts and sequential.ts imports their table (no circle).
import type { Binder, Block, Expr, Lambda } from '../../ir/syntax';
import type { ConstructName } from '../../constructs/registry';
import { type LoweringOps, NotOnGpu } from './lowering';

/** Host registers whose largest value bounds a length from above. */
export type Cap = ReadonlySet<number> | undefined;

/** A number (a boolean, a stack's handle) as a WGSL expression. */
export interface SNum {
  readonly kind: 'num';
  readonly code: string;
  readonly type: 'f32' | 'bool';
  /** The host register holding it, when it is known before the kernels run (a length). */
  readonly reg?: number;
}

/**
 * An array: elements `buf[base + k]` for k < len (base and len f32 expressions). `heap`: in the
 * heap (the program's own arrays are buffers of their own, base 0). `cap`: host registers whose
 * largest bounds len; `exact`: len is that register's value (one register). `sparse`: a
 * cotangent accumulated in place, where zeros past len are the same value (laccum's).
 */
export interface SArr {
  readonly kind: 'arr';
  readonly buf: string;
  readonly heap: boolean;
  readonly base: string;
  readonly len: string;
  readonly cap: Cap;
  readonly exact: boolean;
  readonly sparse: boolean;
}

export type SVal = SNum | SArr | { readonly kind: 'str'; readonly text: string } | { readonly kind: 'tup'; readonly elems: readonly SVal[] };
export type SEnv = Map<string, SVal>;

export interface SeqOps {
  readonly L: LoweringOps;
  /** The heap's binding name in this kernel. */
  readonly heap: string;
  /**
   * WGSL flagging a loop the device stopped before its end (the call then rejects): Mesa's
   * llvmpipe, the software adapter, ends a loop after 65535 iterations.
   */
  cutShort(): string;
  /** Appends a WGSL statement. */
  line(text: string): void;
  /** The lines `run` emits, taken out of the current ones (a loop body lowered before it is placed). */
  capture<T>(run: () => T): { lines: string[]; value: T };
  fresh(prefix: string): string;
  /** A `let` of the value: a name (an expression used more than once is computed once). */
  bind(code: string, type?: 'f32' | 'bool'): string;
  /** The base (f32 name) of `size` fresh heap numbers (not zeroed). */
  alloc(size: string): string;
  /** heap[addr] = value, skipped past the heap's end (the call then runs again with a larger heap). */
  store(addr: string, value: string): void;
  /** heap[addr] (f32). */
  load(addr: string): string;
  /** Element `index` (f32) of an array: 0 outside it. */
  elem(a: SArr, index: string): string;
  /** A copy of `a` in the heap, `len` long (zeros past a's length). */
  copy(a: SArr, len?: string, cap?: Cap, exact?: boolean): SArr;
  /** A fresh heap array of `len` zeros. */
  zeros(len: string, cap: Cap, exact: boolean, sparse: boolean): SArr;
  /** The largest of the registers of `caps` (a join of bounds). */
  joinCaps(...caps: Cap[]): Cap;
  /** A host register as an SNum (its slot). */
  hostNum(reg: number): SNum;
  block(b: Block, env: SEnv): SVal[];
  expr(e: Expr, env: SEnv, binders: readonly Binder[]): SVal[];
  /** A body run as a block with its parameters bound. */
  apply(l: Lambda, args: readonly SVal[], env: SEnv): SVal[];
}

export type SeqLowering = (S: SeqOps, e: Extract<Expr, { tag: 'construct' }>, nl: readonly SVal[], lin: readonly SVal[], env: SEnv, binders: readonly Binder[]) => SVal[];

export type SeqLowerings = { readonly [K in ConstructName]?: SeqLowering };

export function snum(v: SVal | undefined, what: string): SNum {
  if (v?.kind !== 'num') throw new NotOnGpu(`${what} that is not a number`);
  return v;
}

export function sarr(v: SVal | undefined, what: string): SArr {
  if (v?.kind !== 'arr') throw new NotOnGpu(`${what} that is not an array of numbers`);
  return v;
}

/** As a number (JavaScript's `true + 1`). */
export const f32Of = (v: SNum): string => (v.type === 'f32' ? v.code : `select(0.0, 1.0, ${v.code})`);
export const boolOf = (v: SNum): string => (v.type === 'bool' ? v.code : `(${v.code} != 0.0)`);
