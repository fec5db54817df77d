// A marked function nested deeper than tsad can follow: the stack ran out while compiling it
// (the front end lowers statements recursively, as TypeScript's own checker and printer do; a
// pass that could not follow says NestingTooDeep). That is the user's code being out of range,
// not a bug in tsad, so it becomes TSAD1190 at the function, with its depth, instead of TSAD9000.
import type * as ts from 'typescript';
import { TsadDiagnosticError, diagnosticMessage } from '../frontend/diagnostics';
import { NESTED_TOO_DEEP } from '../frontend/codes/limits';
import { NestingTooDeep, isStackOverflow } from '../ir/nesting';

/** Below this many levels a stack overflow is not the nesting's fault (tsad follows 250 and more). */
const DEEP_ENOUGH = 100;

/** TSAD1190 when `thrown` is a stack overflow met compiling `what`, the function `fn` nested deep, else undefined. */
export function nestedTooDeep(tsApi: typeof ts, thrown: unknown, what: string, fn: ts.Node): TsadDiagnosticError | undefined {
  if (!isStackOverflow(thrown) && !(thrown instanceof NestingTooDeep)) return undefined;
  const depth = statementNesting(tsApi, fn);
  // Out of stack on a function of ordinary depth is a bug in tsad (a runaway recursion): TSAD9000.
  if (depth < DEEP_ENOUGH) return undefined;
  const message = `${what} ran out of stack: the function nests statements ${depth} deep (an if, loop or block inside another, ${depth} times)`;
  return new TsadDiagnosticError(NESTED_TOO_DEEP, fn, diagnosticMessage(NESTED_TOO_DEEP, message));
}

/** The deepest nesting of statements that hold statements (if, loops, blocks, switch, try) in `node`, without recursion. */
function statementNesting(tsApi: typeof ts, node: ts.Node): number {
  let deepest = 0;
  const pending: { readonly node: ts.Node; readonly depth: number }[] = [{ node, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { node: n, depth } = next;
    const counts = tsApi.isIfStatement(n) || tsApi.isIterationStatement(n, false) || tsApi.isSwitchStatement(n) || tsApi.isTryStatement(n) || (tsApi.isBlock(n) && tsApi.isBlock(n.parent));
    const here = depth + (counts ? 1 : 0);
    deepest = Math.max(deepest, here);
    tsApi.forEachChild(n, (c) => {
      pending.push({ node: c, depth: here });
    });
  }
  return deepest;
}
