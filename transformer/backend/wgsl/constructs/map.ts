// map and smap on the GPU (constructs/array/map.ts): one fused elementwise kernel.
import type { Expr } from '../../../ir/syntax';
import { num } from '../prims';
import { MAX_ELEMENTS, countAt, roundedSource, tainted, writtenRounds } from '../indices';
import { type Arr, type Local, type LoweringOps, NotOnGpu, type Val, hostLength, wgslType, type ConstructLowerings } from '../lowering';

function mapLowering(L: LoweringOps, e: Extract<Expr, { tag: 'construct' }>, nl: readonly Val[], lin: readonly Val[]): Val[] {
  if (lin.length > 0) throw new NotOnGpu(`a linear ${e.op}`);
  const [nVal, ...operands] = nl;
  const count = hostLength(nVal, `a ${e.op} over a length`);
  const body = e.bodies[0];
  const hasIndex = body.nlParams.length === nl.length;
  const params = body.nlParams.slice(hasIndex ? 1 : 0);
  const last = hasIndex ? L.reg({ op: 'sub', args: [count, L.lit(1)] }) : undefined;
  const outs: Arr[] = [];
  L.elementwise(count, (k) => {
    const locals: Local[] = [];
    const loads: string[] = [];
    // The index: exact as an i32 (indices.ts), its f32 value where arithmetic needs one.
    if (last !== undefined) locals.push({ code: 'f32(i)', type: 'f32', bound: new Set([last]), int: { code: 'i32(i)', max: MAX_ELEMENTS } });
    operands.forEach((o, j) => {
      const pType = params[j]?.type;
      if (o.kind === 'num') locals.push({ ...L.load(o), bound: o.bound });
      else if (o.kind === 'arr' && pType?.tag === 'array')
        locals.push({ array: k.bind(o.id), len: countAt(L.countSlot(o.len)), bound: o.elemBound, ...(o.taint !== undefined ? { taint: o.taint } : {}) });
      else if (o.kind === 'arr') {
        // A mapped array of reals may be shorter than n (a sparse tangent): past its end, 0.
        // Read once per invocation, however often the body uses it.
        const x = L.name('x');
        loads.push(`let ${x}: f32 = select(0.0, ${k.bind(o.id)}[i], i < ${countAt(L.countSlot(o.len))});`);
        const rounds = o.taint !== undefined ? { rounds: [tainted(o.taint)] } : {};
        locals.push(wgslType(pType) === 'bool' ? { code: `(${x} != 0.0)`, type: 'bool', bound: o.elemBound, ...rounds } : { code: x, type: 'f32', bound: o.elemBound, ...rounds });
      } else throw new NotOnGpu(`a string operand of ${e.op}`);
    });
    const { lines, results } = L.body(body, locals);
    const writes = results.flatMap((r) => {
      if (r.array !== undefined) throw new NotOnGpu(`a ${e.op} whose elements are arrays`);
      const id = L.newArray(count);
      // An element that is, or came from, an integer rounded to f32 taints the array (indices.ts).
      const rounds = writtenRounds(r);
      const taint = rounds.length > 0 ? L.newSlot() : undefined;
      outs.push({ kind: 'arr', id, len: count, elemBound: r.bound, ...(taint !== undefined ? { taint } : {}) });
      return [`${k.bind(id)}[i] = ${num(r)};`, ...(taint !== undefined ? [`if ${roundedSource(rounds)} { S[${taint}] = 1.0; }`] : [])];
    });
    return [...loads, ...lines, ...writes];
  });
  return outs;
}

export const mapWgsl = {
  map: mapLowering,
  smap: mapLowering,
} satisfies ConstructLowerings;
