// Converting between the user's values and the IR's, by shape: a number is a real, a tuple of
// numbers is an IR tuple as it is, other tuples and objects are rebuilt (object fields in name
// order). The planners build their wrappers from these; names are allocated here, so that no
// local shadows a parameter of the wrapper.
import { scalarCount } from '../ir/syntax';
import { Shape, componentShapes, flatShape, irType, isMatrix, isRecords, isScalarShape, tensorRank } from './shapes';
import { joinRecords, recordsLeafWidth, recordsZero, splitRecords } from './records';
import { PlanExpr, PlanStatement, Spec, array, index, name } from './syntax';

type ArrayShape = Extract<Shape, { kind: 'array' }>;

/** The user's container classes of an array shape, outermost first (`number[][]` is Array, Array). */
export function containersOf(s: ArrayShape): string[] {
  return s.elem.kind === 'array' ? [s.container, ...containersOf(s.elem)] : [s.container];
}

/**
 * An IR array as the user's kind of array, as long as `template` when given (tangents may be
 * shorter); `fresh`: always a new array (see the 'fit' expression).
 */
export function fit(value: PlanExpr, s: ArrayShape, template?: PlanExpr, fresh = false): PlanExpr {
  return { tag: 'fit', value, containers: containersOf(s), ...(template ? { template } : {}), ...(fresh ? { fresh } : {}) };
}

/** A user matrix as the IR's `[data, rows, cols]` (a tensor's `[data, d0, …]`). */
function pack(value: PlanExpr, s: ArrayShape, tangent: boolean, like?: PlanExpr): PlanExpr {
  const rank = tensorRank(s);
  return { tag: 'packMatrix', value, path: pathOf(value), ...(tangent ? { tangent } : {}), ...(like ? { like } : {}), ...(rank > 2 ? { rank } : {}) };
}

/** The IR's flat data of a matrix as the user's rows, as large as `like` (user or IR matrix). */
function unpack(data: PlanExpr, s: ArrayShape, like: PlanExpr): PlanExpr {
  const rank = tensorRank(s);
  return { tag: 'unpackMatrix', data, like, row: flatShape(s).container, ...(rank > 2 ? { rank } : {}) };
}

/** The indices 0 … rank of a matrix's or tensor's parts (data and dimensions). */
const partsOf = (s: Shape): number[] => Array.from({ length: tensorRank(s) + 1 }, (_, k) => k);

/** How a message names a wrapper's value: `X`, `p.W`, `primals[1]`. */
function pathOf(e: PlanExpr): string {
  if (e.tag === 'name') return e.name;
  if (e.tag === 'field') return `${pathOf(e.of)}.${e.key}`;
  if (e.tag === 'index') return `${pathOf(e.of)}[${e.index}]`;
  return 'the matrix';
}

/** The parts of a shape by which a value is reached (`index` for tuples, `field` for objects). */
function part(e: PlanExpr, s: Shape, k: number): PlanExpr {
  return s.kind === 'object' ? { tag: 'field', of: e, key: s.fields[k][0] } : index(e, k);
}

export class Marshal {
  /** Statements the expression builders needed (temporaries); the caller places them. */
  private pending: PlanStatement[] = [];

  /**
   * `handsOut`: the values built from IR values are handed to the caller as new arrays and tuples
   * even where the IR's could go through as they are. Needed where an IR result may be one of the
   * caller's own values (jvp of a function returning its parameter gives back the tangent passed
   * in) or a residual a returned pullback still reads (vjp, linearize).
   */
  constructor(
    private readonly taken: Set<string>,
    private readonly handsOut = false,
  ) {}

  /** A local name that does not shadow a parameter of the wrapper. */
  fresh(base: string): string {
    let n = base;
    for (let k = 1; this.taken.has(n); k++) n = `${base}_${k}`;
    this.taken.add(n);
    return n;
  }

  const(names: readonly string[], init: PlanExpr): PlanStatement {
    return { tag: 'const', names, init };
  }

  /** The scalar leaves of a user value, in IR order (object fields by name). */
  leaves(e: PlanExpr, s: Shape): PlanExpr[] {
    if (isRecords(s)) {
      // Split once into a temporary: its columns are the leaves (a matrix column's three parts).
      const split = this.fresh(`${pathOf(e).replace(/\W+/g, '_')}_columns`);
      this.pending.push(this.const([split], splitRecords(e, s, pathOf(e))));
      return recordsLeafWidth(s).flatMap((w, c) => (w === 1 ? [index(name(split), c)] : [0, 1, 2].map((k) => index(index(name(split), c), k))));
    }
    if (isMatrix(s)) {
      // Packed once into a temporary: the caller places takePending() before the call.
      const packed = this.fresh(`${pathOf(e).replace(/\W+/g, '_')}_flat`);
      this.pending.push(this.const([packed], pack(e, s, false)));
      return partsOf(s).map((k) => index(name(packed), k));
    }
    if (isScalarShape(s) || s.kind === 'array') return [e];
    if (s.kind === 'tuple') return s.elems.flatMap((c, i) => this.leaves(index(e, i), c));
    return s.fields.flatMap(([k, c]) => this.leaves(field(e, k), c));
  }

  /** Fresh local names for the leaves of a shape: `p_bar`, or `p_bar_amplitude`, `q_bar_0`, ... */
  leafNames(base: string, s: Shape): string[] {
    if (isRecords(s))
      return recordsLeafWidth(s).flatMap((w, c) => (w === 1 ? [this.fresh(`${base}_${c}`)] : [this.fresh(`${base}_${c}`), this.fresh(`${base}_${c}_starts`), this.fresh(`${base}_${c}_dims`)]));
    if (isMatrix(s)) return tensorRank(s) === 2 ? [this.fresh(base), this.fresh(`${base}_rows`), this.fresh(`${base}_cols`)] : partsOf(s).map((k) => this.fresh(k === 0 ? base : `${base}_d${k - 1}`));
    if (isScalarShape(s) || s.kind === 'array') return [this.fresh(base)];
    if (s.kind === 'tuple') return s.elems.flatMap((c, i) => this.leafNames(`${base}_${i}`, c));
    return s.fields.flatMap(([k, c]) => this.leafNames(`${base}_${k}`, c));
  }

  /**
   * A user value of a shape from its leaves (IR cotangents), in order; `template` is the primal
   * value, whose arrays give the lengths the cotangent arrays are padded to.
   */
  build(s: Shape, leaves: readonly string[], template?: PlanExpr): PlanExpr {
    let next = 0;
    const go = (x: Shape, t: PlanExpr | undefined): PlanExpr => {
      if (isRecords(x)) {
        const columns = recordsLeafWidth(x).map((w) => (w === 1 ? name(leaves[next++]) : array([0, 1, 2].map(() => name(leaves[next++])))));
        return joinRecords(array(columns), x, t);
      }
      if (isMatrix(x)) {
        const data = name(leaves[next]);
        next += tensorRank(x) + 1;
        return unpack(data, x, t ?? data);
      }
      if (x.kind === 'array') return x.constant ? (next++, { tag: 'undefined' }) : fit(name(leaves[next++]), x, t);
      if (isScalarShape(x)) return name(leaves[next++]);
      if (x.kind === 'tuple') return array(x.elems.map((c, i) => go(c, t && index(t, i))));
      return { tag: 'object', fields: x.fields.map(([k, c]) => [k, go(c, t && { tag: 'field', of: t, key: k })] as const) };
    };
    return go(s, template);
  }

  /** A user tangent -> the IR's: a constant array's tangent (`undefined`) is the zero array. */
  /** `likeIR`: `like` is an IR value (a result's), not the user's. */
  tangentToIR(e: PlanExpr, s: Shape, like?: PlanExpr, likeIR = false): PlanExpr {
    if (isRecords(s)) return splitRecords(e, s, pathOf(e), true, like, likeIR);
    if (isMatrix(s)) return pack(e, s, true, like);
    if (s.kind === 'array') return s.constant ? { tag: 'emptyArray' } : e;
    if (isScalarShape(s) || !(hasConstantArray(s) || hasMatrix(s))) return this.toIR(e, s);
    return array(componentShapes(s).map((c, i) => this.tangentToIR(part(e, s, i), c, like && (likeIR ? index(like, i) : part(like, s, i)), likeIR)));
  }

  /**
   * `sameLength` checks of a user tangent against its primal, array by array (the tangents of
   * constant arrays are not read).
   */
  lengthChecks(where: string, what: string, against: string, tangent: PlanExpr, primal: PlanExpr, s: Shape): PlanStatement[] {
    // A matrix's (or records') tangent is checked against its primal as it is packed (tangentToIR with `like`).
    if (isMatrix(s) || isRecords(s)) return [];
    if (s.kind === 'array') return s.constant ? [] : [{ tag: 'sameLength', where, what, against, a: tangent, b: primal }];
    if (isScalarShape(s)) return [];
    return componentShapes(s).flatMap((c, i) => {
      const key = s.kind === 'object' ? `.${s.fields[i][0]}` : `[${i}]`;
      return this.lengthChecks(where, `${what}${key}`, `${against}${key}`, part(tangent, s, i), part(primal, s, i), c);
    });
  }

  /** User value -> IR value (objects become arrays in field-name order). */
  toIR(e: PlanExpr, s: Shape): PlanExpr {
    if (isRecords(s)) return splitRecords(e, s, pathOf(e));
    if (isMatrix(s)) return pack(e, s, false);
    // Arrays go in as they are: the IR reads them by index and length.
    if (isScalarShape(s) || s.kind === 'array') return e;
    if (s.kind === 'tuple') return s.elems.every((c) => c.kind === 'number') ? e : array(s.elems.map((c, i) => this.toIR(index(e, i), c)));
    return array(s.fields.map(([k, c]) => this.toIR(field(e, k), c)));
  }

  /** IR value -> user value. */
  fromIR(e: PlanExpr, s: Shape): PlanExpr {
    if (isRecords(s)) return joinRecords(e, s);
    if (isMatrix(s)) return unpack(index(e, 0), s, e);
    if (s.kind === 'array') return fit(e, s, undefined, this.handsOut);
    if (isScalarShape(s)) return e;
    if (s.kind === 'tuple') return this.numbersAsTheyAre(s) ? e : array(s.elems.map((c, i) => this.fromIR(index(e, i), c)));
    return { tag: 'object', fields: s.fields.map(([k, c], i) => [k, this.fromIR(index(e, i), c)] as const) };
  }

  /**
   * IR tangent or cotangent -> the user's: as `fromIR`, except that a constant (boolean or
   * string) has the tangent `undefined`, not the IR's empty tuple.
   */
  tangentFromIR(e: PlanExpr, s: Shape, template?: PlanExpr, templateIR = false): PlanExpr {
    if (s.kind === 'boolean' || s.kind === 'string') return { tag: 'undefined' };
    if (isRecords(s)) return joinRecords(e, s, template, templateIR);
    if (isMatrix(s)) return unpack(index(e, 0), s, template ?? e);
    if (s.kind === 'array') return s.constant ? { tag: 'undefined' } : fit(e, s, template, this.handsOut);
    if (isScalarShape(s)) return e;
    if (s.kind === 'tuple') return this.numbersAsTheyAre(s) ? e : array(s.elems.map((c, i) => this.tangentFromIR(index(e, i), c, template && index(template, i), templateIR)));
    return {
      tag: 'object',
      fields: s.fields.map(([k, c], i) => [k, this.tangentFromIR(index(e, i), c, template && (templateIR ? index(template, i) : { tag: 'field', of: template, key: k }), templateIR)] as const),
    };
  }

  /** A tuple of numbers is the same in the IR: it goes through as it is, unless handed out. */
  private numbersAsTheyAre(s: Extract<Shape, { kind: 'tuple' }>): boolean {
    return !this.handsOut && s.elems.every((c) => c.kind === 'number');
  }

  /**
   * The caller's value with its arrays copied, for a closure that outlives the call (a pullback,
   * a linear function, whose tape may hold the caller's arrays as residuals); undefined when it
   * holds no array. Matrices are copied row by row: their rows are packed only when the tape
   * is made, but their dimensions are read again when the closure runs.
   */
  owned(e: PlanExpr, s: Shape): PlanExpr | undefined {
    // Records are copied deep: split into new columns and joined into new records.
    if (isRecords(s)) return joinRecords(splitRecords(e, s, pathOf(e)), s);
    // A tensor of rank 3 or more is copied all the way down: packed, and unpacked into new arrays.
    if (isMatrix(s) && tensorRank(s) > 2) return unpack(index(pack(e, s, false), 0), s, e);
    if (s.kind === 'array') return { tag: 'copy', of: e, ...(isMatrix(s) ? { matrix: true } : {}) };
    if (isScalarShape(s)) return undefined;
    const parts = componentShapes(s).map((c, i) => this.owned(part(e, s, i), c));
    if (parts.every((p) => p === undefined)) return undefined;
    const each = parts.map((p, i) => p ?? part(e, s, i));
    return s.kind === 'tuple' ? array(each) : { tag: 'object', fields: s.fields.map(([k], i) => [k, each[i]] as const) };
  }

  /** The k-th basis tangent of a shape, as an IR value. */
  basis(s: Shape, k: number): PlanExpr {
    let i = 0;
    const go = (x: Shape): PlanExpr =>
      isRecords(x)
        ? recordsZero(x)
        : isMatrix(x)
          ? array(partsOf(x).map((k) => (k === 0 ? { tag: 'emptyArray' } : { tag: 'number', value: 0 })))
          : x.kind === 'array'
            ? { tag: 'emptyArray' }
            : isScalarShape(x)
              ? { tag: 'number', value: i++ === k ? 1 : 0 }
              : array(componentShapes(x).map(go));
    return go(s);
  }

  zeros(s: Shape): PlanExpr {
    return this.basis(s, -1);
  }

  takePending(): PlanStatement[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }

  /** The scalars of an IR value, in order, each as an expression (a nested value is bound to a local first). */
  leavesOf(e: PlanExpr, s: Shape): PlanExpr[] {
    if (isScalarShape(s)) return [e];
    const parts = componentShapes(s);
    if (parts.every((c) => isScalarShape(c))) return parts.map((_, i) => index(e, i));
    const local = this.fresh('part');
    this.pending.push(this.const([local], e));
    const leaves: PlanExpr[] = [];
    const walk = (x: PlanExpr, sh: Shape) => {
      if (isScalarShape(sh)) leaves.push(x);
      else componentShapes(sh).forEach((c, i) => walk(index(x, i), c));
    };
    walk(name(local), s);
    return leaves;
  }

  /** The scalars of an IR value, in order, as an array. A flat IR tuple already is one. */
  flatten(e: PlanExpr, s: Shape, base = 'part'): PlanExpr {
    if (isScalarShape(s)) return array([e]);
    const parts = componentShapes(s);
    if (parts.every((c) => isScalarShape(c))) return e;
    const local = this.fresh(base);
    this.pending.push(this.const([local], e));
    const leaves: PlanExpr[] = [];
    const walk = (x: PlanExpr, sh: Shape) => {
      if (isScalarShape(sh)) leaves.push(x);
      else componentShapes(sh).forEach((c, i) => walk(index(x, i), c));
    };
    walk(name(local), s);
    return array(leaves);
  }

  /** rows[i][j] = columns[j][i] for an m x n matrix given by columns. */
  transpose(columns: string, m: number, n: number): PlanExpr {
    return array(Array.from({ length: m }, (_, i) => array(Array.from({ length: n }, (_, j) => index(index(name(columns), j), i)))));
  }
}

const field = (of: PlanExpr, key: string): PlanExpr => ({ tag: 'field', of, key });

/** The scalars of a value of this shape: its IR type's. */
export function leafCount(s: Shape): number {
  return scalarCount(irType(s));
}

/** What the argument check of a value of shape `s` expects; a tangent's booleans and strings are not read. */
export function specOf(s: Shape, tangent: boolean): Spec {
  if (s.kind === 'number') return 'number';
  // An array of records is checked as it is split into columns (backend/records.ts), element by element.
  if (isRecords(s)) return '';
  // A tensor of rank 3 or more is checked number by number as it is packed (backend/tensors.ts).
  if (s.kind === 'array') return tangent && s.constant ? '' : isMatrix(s) ? (tensorRank(s) > 2 ? '' : 'matrix') : s.container === 'Int32Array' ? 'int32array' : 'array';
  if (s.kind === 'boolean' || s.kind === 'string') return tangent ? '' : s.kind;
  if (s.kind === 'tuple') return tupleSpec(s.elems.map((c) => specOf(c, tangent)));
  const items = s.fields.map(([k, c]) => [k, specOf(c, tangent)] as const);
  if (items.every(([, c]) => c === '')) return '';
  return { tag: 'object', items };
}

export function tupleSpec(elems: readonly Spec[]): Spec {
  if (elems.every((c) => c === '')) return '';
  return { tag: 'tuple', items: elems.map((c, i) => [i, c] as const) };
}

/** An array of named values, one per parameter (jvp's primals and tangents). */
export function listSpec(items: readonly (readonly [string, Spec])[]): Spec {
  return { tag: 'arguments', items };
}

/** Does a shape hold an integer (constant) array, whose tangent is `undefined` for the user and the zero array in the IR? */
function hasMatrix(s: Shape): boolean {
  return isMatrix(s) || isRecords(s) || componentShapes(s).some(hasMatrix);
}

function hasConstantArray(s: Shape): boolean {
  return s.kind === 'array' ? !!s.constant : componentShapes(s).some(hasConstantArray);
}
