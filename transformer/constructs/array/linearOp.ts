// A body-less linear array operation with non-linear coefficients (an index array, a length):
// `op(c̄ ; ū)` linear in ū, or erased `op(c̄, ū)` with every operand non-linear and the same value.
// The gather/scatter family (gather.ts, scatter.ts) is built from this record; the transpose is
// another such op with the same coefficients. J of the erased form is the linear form on the
// tangents (the op is linear), U keeps the op as its own linear half.
import { binder, construct, tangentType, InternalError } from '../../ir/syntax';
import type { Type } from '../../ir/syntax';
import type { Value } from '../../ir/value';
import type { CheckOps, ConstructExpr, ConstructRule, Sides } from '../types';
import { barName, dotName } from '../../ir/names';

export interface LinearOpSpec {
  readonly name: string;
  readonly coefficients: number;
  readonly inputs: number;
  readonly outputs: number;
  /** The result types, given the coefficients' and inputs' types (errors through ops). */
  readonly type: (ops: CheckOps, coefficients: readonly Type[], inputs: readonly Type[]) => Type[];
  readonly run: (coefficients: readonly Value[], inputs: readonly Value[], charge: (units: number) => void) => Value[];
  /** The op of the transpose (same coefficients; its inputs are this op's outputs). */
  readonly transpose: string;
}

const isLinear = (e: ConstructExpr): boolean => e.lin.length > 0;

function split<T>(e: ConstructExpr, s: { readonly coefficients: number }, v: Sides<T>): { c: T[]; u: T[] } {
  return isLinear(e) ? { c: [...v.nl], u: [...v.lin] } : { c: v.nl.slice(0, s.coefficients), u: v.nl.slice(s.coefficients) };
}

/** The coefficients and the inputs of a linear op with `coefficients` coefficients, linear or erased. */
export const linearOpOperands = (e: ConstructExpr, coefficients: number): { c: string[]; u: string[] } => split(e, { coefficients }, e);

const sides = <T>(e: ConstructExpr, xs: T[]): Sides<T> => (isLinear(e) ? { nl: [], lin: xs } : { nl: xs, lin: [] });

export function linearOp(s: LinearOpSpec): ConstructRule {
  return {
    name: s.name,
    arity: (e) => (isLinear(e) ? { nl: 0, lin: s.outputs } : { nl: s.outputs, lin: 0 }),
    typeRule: (ops, e, t) => {
      if (e.bodies.length !== 0) ops.error(`${s.name} takes no bodies`);
      const { c, u } = split(e, s, t);
      if (c.length !== s.coefficients || u.length !== s.inputs) {
        ops.error(`${s.name} takes ${s.coefficients} non-linear and ${s.inputs} linear operand(s), got ${t.nl.length} and ${t.lin.length}`);
        return sides(
          e,
          Array.from({ length: s.outputs }, () => ({ tag: 'real' }) as Type),
        );
      }
      return sides(e, s.type(ops, c, u));
    },
    impl: (ops, e, v) => {
      const { c, u } = split(e, s, v);
      return sides(e, s.run(c, u, ops.charge));
    },
    jvp: (ops, e, results) => {
      if (isLinear(e)) throw new InternalError(`jvp: ${s.name} with linear operands in a non-linear program (erase first)`);
      ops.b.bind([...results], [], e);
      const { c, u } = split(e, s, { nl: e.nl, lin: [] });
      const dots = u.map((x) => ops.tangentOf(x));
      if (dots.every((d) => d === null)) return results.map(() => null);
      const lin = dots.map((d, k) => d ?? ops.b.zero(tangentType(ops.typeOf(u[k])), 'zero'));
      const ys = results.map((y) => binder(ops.b.fresh(dotName(y.name)), y.type ? tangentType(y.type) : undefined));
      ops.b.bind([], ys, construct(s.name, c, lin, []));
      return ys.map((y) => y.name);
    },
    unzip: (_ops, e) => e,
    transpose: (ops, e, cotangents, resultTypes) => {
      if (cotangents.every((c) => c === null)) return e.lin.map(() => null);
      const cts = cotangents.map((c, k) => c ?? ops.b.zero(resultTypes[k], 'zero'));
      const bars = e.lin.map((x) => binder(ops.b.fresh(barName(x)), ops.typeOf(x)));
      ops.b.bind([], bars, construct(s.transpose, e.nl, cts, []));
      return bars.map((x) => x.name);
    },
    pruneResults: () => undefined,
  };
}
