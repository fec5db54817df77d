// Appending one element's array (or matrix, or tensor) to a ragged column `(data, starts, dims)`
// of an array of records (records.ts; plan/shapes.ts, raggedColumn): its numbers appended to
// data in a counted loop (in place, as any append), where they start appended to starts, its
// dimensions to dims. `layers.push({ W, b })` and `xs.map((x) => ({ w: [x, 2 * x] }))` build
// their columns this way; the adjoint is append's (each number's cotangent read back from data).
import type * as ts from 'typescript';
import { REAL, binder, construct, lambda, tuple } from '../ir/syntax';
import { NUMBER, irType, raggedLeaf, tensorRank } from './shapes';
import type { ArrayOps, ArraySite } from './arraySite';
import { userName } from './arraySite';
import type { Value } from './values';

/** The ragged column with `leaf` (an array, matrix or tensor of the column's leaf shape) appended. */
export function appendRagged(site: ArraySite, arrays: ArrayOps, column: Value, leaf: Value, node: ts.Node): Value {
  const b = site.b();
  const [data, starts, dims] = site.parts(column);
  const rank = tensorRank(raggedLeaf(column.shape)!);
  const { flat, sizes } = rank === 1 ? { flat: leaf, sizes: [arrays.length(leaf)] } : { flat: site.matrixParts(leaf).data, sizes: site.matrixParts(leaf).dims };
  // Sizes and positions are integers: no derivative flows through them.
  const stop = (v: Value, hint: string): Value => ({ name: b.prim('stop_gradient', [v.name], hint), shape: NUMBER });
  const start = stop(arrays.length(data), 'start');
  const k = binder(b.fresh('k'), REAL);
  const acc = binder(b.fresh('acc'), irType(data.shape));
  const lowered = site.scope(() => [arrays.append({ name: acc.name, shape: data.shape }, arrays.read(flat, { name: k.name, shape: NUMBER }, 'x', node), node)]);
  const closed = arrays.close(lowered.block, new Set([k.name, acc.name]), node, 'loop');
  const count = arrays.length(flat);
  const appended = b.nl('data', construct('loop', [count.name, ...closed.operands, data.name], [], [lambda([k, ...closed.params, acc], [], closed.body)]), irType(data.shape));
  const nextStarts = arrays.append(starts, start, node);
  let nextDims = dims;
  for (const [q, d] of sizes.entries()) nextDims = arrays.append(nextDims, stop(d, `d${q}`), node);
  return { name: b.nl(userName(column.name), tuple(false, [appended, nextStarts.name, nextDims.name]), irType(column.shape)), shape: column.shape };
}
