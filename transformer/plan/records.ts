// Arrays of records at the wrapper (docs/frontend.md, "Arrays of records"): the IR holds one
// column per leaf of the element (plan/shapes.ts, recordColumns); the wrapper splits the user's
// array into the columns and joins columns back into records. Both are done by two helpers
// emitted once per module (backend/records.ts), driven by a layout: the element's structure as
// JSON, each leaf naming its column.
import { Shape, flatShape, raggedLeaf, recordColumns, tensorRank } from './shapes';
import type { PlanExpr } from './syntax';

type RecordsShape = Extract<Shape, { kind: 'array' }>;

/**
 * The layout of an element shape: `["n", c]` a number in column c, `["r", c, "Float64Array", rank]`
 * an array of numbers or a tensor (in ragged column c, its innermost arrays of that class), `["t", ...]` a tuple,
 * `["o", key, layout, ...]` an object.
 */
export function recordLayout(s: RecordsShape): string {
  let next = 0;
  const go = (x: Shape): unknown => {
    if (x.kind === 'tuple') return ['t', ...x.elems.map(go)];
    if (x.kind === 'object') return ['o', ...x.fields.flatMap(([k, c]) => [k, go(c)])];
    if (x.kind === 'array') return ['r', next++, flatShape(x).container, tensorRank(x)];
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

/** The IR's zero of an array of records: each column empty (a ragged column's three arrays). */
export function recordsZero(s: RecordsShape): PlanExpr {
  const empty: PlanExpr = { tag: 'emptyArray' };
  return { tag: 'array', elems: recordColumns(s).map((c) => (raggedLeaf(c) ? { tag: 'array', elems: [empty, empty, empty] } : empty)) };
}

/** The number of IR leaves (arrays) of an array of records' value, as Marshal counts them. */
export function recordsLeafWidth(s: RecordsShape): number[] {
  return recordColumns(s).map((c) => (raggedLeaf(c) ? 3 : 1));
}
