// The two helpers that convert arrays of records at the wrapper (plan/records.ts), emitted once
// per module that needs them, as plain functions (no import):
//
//   tsad$splitRecords(ps, path, layout, where, tangent, like, irLike)  the user's records -> the IR's
//       columns (Float64Array per number leaf, [data, starts, dims] per array or tensor leaf,
//       whose sizes may differ from element to element), every value checked on the way: a
//       TypeError for a value of the wrong kind, a RangeError for a tensor leaf that is not
//       rectangular, each naming the index path (`ps[3].vel[1]`); a tangent (`tangent`) is as
//       large as its primal `like`, field by field, and laid out like it
//   tsad$joinRecords(columns, layout, like, irLike)  the IR's columns -> new records, as many as
//       `like` when given, missing numbers 0 (a cotangent's columns may be short)
//
// `like` is the user's records (a parameter), or with `irLike` the IR's columns of one (a
// result's value).
//
// `layout` is plan/records.ts's JSON description of the element. They are written here as
// JavaScript source and parsed once into synthesized nodes: a helper this size written with the
// node factory would be unreadable.
import type * as ts from 'typescript';
import { helperStatements } from './helperSource';
import { THROWN_BY_SOURCE } from '../constructs/effect/raise';

const SOURCE = `
function tsad$recordParts(s) {
  if (s[0] === 't') return s.slice(1).map((c, k) => [k, c]);
  const parts = [];
  for (let k = 1; k < s.length; k += 2) parts.push([s[k], s[k + 1]]);
  return parts;
}
function tsad$got(v) {
  return v === null ? 'null' : Array.isArray(v) ? 'an array of length ' + v.length : typeof v;
}
function tsad$firstLeaf(s) {
  while (s[0] === 't' || s[0] === 'o') s = s[0] === 't' ? s[1] : s[2];
  return s;
}
function tsad$lengthOf(columns, s) {
  const first = tsad$firstLeaf(s);
  return first[0] === 'n' ? columns[first[1]].length : columns[first[1]][1].length;
}
function tsad$leafDims(v, rank) {
  const dims = [];
  let x = v;
  for (let d = 0; d < rank; d++) {
    const n = x == null || x.length === undefined ? 0 : x.length;
    dims.push(n);
    x = n > 0 ? x[0] : undefined;
  }
  return dims;
}
function tsad$rangeError(where, message) {
  // Complete already: the wrapper's catch (which names the transform) leaves it as it is.
  const e = new RangeError(where + ': ' + message);
  e[Symbol.for('${THROWN_BY_SOURCE}')] = true;
  return e;
}
function tsad$splitRecords(ps, path, layout, where, tangent, like, irLike) {
  const shape = JSON.parse(layout);
  const likeN = like == null ? undefined : irLike ? tsad$lengthOf(like, shape) : like.length;
  if (!Array.isArray(ps)) throw new TypeError(where + ": '" + path + "' must be an array of records, got " + tsad$got(ps));
  const n = ps.length;
  if (likeN !== undefined && likeN !== n) throw tsad$rangeError(where, "'" + path + "' must have " + likeN + ' elements like its primal, got ' + n);
  const columns = [];
  const firsts = [];
  const allocate = (s) => {
    if (s[0] === 'n') columns[s[1]] = new Float64Array(n);
    else if (s[0] === 'r') {
      // Laid out like the primal's IR value when given (its starts), else element after element.
      const lc = irLike ? like[s[1]] : undefined;
      columns[s[1]] = lc ? [new Float64Array(lc[0].length), lc[1], lc[2]] : [[], new Float64Array(n), new Float64Array(n * s[3])];
    } else for (const [, c] of tsad$recordParts(s)) allocate(c);
  };
  allocate(shape);
  const visit = (s, v, i, at, lv) => {
    if (s[0] === 'n') {
      if (typeof v !== 'number') throw new TypeError(where + ": '" + at + "' must be a number, got " + tsad$got(v));
      columns[s[1]][i] = v;
    } else if (s[0] === 'r') {
      // An array or tensor of any size: element i's numbers from starts[i], row-major (a ragged column).
      const rank = s[3];
      const col = columns[s[1]];
      const brackets = '[]'.repeat(rank);
      if (!(Array.isArray(v) || ArrayBuffer.isView(v))) throw new TypeError(where + ": '" + at + "' must be " + (rank === 1 ? 'an array of numbers' : 'a tensor (number' + brackets + ')') + ', got ' + tsad$got(v));
      const dims = tsad$leafDims(v, rank);
      const want = irLike ? Array.from(col[2].subarray(i * rank, i * rank + rank)) : lv == null ? undefined : tsad$leafDims(lv, rank);
      if (want !== undefined && want.some((d, q) => d !== dims[q])) throw tsad$rangeError(where, "'" + at + "' is " + dims.join(' × ') + ', but its primal is ' + want.join(' × '));
      let next = irLike ? col[1][i] : col[0].length;
      if (!irLike) {
        col[1][i] = next;
        for (let q = 0; q < rank; q++) col[2][i * rank + q] = dims[q];
      }
      const walk = (x, d, p) => {
        if (!(Array.isArray(x) || ArrayBuffer.isView(x))) throw new TypeError(where + ": '" + p + "' must be an array, got " + tsad$got(x));
        if (x.length !== dims[d]) throw tsad$rangeError(where, "'" + at + "' must be rectangular (number" + brackets + "): '" + p + "' has " + x.length + " elements, '" + at + '[0]'.repeat(d) + "' has " + dims[d]);
        for (let j = 0; j < x.length; j++) {
          if (d < rank - 1) {
            walk(x[j], d + 1, p + '[' + j + ']');
            continue;
          }
          const y = x[j];
          if (typeof y !== 'number') throw new TypeError(where + ": '" + p + '[' + j + "]' must be a number, got " + tsad$got(y));
          col[0][next++] = y;
        }
      };
      walk(v, 0, at);
    } else {
      if (v === null || typeof v !== 'object') {
        const parts = tsad$recordParts(s);
        const expected = s[0] === 't' ? 'an array of ' + parts.length + ' elements' : 'an object with fields ' + parts.map((p) => p[0]).join(', ');
        throw new TypeError(where + ": '" + at + "' must be " + expected + ', got ' + tsad$got(v));
      }
      for (const [k, c] of tsad$recordParts(s)) visit(c, v[k], i, at + (typeof k === 'number' ? '[' + k + ']' : '.' + k), lv == null ? undefined : lv[k]);
    }
  };
  for (let i = 0; i < n; i++) visit(shape, ps[i], i, path + '[' + i + ']', like == null || irLike ? undefined : like[i]);
  const finish = (s) => {
    if (s[0] === 'r') {
      const col = columns[s[1]];
      if (Array.isArray(col[0])) col[0] = Float64Array.from(col[0]);
    } else if (s[0] !== 'n') for (const [, c] of tsad$recordParts(s)) finish(c);
  };
  finish(shape);
  return columns;
}
function tsad$joinRecords(columns, layout, like, irLike) {
  const shape = JSON.parse(layout);
  const n = like == null ? tsad$lengthOf(columns, shape) : irLike ? tsad$lengthOf(like, shape) : like.length;
  const offsets = [];
  const build = (s, i, lv) => {
    if (s[0] === 'n') return columns[s[1]][i] ?? 0;
    if (s[0] === 'r') {
      // Element i's place in the data: the primal's IR starts, the user's primal laid out element
      // after element (as the split did), or the columns' own.
      const m = columns[s[1]];
      const rank = s[3];
      const own = irLike ? like[s[1]] : lv == null ? m : undefined;
      const dims = own ? Array.from(own[2].subarray(i * rank, i * rank + rank)) : tsad$leafDims(lv, rank);
      let at = own ? own[1][i] : (offsets[s[1]] ?? 0);
      if (!own) offsets[s[1]] = at + dims.reduce((a, b) => a * b, 1);
      const part = (d) => {
        const w = dims[d];
        if (d < rank - 1) return Array.from({ length: w }, () => part(d + 1));
        const row = s[2] === 'Float64Array' ? new Float64Array(w) : s[2] === 'Float32Array' ? new Float32Array(w) : new Array(w);
        for (let j = 0; j < w; j++) row[j] = m[0][at++] ?? 0;
        return row;
      };
      return part(0);
    }
    if (s[0] === 't') return tsad$recordParts(s).map(([k, c]) => build(c, i, lv == null ? undefined : lv[k]));
    const o = {};
    for (const [k, c] of tsad$recordParts(s)) o[k] = build(c, i, lv == null ? undefined : lv[k]);
    return o;
  };
  const out = new Array(n);
  for (let i = 0; i < n; i++) out[i] = build(shape, i, like == null || irLike ? undefined : like[i]);
  return out;
}
`;

/** The helpers' statements, ready for the emitted module. */
export function recordHelpers(t: typeof ts): ts.Statement[] {
  return helperStatements(t, 'tsad$records.js', SOURCE);
}
