// Residuals of a fold or histogram body as arrays of scalars. A residual that is a tuple (a
// call's tape) is unpacked to its leaves in the non-linear half and packed again at the top of the
// linear half, so every residual array U stores is an array of reals (or of other scalars):
// a Float64Array in emitted code rather than an array of JavaScript arrays, and something the
// second-order rules (linearFoldJvp.ts, histogramJvp.ts) can carry. Unpacking and packing cost
// nothing in the cost model, so W(fwd) + W(lin) = W(jvp) still holds.
import { binder, lambda, letS, ret, tuple, unpackS, InternalError } from '../../ir/syntax';
import type { Binder, Stmt, Type } from '../../ir/syntax';
import type { Builder } from '../../ir/build';
import type { UnzippedBody } from '../types';

/** `h` with every tuple residual replaced by its leaves; `outputs` is how many primal results come before the residuals. */
export function flattenResiduals(b: Builder, h: UnzippedBody, outputs: number): UnzippedBody {
  if (!h.residuals.some((t) => t.tag === 'tuple')) return h;
  const r = h.primal.body.result;
  if (r.tag !== 'ret') throw new InternalError('flattenResiduals: unzipBody must return a ret');
  const unpacks: Stmt[] = [];
  const packs: Stmt[] = [];
  const leafNames: string[] = [];
  const leafParams: Binder[] = [];
  const leafTypes: Type[] = [];
  // Unpacks `name` (of type t) into leaves, and returns the statements that rebuild `param` from leaf parameters.
  const split = (name: string, param: Binder, t: Type): void => {
    if (t.tag !== 'tuple') {
      leafNames.push(name);
      leafParams.push(param);
      leafTypes.push(t);
      return;
    }
    const parts = t.elems.map((et) => binder(b.fresh('leaf'), et));
    unpacks.push(unpackS(false, parts, name));
    const params = t.elems.map((et) => binder(b.fresh('leaf'), et));
    parts.forEach((p, i) => split(p.name, params[i], t.elems[i]));
    // Inner tuples are packed before the outer one: their statements come first.
    packs.push(
      letS(
        [param],
        [],
        tuple(
          false,
          params.map((p) => p.name),
        ),
      ),
    );
  };
  h.residuals.forEach((t, j) => split(r.nl[outputs + j], h.tangent.nlParams[j], t));
  const primal = lambda(h.primal.nlParams, h.primal.linParams, { stmts: [...h.primal.body.stmts, ...unpacks], result: ret([...r.nl.slice(0, outputs), ...leafNames], r.lin) });
  const tangent = lambda(leafParams, h.tangent.linParams, { stmts: [...packs, ...h.tangent.body.stmts], result: h.tangent.body.result });
  return { primal, tangent, residuals: leafTypes };
}
