// cond on the GPU (constructs/cond): both branches' kernels, each under a guard on the predicate's slot.
import type { Expr } from '../../../ir/syntax';
import { num } from '../prims';
import { countAt } from '../indices';
import { type Bound, type Env, type LoweringOps, NotOnGpu, type Val, asNum, union, type ConstructLowerings } from '../lowering';

function fail(what: string): never {
  throw new NotOnGpu(what);
}

function condLowering(L: LoweringOps, e: Extract<Expr, { tag: 'construct' }>, nl: readonly Val[], lin: readonly Val[], env: Env): Val[] {
  if (lin.length > 0 || e.bodies.length !== 2) throw new NotOnGpu('a cond with linear operands or more than two branches');
  const [predVal, ...operands] = nl;
  const pred = asNum(predVal, 'a condition');
  const slot = L.slotOf(pred);
  type Out = { kind: 'num'; slot: number; bounds: Bound[] } | { kind: 'arr'; id: number; lenSlot: number; lens: number[]; bounds: Bound[]; copies: { threads: number }[] };
  let outs: Out[] | undefined;
  // A branch the GPU cannot run yet, under a test known on the host (a length comparison: the
  // CPU path's gather of a longer array's first n elements), is a run-time error where it is
  // taken, checked before any kernel runs; the other branch gives the results.
  const refused: (NotOnGpu | undefined)[] = [];
  e.bodies.forEach((branch, b) => {
    try {
      lowerBranch(branch, b);
    } catch (err) {
      if (!(err instanceof NotOnGpu) || pred.reg === undefined || refused.length > 0) throw err;
      refused[b] = err;
    }
  });
  if (outs === undefined) throw refused.find((r) => r !== undefined) ?? new NotOnGpu('a cond');
  refused.forEach((err, b) => {
    if (!err) return;
    // Branch 0 runs where the test is 1: refuse 1 ≤ test; branch 1 where it is 0: refuse test < 1.
    const [a, limit] = b === 0 ? [pred.reg!, L.lit(0)] : [L.lit(1), pred.reg!];
    L.reg({ op: 'atmost', a, b: limit, message: `tsad/webgpu: ${err.message} is not on the GPU yet; this call needs it` });
  });
  return finish();

  function lowerBranch(branch: (typeof e.bodies)[number], b: number): void {
    L.withGuard({ slot, when: b === 0 }, () => {
      const inner = new Map(env);
      branch.nlParams.forEach((p, i) => inner.set(p.name, operands[i]));
      const rs = L.block(branch.body, inner);
      outs ??= rs.map((r) =>
        r.kind === 'num'
          ? { kind: 'num', slot: L.newSlot(), bounds: [] }
          : r.kind === 'arr'
            ? { kind: 'arr', id: L.newArray(-1), lenSlot: L.newCountSlot(), lens: [], bounds: [], copies: [] }
            : fail('a cond that returns a string'),
      );
      rs.forEach((r, j) => {
        const o = outs![j];
        if (o.kind === 'num' && r.kind === 'num') {
          o.bounds.push(r.bound);
          L.scalarLine(() => `S[${o.slot}] = ${num(L.load(r))};`);
        } else if (o.kind === 'arr' && r.kind === 'arr') {
          o.lens.push(r.len);
          o.bounds.push(r.elemBound);
          const src = countAt(L.countSlot(r.len));
          // Over the output's length (known once both branches are lowered): past the branch's
          // result, zeros (a shorter sparse tangent).
          o.copies.push(L.elementwiseOver(o.lenSlot, (k) => [`${k.bind(o.id)}[i] = select(0.0, ${k.bind(r.id)}[i], i < ${src});`]));
        } else fail('a cond whose branches return different kinds of values');
      });
    });
  }

  function finish(): Val[] {
    return outs!.map((o) => {
      if (o.kind === 'num') return { kind: 'num', slot: o.slot, bool: false, bound: union(...o.bounds) };
      const len = L.reg({ op: 'max', args: o.lens });
      L.arrays[o.id].length = len;
      L.counts.push([len, o.lenSlot]);
      for (const c of o.copies) c.threads = len;
      return { kind: 'arr', id: o.id, len, elemBound: union(...o.bounds) };
    });
  }
}

export const condWgsl = {
  cond: condLowering,
} satisfies ConstructLowerings;
