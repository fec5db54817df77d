// What a planner is given and what it returns. One planner per transform (planners.ts); each
// runs the drivers it needs and writes its wrapper with a Marshal, and none sees TypeScript.
import type { Program } from '../ir/syntax';
import type { DriverOptions } from '../ad/drivers';
import type { Shape } from './shapes';
import type { TransformKind } from './transforms';
import { Marshal, specOf } from './marshal';
import { ArgumentCheck, CallSitePlan, PlanExpr, PlanStatement, name } from './syntax';

/** The function a call site differentiates, as the user sees its parameters and result. */
export interface Signature {
  /** Its IR def. */
  readonly name: string;
  /**
   * `read`: a module-level variable the function reads when it runs (frontend/moduleState.ts),
   * never an argument of the caller. Such parameters come last; compile.ts binds each to a read
   * of its variable (`read` is the name that read starts with, which no local may shadow).
   */
  readonly params: readonly { readonly name: string; readonly shape: Shape; readonly read?: string; readonly source?: string }[];
  readonly result: Shape;
}

/** The name a message gives a parameter: the source's (`Array`), not the IR's (`Array_1`). */
export const shownName = (p: Signature['params'][number]): string => p.source ?? p.name;

/** The parameters the caller passes (module state is read by the wrapper itself). */
export function callerParams(fn: Signature): Signature['params'] {
  return fn.params.filter((p) => p.read === undefined);
}

/** `vjpOf`'s result: the primal with its tape, and the backward pass. */
export interface Reverse {
  readonly program: Program;
  readonly fwd: string;
  readonly bwd: string;
}

export interface PlanRequest {
  readonly kind: TransformKind;
  /** The function's closure: the defs its derivatives can reach. */
  readonly program: Program;
  readonly fn: Signature;
  /** The differentiated parameters, by index (for the transforms whose row has `wrt`). */
  readonly wrt: readonly number[];
  /** The call as messages name it: `grad(loss)`. */
  readonly where: string;
  readonly driver: DriverOptions;
  /**
   * The function's reverse pass, computed once per module and shared by its call sites; `fused`
   * for a planner that inlines its halves into one def through valueAndGradOf, which simplifies
   * them there (DriverOptions.deferSimplify).
   */
  readonly reverse: (fused?: boolean) => Reverse;
  /**
   * For grad: the module's valueAndGrad def of the same function and parameters, which the
   * wrapper calls (dropping the value) instead of a def of its own.
   */
  readonly valueAndGrad?: SharedDef;
  /** jacobian, jacfwd, jacrev with `{ flat: true }`: one row-major Float64Array, `{ data, rows, cols }`. */
  readonly flat?: boolean;
}

/** A def another call site of the module has emitted, with the program it belongs to. */
export interface SharedDef {
  readonly program: Program;
  readonly def: string;
  /**
   * The wrapper of the call site that made it, when another wrapper with the same parameters may
   * run it under its own name (PlanExpr `runAs`): a grad beside a valueAndGrad.
   */
  readonly wrapper?: string;
}

export type Planner = (req: PlanRequest) => CallSitePlan;

/** Generated code is simplified (copy/zero propagation, CSE, dead code) before emission. */
// 'cheap': adds, multiplies and element reads are recomputed in the backward pass instead of
// stored, so a loop over arrays keeps only what is expensive to redo (exp, a division, a carried
// value) on its tape (ad/unzip.ts).
export const DRIVER = { simplify: true, inlinePrimal: true, policy: 'cheap' } as const;

/** The wrapper's own parameter names, and those of its function values: no local takes them. */
const RESERVED = ['primals', 'tangents', 'cotangent', 'v', 'columns'];

/**
 * A name supply for the wrapper of `fn`, and its parameters as IR values. `handsOut`: what the
 * wrapper returns is always new (Marshal), for the transforms whose results may be values the
 * caller passed in or residuals a returned closure reads.
 */
export function wrapperOf(fn: Signature, handsOut = false): { m: Marshal; irArgs: PlanExpr[] } {
  const m = new Marshal(new Set([...fn.params.flatMap((p) => (p.read ? [p.name, p.read] : [p.name])), ...RESERVED]), handsOut);
  return { m, irArgs: fn.params.map((p) => m.toIR(name(p.name), p.shape)) };
}

/**
 * For a wrapper that returns a closure over the tape of its primal pass (vjp's pullback,
 * linearize's linear function): the parameters' arrays are replaced by copies before the primal
 * pass runs, so that the caller writing into its arrays afterwards does not change what the
 * closure computes. Always, not only where the tape keeps an array as a residual: the closure
 * also reads each array's length (the cotangent comes back as long as its parameter, a tangent
 * is checked against it). One native copy per array, against a primal pass that reads it whole.
 */
export function ownedParams(m: Marshal, fn: Signature): PlanStatement[] {
  return callerParams(fn).flatMap((p) => {
    const copy = m.owned(name(p.name), p.shape);
    return copy ? [{ tag: 'assign', name: p.name, value: copy } as const] : [];
  });
}

/** The check of a wrapper that takes the function's own parameters. */
export function paramChecks(fn: Signature): ArgumentCheck[] {
  return callerParams(fn).map((p, i) => ({ label: `argument ${i + 1}`, path: shownName(p), value: p.name, spec: specOf(p.shape, false) }));
}

/** Checked once per call, before any work: a wrong argument fails with its name, not as NaN deep in the derivative. */
export function checked(where: string, checks: readonly ArgumentCheck[], body: readonly PlanStatement[]): PlanStatement[] {
  return [{ tag: 'check', where, checks }, ...body];
}
