// Arrays (docs/linear-a.md, "Arrays"): the body-less operations (ops.ts), map (map.ts), in-place
// accumulation of read cotangents (accum.ts), scan and reduce (scan.ts, reduce.ts, fold.ts) with
// their linear recurrences (linearFold.ts), gather and scatter with their linear pairs (gather.ts,
// scatter.ts), the histogram (histogram.ts), the matrix product and its
// six linear forms (matmul.ts), run-time length checks (checks.ts). One line per construct, so that adding one touches
// only this table.
import type { ConstructRule } from '../types';
import { len, index, fill, sum, lindex, lonehot, lsum, lfill } from './ops';
import { map, smap } from './map';
import { laccum, lpeek, share, claim, laccumw, linitw } from './accum';
import { scan, sscan } from './scan';
import { reduce, sreduce } from './reduce';
import { lscan, lfold, lrscan, lrfold } from './linearFold';
import { atmost, within } from './checks';
import { update, write, lupdate, ltake, lupdatew, ltakew, clone, append, appendw } from './update';
import { gather, lgather, lscatteradd } from './gather';
import { scatter, lscatter, lunscatter } from './scatter';
import { reduceByIndex, sreduceByIndex, lhist, lrhist } from './histogram';
import { matmul, lmatmul_ac, lmatmul_ca, lmatmul_bc, lmatmul_cb, lmatmul_ab, lmatmul_ba } from './matmul';

export const ARRAY_CONSTRUCTS = {
  len,
  index,
  fill,
  sum,
  lindex,
  lonehot,
  lsum,
  lfill,
  map,
  smap,
  laccum,
  lpeek,
  share,
  claim,
  laccumw,
  linitw,
  scan,
  sscan,
  reduce,
  sreduce,
  lscan,
  lfold,
  lrscan,
  lrfold,
  atmost,
  within,
  gather,
  lgather,
  lscatteradd,
  scatter,
  lscatter,
  lunscatter,
  reduceByIndex,
  sreduceByIndex,
  lhist,
  lrhist,
  matmul,
  lmatmul_ac,
  lmatmul_ca,
  lmatmul_bc,
  lmatmul_cb,
  lmatmul_ab,
  lmatmul_ba,
  update,
  write,
  lupdate,
  ltake,
  lupdatew,
  ltakew,
  clone,
  append,
  appendw,
} as const satisfies Record<string, ConstructRule>;
