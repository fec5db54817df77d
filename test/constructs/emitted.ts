// Emitted TypeScript as the construct tests run it: every def of a program printed, evaluated,
// and looked up by IR name, to compare with the interpreter.
import * as ts from 'typescript';
import { emitDefs, mangle } from '../../transformer/backend/emitTs';
import type { Program } from '../../transformer/ir/syntax';
import type { Value } from '../../transformer/ir/interp';

export type Emitted = (...args: unknown[]) => unknown;

/** Emits every def of the program, runs the JavaScript, and returns the functions by IR name. */
export function emitAndLoad(p: Program): { code: string; fns: Map<string, Emitted> } {
  const decls = emitDefs(p.defs, { factory: ts.factory, tsApi: ts, fnName: mangle });
  const file = ts.createSourceFile('out.ts', '', ts.ScriptTarget.ES2020);
  const code = decls.map((d) => ts.createPrinter().printNode(ts.EmitHint.Unspecified, d, file)).join('\n');
  const names = p.defs.map((d) => mangle(d.name));
  const table = new Function(`${code}\nreturn { ${names.join(', ')} };`)() as Record<string, Emitted>;
  return { code, fns: new Map(p.defs.map((d) => [d.name, table[mangle(d.name)]])) };
}

/** A def's results as the emitted function returns them: one bare, several as an array. */
export const asReturned = (r: { nl: Value[]; lin: Value[] }): unknown => {
  const all = [...r.nl, ...r.lin];
  return all.length === 1 ? all[0] : all;
};
