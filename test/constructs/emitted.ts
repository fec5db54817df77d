// Emitted TypeScript as the construct tests run it: every def of a program printed, evaluated,
// and looked up by IR name, to compare with the interpreter.
import * as ts from 'typescript';
import { emitDefs, mangle } from '../../transformer/backend/emitTs';
import type { Program, Type } from '../../transformer/ir/syntax';
import type { Value } from '../../transformer/language/interp';

export type Emitted = (...args: unknown[]) => unknown;

/** Emits every def of the program, runs the JavaScript, and returns the functions by IR name. */
export function emitAndLoad(p: Program): { code: string; fns: Map<string, Emitted> } {
  const decls = emitDefs(p.defs, { factory: ts.factory, tsApi: ts, fnName: mangle });
  const file = ts.createSourceFile('out.ts', '', ts.ScriptTarget.ES2020);
  const code = decls.map((d) => ts.createPrinter().printNode(ts.EmitHint.Unspecified, d, file)).join('\n');
  const names = p.defs.map((d) => mangle(d.name));
  const table = new Function(`${code}\nreturn { ${names.join(', ')} };`)() as Record<string, Emitted>;
  const wrap = (d: Program['defs'][number]): Emitted => {
    const fn = table[mangle(d.name)];
    const types = d.nlParams.map((b) => b.type);
    return (...args) => fromEmitted(fn(...args.map((v, i) => (i < types.length ? toEmitted(types[i], v) : v))));
  };
  return { code, fns: new Map(p.defs.map((d) => [d.name, wrap(d)])) };
}

/**
 * An interpreter value as the emitted code holds it: a non-linear stack of reals is
 * `{ a: Float64Array, b, c, n }` there (constructs/stack/emit.ts), a JS array in the interpreter.
 */
function toEmitted(t: Type | undefined, v: unknown): unknown {
  if (!t || !Array.isArray(v)) return v;
  if (t.tag === 'stack' && t.elem.tag === 'real') return { a: Float64Array.from(v as number[]), b: 0, c: v.length, n: v.length };
  if (t.tag === 'tuple') return v.map((e, i) => toEmitted(t.elems[i], e));
  return v;
}

const isTypedStack = (v: unknown): v is { a: Float64Array; b: number; n: number } =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && (v as { a?: unknown }).a instanceof Float64Array && typeof (v as { n?: unknown }).n === 'number';

/** The emitted code's results in the interpreter's form (typed stacks as arrays of their elements). */
export function fromEmitted(v: unknown): unknown {
  if (isTypedStack(v)) return Array.from(v.a.subarray(v.b, v.b + v.n));
  return Array.isArray(v) ? v.map(fromEmitted) : v;
}

/** A def's results as the emitted function returns them: one bare, several as an array. */
export const asReturned = (r: { nl: Value[]; lin: Value[] }): unknown => {
  const all = [...r.nl, ...r.lin];
  return all.length === 1 ? all[0] : all;
};
