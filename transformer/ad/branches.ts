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
import { Expr, FnDef } from '../ir/syntax';
import { LIN_PRIMS } from '../prims/registry';

/** Linear values, along the def's main chain, whose single use ends in a branch alternative. */
function branchOnly(body: Expr): Set<string> {
  const chain: Extract<Expr, { tag: 'let' }>[] = [];
  for (let e = body; e.tag === 'let' || e.tag === 'unpack'; e = e.body) if (e.tag === 'let') chain.push(e);
  const only = new Set<string>();
  for (let i = chain.length - 1; i >= 0; i--) {
    const { rhs, lin } = chain[i];
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
  const rewrite = (e: Expr): Expr => {
    const out: Extract<Expr, { tag: 'let' | 'unpack' }>[] = [];
    let cur = e;
    for (; cur.tag === 'let' || cur.tag === 'unpack'; cur = cur.body) {
      if (cur.tag === 'let' && cur.rhs.tag === 'lprim' && cur.lin.length === 1 && only.has(cur.lin[0].name)) {
        const variant = LIN_PRIMS[cur.rhs.op].strongZero;
        out.push(variant ? { ...cur, rhs: { ...cur.rhs, op: variant } } : cur);
      } else out.push(cur);
    }
    let result: Expr = cur;
    for (let i = out.length - 1; i >= 0; i--) result = { ...out[i], body: result } as Expr;
    return result;
  };
  return { ...d, body: rewrite(d.body) };
}
