// The shape of a TypeScript type as the checker reports it (plan/shapes.ts: the shape algebra,
// re-exported here for the front end), or the diagnostic for a type tsad cannot hold.
import type * as ts from 'typescript';
import { ArrayContainer, BOOLEAN, NUMBER, STRING, Shape, describeShape, flatShape, recordLeaves, tensorRank } from '../plan/shapes';
import { fail } from './diagnostics';

export * from '../plan/shapes';

export function shapeOfType(tsApi: typeof ts, checker: ts.TypeChecker, type: ts.Type, node: ts.Node): Shape {
  const F = tsApi.TypeFlags;
  if (type.flags & (F.Number | F.NumberLiteral)) return NUMBER;
  if (type.flags & (F.Boolean | F.BooleanLiteral)) return BOOLEAN;
  if (type.flags & (F.String | F.StringLiteral) || (type.isUnion() && type.types.every((t) => t.flags & F.StringLiteral))) return STRING;
  if (checker.isTupleType(type)) {
    const elems = checker.getTypeArguments(type as ts.TypeReference);
    return { kind: 'tuple', elems: elems.map((t) => shapeOfType(tsApi, checker, t, node)) };
  }
  const array = arrayShape(tsApi, checker, type, node);
  if (array) return array;
  const unsupported = unsupportedConstruct(tsApi, checker, type);
  if (unsupported) return fail(1105, node, `cannot differentiate ${unsupported}`);
  if (type.flags & F.Object) {
    const props = checker.getPropertiesOfType(type);
    const fields = props.map((p) => [p.name, shapeOfType(tsApi, checker, checker.getTypeOfSymbolAtLocation(p, node), node)] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return { kind: 'object', fields };
  }
  const text = checker.typeToString(type);
  return fail(1105, node, `cannot differentiate a value of type '${text.length > 60 ? `${text.slice(0, 57)}...` : text}'`);
}

const TYPED_ARRAYS = new Set([
  'Float64Array',
  'Float32Array',
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'BigInt64Array',
  'BigUint64Array',
]);

/** The typed array class a type is (from the default library, not a user class of that name), if any. */
export function typedArrayName(_tsApi: typeof ts, type: ts.Type): string | undefined {
  const sym = type.getSymbol() ?? type.aliasSymbol;
  // Declared by the default library; @types/node adds declarations of its own to the same interfaces.
  const builtIn = !!sym?.declarations?.some((d) => d.getSourceFile().hasNoDefaultLib);
  return builtIn && TYPED_ARRAYS.has(sym!.name) ? sym!.name : undefined;
}

/**
 * `number[]`, `readonly number[]`, a typed array, or an array of arrays of these; a diagnostic
 * for an array of anything else (tsad arrays hold numbers, or arrays of numbers).
 */
function arrayShape(tsApi: typeof ts, checker: ts.TypeChecker, type: ts.Type, node: ts.Node): Shape | undefined {
  const typed = typedArrayName(tsApi, type);
  if (typed) {
    if (typed.startsWith('Big')) return fail(1105, node, `cannot differentiate a ${typed}: arrays of bigints are not numbers; use Float64Array, or Int32Array for indices`);
    const float = typed === 'Float64Array' || typed === 'Float32Array';
    return { kind: 'array', container: typed as ArrayContainer, elem: NUMBER, ...(float ? {} : { constant: true }) };
  }
  if (!checker.isArrayType(type)) {
    // ArrayLike<number> (tsad's NumberArray) and other types indexed by numbers: an array whose
    // class is known only at run time; a gradient comes back as a Float64Array.
    const indexed = !checker.isTupleType(type) && type.flags & tsApi.TypeFlags.Object ? checker.getIndexInfoOfType(type, tsApi.IndexKind.Number) : undefined;
    if (!indexed) return undefined;
    const elem = shapeOfType(tsApi, checker, indexed.type, node);
    if (elem.kind !== 'number') return fail(1120, node, `cannot differentiate a value indexed by numbers that holds ${describeShape(elem)}: tsad arrays hold numbers`);
    return { kind: 'array', container: 'Float64Array', elem };
  }
  const elemType = checker.getTypeArguments(type as ts.TypeReference)[0] ?? checker.getAnyType();
  const elem = shapeOfType(tsApi, checker, elemType, node);
  if (elem.kind === 'array' && flatShape(elem).constant)
    return fail(1120, node, `cannot differentiate an array of ${flatShape(elem).container}s: integer arrays are constants; use an Int32Array with the rows stored flat`);
  if (elem.kind === 'array' && tensorRank(elem) !== leafDepth(elem)) {
    return fail(
      1120,
      node,
      `cannot differentiate ${describeShape({ kind: 'array', container: 'Array', elem })}: tsad differentiates arrays of numbers and tensors of numbers (number[][], number[][][], ...); keep records outside nested arrays`,
    );
  }
  if (elem.kind === 'tuple' || elem.kind === 'object') return recordsShape(elem, node);
  if (elem.kind !== 'number' && elem.kind !== 'array') {
    return fail(
      1120,
      node,
      `cannot differentiate an array of ${describeShape(elem)}: tsad arrays hold numbers (number[], Float64Array) or arrays of numbers (number[][]); keep a tuple or object of arrays instead`,
    );
  }
  return { kind: 'array', container: 'Array', elem };
}

/**
 * The construct a type stands for, when it is one tsad does not differentiate: one phrase that
 * names it (an array, a Promise, an instance of class Vec), never a printout of its members.
 */
function unsupportedConstruct(tsApi: typeof ts, checker: ts.TypeChecker, type: ts.Type): string | undefined {
  const F = tsApi.TypeFlags;
  if (type.flags & (F.Any | F.Unknown)) return `a value of type '${type.flags & F.Any ? 'any' : 'unknown'}': give it a type (number, a tuple or a plain object of numbers)`;
  if (type.flags & (F.Undefined | F.Null | F.Void)) return 'undefined or null';
  const sym = type.getSymbol() ?? type.aliasSymbol;
  const builtIn = !!sym?.declarations?.length && sym.declarations.every((d) => d.getSourceFile().hasNoDefaultLib);
  if (!(type.flags & F.Object)) return undefined;
  if (type.getCallSignatures().length > 0 || type.getConstructSignatures().length > 0) return 'a function value: differentiable values are numbers, tuples and plain objects';
  if (builtIn && sym!.name === 'Promise') return 'a Promise: differentiate a synchronous function and await the value before calling it';
  if (builtIn) return `a built-in ${sym!.name} object`;
  // A class whose instances only hold data is a plain object type here; methods are what rule it out.
  const method = checker.getPropertiesOfType(type).find((p) => p.flags & tsApi.SymbolFlags.Method);
  if (!method) return undefined;
  if (sym && sym.flags & tsApi.SymbolFlags.Class) {
    return `an instance of class '${sym.name}' (it has methods): pass its numbers as a plain object type ({ x: number; y: number }), a tuple, or separate parameters`;
  }
  return `an object with a method ('${method.name}'): differentiable objects hold only numbers, booleans, strings, tuples and plain objects`;
}

/**
 * An array of records or tuples (docs/frontend.md, "Arrays of records"): its leaves must be
 * numbers or arrays of numbers (each a column of the IR's record of arrays).
 */
function recordsShape(elem: Extract<Shape, { kind: 'tuple' | 'object' }>, node: ts.Node): Shape {
  const what = describeShape({ kind: 'array', container: 'Array', elem });
  const leaves = recordLeaves(elem);
  if (leaves.length === 0) return fail(1120, node, `cannot differentiate ${what}: its elements hold no numbers`);
  for (const { path, shape } of leaves) {
    const at = path.map((k) => (typeof k === 'number' ? `[${k}]` : `.${k}`)).join('');
    if (shape.kind === 'number') continue;
    if (shape.kind === 'array' && leafDepth(shape) === tensorRank(shape) && !flatShape(shape).constant) continue;
    const why =
      shape.kind === 'array' && leafDepth(shape) === tensorRank(shape)
        ? `integer arrays are constants (${flatShape(shape).container})`
        : `an array of records holds numbers, arrays and tensors of numbers, not ${describeShape(shape)}`;
    return fail(1120, node, `cannot differentiate ${what}: element${at} is ${describeShape(shape)}; ${why}: keep it outside the array, or as separate arrays`);
  }
  return { kind: 'array', container: 'Array', elem };
}

/** How deep the arrays of a shape go before a number: its rank when it holds numbers, else −1. */
function leafDepth(s: Shape): number {
  if (s.kind === 'number') return 0;
  if (s.kind !== 'array') return -1;
  const inner = leafDepth(s.elem);
  return inner < 0 ? -1 : inner + 1;
}
