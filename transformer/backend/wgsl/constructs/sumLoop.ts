// A counted loop that is a sum (backend/wgsl/sumLoop.ts says when: `s += term(i)`, GradBench
// llsq's outer loop; a gradient's forward loop that puts its residuals at record i) on many
// threads: invocation i runs iteration i's body (with any inner loops, as sequential code on its
// own thread), writes its records and leaves its terms; a hierarchical reduction adds them up,
// and the carried values' initial values are added last. The elementwise kernel runs inside
// the reduction's first pass, so the loop costs the dispatches of a sum. The terms are added in a
// tree, not in the loop's order: the f32 result may differ from one thread's in the last bits.
// Where the body cannot run without the heap (a stack, a local array) or the trip count is known
// only on the device, this rule refuses before it emits anything and the loop runs sequentially.
import type { Expr } from '../../../ir/syntax';
import type { KernelArrays, LoweringOps, Val, ConstructLowerings } from '../lowering';
import { NotOnGpu, asNum, hostLength } from '../lowering';
import { f32Of, snum, type SVal } from '../seqLowering';
import { lowerPerThread } from '../sequential';
import { sumLoopOf } from '../sumLoop';
import type { Combine } from '../kernels';

const unbound: KernelArrays = { bind: () => 'A0' };

function sumLoopWgsl(L: LoweringOps, e: Extract<Expr, { tag: 'construct' }>, nl: readonly Val[], lin: readonly Val[], env: Map<string, Val>): Val[] {
  if (lin.length > 0) throw new NotOnGpu('a loop with linear operands');
  const body = e.bodies[0];
  const [count, ...rest] = nl;
  const invariantCount = rest.length - resultCountOf(body.body.result);
  const shape = sumLoopOf(body, invariantCount);
  if (typeof shape === 'string') throw new NotOnGpu(shape);
  const n = hostLength(count, 'a loop whose trip count is computed on the device');
  const invariant = rest.slice(0, invariantCount);
  const inits = rest.slice(invariantCount).map((v) => asNum(v, 'a carried value'));
  const summed = shape.carries.flatMap((c, j) => (c.kind === 'sum' ? [j] : []));
  const puts = shape.carries.flatMap((c, j) => (c.kind === 'put' ? [j] : []));
  /**
   * The iteration's terms as WGSL, from its index, after the lines that write its records (the
   * updated carries are never read: 0.0 stands in for a sum's, a stack's handle for a put's).
   */
  const iteration = (arrays: KernelArrays, index: string) =>
    lowerPerThread(L, arrays, env, (S, fromVal) => {
      const outer = invariant.map((v) => fromVal(v));
      const carries = shape.carries.map((c, j): SVal => (c.kind === 'sum' ? { kind: 'num', code: '0.0', type: 'f32' } : fromVal(inits[j])));
      const out = S.apply(shape.terms, [{ kind: 'num', code: index, type: 'f32' }, ...outer, ...carries], new Map());
      puts.forEach((j, p) => {
        // Record i of the stack: the same place put's sequential lowering writes (constructs/seq/stack.ts), one thread each.
        const value = f32Of(snum(out[summed.length + p], 'a value put on a stack (a tuple)'));
        const at = S.bind(`${S.load(snum(carries[j], 'a stack').code)} + ${index}`);
        S.line(`if (${at} < f32(arrayLength(&${S.heap}))) { ${S.heap}[u32(${at})] = ${value}; }`);
      });
      return out.slice(0, summed.length).map((t) => f32Of(snum(t, 'a term of a sum')));
    });
  // A dry run: what the body cannot do on many threads throws here, before any kernel exists.
  iteration(unbound, '0.0');
  // ceil(n) trips for n > 0, none for n ≤ 0 or NaN: the `i < n` of the CPU path.
  const trips = L.reg({ op: 'fn', fn: 'select', args: [L.reg({ op: 'fn', fn: 'gt', args: [n, L.lit(0)] }), L.reg({ op: 'fn', fn: 'ceil', args: [n] }), L.lit(0)] });
  const termArrays = summed.map(() => L.newArray(trips));
  // Records written at heap addresses: no other elementwise body may join this kernel (its reads
  // of the heap would race with these writes), so scalar code closes the open kernels around it.
  const barrier = () => {
    if (puts.length > 0) L.scalarLine(() => '// (the records of a loop run on many threads)');
  };
  barrier();
  L.elementwise(trips, (arrays) => {
    const { lines, value } = iteration(arrays, 'f32(i)');
    return ['{', ...lines, ...value.map((t, j) => `${arrays.bind(termArrays[j])}[i] = ${t};`), '}'];
  });
  barrier();
  const results = inits.map((init): Val => init);
  if (summed.length === 0) return results;
  // One reduction for all the sums: their terms are its k inputs.
  const sums = summed.map(() => L.newSlot());
  const c: Combine = { k: summed.length, lines: [], results: summed.map((_, j) => `(a${j} + b${j})`) };
  L.reduce(
    c,
    summed.map(() => '0.0'),
    sums,
    termArrays.map((id) => ({ kind: 'arr', id, len: trips, elemBound: undefined })),
    trips,
  );
  return results.map((init, j) => {
    const at = summed.indexOf(j);
    if (at < 0) return init;
    const slot = L.newSlot();
    L.scalarLine(() => `S[${slot}] = ${L.load(inits[j]).code} + S[${sums[at]}];`);
    return { kind: 'num', slot, bool: false, bound: undefined };
  });
}

const resultCountOf = (r: Expr): number => (r.tag === 'ret' ? r.nl.length + r.lin.length : 1);

export const sumLoopWgslTable = { loop: sumLoopWgsl } satisfies ConstructLowerings;
