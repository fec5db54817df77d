// U of cond: the residuals of the two branches are unified into one list of slots.
//
// With U(then) = (then_N, then_L, s̄ : S̄) and U(else) = (else_N, else_L, t̄ : T̄) (ops.unzipBody),
// and slots r̄ : R̄ holding both branches' residuals:
//
//   U(let (ȳ ; ẏ̄) = cond(p, x̄ ; ẋ̄)[then, else]) =
//     C:   let (ȳ, r̄) = cond(p, x̄)[
//            |ā| { let (ȳ', s̄) = then_N(ā) in (ȳ', s̄ in its slots, ⊥ in the others) },
//            |ā| { let (ȳ', t̄) = else_N(ā) in (ȳ', t̄ in its slots, ⊥ in the others) }]
//     ė_L: let (; ẏ̄) = cond(p, r̄ ; ẋ̄)[
//            |r̄ ; ȧ| { drop(the slots not then's) ; then_L(s̄ ; ȧ) },
//            |r̄ ; ȧ| { drop(the slots not else's) ; else_L(t̄ ; ȧ) }]
//
// The slots are a padded union tagged by p: the then branch's residuals in order, then each
// else residual takes a slot of its type that the else branch has not taken yet, or a new one
// (so a tape of g in each branch shares one slot). ⊥_τ is a placeholder of type τ built from
// literals (0, false, "", tuples of them), which the cost model charges nothing for. The linear
// cond reads p, so p is a residual too, and T branches on the saved predicate. Each linear
// branch reads only its own slots; the others are dropped (U writes the drops as it settles each half).
// Work: W(C) + W(ė_L) = W(J cond) + the scalars of the slots the taken branch does not use.
//
// Past MAX_FLAT_SLOTS slots they travel packed, as one tuple r : R (R named, `f.slots_3`):
//
//     C:   let (ȳ, r) = cond(p, x̄)[|ā| { …; let r' = <s̄ in its slots, ⊥ in the others> in (ȳ', r') }, …]
//     ė_L: let (; ẏ̄) = cond(p, r ; ẋ̄)[|r ; ȧ| { let <s̄, unused…> = r ; then_L(s̄ ; ȧ) }, …]
//
// A cond nested in a branch hands the cond around it its slots as residuals, so flat slots grow
// by each level's own at every level out (and are padded in every untaken branch): a program
// quadratic in the depth. Packed, a level forwards one value, and a slot of a packed type is
// padded by `absent` (O(1), placeholder.ts), so the program grows by a constant per level. Few
// slots stay flat: no tuple is built per run, and a loop around the cond stacks plain numbers.
import { InternalError, REAL, binder, construct, lambda, letS, lit, prim, ret, tuple, tupleType, unpackS } from '../../ir/syntax';
import { placeholder } from '../placeholder';
import type { Binder, Block, Expr, Lambda, Stmt, Type } from '../../ir/syntax';
import { Builder } from '../../ir/build';
import type { ConstructExpr, Sides, UnzipOps, UnzippedBody } from '../types';
import { condNames } from './operands';
import { hoistLengths } from './hoistLengths';
import { type Slots, assignSlots } from './slots';

/** The primal half of branch k: its results, then the slots (its own residuals, placeholders elsewhere). */
function paddedPrimal(ops: UnzipOps, h: UnzippedBody, slots: Slots, k: number, nlResults: number): Lambda {
  const r = h.primal.body.result;
  if (r.tag !== 'ret') throw new InternalError('cond: unzipBody must return a ret');
  const b = new Builder(ops.b.names);
  h.primal.body.stmts.forEach((s) => b.stmt(s));
  const values: (string | undefined)[] = slots.types.map(() => undefined);
  slots.of[k].forEach((slot, i) => {
    const x = r.nl[nlResults + i];
    values[slot] = slots.asNumber[k][i] ? b.nl('flag', prim('select', [x, b.lit(1, 'one'), b.lit(0, 'zero')]), REAL) : x;
  });
  const filled = values.map((v, j) => v ?? placeholder(b, slots.types[j]));
  const body: Block = b.finish(ret([...r.nl.slice(0, nlResults), ...filled]));
  return lambda(h.primal.nlParams, [], body);
}

/** The tangent half of branch k, taking every slot (those not its own unused). */
function paddedTangent(ops: UnzipOps, h: UnzippedBody, slots: Slots, k: number): Lambda {
  const params: (Binder | undefined)[] = slots.types.map(() => undefined);
  const flags: Stmt[] = [];
  slots.of[k].forEach((slot, i) => {
    const p = h.tangent.nlParams[i];
    if (!slots.asNumber[k][i]) return void (params[slot] = p);
    // The flag back from its 1 or 0.
    const [n, zero] = [binder(ops.b.fresh('flag'), REAL), binder(ops.b.fresh('zero'), REAL)];
    params[slot] = n;
    flags.push(letS([zero], [], lit(0)), letS([p], [], prim('ne', [n.name, zero.name])));
  });
  const all = params.map((p, j) => p ?? binder(ops.b.fresh('unused'), slots.types[j]));
  return lambda(all, h.tangent.linParams, flags.length === 0 ? h.tangent.body : { stmts: [...flags, ...h.tangent.body.stmts], result: h.tangent.body.result });
}

/** More slots than this travel as one tuple (see above); up to it, JavaScript keeps them in locals. */
export const MAX_FLAT_SLOTS = 8;

/** The primal half of branch k returning its slots packed into one tuple of `packed`'s type. */
function packedPrimal(ops: UnzipOps, h: UnzippedBody, slots: Slots, k: number, nlResults: number, packed: Type): Lambda {
  const flat = paddedPrimal(ops, h, slots, k, nlResults);
  const r = flat.body.result;
  if (r.tag !== 'ret') throw new InternalError('cond: a padded branch must return a ret');
  const b = new Builder(ops.b.names);
  flat.body.stmts.forEach((s) => b.stmt(s));
  const slotsValue = b.nl('slots', tuple(false, r.nl.slice(nlResults)), packed);
  return lambda(flat.nlParams, [], b.finish(ret([...r.nl.slice(0, nlResults), slotsValue])));
}

/** The tangent half of branch k taking the packed slots and unpacking them first. */
function packedTangent(ops: UnzipOps, h: UnzippedBody, slots: Slots, k: number, packed: Type): Lambda {
  const flat = paddedTangent(ops, h, slots, k);
  const param = binder(ops.b.fresh('slots'), packed);
  const body: Block = { stmts: [unpackS(false, [...flat.nlParams], param.name), ...flat.body.stmts], result: flat.body.result };
  return lambda([param], flat.linParams, body);
}

export function condUnzip(ops: UnzipOps, e: ConstructExpr, results: Sides<Binder>): Expr {
  const { pred, args } = condNames(e);
  const hoisted = hoistLengths(
    ops,
    e,
    e.bodies.map((body) => ops.unzipBody(body)),
    results.nl.length,
  );
  const { halves, operands } = hoisted;
  const slots = assignSlots(
    halves.map((h) => h.residuals),
    ops.flagsAsNumbers,
  );
  if (slots.types.length > MAX_FLAT_SLOTS) {
    const packed = tupleType(slots.types, ops.typeName('slots'));
    const slotsBinder = binder(ops.b.fresh('slots'), packed);
    const primal = halves.map((h, k) => packedPrimal(ops, h, slots, k, results.nl.length, packed));
    ops.b.bind([...results.nl, slotsBinder], [], construct(e.op, [pred, ...args.nl], [], primal));
    const tangent = halves.map((h, k) => hoisted.tangent(k, packedTangent(ops, h, slots, k, packed)));
    return construct(e.op, [pred, slotsBinder.name, ...operands], args.lin, tangent);
  }
  const slotBinders = slots.types.map((t) => binder(ops.b.fresh('res'), t));
  const primal = halves.map((h, k) => paddedPrimal(ops, h, slots, k, results.nl.length));
  // Where every residual became an operand and nothing is returned, a branch that only drops its
  // parameters has nothing to run: no non-linear cond (which would charge the drops).
  const inert = (s: Stmt) => s.tag === 'let' && s.nl.length === 0 && s.lin.length === 0 && ['drop', 'tuple', 'ret', 'lit', 'var'].includes(s.rhs.tag);
  const idle = slotBinders.length === 0 && results.nl.length === 0 && primal.every((l) => l.body.stmts.every(inert));
  if (!idle) ops.b.bind([...results.nl, ...slotBinders], [], construct(e.op, [pred, ...args.nl], [], primal));
  const tangent = halves.map((h, k) => hoisted.tangent(k, paddedTangent(ops, h, slots, k)));
  return construct(e.op, [pred, ...slotBinders.map((s) => s.name), ...operands], args.lin, tangent);
}
