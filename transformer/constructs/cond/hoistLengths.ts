// A branch's residual that is the length of an array it was given (a witness U replaced by its
// length, or an array the branch writes element by element: ad/lengths.ts) is the length of the
// cond's operand: computed once before the cond and passed to the linear cond as an operand, not
// kept in a slot. The slots shrink (an untaken branch pads fewer), and a loop around the cond sees
// `len` of its own array, which it computes once before the loop where that array's length is
// steady (loop/unzip.ts invariantLengths) instead of stacking it per iteration. Likewise a
// residual that is one of the branch's array parameters (whose elements the linear branch reads
// again) is the cond's operand itself: a loop around the cond passes its invariant array
// once instead of stacking a reference (or a tuple of slots) per iteration.
//
// A number (or a flag) the branch was given and stores as it is becomes the cond's operand too,
// where that does not make the slots and the new operands together outnumber the slots: locally
// the same count, but the operand is a value of the enclosing body, which may keep it already
// (a nested cond's copy of the outer branch's `l`), recompute it from what it keeps (`top + 1`)
// or pass it once (a loop invariant), where a slot is a separate number on every iteration's
// record (the explicit-stack tree walk: 8 → 6 numbers per node).
import { REAL, binder, construct, lambda, letS, nvar, ret } from '../../ir/syntax';
import type { Binder, Lambda, Stmt, Type } from '../../ir/syntax';
import { freeNonLinear } from '../../ir/freeVars';
import { assignSlots } from './slots';
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
  const numbers = numberParams(halves, nlResults, ops.flagsAsNumbers);
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
      // An array always (a loop would stack its reference per iteration); a number or a flag
      // where the slots do not grow for it (numberParams).
      const param = t.tag === 'array' || numbers?.[k][i] ? h.primal.nlParams.findIndex((b) => b.name === name) : -1;
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

/**
 * Per branch, which residuals are number or flag parameters stored as they are, to become
 * operands; undefined where that would take more slots and operands than the slots it frees (the
 * cond's slots are shared between branches by type, cond/unzip.ts: a residual leaving one branch
 * frees nothing while another branch fills its slot).
 */
function numberParams(halves: readonly UnzippedBody[], nlResults: number, flagsAsNumbers: boolean): boolean[][] | undefined {
  const scalar = (t: Type) => t.tag === 'real' || t.tag === 'bool';
  const moved = halves.map((h) => {
    const r = h.primal.body.result;
    const params = new Set(h.primal.nlParams.map((p) => p.name));
    return h.residuals.map((t, i) => r.tag === 'ret' && scalar(t) && r.nl[nlResults + i] === h.tangent.nlParams[i].name && params.has(r.nl[nlResults + i]));
  });
  if (!moved.some((m) => m.includes(true))) return undefined;
  // The slots as cond/unzip.ts assigns them (shared by type between the branches).
  const slots = (keep: (k: number, i: number) => boolean) =>
    assignSlots(
      halves.map((h, k) => h.residuals.filter((_, i) => keep(k, i))),
      flagsAsNumbers,
    ).types.length;
  // The operands the moved residuals come from (branches name their parameters alike or not: by position).
  const operands = new Set<number>();
  halves.forEach((h, k) => {
    const r = h.primal.body.result;
    if (r.tag === 'ret') h.residuals.forEach((_, i) => moved[k][i] && operands.add(h.primal.nlParams.findIndex((p) => p.name === r.nl[nlResults + i])));
  });
  const before = slots(() => true);
  const after = slots((k, i) => !moved[k][i]) + operands.size;
  return after <= before ? moved : undefined;
}
