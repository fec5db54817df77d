// A branch's residual that is the length of an array it was given (a witness U replaced by its
// length, or an array the branch writes element by element: ad/lengths.ts) is the length of the
// cond's operand: computed once before the cond and passed to the linear cond as an operand, not
// kept in a slot. The slots shrink (an untaken branch pads fewer), and a loop around the cond sees
// `len` of its own array, which it computes once before the loop where that array's length is
// steady (loop/unzip.ts invariantLengths) instead of stacking it per iteration. Likewise a
// residual that is one of the branch's array parameters (whose elements the linear branch reads
// again) is the cond's operand itself: a loop around the cond passes its invariant array
// once instead of stacking a reference (or a tuple of slots) per iteration.
import { REAL, binder, construct, lambda, letS, nvar, ret } from '../../ir/syntax';
import type { Binder, Lambda, Stmt, Type } from '../../ir/syntax';
import { freeNonLinear } from '../../ir/freeVars';
import type { ConstructExpr, UnzipOps, UnzippedBody } from '../types';

export interface HoistedLengths {
  /** The branches without the residuals that became operands. */
  readonly halves: UnzippedBody[];
  /** The lengths computed before the cond and the operands, passed to the linear cond after its slots. */
  readonly operands: string[];
  /** Branch k's tangent taking `operands` as extra parameters after its own. */
  tangent(k: number, t: Lambda): Lambda;
}

export function hoistLengths(ops: UnzipOps, e: ConstructExpr, halves: readonly UnzippedBody[], nlResults: number): HoistedLengths {
  const operands: string[] = [];
  const types: Type[] = [];
  const byOperand = new Map<string, number>();
  const hoist = (key: string, type: Type, make: () => string): number => {
    let j = byOperand.get(key);
    if (j === undefined) {
      j = operands.length;
      operands.push(make());
      types.push(type);
      byOperand.set(key, j);
    }
    return j;
  };
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
    const keep: boolean[] = h.residuals.map((t, i) => {
      const name = r.nl[nlResults + i];
      if (name !== h.tangent.nlParams[i].name) return true;
      // (A number costs a slot or a stacked number either way: only arrays, whose reference a loop
      // would stack per iteration, become operands.)
      const param = t.tag === 'array' ? h.primal.nlParams.findIndex((b) => b.name === name) : -1;
      if (param >= 0) {
        const operand = e.nl[param + 1];
        taken[k].set(
          name,
          hoist(`arg ${operand}`, t, () => operand),
        );
        return false;
      }
      const w = lenOf.get(name);
      const p = w === undefined ? undefined : lengthOf.get(w);
      if (p === undefined) return true;
      const operand = e.nl[p + 1];
      taken[k].set(
        name,
        hoist(`len ${operand}`, REAL, () => ops.b.nl(`${operand}_len`, construct('len', [operand], [], []), REAL)),
      );
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
      if (p === undefined) params[j] = binder(name, types[j]);
      else copies.push(letS([binder(name, types[j])], [], nvar(p.name)));
    }
    const extra = params.map((p, j) => p ?? binder(ops.b.fresh('unused'), types[j]));
    return lambda([...t.nlParams, ...extra], t.linParams, { stmts: [...copies, ...t.body.stmts], result: t.body.result });
  };
  return { halves: reduced, operands, tangent };
}
