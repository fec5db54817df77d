// The tsad runtime: markers and transforms. With the compiler plugin, every transform call is
// replaced at build time by generated derivative code and these bodies never run; without it,
// they throw a message that says how to turn the plugin on.

/** Brand the compiler plugin uses to recognise this module through re-exports and aliases. */
export const TSAD_RUNTIME = true;

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
    `tsad: ${transform}(${name}) was not compiled. Add { "transform": "tsad/transformer" } to compilerOptions.plugins and build with tspc. ` +
      'With plain tsc, run `npx ts-patch install` once.',
  );
}

export function grad<F extends (...args: any[]) => number, const W extends readonly Index[] = readonly [0]>(
  f: F,
  options?: TransformOptions<W>,
): (...args: Parameters<F>) => GradOf<F, W> {
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

export function vjp<F extends Fn>(
  f: F,
  ...primals: Parameters<F>
): [ReturnType<F>, (cotangent: Cotangent<ReturnType<F>>) => Tangents<Parameters<F>>] {
  return notCompiled('vjp', f);
}

export function linearize<F extends Fn>(
  f: F,
  ...primals: Parameters<F>
): [ReturnType<F>, (...tangents: Tangents<Parameters<F>>) => Tangent<ReturnType<F>>] {
  return notCompiled('linearize', f);
}

/** One Jacobian (rows = outputs) per differentiated parameter; several `wrt` give a tuple. */
export type JacobianOf<W> = W extends readonly [unknown, unknown, ...unknown[]] ? { -readonly [K in keyof W]: number[][] } : number[][];
/** The Hessian; several `wrt` give the blocks `H[a][b] = ∂²f/∂w_a∂w_b`. */
export type HessianOf<W> = W extends readonly [unknown, unknown, ...unknown[]] ? { -readonly [K in keyof W]: { -readonly [L in keyof W]: number[][] } } : number[][];

export function jacobian<F extends Fn, const W extends readonly Index[] = readonly [0]>(f: F, options?: TransformOptions<W>): (...args: Parameters<F>) => JacobianOf<W> {
  return notCompiled('jacobian', f);
}
export function jacfwd<F extends Fn, const W extends readonly Index[] = readonly [0]>(f: F, options?: TransformOptions<W>): (...args: Parameters<F>) => JacobianOf<W> {
  return notCompiled('jacfwd', f);
}
export function jacrev<F extends Fn, const W extends readonly Index[] = readonly [0]>(f: F, options?: TransformOptions<W>): (...args: Parameters<F>) => JacobianOf<W> {
  return notCompiled('jacrev', f);
}
export function hessian<F extends (...args: any[]) => number, const W extends readonly Index[] = readonly [0]>(
  f: F,
  options?: TransformOptions<W>,
): (...args: Parameters<F>) => HessianOf<W> {
  return notCompiled('hessian', f);
}
/** H·v for the differentiated parameters: `v` and the result have the shape of the gradient. */
export function hvp<F extends (...args: any[]) => number, const W extends readonly Index[] = readonly [0]>(
  f: F,
  options?: TransformOptions<W>,
): (...args: [...Parameters<F>, GradOf<F, W>]) => GradOf<F, W> {
  return notCompiled('hvp', f);
}
