// Run-time helpers the emitted code needs (records.ts, tensors.ts) are written once as JavaScript
// source and parsed into statements the printer treats as its own.
import type * as ts from 'typescript';

/** SOURCE's statements, as synthesized nodes (no positions, no parents: as if built by the factory). */
export function helperStatements(t: typeof ts, fileName: string, source: string): ts.Statement[] {
  const file = t.createSourceFile(fileName, source, t.ScriptTarget.ES2020, false, t.ScriptKind.JS);
  const strip = (n: ts.Node): void => {
    t.forEachChild(n, strip);
    t.setTextRange(n, { pos: -1, end: -1 });
    (n as { parent?: ts.Node }).parent = undefined;
    (n as { flags: ts.NodeFlags }).flags |= t.NodeFlags.Synthesized;
  };
  for (const s of file.statements) strip(s);
  return [...file.statements];
}
