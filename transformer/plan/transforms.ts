// The transforms tsad compiles, one row each. Every layer that needs to know a transform reads
// it here: the front end recognises a call by its name, the rewrite reads its options and what
// the call site becomes, the compiler checks the function against it, and plan/planners.ts has
// one planner per row (a transform without one is a compile error).

export interface TransformSpec {
  /** Its second argument is an options object: `grad(f, { wrt })`. */
  readonly options: boolean;
  /**
   * What the call site becomes: 'reference', `T(f, opts?)` names a compiled function;
   * 'call', `T(f, ...rest)` computes at once (`jvp(f, primals, tangents)`).
   */
  readonly form: 'reference' | 'call';
  /** Differentiates with respect to the parameters `wrt` names, which must hold numbers. */
  readonly wrt: boolean;
  /** Needs a function that returns a number. */
  readonly scalarResult: boolean;
  /** Differentiates twice (forward over reverse). */
  readonly secondOrder?: boolean;
  /** May transpose (reverse mode): T of a derivative's loop is not supported yet (TSAD1007). */
  readonly transposes?: boolean;
  /** Takes `{ flat: true }`: the Jacobian as `{ data: Float64Array, rows, cols }`. */
  readonly flat?: boolean;
}

const reference = { options: true, form: 'reference', wrt: true } as const;
const call = { options: false, form: 'call', wrt: false, scalarResult: false } as const;

export const TRANSFORMS = {
  grad: { ...reference, scalarResult: true, transposes: true },
  valueAndGrad: { ...reference, scalarResult: true, transposes: true },
  jvp: call,
  vjp: { ...call, transposes: true },
  linearize: call,
  jacobian: { ...reference, scalarResult: false, transposes: true, flat: true },
  jacfwd: { ...reference, scalarResult: false, flat: true },
  jacrev: { ...reference, scalarResult: false, transposes: true, flat: true },
  hessian: { ...reference, scalarResult: true, secondOrder: true, transposes: true },
  hvp: { ...reference, scalarResult: true, secondOrder: true, transposes: true },
} as const satisfies Readonly<Record<string, TransformSpec>>;

export type TransformKind = keyof typeof TRANSFORMS;

export function isTransformKind(name: string): name is TransformKind {
  return Object.hasOwn(TRANSFORMS, name);
}

/** Every transform's name, in the table's order. */
export const TRANSFORM_KINDS: readonly TransformKind[] = Object.keys(TRANSFORMS).filter(isTransformKind);
