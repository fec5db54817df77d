// The tsad runtime: markers and transforms. With the compiler plugin, every transform call is
// replaced at build time by generated derivative code and these bodies never run; without it,
// they throw a message that says how to turn the plugin on.

/** Brand the compiler plugin uses to recognise this module through re-exports and aliases. */
export const TSAD_RUNTIME = true;

/** The tape that taped reverse mode's generated code records on (internal: not for user code). */
export * as tsad$tape from './taped';

/** The helpers emitted derivatives call: argument checks, error naming, stacks (internal: not for user code). */
export * as tsad$emitted from './emitted';

// ---- types: tangents and cotangents have the shape of the primal ----

/**
 * The tangent (and cotangent) type of a differentiable value: same shape, numbers throughout.
 * A constant (a boolean or string mode) has the tangent `undefined`: pass `undefined` in its
 * place, and a pullback returns `undefined` there.
 */
export type Tangent<T> = T extends number
  ? number
  : T extends Float64Array
    ? Float64Array
    : T extends Float32Array
      ? Float32Array
      : T extends boolean | string | bigint | symbol | null | undefined
        ? undefined
        : T extends readonly unknown[]
          ? { -readonly [K in keyof T]: Tangent<T[K]> }
          : T extends object
            ? { -readonly [K in keyof T]: Tangent<T[K]> }
            : never;
export type Cotangent<T> = Tangent<T>;

type Fn = (...args: any[]) => any;
type Index = number | string;
export interface TransformOptions<W extends readonly Index[] = readonly Index[]> {
  /** Parameters to differentiate, by index or name. */
  readonly wrt?: W;
}
/** The cotangent of a parameter by index; by name the type system cannot tell which parameter,
 *  so it is `any` (give `wrt` as indices for precise types). */
type CotangentAt<F extends Fn, I> = I extends number ? Cotangent<Parameters<F>[I]> : any;
/** The gradient type: one cotangent, or a tuple of cotangents for several `wrt`. */
export type GradOf<F extends Fn, W> = W extends readonly [infer I]
  ? CotangentAt<F, I>
  : W extends readonly [unknown, unknown, ...unknown[]]
    ? { -readonly [K in keyof W]: CotangentAt<F, W[K]> }
    : Cotangent<Parameters<F>[0]>;
type Tangents<A extends readonly unknown[]> = { -readonly [K in keyof A]: Tangent<A[K]> };

// ---- markers ----

export interface DifferentiableOptions {
  /** Parameters to differentiate by default (names or indices); the others are constants. */
  readonly wrt?: readonly Index[];
  /**
   * How reverse mode (grad, valueAndGrad, vjp, jacrev) treats the function's counted loops:
   * 'store' (default) keeps every iteration's intermediate values; { every: k } keeps the loop
   * state every k iterations and recomputes one segment at a time on the way back (memory about
   * n/k + k iterations' worth, one more forward sweep); 'sqrt' is every ⌈√n⌉; { levels: L } nests
   * the segments L − 1 deep (memory about L·n^(1/L), L − 1 more sweeps). While loops are
   * checkpointed under { every: k } only. Results are the same.
   */
  readonly checkpoint?: 'store' | 'sqrt' | { readonly every: number } | { readonly levels: number };
  /**
   * A function the compiler cannot unroll (it recurses) runs taped by default: its derivative
   * records each operation at run time and the build says so with a note (TSAD2001). `false`
   * refuses instead, with the error TSAD1109.
   */
  readonly taped?: boolean;
}

/**
 * Marks a function as differentiable. Three forms, all equivalent:
 * `@differentiable` / `@differentiable({ wrt, checkpoint })` on methods (standard or experimental
 * decorators), `differentiable(fn)` / `differentiable(fn, { checkpoint })` around an arrow or
 * function expression, and a
 * `/** @differentiable *\/` comment on a function declaration.
 */
export function differentiable<F extends Fn>(fn: F, options?: DifferentiableOptions): F;
export function differentiable(options: DifferentiableOptions): <T>(target: T, ...rest: unknown[]) => any;
export function differentiable(target: object, context: unknown): any;
export function differentiable(target: object, key: string | symbol, descriptor?: PropertyDescriptor): any;
export function differentiable(target: unknown, ...rest: unknown[]): unknown {
  // Without the plugin the markers change nothing: the wrapper returns the function, a standard
  // decorator keeps the method, an experimental one keeps the descriptor.
  if (typeof target === 'function') return rest.length === 2 ? rest[1] : target;
  if (rest.length === 0) return (t: unknown, ...r: unknown[]) => (typeof t === 'function' && r.length !== 2 ? t : r[1]);
  return rest[1];
}

/** The value, treated as a constant by every transform. */
export function stopGradient<T>(value: T): T {
  return value;
}

/**
 * A custom JVP rule for `f`: `rule(...primals, ...tangents)` returns `[f(...primals), tangent]`,
 * the tangent linear in the tangents (the plugin checks it). Reverse mode is derived by
 * transposing the rule. Registering a rule also marks `f` differentiable. At run time this is
 * a no-op: the plugin compiles the rule into every derivative that calls `f`.
 */
export const derivative: {
  <F extends Fn>(f: F, rule: (...args: [...Parameters<F>, ...Tangents<Parameters<F>>]) => [ReturnType<F>, Tangent<ReturnType<F>>]): void;
  /**
   * A custom VJP rule: `rule(...primals)` returns `[f(...primals), pullback]`, the pullback
   * linear in the cotangent (checked) and returning one cotangent per parameter. Forward mode is
   * derived by transposing the pullback; the value comes from `f` itself.
   */
  vjp<F extends Fn>(f: F, rule: (...args: Parameters<F>) => [ReturnType<F>, (cotangent: Cotangent<ReturnType<F>>) => Tangents<Parameters<F>>]): void;
} = Object.assign((_f: Fn, _rule: Fn): void => undefined, { vjp: (_f: Fn, _rule: Fn): void => undefined });

// ---- transforms ----

function notCompiled(transform: string, f: unknown): never {
  const name = (typeof f === 'function' && f.name) || 'f';
  throw new Error(
    `tsad: ${transform}(${name}) was not compiled. Add { "transform": "tsad/transformer" } to compilerOptions.plugins and build with tspc. ` + 'With plain tsc, run `npx ts-patch install` once.',
  );
}

export function grad<F extends (...args: any[]) => number, const W extends readonly Index[] = readonly [0]>(f: F, options?: TransformOptions<W>): (...args: Parameters<F>) => GradOf<F, W> {
  return notCompiled('grad', f);
}

export function valueAndGrad<F extends (...args: any[]) => number, const W extends readonly Index[] = readonly [0]>(
  f: F,
  options?: TransformOptions<W>,
): (...args: Parameters<F>) => [number, GradOf<F, W>] {
  return notCompiled('valueAndGrad', f);
}

export function jvp<F extends Fn>(f: F, primals: Parameters<F>, tangents: Tangents<Parameters<F>>): [ReturnType<F>, Tangent<ReturnType<F>>] {
  return notCompiled('jvp', f);
}

export function vjp<F extends Fn>(f: F, ...primals: Parameters<F>): [ReturnType<F>, (cotangent: Cotangent<ReturnType<F>>) => Tangents<Parameters<F>>] {
  return notCompiled('vjp', f);
}

export function linearize<F extends Fn>(f: F, ...primals: Parameters<F>): [ReturnType<F>, (...tangents: Tangents<Parameters<F>>) => Tangent<ReturnType<F>>] {
  return notCompiled('linearize', f);
}

/** One Jacobian (rows = outputs) per differentiated parameter; several `wrt` give a tuple. */
export type JacobianOf<W> = W extends readonly [unknown, unknown, ...unknown[]] ? { -readonly [K in keyof W]: number[][] } : number[][];
export interface JacobianOptions<W extends readonly Index[] = readonly Index[], Flat extends boolean = boolean> extends TransformOptions<W> {
  /**
   * `true`: the whole Jacobian in one row-major Float64Array, entry (r, c) at `data[r * cols + c]`,
   * rows the result's numbers and columns the `wrt` parameters' numbers side by side, with no
   * array per row. Parameters and result of numbers, tuples and objects of numbers. The function
   * takes the Float64Array to write into as an optional argument after the function's (reuse it
   * across calls), and after that the index the entries start at (default 0): entry (r, c) goes
   * to `out[offset + r * cols + c]`, so blocks of a larger matrix are written in place.
   */
  readonly flat?: Flat;
}
/** What jacobian, jacfwd and jacrev return: with `flat: true`, a function that may take the Float64Array to write into, and where, last. */
export type JacobianFn<F extends Fn, W, Flat extends boolean> = Flat extends true
  ? (...args: [...Parameters<F>, out?: Float64Array, offset?: number]) => FlatJacobian
  : (...args: Parameters<F>) => JacobianOf<W>;
/** `jacobian(f, { flat: true })`'s result: `data` is the `out` argument when one was passed; entry (r, c) is `data[offset + r * cols + c]`. */
export interface FlatJacobian {
  readonly data: Float64Array;
  readonly rows: number;
  readonly cols: number;
  readonly offset: number;
}
/** The Hessian; several `wrt` give the blocks `H[a][b] = ∂²f/∂w_a∂w_b`. */
export type HessianOf<W> = W extends readonly [unknown, unknown, ...unknown[]] ? { -readonly [K in keyof W]: { -readonly [L in keyof W]: number[][] } } : number[][];

export function jacobian<F extends Fn, const W extends readonly Index[] = readonly [0], const Flat extends boolean = false>(f: F, options?: JacobianOptions<W, Flat>): JacobianFn<F, W, Flat> {
  return notCompiled('jacobian', f);
}
export function jacfwd<F extends Fn, const W extends readonly Index[] = readonly [0], const Flat extends boolean = false>(f: F, options?: JacobianOptions<W, Flat>): JacobianFn<F, W, Flat> {
  return notCompiled('jacfwd', f);
}
export function jacrev<F extends Fn, const W extends readonly Index[] = readonly [0], const Flat extends boolean = false>(f: F, options?: JacobianOptions<W, Flat>): JacobianFn<F, W, Flat> {
  return notCompiled('jacrev', f);
}
export function hessian<F extends (...args: any[]) => number, const W extends readonly Index[] = readonly [0]>(f: F, options?: TransformOptions<W>): (...args: Parameters<F>) => HessianOf<W> {
  return notCompiled('hessian', f);
}
/** H·v for the differentiated parameters: `v` and the result have the shape of the gradient. */
export function hvp<F extends (...args: any[]) => number, const W extends readonly Index[] = readonly [0]>(
  f: F,
  options?: TransformOptions<W>,
): (...args: [...Parameters<F>, GradOf<F, W>]) => GradOf<F, W> {
  return notCompiled('hvp', f);
}

// ---- array helpers (docs/frontend.md, "Arrays") ----
// What JavaScript's arrays lack. Inside a differentiable function the plugin lowers each to the
// IR's array constructs; outside one (and without the plugin) these plain loops run.

/** A read-only array of numbers: number[], Float64Array, Float32Array (or an integer typed array). */
export type NumberArray = ArrayLike<number>;
/** The built-in operators of scan and reduceByIndex. */
export type ArrayOp = '+' | '*' | 'min' | 'max';

function opFn(op: ArrayOp | ((a: number, b: number) => number)): (a: number, b: number) => number {
  if (typeof op === 'function') return op;
  switch (op) {
    case '+':
      return (a, b) => a + b;
    case '*':
      return (a, b) => a * b;
    case 'min':
      return Math.min;
    case 'max':
      return Math.max;
  }
  throw new TypeError(`tsad: unknown operator ${String(op)}: use '+', '*', 'min', 'max' or a function`);
}

function sameLength(where: string, a: NumberArray, b: NumberArray, what: string): void {
  if (a.length !== b.length) throw new RangeError(`tsad: ${where}: ${what} have different lengths (${a.length} and ${b.length})`);
}

function indexIn(where: string, i: number, n: number, what: string): number {
  if (!Number.isInteger(i) || i < 0 || i >= n) throw new RangeError(`tsad: ${where}: ${what} ${i} is outside an array of ${n}`);
  return i;
}

/** Σ xs (0 for an empty array). */
export function sum(xs: NumberArray): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i];
  return s;
}

/** Π xs (1 for an empty array); its derivative is exact with zeros among the factors. */
export function prod(xs: NumberArray): number {
  let p = 1;
  for (let i = 0; i < xs.length; i++) p *= xs[i];
  return p;
}

/** Σ a_i b_i; the arrays must have the same length (RangeError otherwise). */
export function dot(a: NumberArray, b: NumberArray): number {
  sameLength('dot', a, b, 'the two arrays');
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** [0, 1, …, n − 1] (constants: indices). */
export function iota(n: number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
}

/** Inclusive scan: out[i] = op(out[i − 1], xs[i]), out[−1] = init (default: the operator's identity). */
export function scan(xs: NumberArray, op: ArrayOp | ((a: number, b: number) => number), init?: number): Float64Array {
  const f = opFn(op);
  const identity = op === '+' ? 0 : op === '*' ? 1 : op === 'min' ? Infinity : op === 'max' ? -Infinity : undefined;
  let acc = init ?? identity;
  if (acc === undefined) throw new TypeError('tsad: scan with a function needs its initial value');
  const out = new Float64Array(xs.length);
  for (let i = 0; i < xs.length; i++) out[i] = acc = f(acc, xs[i]);
  return out;
}

/** out[k] = xs[indices[k]]; an index outside xs is a RangeError. */
export function gather(xs: NumberArray, indices: NumberArray): Float64Array {
  const out = new Float64Array(indices.length);
  for (let k = 0; k < indices.length; k++) out[k] = xs[indexIn('gather', indices[k], xs.length, 'index')];
  return out;
}

/** A copy of dest with dest[indices[k]] = values[k]; a repeated index is a RangeError (the result would depend on order). */
export function scatter(dest: NumberArray, indices: NumberArray, values: NumberArray): Float64Array {
  sameLength('scatter', indices, values, 'indices and values');
  const out = Float64Array.from(dest);
  const seen = new Set<number>();
  for (let k = 0; k < indices.length; k++) {
    const i = indexIn('scatter', indices[k], dest.length, 'index');
    if (seen.has(i)) throw new RangeError(`tsad: scatter: index ${i} appears twice`);
    seen.add(i);
    out[i] = values[k];
  }
  return out;
}

/** A histogram: a copy of dest with out[indices[k]] = op(out[indices[k]], values[k]); indices outside dest are skipped. */
export function reduceByIndex(dest: NumberArray, indices: NumberArray, values: NumberArray, op: ArrayOp | ((a: number, b: number) => number)): Float64Array {
  sameLength('reduceByIndex', indices, values, 'indices and values');
  const f = opFn(op);
  const out = Float64Array.from(dest);
  for (let k = 0; k < indices.length; k++) {
    const i = indices[k];
    if (Number.isInteger(i) && i >= 0 && i < out.length) out[i] = f(out[i], values[k]);
  }
  return out;
}

/** The matrix product of a (m × k) and b (k × n), matrices as arrays of rows. */
export function matmul(a: readonly NumberArray[], b: readonly NumberArray[]): number[][] {
  const k = b.length;
  const n = k === 0 ? 0 : b[0].length;
  return a.map((row, r) => {
    if (row.length !== k) throw new RangeError(`tsad: matmul: row ${r} of the first matrix has ${row.length} columns, the second matrix ${k} rows`);
    const out = new Array<number>(n).fill(0);
    for (let j = 0; j < k; j++) {
      const bj = b[j];
      if (bj.length !== n) throw new RangeError(`tsad: matmul: row ${j} of the second matrix has ${bj.length} columns, not ${n}`);
      for (let c = 0; c < n; c++) out[c] += row[j] * bj[c];
    }
    return out;
  });
}
