// The passes that run on a finished (erased, non-linear) def just before it is printed, in one
// place so that the backend and the CLI's interpreter run the same program.
import type { FnDef } from '../ir/syntax';
import { holdsConstruct } from '../ir/traverse';
import { storeFirstWrites } from './firstWrites';
import { markInPlace } from './inplace';
import { promoteInvariantAccums } from './invariantAccums';
import { hoistInvariantsAfterAD } from './licm';
import { proveOwnedChains } from './ownedChains';
import { pairAccums } from './pairedAccums';
import { dropZeroAdds } from './zeroAdds';
import type { CalleeCounts } from './sourceDefs';

/**
 * First, what every run of a loop body reads or computes the same leaves the loop (opt/licm.ts:
 * T's backward loops included). Writes into arrays nobody else sees then run in place
 * (opt/inplace.ts): only the emitted code changes memory, the IR before it has value semantics.
 * Adds at a loop-invariant index sum in a local (opt/invariantAccums.ts); a loop's carried
 * cotangent that only accumulations touch is owned once before the loop (opt/ownedChains.ts),
 * not checked at each accumulation (adds of a zero that change no bit gone first, opt/zeroAdds.ts); after that, an add that is the first write of an element of
 * zeros is a store (opt/firstWrites.ts); adds into one element in a row are one update
 * (opt/pairedAccums.ts).
 */
export function prepareForBackend(def: FnDef, callee: CalleeCounts): FnDef {
  // Every one of them rewrites constructs only: a straight-line def is not walked by them.
  if (!holdsConstruct(def.body)) return def;
  const hoisted = hoistInvariantsAfterAD(def, callee);
  return pairAccums(storeFirstWrites(proveOwnedChains(dropZeroAdds(promoteInvariantAccums(markInPlace(hoisted, callee), callee), callee), callee), callee));
}
