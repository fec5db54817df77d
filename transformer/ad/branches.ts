// Strong zeros for branches of `?:`. A select evaluates both sides; in reverse mode the side not
// taken receives a cotangent of exactly 0, which then meets that side's local derivatives. Where
// one of them is infinite (`x !== 0 ? Math.sin(x) / x : 1` at x = 0, `x > 0 ? Math.log(x) : 0`)
// 0·∞ would turn the whole gradient into NaN, the trap of `jnp.where` in JAX.
//
// The pass finds the linear values that only feed an alternative of a branching linear primitive
// (its record says `branches`), through any chain of linear primitives (each linear value has
// exactly one use, so "only feeds" is a walk back along single uses), and switches the
// primitives producing them to their `strongZero` variant, for which 0·∞ = 0. Transposition
// keeps the variant, so the backward pass of an untaken branch contributes exactly nothing.
// Everything else is unchanged; on finite values the variant equals the original.
import { Block, FnDef, Stmt } from '../ir/syntax';
import { LIN_PRIMS } from '../prims/registry';

/** Linear values, among the def body's statements, whose single use ends in a branch alternative. */
function branchOnly(body: Block): Set<string> {
  const only = new Set<string>();
  for (let i = body.stmts.length - 1; i >= 0; i--) {
    const s = body.stmts[i];
    if (s.tag !== 'let') continue;
    const { rhs, lin } = s;
    if (rhs.tag === 'lprim') {
      const rec = LIN_PRIMS[rhs.op];
      if (rec.branches || (lin.length === 1 && only.has(lin[0].name))) rhs.lin.forEach((a) => only.add(a));
    } else if (rhs.tag === 'dup' && lin.every((b) => only.has(b.name))) only.add(rhs.name);
  }
  return only;
}

export function strongZeroBranches(d: FnDef): FnDef {
  const only = branchOnly(d.body);
  if (only.size === 0) return d;
  const stmts = d.body.stmts.map((s): Stmt => {
    if (s.tag === 'let' && s.rhs.tag === 'lprim' && s.lin.length === 1 && only.has(s.lin[0].name)) {
      const variant = LIN_PRIMS[s.rhs.op].strongZero;
      return variant ? { ...s, rhs: { ...s.rhs, op: variant } } : s;
    }
    return s;
  });
  return { ...d, body: { ...d.body, stmts } };
}
