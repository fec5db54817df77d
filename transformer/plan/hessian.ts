// hessian and hvp: forward over reverse. One fused def computes a Hessian-vector product H·v
// for a direction per parameter; hvp calls it once, hessian once per scalar of each wrt.
import { fuse, hvpOf } from '../ad/drivers';
import { Planner, PlanRequest, callerParams, checked, paramChecks, shownName, wrapperOf } from './request';
import { Marshal, fit, leafCount, specOf, tupleSpec } from './marshal';
import { hasArray } from './shapes';
import { CallSitePlan, PlanExpr, PlanStatement, array, callDef, index, name, ret } from './syntax';

/**
 * The Hessian-vector def, shared by the module's hvp and hessian of the same parameters. It
 * returns H·v in the wrt parameters only (not in data arrays beside them); `at(i)` is where
 * parameter i's part is among its results, `single` when there is one (returned as it is). It
 * takes the directions of the wrt parameters only, in parameter order (`along`): the others would
 * be zeros it never reads.
 */
function hvpDef(req: PlanRequest): Pick<CallSitePlan, 'program' | 'entries'> & { at: (i: number) => number; single: boolean; along: (dirs: PlanExpr[]) => PlanExpr[] } {
  const { fn, wrt } = req;
  const every = wrt.length === fn.params.length && wrt.every((w, i) => w === i);
  const h = hvpOf(req.program, fn.name, req.driver, every ? undefined : wrt);
  return {
    program: fuse(h.program, h.hvp, req.driver),
    entries: [h.hvp],
    at: (i) => (every ? i : wrt.indexOf(i)),
    single: every ? fn.params.length === 1 : wrt.length === 1,
    along: (dirs) => dirs.filter((_, i) => wrt.includes(i)),
  };
}

/** Parameter i's part of an H·v the def returned. */
const partOf = (defs: ReturnType<typeof hvpDef>, hv: PlanExpr, i: number): PlanExpr => (defs.single ? hv : index(hv, defs.at(i)));

/** hvp(f)(...x, v): v has the gradient's shape, one direction or a tuple of them for several wrt. */
export const planHvp: Planner = (req) => {
  const { fn, wrt } = req;
  // H·v may be v itself (f = ½|x|²): the caller gets an array of its own.
  const { m, irArgs } = wrapperOf(fn, true);
  const defs = hvpDef(req);
  const call = (dirs: PlanExpr[]) => callDef(defs.entries[0], [...irArgs, ...defs.along(dirs)]);
  const single = wrt.length === 1;
  // The direction is `v` unless the function has a parameter of that name.
  const v = fn.params.some((p) => p.name === 'v') ? m.fresh('v') : 'v';
  const dirOf = (k: number) => (single ? name(v) : index(name(v), k));
  const dirs = fn.params.map((p, i) => (wrt.includes(i) ? m.tangentToIR(dirOf(wrt.indexOf(i)), p.shape) : m.zeros(p.shape)));
  const lengths = wrt.flatMap((i, k) => m.lengthChecks(req.where, single ? v : `${v}[${k}]`, `'${shownName(fn.params[i])}'`, dirOf(k), name(fn.params[i].name), fn.params[i].shape));
  // H·v comes back in the parameter's shape, its arrays as long as the parameter's.
  const out = (e: PlanExpr, i: number) => m.tangentFromIR(e, fn.params[i].shape, name(fn.params[i].name));
  let body: PlanStatement[];
  if (single) body = [...lengths, ret(out(partOf(defs, call(dirs), wrt[0]), wrt[0]))];
  else {
    const hv = m.fresh('hv');
    body = [...lengths, m.const([hv], call(dirs)), ret(array(wrt.map((i) => out(partOf(defs, name(hv), i), i))))];
  }
  const spec = single ? specOf(fn.params[wrt[0]].shape, true) : tupleSpec(wrt.map((i) => specOf(fn.params[i].shape, true)));
  const checks = [...paramChecks(fn), { label: `argument ${callerParams(fn).length + 1}`, path: v, value: v, spec }];
  return { program: defs.program, entries: defs.entries, params: [...fn.params.map((p) => p.name), v], body: checked(req.where, checks, body) };
};

/**
 * hessian(f): blocks H[a][b] = ∂²f/∂w_a∂w_b from one Hessian-vector product per scalar of each
 * w_b; a single wrt gives the matrix itself.
 */
export const planHessian: Planner = (req) => {
  const { fn, wrt } = req;
  const { m, irArgs } = wrapperOf(fn);
  const defs = hvpDef(req);
  if (hasArray(fn.params[wrt[0]].shape)) return hessianOfArray(req, m, irArgs, defs);
  const body: PlanStatement[] = [];
  // One call per scalar of each wrt, with the basis direction at it and zeros elsewhere.
  const calls = wrt.flatMap((wb) => Array.from({ length: leafCount(fn.params[wb].shape) }, (_, c) => ({ wb, c, dirs: fn.params.map((p, i) => (i === wb ? m.basis(p.shape, c) : m.zeros(p.shape))) })));
  // What two or more calls pass alike (a record parameter as the IR's tuple, a zero direction) is built once.
  const uses = new Map<string, number>();
  for (const { dirs } of calls) for (const e of [...irArgs, ...defs.along(dirs)]) uses.set(JSON.stringify(e), (uses.get(JSON.stringify(e)) ?? 0) + 1);
  const bound = new Map<string, PlanExpr>();
  const once = (e: PlanExpr, base: string): PlanExpr => {
    const key = JSON.stringify(e);
    if (e.tag === 'name' || e.tag === 'number' || (uses.get(key) ?? 0) < 2) return e;
    let local = bound.get(key);
    if (!local) {
      const n = m.fresh(base);
      body.push(m.const([n], e));
      local = name(n);
      bound.set(key, local);
    }
    return local;
  };
  const args = irArgs.map((e, i) => once(e, fn.params[i].name));
  const hvs = wrt.map((wb) =>
    calls
      .filter((k) => k.wb === wb)
      .map(({ c, dirs }) => {
        const hv = m.fresh(`hv_${fn.params[wb].name}_${c}`);
        body.push(m.const([hv], callDef(defs.entries[0], [...args, ...defs.along(dirs).map((d) => once(d, 'zero'))])));
        return hv;
      }),
  );
  const block = (a: number, b: number) => {
    const wa = wrt[a];
    // Column c of the block is the w_a part of H·e_c; rows are the scalars of w_a.
    const columns = hvs[b].map((hv) => m.flatten(partOf(defs, name(hv), wa), fn.params[wa].shape, 'part'));
    // A diagonal block is symmetric: its columns are its rows.
    if (a === b) return array(columns);
    const local = m.fresh(`columns_${a}_${b}`);
    body.push(...m.takePending(), m.const([local], array(columns)));
    return m.transpose(local, leafCount(fn.params[wa].shape), columns.length);
  };
  const blocks = wrt.map((_, a) => wrt.map((__, b) => block(a, b)));
  // The temporaries of the last diagonal blocks, which no off-diagonal block declared.
  body.push(...m.takePending(), ret(blocks.length === 1 ? blocks[0][0] : array(blocks.map((row) => array(row)))));
  return { program: defs.program, entries: defs.entries, params: fn.params.map((p) => p.name), body: checked(req.where, paramChecks(fn), body) };
};

/**
 * The Hessian in one array parameter (compile.ts allows one wrt with arrays): column c is H·e_c,
 * for c below the parameter's run-time length; the matrix is symmetric, so its columns are its rows.
 */
function hessianOfArray(req: PlanRequest, m: Marshal, irArgs: PlanExpr[], defs: ReturnType<typeof hvpDef>): CallSitePlan {
  const { fn } = req;
  const w = req.wrt[0];
  const p = fn.params[w];
  const c = m.fresh('c');
  const along = (dir: PlanExpr) => callDef(defs.entries[0], [...irArgs, ...defs.along(fn.params.map((q, i) => (i === w ? dir : m.zeros(q.shape))))]);
  const hv = along({ tag: 'oneHot', index: name(c) });
  const column = fit(partOf(defs, hv, w), { kind: 'array', container: 'Array', elem: { kind: 'number' } }, name(p.name));
  // An empty parameter has no column, so no H·e_c would run, nor the function's checks with it:
  // one H·0 runs them, and the Hessian fails where valueAndGrad does (fuzz23-findings O3), as
  // JAX's, which traces the function whatever the shapes, and Swift's, which runs it, do.
  const none = along(m.zeros(p.shape));
  const body: PlanStatement[] = [ret({ tag: 'rows', count: { tag: 'length', of: name(p.name) }, index: c, body: column, ifNone: none })];
  return { program: defs.program, entries: defs.entries, params: fn.params.map((q) => q.name), body: checked(req.where, paramChecks(fn), body) };
}
