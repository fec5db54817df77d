// Counting things inside the loops of an emitted function: the shared part of the tests that
// assert what a derivative's loops no longer do (allocate, check ownership, add at an invariant
// index).
import * as ts from 'typescript';

export const isLoop = (n: ts.Node): boolean => ts.isForStatement(n) || ts.isWhileStatement(n) || ts.isDoStatement(n);

/**
 * How many nodes inside a loop of the emitted functions whose names start with `fn` satisfy
 * `counts`; a subtree for which `skip` holds is not entered. Fails the test if no such function
 * was emitted (a count of 0 must not come from a renamed function).
 */
export function countInLoops(outputText: string, fn: string, counts: (node: ts.Node, file: ts.SourceFile) => boolean, skip?: (node: ts.Node, file: ts.SourceFile) => boolean): number {
  const file = ts.createSourceFile('out.js', outputText, ts.ScriptTarget.Latest, true);
  let count = 0;
  const visit = (node: ts.Node, inLoop: boolean): void => {
    if (skip?.(node, file)) return;
    if (inLoop && counts(node, file)) count++;
    const loop = inLoop || isLoop(node);
    ts.forEachChild(node, (c) => visit(c, loop));
  };
  forEachEmitted(file, fn, (s) => visit(s, false));
  return count;
}

/** Calls `visit` on each emitted function whose name starts with `fn`; fails the test if there is none. */
export function forEachEmitted(file: ts.SourceFile, fn: string, visit: (f: ts.FunctionDeclaration) => void): void {
  let found = false;
  for (const s of file.statements) {
    if (ts.isFunctionDeclaration(s) && s.name?.text.startsWith(fn)) {
      found = true;
      visit(s);
    }
  }
  expect(found).toBe(true);
}
