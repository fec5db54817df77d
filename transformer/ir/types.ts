// The IR's types and what the passes ask of them (tangent spaces, scalar counts). Comparing
// two types goes through their interned ids (typeIds.ts).
export type Type =
  | { readonly tag: 'real' }
  | { readonly tag: 'bool' }
  /** Strings: constants that flow through code and are compared, never differentiated. */
  | { readonly tag: 'str' }
  /** `name` is only a display alias (a tape type such as `f.tape`); equality is structural. */
  | { readonly tag: 'tuple'; readonly elems: readonly Type[]; readonly name?: string }
  /**
   * A run-time sized stack of values (a loop's per-iteration residuals, `constructs/stack/`):
   * pushed in f.fwd, read by index in f.lin and f.bwd. Its tangent space is stack<tangent τ>:
   * sparse sequences of tangents (J of f.fwd, second order through a loop; constructs/stack/).
   */
  | { readonly tag: 'stack'; readonly elem: Type }
  /**
   * A run-time sized array of values (`constructs/array/`, docs/linear-a.md "Arrays"). Its
   * tangent space is array<tangent τ>, added elementwise; the zero array is the empty one, whose
   * missing elements read as zeros (a symbolic zero of any length), as for stacks.
   * `store: 'int32'` says every element is a 32-bit integer (the source's Int32Array, whose
   * writes the front end makes explicit ToInt32s): a backend may hold it as an Int32Array. It
   * is a representation, not a different type (typeEquals ignores it, as a tuple's alias), and
   * its tangent array holds reals like any other.
   */
  | { readonly tag: 'array'; readonly elem: Type; readonly store?: ArrayStore };

/** How an array's elements may be held: 'int32', each a 32-bit integer (see the array type). */
export type ArrayStore = 'int32';

export const REAL: Type = { tag: 'real' };
export const BOOL: Type = { tag: 'bool' };
export const STR: Type = { tag: 'str' };
export const tupleType = (elems: readonly Type[], name?: string): Type => (name === undefined ? { tag: 'tuple', elems } : { tag: 'tuple', elems, name });
export const UNIT: Type = tupleType([]);
export const stackType = (elem: Type): Type => ({ tag: 'stack', elem });
export const arrayType = (elem: Type): Type => ({ tag: 'array', elem });
/** An array whose elements are held as `store` says (ir/types.ts, the array type); a plain array where it is undefined. */
export const storedArrayType = (elem: Type, store: ArrayStore | undefined): Type => (store === undefined ? { tag: 'array', elem } : { tag: 'array', elem, store });
/** Are this type's values arrays whose elements are all 32-bit integers? */
export const isInt32Array = (t: Type | undefined): boolean => t?.tag === 'array' && t.store === 'int32';

/**
 * The tangent (and cotangent) space of a type: booleans and strings have the zero-dimensional
 * space `<>`; a stack's tangents are a stack of its elements' tangents.
 */
export function tangentType(t: Type): Type {
  if (t.tag === 'real') return REAL;
  // One tangent type object per type object: comparing them is then by identity (typeIds.ts).
  let dt = tangentTypes.get(t);
  if (dt === undefined) tangentTypes.set(t, (dt = tangentTypeOf(t)));
  return dt;
}

const tangentTypes = new WeakMap<Type, Type>();

function tangentTypeOf(t: Type): Type {
  switch (t.tag) {
    case 'real':
      return REAL;
    case 'bool':
    case 'str':
      return UNIT;
    case 'stack':
      return stackType(tangentType(t.elem));
    case 'array':
      return arrayType(tangentType(t.elem));
    case 'tuple':
      return tupleType(t.elems.map(tangentType));
  }
}

/** Number of real scalars in a value of this type (the unit of the cost model). */
export function scalarCount(t: Type): number {
  switch (t.tag) {
    case 'real':
      return 1;
    case 'bool':
    case 'str':
      return 1;
    case 'stack':
    case 'array':
      // A reference to the stack or array (dropping it is one unit, like dropping a boolean).
      return 1;
    case 'tuple':
      return t.elems.reduce((n, e) => n + scalarCount(e), 0);
  }
}

/** Scalars of a type that live in a vector space (booleans do not). */
export function realCount(t: Type): number {
  switch (t.tag) {
    case 'real':
      return 1;
    case 'bool':
    case 'str':
    case 'stack':
    case 'array':
      return 0;
    case 'tuple':
      return t.elems.reduce((n, e) => n + realCount(e), 0);
  }
}
