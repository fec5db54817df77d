// reduceByIndex on the GPU (constructs/array/histogram.ts): atomics for + * min max; any other
// body, several histograms or per-element outputs (the residuals of its gradient) walk the
// elements in order (histogramWalk.ts), as do its linear recurrences lhist and lrhist.
import type { Expr, Lambda } from '../../../ir/syntax';
import { atomicUpdate } from '../kernels';
import { AMBIGUOUS_INDEX, countAt, dataIndex, taintCheck } from '../indices';
import { type LoweringOps, NotOnGpu, type Val, asArr, type ConstructLowerings } from '../lowering';
import { filled } from './shared';
import { walkHistogram, walkRecurrence } from './histogramWalk';

/** The operators a histogram runs with atomics: commutative, so that any order gives the CPU's value. */
const HISTOGRAM_OPS: Readonly<Record<string, (a: string, b: string) => string>> = {
  add: (a, b) => `${a} + ${b}`,
  mul: (a, b) => `${a} * ${b}`,
  min: (a, b) => `min(${a}, ${b})`,
  max: (a, b) => `max(${a}, ${b})`,
};

/** The primitive of a body that is exactly `op(h, v)` or `op(v, h)` on its two parameters, if any. */
function binaryBodyOp(l: Lambda): string | undefined {
  const [h, v] = l.nlParams.map((p) => p.name);
  const [s] = l.body.stmts;
  const r = l.body.result;
  if (l.body.stmts.length !== 1 || s.tag !== 'let' || s.rhs.tag !== 'prim' || l.nlParams.length !== 2) return undefined;
  const args = [...s.rhs.args].sort();
  if (args.join() !== [h, v].sort().join() || r.tag !== 'ret' || r.nl.length !== 1 || r.nl[0] !== s.nl[0]?.name) return undefined;
  return s.rhs.op;
}

function reduceByIndexLowering(L: LoweringOps, e: Extract<Expr, { tag: 'construct' }>, nl: readonly Val[], lin: readonly Val[]): Val[] {
  if (lin.length > 0) throw new NotOnGpu(`a ${e.op} with linear operands`);
  const op = binaryBodyOp(e.bodies[0]);
  if (nl.length !== 3 || op === undefined || !HISTOGRAM_OPS[op]) return walkHistogram(L, e, nl, e.op === 'sreduceByIndex');
  const dest = asArr(nl[0], 'a histogram');
  const idx = asArr(nl[1], 'the bins of a histogram');
  const vals = asArr(nl[2], 'the values of a histogram');
  const out = filled(L, dest.len, undefined, (arrays) => `${arrays.bind(dest.id)}[i]`);
  const m = countAt(L.countSlot(dest.len));
  const ambiguous = L.failCheck(AMBIGUOUS_INDEX, -1);
  if (e.op === 'reduceByIndex') {
    const message = `tsad: ${e.op}: indices and values have different lengths`;
    L.reg({ op: 'atmost', a: idx.len, b: vals.len, message });
    L.reg({ op: 'atmost', a: vals.len, b: idx.len, message });
  }
  const count = L.reg({ op: 'min', args: [idx.len, vals.len] });
  const check = L.failCheck(`${e.op}: an index is not an integer`, dest.len);
  L.atomicElementwise(count, out.id, (arrays, target) => {
    const j = `${arrays.bind(idx.id)}[i]`;
    // A bin that is not an integer is the CPU path's error; one outside the histogram is ignored.
    const at = dataIndex(j, m, ambiguous);
    return [
      `if (${j} != floor(${j}) || abs(${j}) == tsad_inf()) { ${check} }`,
      at.check,
      taintCheck(idx, ambiguous),
      `if ${at.ok} {`,
      ...atomicUpdate(target, `u32(${j})`, `${arrays.bind(vals.id)}[i]`, HISTOGRAM_OPS[op]).map((l) => `  ${l}`),
      '}',
    ];
  });
  return [out];
}

export const histogramWgsl = {
  reduceByIndex: reduceByIndexLowering,
  sreduceByIndex: reduceByIndexLowering,
  lhist: walkRecurrence(true),
  lrhist: walkRecurrence(false),
} satisfies ConstructLowerings;
