// Arrays (docs/linear-a.md, "Arrays"): the body-less operations (ops.ts) and map (map.ts).
export { len, index, fill, sum, lindex, lonehot, lsum, lfill } from './ops';
export { map, smap } from './map';
export { atmost } from './checks';
