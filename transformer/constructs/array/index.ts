// Arrays (docs/linear-a.md, "Arrays"): the body-less operations (ops.ts), map (map.ts), scan and
// reduce (scan.ts, reduce.ts, fold.ts) with their linear recurrences (linearFold.ts), gather and
// scatter with their linear pairs (gather.ts, scatter.ts), the histogram (histogram.ts).
export { len, index, fill, sum, lindex, lonehot, lsum, lfill } from './ops';
export { map, smap } from './map';
export { scan, sscan } from './scan';
export { reduce, sreduce } from './reduce';
export { lscan, lfold, lrscan, lrfold } from './linearFold';
export { gather, lgather, lscatteradd } from './gather';
export { scatter, lscatter, lunscatter } from './scatter';
export { reduceByIndex, sreduceByIndex, lhist, lrhist } from './histogram';
export { atmost } from './checks';
