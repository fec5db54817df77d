// Codes TSAD1100-1199: TypeScript outside the differentiable subset.
import type { DiagnosticSpec } from './spec';

export const LOWERING_CODES: Readonly<Record<number, DiagnosticSpec>> = {
  1101: {
    title: 'unsupported statement',
    hint: 'differentiable functions support const/let, assignments, if/else, switch, for/while/do loops with break, continue and return, and local functions; labeled break/continue and switch fall-through are not supported, and a statement must assign something, throw a new built-in error, or log numbers and strings with console.log',
  },
  1102: { title: 'unsupported expression', hint: 'use arithmetic, Math functions, tuples, objects and calls to differentiable functions' },
  1103: {
    title: 'call of a non-differentiable Math function',
    hint: 'wrap the result in stopGradient(...) if it is a constant',
  },
  1104: { title: 'call of a function that is not differentiable', hint: 'mark it with @differentiable, or wrap the value in stopGradient(...)' },
  1105: { title: 'unsupported type', hint: 'differentiable values are numbers, tuples and plain objects of them; booleans and strings are constants' },
  1106: {
    title: 'unsupported free variable',
    hint: 'pass the value as a parameter; module-level variables are read when the derivative runs (a const number, boolean or string is computed in place)',
  },
  1107: { title: 'missing or misplaced return', hint: 'a differentiable function ends with exactly one return statement' },
  1108: { title: 'unsupported assignment', hint: 'assign to a local let variable; parameters and const bindings are immutable here' },
  1109: { title: 'recursion', hint: 'differentiable functions may call each other but not recursively' },
  1110: {
    title: 'custom derivative is not linear in its tangents',
    hint: 'combine tangents only by +, -, scaling by values (c * dx, dx / c) and c ? dx : dy; a tangent may not pass through sin, *, or a call',
  },
  1111: {
    title: 'malformed custom derivative',
    hint: 'write derivative(f, (...x, ...dx) => [f(...x), tangent]) or derivative.vjp(f, (...x) => [f(...x), (ct) => [one cotangent per parameter]]) with arrow functions',
  },
  1112: {
    title: 'unsupported kind of function',
    hint: 'make it a plain function (not async, not a generator, not a getter) that returns a number, a tuple or an object; await and iterate in the code that calls it',
  },
  1113: {
    title: 'call of a built-in or library method',
    hint: "write the computation with arithmetic and Math functions (arrays: indexing, .length, .map, .reduce and tsad's sum, dot, prod), or compute it outside and pass it in as a parameter",
  },
  1114: {
    title: 'custom derivative for a function it cannot attach to',
    hint: 'call derivative(f, rule) in the module that declares f, where f is a function declaration, a const arrow function or a method with a body',
  },
  1115: { title: 'variable read before it is assigned', hint: 'give the variable its value where it is declared (let y = ...), or assign it before reading it' },
  1116: { title: 'condition is not a boolean', hint: 'compare explicitly: write if (x !== 0) or x > 0 ? a : b; a condition is a comparison, a boolean, or a combination of them' },
  1117: {
    title: 'local function used as a value',
    hint: 'call a local function directly (h(x)); to pass a function around, declare it at module level and mark it @differentiable',
  },
  1120: {
    title: 'unsupported array type',
    hint: 'differentiable arrays hold numbers (number[], readonly number[], Float64Array, Float32Array), and matrices and tensors are rectangular arrays of them (number[][], Float64Array[], number[][][]); integer typed arrays (Int32Array) are constants; arrays of records and tuples hold numbers, arrays and matrices of numbers ({ pos: [number, number]; W: number[][]; b: number[] }[])',
  },
  1121: {
    title: 'unsupported array operation',
    hint: "read with a[i], a.at(i) and a.length, loop with for/while/for…of/.forEach, build with new Float64Array(n), new Array(n).fill(x), Float64Array.from(a, f), a literal or [...a, x], and use .map, .filter, .reduce(f, init), .some, .every, .indexOf, .findIndex, a sorted copy a.slice().sort(f), Math.max(...a), and tsad's sum, dot, prod, iota, matmul (see docs/frontend.md, Arrays)",
  },
  1122: {
    title: 'write into an array that is not a new local array',
    hint: 'write into (or push onto) a local array that starts new (const b = new Float64Array(n), a.slice(), [], new Array(n).fill(0), Float64Array.from(...), .map(...)) and return it; sort, reverse or fill a copy (a.slice().sort((x, y) => x - y)) or such a local; pop, shift, splice and copyWithin are not supported: build the array with .map, .filter or Float64Array.from({ length: n }, (_, i) => ...)',
  },
  1123: {
    title: 'a written array with a second name',
    hint: "tsad's arrays are values, JavaScript's are shared objects: copy a written array with .slice() where it gets another name (a variable, an object field, an argument of a function returning arrays)",
  },
};
