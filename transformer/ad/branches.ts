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
import { hasBodies, mapChildren } from '../ir/traverse';
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
  const body = strongZeroBlock(d.body);
  return body === d.body ? d : { ...d, body };
}

/** The pass on one block; each body a construct carries is its own (closed) block. */
function strongZeroBlock(body: Block): Block {
  const only = branchOnly(body);
  let changed = false;
  const stmts = body.stmts.map((s): Stmt => {
    if (s.tag !== 'let') return s;
    if (hasBodies(s.rhs)) {
      const rhs = mapChildren(s.rhs, (l) => {
        const inner = strongZeroBlock(l.body);
        return inner === l.body ? l : { ...l, body: inner };
      }, (e) => e);
      if (rhs === s.rhs) return s;
      changed = true;
      return { ...s, rhs };
    }
    if (s.rhs.tag === 'lprim' && s.lin.length === 1 && only.has(s.lin[0].name)) {
      const variant = LIN_PRIMS[s.rhs.op].strongZero;
      if (!variant) return s;
      changed = true;
      return { ...s, rhs: { ...s.rhs, op: variant } };
    }
    return s;
  });
  return changed ? { ...body, stmts } : body;
}
