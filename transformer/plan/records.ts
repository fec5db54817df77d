// Arrays of records at the wrapper (docs/frontend.md, "Arrays of records"): the IR holds one
// column per leaf of the element (plan/shapes.ts, recordColumns); the wrapper splits the user's
// array into the columns and joins columns back into records. Both are done by two helpers
// emitted once per module (backend/records.ts), driven by a layout: the element's structure as
// JSON, each leaf naming its column.
import { Shape, recordColumns } from './shapes';
import type { PlanExpr } from './syntax';

type RecordsShape = Extract<Shape, { kind: 'array' }>;

/**
 * The layout of an element shape: `["n", c]` a number in column c, `["r", c, "Float64Array"]`
 * an array of numbers (row of column c's matrix, in that class), `["t", ...]` a tuple,
 * `["o", key, layout, ...]` an object.
 */
export function recordLayout(s: RecordsShape): string {
  let next = 0;
  const go = (x: Shape): unknown => {
    if (x.kind === 'tuple') return ['t', ...x.elems.map(go)];
    if (x.kind === 'object') return ['o', ...x.fields.flatMap(([k, c]) => [k, go(c)])];
    if (x.kind === 'array') return ['r', next++, x.container];
    return ['n', next++];
  };
  return JSON.stringify(go(s.elem));
}

/** `likeIR`: `like` is the IR's columns of the primal (a result's value), not the user's records. */
export function splitRecords(value: PlanExpr, s: RecordsShape, path: string, tangent = false, like?: PlanExpr, likeIR = false): PlanExpr {
  return { tag: 'splitRecords', value, path, layout: recordLayout(s), ...(tangent ? { tangent } : {}), ...(like ? { like } : {}), ...(like && likeIR ? { likeIR } : {}) };
}

export function joinRecords(columns: PlanExpr, s: RecordsShape, like?: PlanExpr, likeIR = false): PlanExpr {
  return { tag: 'joinRecords', columns, layout: recordLayout(s), ...(like ? { like } : {}), ...(like && likeIR ? { likeIR } : {}) };
}

/** The IR's zero of an array of records: each column empty (a matrix column 0 × 0). */
export function recordsZero(s: RecordsShape): PlanExpr {
  const empty: PlanExpr = { tag: 'emptyArray' };
  const zero: PlanExpr = { tag: 'number', value: 0 };
  return { tag: 'array', elems: recordColumns(s).map((c) => (c.kind === 'array' && c.elem.kind === 'array' ? { tag: 'array', elems: [empty, zero, zero] } : empty)) };
}

/** The number of IR leaves (arrays and dimensions) of an array of records' value, as Marshal counts them. */
export function recordsLeafWidth(s: RecordsShape): number[] {
  return recordColumns(s).map((c) => (c.kind === 'array' && c.elem.kind === 'array' ? 3 : 1));
}
