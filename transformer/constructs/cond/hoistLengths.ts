// A branch's residual that is the length of an array it was given (a witness U replaced by its
// length, or an array the branch writes element by element: ad/lengths.ts) is the length of the
// cond's operand: computed once before the cond and passed to the linear cond as an operand, not
// kept in a slot. The slots shrink (an untaken branch pads fewer), and a loop around the cond sees
// `len` of its own array, which it computes once before the loop where that array's length is
// steady (loop/unzip.ts invariantLengths) instead of stacking it per iteration.
import { REAL, binder, construct, lambda, letS, nvar, ret } from '../../ir/syntax';
import type { Binder, Lambda, Stmt } from '../../ir/syntax';
import { freeNonLinear } from '../../ir/freeVars';
import type { ConstructExpr, UnzipOps, UnzippedBody } from '../types';

export interface HoistedLengths {
  /** The branches without the residuals that became operands. */
  readonly halves: UnzippedBody[];
  /** The lengths computed before the cond, passed to the linear cond after its slots. */
  readonly operands: string[];
  /** Branch k's tangent taking `operands` as extra parameters after its own. */
  tangent(k: number, t: Lambda): Lambda;
}

export function hoistLengths(ops: UnzipOps, e: ConstructExpr, halves: readonly UnzippedBody[], nlResults: number): HoistedLengths {
  const operands: string[] = [];
  const byOperand = new Map<string, number>();
  // Per branch: hoisted residual name -> index into operands.
  const taken = halves.map(() => new Map<string, number>());
  const reduced = halves.map((h, k) => {
    const r = h.primal.body.result;
    if (r.tag !== 'ret') return h;
    const lengthOf = ops.lengthParams(h.primal);
    const lenOf = new Map<string, string>();
    for (const s of h.primal.body.stmts) {
      if (s.tag === 'let' && s.nl.length === 1 && s.rhs.tag === 'construct' && s.rhs.op === 'len' && s.rhs.nl.length === 1 && s.rhs.bodies.length === 0) lenOf.set(s.nl[0].name, s.rhs.nl[0]);
    }
    const keep: boolean[] = h.residuals.map((_, i) => {
      const name = r.nl[nlResults + i];
      const w = lenOf.get(name);
      const p = w === undefined ? undefined : lengthOf.get(w);
      if (p === undefined || name !== h.tangent.nlParams[i].name) return true;
      const operand = e.nl[p + 1];
      let j = byOperand.get(operand);
      if (j === undefined) {
        j = operands.length;
        operands.push(ops.b.nl(`${operand}_len`, construct('len', [operand], [], []), REAL));
        byOperand.set(operand, j);
      }
      taken[k].set(name, j);
      return false;
    });
    if (keep.every(Boolean)) return h;
    const results = [...r.nl.slice(0, nlResults), ...r.nl.slice(nlResults).filter((_, i) => keep[i])];
    // The primal branch no longer returns them: a length nothing else reads is not computed.
    const stmts = h.primal.body.stmts.filter((s, i, all) => {
      if (s.tag !== 'let' || s.nl.length !== 1 || !taken[k].has(s.nl[0].name)) return true;
      const name = s.nl[0].name;
      return results.includes(name) || all.some((t, j) => j !== i && freeNonLinear({ stmts: [t], result: ret([]) }).has(name));
    });
    return {
      primal: lambda(h.primal.nlParams, [], { stmts, result: ret(results) }),
      tangent: lambda(
        h.tangent.nlParams.filter((_, i) => keep[i]),
        h.tangent.linParams,
        h.tangent.body,
      ),
      residuals: h.residuals.filter((_, i) => keep[i]),
    };
  });
  const tangent = (k: number, t: Lambda): Lambda => {
    const params: (Binder | undefined)[] = operands.map(() => undefined);
    const copies: Stmt[] = [];
    for (const [name, j] of taken[k]) {
      const p = params[j];
      if (p === undefined) params[j] = binder(name, REAL);
      else copies.push(letS([binder(name, REAL)], [], nvar(p.name)));
    }
    const extra = params.map((p) => p ?? binder(ops.b.fresh('unused'), REAL));
    return lambda([...t.nlParams, ...extra], t.linParams, { stmts: [...copies, ...t.body.stmts], result: t.body.result });
  };
  return { halves: reduced, operands, tangent };
}
