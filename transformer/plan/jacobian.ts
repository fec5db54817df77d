// jacobian, jacrev, jacfwd: one matrix per differentiated parameter (rows are outputs); several
// wrt give a tuple of them. Rows come from reverse mode (one primal pass, one backward pass per
// output scalar), columns from forward mode (one JVP per input scalar); jacobian picks the mode
// with fewer passes.
import { jacobianRowsOf, jvpOf } from '../ad/drivers';
import { findDef } from '../ir/program';
import { Planner, PlanRequest, checked, paramChecks, wrapperOf } from './request';
import { Marshal, fit, leafCount } from './marshal';
import { Shape, hasArray } from './shapes';
import { CallSitePlan, PlanExpr, PlanStatement, array, callDef, index, name, ret } from './syntax';

/** Does the function take or return an array among the values a Jacobian is about? */
export function withArrays(req: PlanRequest): boolean {
  return hasArray(req.fn.result) || req.wrt.some((w) => hasArray(req.fn.params[w].shape));
}

export const planJacrev: Planner = (req) => {
  if (withArrays(req)) return planJacrevArrays(req);
  const fused = req.driver.forwardGrad ? undefined : planJacrevFused(req);
  if (fused) return fused;
  const { fn, wrt } = req;
  const { m, irArgs } = wrapperOf(fn);
  const rows = leafCount(fn.result);
  const pickParam = (all: PlanExpr, w: number) => (fn.params.length === 1 ? all : index(all, w));
  const v = req.reverse();
  const [value, tape] = [m.fresh('value'), m.fresh('tape')];
  const cotangents = Array.from({ length: rows }, (_, r) => {
    const ct = m.fresh(`cotangent_${r}`);
    return { ct, decl: m.const([ct], callDef(v.bwd, [name(tape), m.basis(fn.result, r)])) };
  });
  const defs = { program: v.program, entries: [v.fwd, v.bwd] };
  const head = [m.const([value, tape], callDef(v.fwd, irArgs)), ...cotangents.map((c) => c.decl)];
  if (req.flat) {
    const entries = cotangents.map(({ ct }) => wrt.flatMap((w) => m.leavesOf(pickParam(name(ct), w), fn.params[w].shape)));
    return flatResult(req, m, defs, storing(m, head, entries), rows, columnsOf(req));
  }
  const matrices = wrt.map((w) => array(cotangents.map(({ ct }) => m.flatten(pickParam(name(ct), w), fn.params[w].shape, 'row'))));
  return result(req, defs, [...head, ...m.takePending()], matrices);
};

/**
 * Rows by reverse mode from one def (ad/drivers.ts, jacobianRowsOf): the primal and every
 * backward pass inlined together, no tape object and no array per backward pass, each entry a
 * local. Undefined where that def cannot be built (a result with a non-number leaf).
 */
function planJacrevFused(req: PlanRequest): CallSitePlan | undefined {
  const { fn, wrt } = req;
  const built = jacobianRowsOf(req.program, fn.name, { ...req.driver, wrt, vjp: req.reverse(true) });
  if (!built) return undefined;
  const { m, irArgs } = wrapperOf(fn);
  const args = fn.params.flatMap((p, i) => (wrt.includes(i) ? m.leaves(name(p.name), p.shape) : [irArgs[i]]));
  const rows = leafCount(fn.result);
  const def = findDef(built.program, built.jacobian);
  const numbers = def.linResults.length === 0 && def.nlResults.length === rows * columnsOf(req) && def.nlResults.every((t) => t.tag === 'real');
  if (req.flat && numbers) {
    // The def's results are the flat Jacobian's entries in order (jacobianRowsOf): it writes them
    // into `out` itself, with no array of 2 × 15 numbers returned per call and copied.
    const fill = (out: string, at: string): PlanStatement[] => [...m.takePending(), { tag: 'callInto', def: built.jacobian, args, into: out, at }];
    return flatResult(req, m, { program: built.program, entries: [], writers: [built.jacobian] }, fill, rows, columnsOf(req));
  }
  // entries[r][k]: row r's scalars of the k-th wrt parameter.
  const entries = Array.from({ length: rows }, (_, r) => wrt.map((w) => m.leafNames(`d${r}_${fn.params[w].name}`, fn.params[w].shape)));
  const head = [...m.takePending(), m.const(entries.flat(2), callDef(built.jacobian, args))];
  const defs = { program: built.program, entries: [built.jacobian] };
  if (req.flat)
    return flatResult(
      req,
      m,
      defs,
      storing(
        m,
        head,
        entries.map((row) => row.flat().map((x) => name(x))),
      ),
      rows,
      columnsOf(req),
    );
  const matrices = wrt.map((_, k) => array(entries.map((row) => array(row[k].map((x) => name(x))))));
  return result(req, defs, head, matrices);
}

export const planJacfwd: Planner = (req) => {
  if (withArrays(req)) return planJacfwdArrays(req);
  const { fn, wrt } = req;
  const { m, irArgs } = wrapperOf(fn);
  const rows = leafCount(fn.result);
  const j = jvpOf(req.program, fn.name, { ...req.driver, inline: true });
  const body: PlanStatement[] = [];
  if (req.flat) {
    // Column by column, each JVP's tangent bound once; entry (r, c) is leaf r of column c.
    const columns = wrt.flatMap((w) =>
      Array.from({ length: leafCount(fn.params[w].shape) }, (_, c) => {
        const column = m.fresh(`column_${fn.params[w].name}_${c}`);
        const tangents = fn.params.map((p, i) => (i === w ? m.basis(p.shape, c) : m.zeros(p.shape)));
        body.push(...m.takePending(), m.const([column], index(callDef(j.jvp, [...irArgs, ...tangents]), 1)));
        return m.leavesOf(name(column), fn.result);
      }),
    );
    const entries = Array.from({ length: rows }, (_, r) => columns.map((col) => col[r]));
    return flatResult(req, m, { program: j.program, entries: [j.jvp] }, storing(m, body, entries), rows, columns.length);
  }
  const matrices = wrt.map((w) => {
    const cols = Array.from({ length: leafCount(fn.params[w].shape) }, (_, c) => {
      const tangents = fn.params.map((p, i) => (i === w ? m.basis(p.shape, c) : m.zeros(p.shape)));
      return m.flatten(index(callDef(j.jvp, [...irArgs, ...tangents]), 1), fn.result, 'column');
    });
    const columns = m.fresh(wrt.length === 1 ? 'columns' : `columns_${fn.params[w].name}`);
    body.push(...m.takePending(), m.const([columns], array(cols)));
    return m.transpose(columns, rows, cols.length);
  });
  return result(req, { program: j.program, entries: [j.jvp] }, body, matrices);
};

/** Reverse mode when the function has fewer outputs than differentiated inputs. */
export const planJacobian: Planner = (req) => {
  // With arrays the sizes are known only at run time: reverse mode for a number, else forward.
  if (withArrays(req)) return req.fn.result.kind === 'number' ? planJacrevArrays(req) : planJacfwdArrays(req);
  const inputs = req.wrt.reduce((n, w) => n + leafCount(req.fn.params[w].shape), 0);
  return leafCount(req.fn.result) < inputs ? planJacrev(req) : planJacfwd(req);
};

/** The number of columns of a flat Jacobian: the scalars of the wrt parameters, side by side. */
function columnsOf(req: PlanRequest): number {
  return req.wrt.reduce((n, w) => n + leafCount(req.fn.params[w].shape), 0);
}

/**
 * `{ data, rows, cols, offset }`: entry (r, c) at data[offset + r·cols + c] of one Float64Array,
 * with no array per row (a Jacobian per observation of a small function, as in bundle
 * adjustment). The caller may pass that array as an argument after the function's, `out`, and
 * reuse it from call to call (a Float64Array allocated per call costs more than the nested arrays
 * it replaces, V8 2026-11), and where in it the entries go, `offset`: a caller assembling many
 * blocks into one array of its own has each written in place, with no copy.
 */
function flatResult(
  req: PlanRequest,
  m: Marshal,
  defs: Pick<CallSitePlan, 'program' | 'entries' | 'writers'>,
  fill: (out: string, offset: string) => PlanStatement[],
  rows: number,
  cols: number,
): CallSitePlan {
  const [out, offset] = [m.fresh('out'), m.fresh('offset')];
  const body: PlanStatement[] = [{ tag: 'output', name: out, offset, length: rows * cols, where: req.where, what: `${rows} rows × ${cols} columns` }, ...fill(out, offset)];
  const num = (value: number): PlanExpr => ({ tag: 'number', value });
  body.push(
    ret({
      tag: 'object',
      fields: [
        ['data', name(out)],
        ['rows', num(rows)],
        ['cols', num(cols)],
        ['offset', name(offset)],
      ],
    }),
  );
  const check: PlanStatement = { tag: 'check', where: req.where, checks: paramChecks(req.fn), optional: 2 };
  return { ...defs, params: [...req.fn.params.map((p) => p.name), out, offset], body: [check, ...body] };
}

/** Fills `out` from the wrapper: `head`, then entry (r, c) stored at offset + r·cols + c. */
function storing(m: Marshal, head: PlanStatement[], entries: PlanExpr[][]): (out: string, offset: string) => PlanStatement[] {
  return (out, at) => {
    const body = [...head, ...m.takePending()];
    entries.forEach((row, r) => row.forEach((value, c) => body.push({ tag: 'store', name: out, at, index: r * row.length + c, value })));
    return body;
  };
}

function result(req: PlanRequest, defs: Pick<CallSitePlan, 'program' | 'entries'>, body: PlanStatement[], matrices: PlanExpr[]): CallSitePlan {
  body.push(ret(matrices.length === 1 ? matrices[0] : array(matrices)));
  return { ...defs, params: req.fn.params.map((p) => p.name), body: checked(req.where, paramChecks(req.fn), body) };
}

// ---- Jacobians of functions with arrays: sizes known only at run time ----
//
// The result is a number or an array of numbers, and so is each differentiated parameter
// (compile.ts rejects other shapes with arrays in them). Rows and columns are built by
// `Array.from({ length }, ...)` over run-time lengths; the one-hot seeds are sparse IR arrays.

type Side = { readonly shape: Shape; readonly value: PlanExpr };

/** The scalars of a user-side value of a flat shape (a number or an array of numbers), as a number[]. */
function flatRow(ir: PlanExpr, side: Side): PlanExpr {
  if (side.shape.kind === 'number') return array([ir]);
  return fit(ir, { kind: 'array', container: 'Array', elem: { kind: 'number' } }, side.value);
}

/** How many scalars a value of a flat shape holds. */
function sizeOf(side: Side): PlanExpr {
  return side.shape.kind === 'number' ? { tag: 'number', value: 1 } : { tag: 'length', of: side.value };
}

/** The seed of scalar `k` of a flat shape: 1, or the one-hot IR array e_k. */
function seed(shape: Shape, k: PlanExpr): PlanExpr {
  return shape.kind === 'number' ? { tag: 'number', value: 1 } : { tag: 'oneHot', index: k };
}

export const planJacrevArrays: Planner = (req) => {
  const { fn, wrt } = req;
  const { m, irArgs } = wrapperOf(fn);
  const v = req.reverse();
  const [value, tape, cts, r] = [m.fresh('value'), m.fresh('tape'), m.fresh('cotangents'), m.fresh('r')];
  const out: Side = { shape: fn.result, value: name(value) };
  const pick = (all: PlanExpr, w: number) => (fn.params.length === 1 ? all : index(all, w));
  const body: PlanStatement[] = [
    m.const([value, tape], callDef(v.fwd, irArgs)),
    m.const([cts], { tag: 'rows', count: sizeOf(out), index: r, body: callDef(v.bwd, [name(tape), seed(fn.result, name(r))]) }),
  ];
  const matrices = wrt.map((w) => {
    const k = m.fresh('k');
    const param: Side = { shape: fn.params[w].shape, value: name(fn.params[w].name) };
    return { tag: 'rows', count: sizeOf(out), index: k, body: flatRow(pick({ tag: 'at', of: name(cts), index: name(k) }, w), param) } as PlanExpr;
  });
  return result(req, { program: v.program, entries: [v.fwd, v.bwd] }, body, matrices);
};

export const planJacfwdArrays: Planner = (req) => {
  const { fn, wrt } = req;
  const { m, irArgs } = wrapperOf(fn);
  const j = jvpOf(req.program, fn.name, { ...req.driver, inline: true });
  const value = m.fresh('value');
  const out: Side = { shape: fn.result, value: name(value) };
  // The value gives the number of rows (and the length each column is padded to).
  const body: PlanStatement[] = [m.const([value], index(callDef(j.jvp, [...irArgs, ...fn.params.map((p) => m.zeros(p.shape))]), 0))];
  const matrices = wrt.map((w) => {
    const p = fn.params[w];
    const param: Side = { shape: p.shape, value: name(p.name) };
    const [c, i, k] = [m.fresh('c'), m.fresh('i'), m.fresh('k')];
    const tangents = fn.params.map((q, n) => (n === w ? seed(q.shape, name(c)) : m.zeros(q.shape)));
    const columns = m.fresh(wrt.length === 1 ? 'columns' : `columns_${p.name}`);
    body.push(m.const([columns], { tag: 'rows', count: sizeOf(param), index: c, body: flatRow(index(callDef(j.jvp, [...irArgs, ...tangents]), 1), out) }));
    const entry: PlanExpr = { tag: 'at', of: { tag: 'at', of: name(columns), index: name(k) }, index: name(i) };
    return { tag: 'rows', count: sizeOf(out), index: i, body: { tag: 'rows', count: sizeOf(param), index: k, body: entry } } as PlanExpr;
  });
  return result(req, { program: j.program, entries: [j.jvp] }, body, matrices);
};
