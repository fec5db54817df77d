// The construct registry: higher-order constructs (conditionals, loops, maps, scans) with their
// rules side by side, as the primitive registry holds the primitives. Passes reach a construct
// only through `constructRule` and hand it the operations it needs (types.ts); nothing here
// imports a pass. `CONSTRUCTS` maps every `ConstructName` to a complete `ConstructRule`, so
// adding a name makes the compiler list the facets its record lacks.
import { InternalError } from '../ir/syntax';
import type { ConstructExpr, ConstructRule } from './types';
import { cond } from './cond';
import { loop } from './loop';
import { at, lat, lpush, push, size, stack } from './stack';
import { whileLoop } from './while';
import { remat } from './remat';
import { len, index, fill, sum, lindex, lonehot, lsum, lfill, map, smap, scan, sscan, reduce, sreduce, lscan, lfold, lrscan, lrfold, gather, lgather, lscatteradd, scatter, lscatter, lunscatter, reduceByIndex, sreduceByIndex, lhist, lrhist, atmost } from './array';

export type { ConstructExpr, ConstructRule } from './types';

export type ConstructName = 'cond' | 'loop' | 'while' | 'stack' | 'push' | 'at' | 'size' | 'lpush' | 'lat' | 'remat' | 'len' | 'index' | 'fill' | 'sum' | 'lindex' | 'lonehot' | 'lsum' | 'lfill' | 'map' | 'smap' | 'scan' | 'sscan' | 'reduce' | 'sreduce' | 'lscan' | 'lfold' | 'lrscan' | 'lrfold' | 'gather' | 'lgather' | 'lscatteradd' | 'scatter' | 'lscatter' | 'lunscatter' | 'reduceByIndex' | 'sreduceByIndex' | 'lhist' | 'lrhist' | 'atmost';

export const CONSTRUCTS: { readonly [K in ConstructName]: ConstructRule } = Object.freeze({ cond, loop, while: whileLoop, stack, push, at, size, lpush, lat, remat, len, index, fill, sum, lindex, lonehot, lsum, lfill, map, smap, scan, sscan, reduce, sreduce, lscan, lfold, lrscan, lrfold, gather, lgather, lscatteradd, scatter, lscatter, lunscatter, reduceByIndex, sreduceByIndex, lhist, lrhist, atmost });

export const isConstruct = (op: string): op is ConstructName => Object.prototype.hasOwnProperty.call(CONSTRUCTS, op);

export function constructRule(e: ConstructExpr, pass: string): ConstructRule {
  if (!isConstruct(e.op)) throw new InternalError(`${pass}: unknown construct ${e.op}`);
  return CONSTRUCTS[e.op];
}
