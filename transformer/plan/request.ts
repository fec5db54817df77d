// What a planner is given and what it returns. One planner per transform (planners.ts); each
// runs the drivers it needs and writes its wrapper with a Marshal, and none sees TypeScript.
import type { Program } from '../ir/syntax';
import type { DriverOptions } from '../ad/drivers';
import type { Shape } from '../frontend/shapes';
import type { TransformKind } from './transforms';
import { Marshal, specOf } from './marshal';
import { ArgumentCheck, CallSitePlan, PlanExpr, PlanStatement, name } from './syntax';

/** The function a call site differentiates, as the user sees its parameters and result. */
export interface Signature {
  /** Its IR def. */
  readonly name: string;
  readonly params: readonly { readonly name: string; readonly shape: Shape }[];
  readonly result: Shape;
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
  /** The function's reverse pass, computed once per module and shared by its call sites. */
  readonly reverse: () => Reverse;
}

export type Planner = (req: PlanRequest) => CallSitePlan;

/** Generated code is simplified (copy/zero propagation, CSE, dead code) before emission. */
// 'cheap': adds, multiplies and element reads are recomputed in the backward pass instead of
// stored, so a loop over arrays keeps only what is expensive to redo (exp, a division, a carried
// value) on its tape (ad/unzip.ts).
export const DRIVER = { simplify: true, inlinePrimal: true, policy: 'cheap' } as const;

/** The wrapper's own parameter names, and those of its function values: no local takes them. */
const RESERVED = ['primals', 'tangents', 'cotangent', 'v', 'columns'];

/** A name supply for the wrapper of `fn`, and its parameters as IR values. */
export function wrapperOf(fn: Signature): { m: Marshal; irArgs: PlanExpr[] } {
  const m = new Marshal(new Set([...fn.params.map((p) => p.name), ...RESERVED]));
  return { m, irArgs: fn.params.map((p) => m.toIR(name(p.name), p.shape)) };
}

/** The check of a wrapper that takes the function's own parameters. */
export function paramChecks(fn: Signature): ArgumentCheck[] {
  return fn.params.map((p, i) => ({ label: `argument ${i + 1}`, path: p.name, value: p.name, spec: specOf(p.shape, false) }));
}

/** Checked once per call, before any work: a wrong argument fails with its name, not as NaN deep in the derivative. */
export function checked(where: string, checks: readonly ArgumentCheck[], body: readonly PlanStatement[]): PlanStatement[] {
  return [{ tag: 'check', where, checks }, ...body];
}
