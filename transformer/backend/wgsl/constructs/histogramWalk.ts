// reduceByIndex with any body (a lambda, several histograms, per-element outputs: the residuals
// U hands its adjoint) and its linear recurrences lhist and lrhist (constructs/array/histogram.ts)
// on the GPU, as one invocation that walks the elements in the CPU path's order.
//
// Why a walk: each element's outputs and each step of the recurrences read the bin's value just
// before that element, a running value per bin in index order (a segmented scan by bin). The
// parallel form needs the elements grouped by bin in index order, a stable sort by bin (a radix
// sort: one scan per digit) before a segmented scan; atomics alone give no order. The walk is
// O(n + M) work on one invocation: exact in the CPU's order (ties go where the CPU sends them,
// a product's zeros need no division), and slow for long arrays on a real GPU. The common
// cases keep parallel forms: a plain + * min max histogram with no per-element outputs is the
// atomic kernel of histogram.ts, and an lrhist whose transposed step is the identity (the
// adjoint of a sum histogram) is a gather (below).
import type { Expr, Lambda } from '../../../ir/syntax';
import { scalarKernel } from '../kernels';
import { type Typed, num } from '../prims';
import { type Arr, type KernelArrays, type Local, type LoweringOps, NotOnGpu, type Val, asArr, hostLength } from '../lowering';
import { filled } from './shared';
import { AMBIGUOUS_INDEX, countAt, dataIndex, taintCheck } from '../indices';

/** Elements a dispatch of a walk takes (llvmpipe stops an invocation after 65535 loop trips). */
const WALK_CHUNK = 32768;

/** The number of results a body returns, or -1. */
const bodyResults = (l: Lambda): number => (l.body.result.tag === 'ret' ? l.body.result.nl.length + l.body.result.lin.length : -1);

const lit = (code: string): Local => ({ code, type: 'f32', bound: undefined });

/** Element `index` (WGSL u32) of `a`, 0 past its end (a sparse operand). */
const elem = (L: LoweringOps, arrays: KernelArrays, a: Arr, index: string): string => `select(0.0, ${arrays.bind(a.id)}[${index}], ${index} < ${countAt(L.countSlot(a.len))})`;

/** `a` padded (or cut) to `count` elements (a host register). */
const padded = (L: LoweringOps, a: Arr, count: number): Arr => filled(L, count, undefined, (arrays) => elem(L, arrays, a, 'i'));

/**
 * The body's results as f32 WGSL, refusing arrays (a body whose elements are arrays): each bound
 * to a `let` first, since a result may be a parameter's text (a bin read), which the step's
 * writes change.
 */
function scalarResults(L: LoweringOps, results: readonly Local[], what: string, lines: string[]): string[] {
  return results.map((r) => {
    if (r.array !== undefined) throw new NotOnGpu(`${what} whose body returns arrays`);
    const name = L.name('r');
    lines.push(`let ${name}: f32 = ${num(r as Typed)};`);
    return name;
  });
}

/** What one walk runs: k histograms (M each) updated per element, from per-element inputs, writing per-element outputs. */
interface WalkSpec {
  /** The histograms' starting values, each read as M long (0 past its end). */
  readonly hists: readonly Arr[];
  /** Arrays read at each element i (0 past their end). */
  readonly inputs: readonly Arr[];
  /** The number of per-element outputs (0 where an element's bin is outside). */
  readonly outputs: number;
  /** The step, given the WGSL of the bin's k values and of the element's inputs: its lines and its k + outputs results. */
  readonly step: (hists: readonly Local[], inputs: readonly Local[]) => { lines: string[]; results: Local[] };
}

/**
 * One walk: for each i of `idx` (ascending, or descending when `backward`) whose bin b is in
 * 0 … M − 1, the step on the bin's values and the element's inputs. A bin that is not an integer
 * is the CPU path's error (`check`: the call rejects after the readback).
 *
 * The walk's kernel binds five buffers whatever the body: the histograms, the inputs and the
 * outputs each go into one buffer, interleaved (element i's j-th at i·w + j), by parallel
 * kernels before and after it. A buffer per operand was the alternative; a second-order
 * program's walk then bound 19, past llvmpipe's 16 and WebGPU's default 8. WALK_CHUNK elements
 * a dispatch, the walk's place kept in a slot (0 at the call's start).
 */
function walk(L: LoweringOps, idx: Arr, m: number, backward: boolean, check: string | undefined, spec: WalkSpec): { hists: Arr[]; outputs: Arr[] } {
  const n = idx.len;
  const k = spec.hists.length;
  const w = spec.inputs.length;
  const q = spec.outputs;
  const packed = (count: number, width: number) => (width > 0 ? L.newArray(L.reg({ op: 'mul', args: [count, L.lit(width)] })) : undefined);
  const H = packed(m, k)!;
  const P = packed(n, w);
  const O = packed(n, q);
  // Interleave (parallel): element i's j-th value at i·width + j.
  const pack = (count: number, into: number, from: readonly Arr[]) =>
    L.elementwise(count, (arrays) => from.map((a, j) => `${arrays.bind(into)}[i * ${from.length}u + ${j}u] = ${elem(L, arrays, a, 'i')};`));
  pack(m, H, spec.hists);
  if (P !== undefined) pack(n, P, spec.inputs);
  const ids: number[] = [];
  const arrays: KernelArrays = {
    bind(id) {
      if (!ids.includes(id)) ids.push(id);
      return `A${ids.indexOf(id)}`;
    },
  };
  const h = Array.from({ length: k }, (_, j) => `${arrays.bind(H)}[b * ${k}u + ${j}u]`);
  const x = Array.from({ length: w }, (_, j) => lit(`${arrays.bind(P!)}[i * ${w}u + ${j}u]`));
  const o = Array.from({ length: q }, (_, j) => `${arrays.bind(O!)}[i * ${q}u + ${j}u]`);
  const { lines, results } = spec.step(h.map(lit), x);
  if (results.length !== k + q) throw new NotOnGpu('a reduceByIndex body with results of other kinds');
  const codes = scalarResults(L, results, 'a reduceByIndex', lines);
  const cursor = L.newSlot();
  const body = [
    `let wn = ${countAt(L.countSlot(n))};`,
    `let wm = ${countAt(L.countSlot(m))};`,
    `let w0 = u32(S[${cursor}]);`,
    `let wend = min(wn, w0 + ${WALK_CHUNK}u);`,
    'for (var r = w0; r < wend; r = r + 1u) {',
    `  let i = ${backward ? 'wn - 1u - r' : 'r'};`,
    `  let jf = ${arrays.bind(idx.id)}[i];`,
    ...(check ? [`  if (jf != floor(jf) || abs(jf) == tsad_inf()) { ${check} }`] : []),
    `  ${dataIndex('jf', 'wm', L.failCheck(AMBIGUOUS_INDEX, -1)).check}`,
    `  ${taintCheck(idx, L.failCheck(AMBIGUOUS_INDEX, -1))}`,
    `  if ${dataIndex('jf', 'wm', '').ok} {`,
    '    let b = u32(jf);',
    ...lines.map((l) => `    ${l}`),
    ...h.map((x, j) => `    ${x} = ${codes[j]};`),
    ...o.map((x, j) => `    ${x} = ${codes[k + j]};`),
    ...(q > 0 ? ['  } else {', ...o.map((x) => `    ${x} = 0.0;`)] : []),
    '  }',
    '}',
    // Exact: a multiple of WALK_CHUNK, or the end (rounded maybe, but no dispatch of this walk follows).
    `S[${cursor}] = f32(wend);`,
  ];
  L.device((kernel) => ({ op: 'scalar', kernel, arrays: ids, sweep: { count: n, per: WALK_CHUNK } }), scalarKernel(ids.length, L.guarded, body));
  // Out of the interleaved buffers (parallel).
  const unpack = (count: number, from: number, width: number): Arr[] => {
    const outs = Array.from({ length: width }, () => L.newArray(count));
    if (width > 0) L.elementwise(count, (arrays) => outs.map((id, j) => `${arrays.bind(id)}[i] = ${arrays.bind(from)}[i * ${width}u + ${j}u];`));
    return outs.map((id): Arr => ({ kind: 'arr', id, len: count, elemBound: undefined }));
  };
  return { hists: unpack(m, H, k), outputs: O === undefined ? [] : unpack(n, O, q) };
}

/** reduceByIndex(d̄ests, idx, v̄als) [body] with any body: k histograms, then the per-element outputs (0 where an element's bin is outside). */
export function walkHistogram(L: LoweringOps, e: Extract<Expr, { tag: 'construct' }>, nl: readonly Val[], sparse: boolean): Val[] {
  const k = (nl.length - 1) / 2;
  const body = e.bodies[0];
  const total = bodyResults(body);
  if (!Number.isInteger(k) || k < 1 || total < k) throw new NotOnGpu(`a ${e.op} of this shape`);
  const dests = nl.slice(0, k).map((v) => asArr(v, 'a histogram'));
  const idx = asArr(nl[k], 'the bins of a histogram');
  const vals = nl.slice(k + 1).map((v) => asArr(v, 'the values of a histogram'));
  const m = dests[0].len;
  const n = idx.len;
  for (const [j, a] of [...dests.slice(1), ...vals].entries()) {
    const of = j < k - 1 ? m : n;
    const what = j < k - 1 ? `tsad: ${e.op}: a destination differs in length from the first` : `tsad: ${e.op}: indices and values have different lengths`;
    L.reg({ op: 'atmost', a: a.len, b: of, message: what });
    if (!sparse) L.reg({ op: 'atmost', a: of, b: a.len, message: what });
  }
  const check = L.failCheck(`${e.op}: an index is not an integer`, m);
  const r = walk(L, idx, m, false, check, { hists: dests, inputs: vals, outputs: total - k, step: (h, x) => L.body(body, [...h, ...x]) });
  return [...r.hists, ...r.outputs];
}

/**
 * lhist(M, idx, s̄ ; ḋ̄, v̇̄) (forward) and lrhist(M, idx, s̄ ; h̄̄) (backward), erased (every operand
 * non-linear): the residual arrays come before the last 2k (forward) or k (backward) operands.
 */
export function walkRecurrence(forward: boolean) {
  return (L: LoweringOps, e: Extract<Expr, { tag: 'construct' }>, nl: readonly Val[], lin: readonly Val[]): Val[] => {
    if (lin.length > 0) throw new NotOnGpu(`a linear ${e.op} with linear operands`);
    const body = e.bodies[0];
    const total = bodyResults(body);
    const k = forward ? total : total / 2;
    if (!Number.isInteger(k) || k < 1) throw new NotOnGpu(`a ${e.op} of this shape`);
    const m = hostLength(nl[0], `a ${e.op} of a length`);
    const idx = asArr(nl[1], `the bins of ${e.op}`);
    const r = nl.length - 2 - (forward ? 2 * k : k);
    const residuals = nl.slice(2, 2 + r).map((v) => asArr(v, `a residual of ${e.op}`));
    const ops = nl.slice(2 + r).map((v) => asArr(v, `an operand of ${e.op}`));
    if (!forward && k === 1) {
      const h = padded(L, ops[0], m);
      const gathered = identityGather(L, body, residuals.length, h, idx, m);
      if (gathered) return [h, gathered];
    }
    // The body's parameters: the residuals, then (forward) the bins' tangents and the values' or (backward) the bins' cotangents.
    const step = (h: readonly Local[], x: readonly Local[]) => L.body(body, forward ? [...x.slice(0, r), ...h, ...x.slice(r)] : [...x, ...h]);
    const out = walk(L, idx, m, !forward, undefined, { hists: ops.slice(0, k), inputs: forward ? [...residuals, ...ops.slice(k)] : residuals, outputs: forward ? 0 : k, step });
    return [...out.hists, ...out.outputs];
  };
}

/**
 * The backward recurrence when its step is (c̄, v̄) = (c̄, c̄) for every element (the adjoint of a
 * sum histogram: the body returns its cotangent parameter twice, whatever the residuals): then
 * d̄ = h̄ and v̄_i = h̄[idx_i] (0 outside), one parallel kernel. Else undefined.
 */
function identityGather(L: LoweringOps, body: Lambda, residuals: number, h: Arr, idx: Arr, m: number): Arr | undefined {
  const marker = 'tsad_cotangent';
  const { lines, results } = L.body(body, [...Array.from({ length: residuals }, () => lit('0.0')), lit(marker)]);
  if (lines.length > 0 || results.length !== 2 || results.some((x) => x.array !== undefined || x.code !== marker)) return undefined;
  const v = L.newArray(idx.len);
  L.elementwise(idx.len, (arrays) => {
    const j = `${arrays.bind(idx.id)}[i]`;
    const at = dataIndex(j, countAt(L.countSlot(m)), L.failCheck(AMBIGUOUS_INDEX, -1));
    return [at.check, taintCheck(idx, L.failCheck(AMBIGUOUS_INDEX, -1)), `${arrays.bind(v)}[i] = select(0.0, ${arrays.bind(h.id)}[u32(max(${j}, 0.0))], ${at.ok});`];
  });
  return { kind: 'arr', id: v, len: idx.len, elemBound: undefined };
}
