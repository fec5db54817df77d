// The two helpers that convert tensors of rank 3 and more (number[][][], Float64Array[][], ...;
// docs/frontend.md, "Tensors") at the wrapper, emitted once per module that needs them, as plain
// functions (no import). Matrices keep their own pair (matrices.ts, matrixHelpers).
//
//   tsad$packTensor(t, path, rank, where, tangent, like)  the user's nested arrays -> the IR's
//       [data (Float64Array, row-major), d0, …, d(rank−1)]; the dimensions are the first
//       element's at each depth, and every array at a depth must be as long as them (a
//       RangeError naming the index path, `t[1][0]`); every number is checked (a TypeError). A
//       tangent (`tangent`) has dimensions 0 and, with `like` (the user's primal or the IR's
//       value of one), must be as large as it.
//   tsad$unpackTensor(data, like, rank, Row)  the IR's flat data as new nested arrays of
//       `like`'s dimensions, the innermost of class Row; missing numbers 0 (a cotangent's data
//       may be short).
//
// An IR tensor is told from a user's by its second element, a number.
import type * as ts from 'typescript';
import { helperStatements } from './helperSource';

const SOURCE = `
function tsad$tensorDims(t, rank) {
  if (typeof t[1] === 'number') return t.slice(1, rank + 1);
  const dims = [];
  let x = t;
  for (let d = 0; d < rank; d++) {
    const n = x == null || x.length === undefined ? 0 : x.length;
    dims.push(n);
    x = n > 0 ? x[0] : undefined;
  }
  return dims;
}
function tsad$tensorGot(v) {
  return v === null ? 'null' : Array.isArray(v) ? 'an array of length ' + v.length : typeof v;
}
function tsad$packTensor(t, path, rank, where, tangent, like) {
  const brackets = '[]'.repeat(rank);
  if (!(Array.isArray(t) || ArrayBuffer.isView(t))) throw new TypeError(where + ": '" + path + "' must be a tensor (number" + brackets + '), got ' + tsad$tensorGot(t));
  const dims = tsad$tensorDims(t, rank);
  if (like != null) {
    const want = tsad$tensorDims(like, rank);
    if (want.some((d, k) => d !== dims[k])) throw new RangeError("'" + path + "' must be a " + want.join(' × ') + ' tensor like its primal, got ' + dims.join(' × '));
  }
  const data = new Float64Array(dims.reduce((a, b) => a * b, 1));
  let at = 0;
  const walk = (x, d, p) => {
    if (!(Array.isArray(x) || ArrayBuffer.isView(x))) throw new TypeError(where + ": '" + p + "' must be an array, got " + tsad$tensorGot(x));
    if (x.length !== dims[d]) {
      const first = path + '[0]'.repeat(d);
      throw new RangeError("'" + path + "' must be a rectangular tensor (number" + brackets + "): '" + p + "' has " + x.length + ' elements, ' + "'" + first + "' has " + dims[d]);
    }
    if (d === rank - 1) {
      for (let j = 0; j < x.length; j++) {
        const v = x[j];
        if (typeof v !== 'number') throw new TypeError(where + ": '" + p + '[' + j + "]' must be a number, got " + tsad$tensorGot(v));
        data[at++] = v;
      }
      return;
    }
    for (let i = 0; i < x.length; i++) walk(x[i], d + 1, p + '[' + i + ']');
  };
  walk(t, 0, path);
  return tangent ? [data, ...dims.map(() => 0)] : [data, ...dims];
}
function tsad$unpackTensor(data, like, rank, Row) {
  const dims = tsad$tensorDims(like, rank);
  let at = 0;
  const build = (d) => {
    const n = dims[d];
    if (d === rank - 1) {
      const row = Row === Array ? new Array(n) : new Row(n);
      for (let j = 0; j < n; j++) row[j] = data[at++] ?? 0;
      return row;
    }
    const out = new Array(n);
    for (let i = 0; i < n; i++) out[i] = build(d + 1);
    return out;
  };
  return build(0);
}
`;

/** The helpers' statements, ready for the emitted module. */
export function tensorHelpers(t: typeof ts): ts.Statement[] {
  return helperStatements(t, 'tsad$tensors.js', SOURCE);
}
