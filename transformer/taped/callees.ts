// Which functions that run taped compiled code may call as an opaque call (constructs/taped,
// docs/frontend.md "Mixing"): numbers and arrays of numbers in, a number out, and no cycle of
// calls back into the functions the compiled path is lowering (those then run taped as a whole).
import type * as ts from 'typescript';
import type { TapedTarget } from './body';

/** Parameters that are numbers or arrays of numbers (plain names, no default, optional or rest), and a number result. */
export function callableFromCompiled(t: typeof ts, checker: ts.TypeChecker, decl: TapedTarget): boolean {
  const number = (type: ts.Type) => (type.flags & t.TypeFlags.NumberLike) !== 0;
  const numbers = (type: ts.Type) =>
    number(type) || (checker.isArrayType(type) && number(checker.getTypeArguments(type as ts.TypeReference)[0])) || ['Float64Array', 'Float32Array'].includes(type.getSymbol()?.getName() ?? '');
  const signature = checker.getSignatureFromDeclaration(decl);
  if (!signature || !number(checker.getReturnTypeOfSignature(signature)) || decl.parameters.length === 0) return false;
  return decl.parameters.every((p) => t.isIdentifier(p.name) && !p.dotDotDotToken && !p.questionToken && !p.initializer && numbers(checker.getTypeAtLocation(p)));
}

/** Methods that change an array in place. */
const MUTATING = new Set(['sort', 'reverse', 'fill', 'push', 'pop', 'shift', 'unshift', 'splice', 'set', 'copyWithin']);

/**
 * Whether `decl` may change an array it is given (an element written, a method that reorders or
 * resizes it, the array passed on to a function that may, or to anything tsad cannot follow).
 * Compiled code keeps arrays as values: such a callee runs taped with its caller, where the
 * change is seen as JavaScript sees it.
 */
export function writesArrayParameters(t: typeof ts, checker: ts.TypeChecker, decl: TapedTarget, targetOf: (e: ts.Expression) => TapedTarget | undefined): boolean {
  const seen = new Set<string>();
  const writes = (fn: TapedTarget, index: number): boolean => {
    const key = `${fn.pos}:${index}`;
    if (seen.has(key)) return false;
    seen.add(key);
    const param = fn.parameters[index];
    // A destructured parameter holds no array to write into; a rest parameter or a missing one is refused elsewhere.
    if (!param || !t.isIdentifier(param.name) || !fn.body) return false;
    const sym = checker.getSymbolAtLocation(param.name);
    let unsafe = false;
    const visit = (n: ts.Node): void => {
      if (unsafe) return;
      if (t.isIdentifier(n) && n !== param.name && checker.getSymbolAtLocation(n) === sym && !safeUse(n)) unsafe = true;
      else t.forEachChild(n, visit);
    };
    const safeUse = (n: ts.Identifier): boolean => {
      const p = n.parent;
      if (t.isElementAccessExpression(p) && p.expression === n) return !isWritten(t, p);
      if (t.isPropertyAccessExpression(p) && p.expression === n) return !MUTATING.has(p.name.text);
      if (t.isSpreadElement(p) || (t.isForOfStatement(p) && p.expression === n) || t.isTypeOfExpression(p)) return true;
      if (t.isCallExpression(p) && p.arguments.includes(n as ts.Expression)) {
        let callee: TapedTarget | undefined;
        try {
          callee = targetOf(p.expression);
        } catch {
          callee = undefined;
        }
        return callee !== undefined && !writes(callee, p.arguments.indexOf(n as ts.Expression));
      }
      return false;
    };
    visit(fn.body);
    return unsafe;
  };
  return decl.parameters.some((p, i) => {
    const type = checker.getTypeAtLocation(p);
    const array = checker.isArrayType(type) || ['Float64Array', 'Float32Array'].includes(type.getSymbol()?.getName() ?? '');
    return array && writes(decl, i);
  });
}

/** An element access that is assigned, updated or deleted. */
function isWritten(t: typeof ts, e: ts.ElementAccessExpression): boolean {
  const p = e.parent;
  if (t.isBinaryExpression(p) && p.left === e) return p.operatorToken.kind >= t.SyntaxKind.FirstAssignment && p.operatorToken.kind <= t.SyntaxKind.LastAssignment;
  if ((t.isPrefixUnaryExpression(p) || t.isPostfixUnaryExpression(p)) && (p.operator === t.SyntaxKind.PlusPlusToken || p.operator === t.SyntaxKind.MinusMinusToken)) return true;
  return t.isDeleteExpression(p);
}

/** Whether a call chain through the module's functions (`targetOf`) leads from `from` to one of `targets`. */
export function reachesAny(t: typeof ts, from: TapedTarget, targets: readonly ts.Node[], targetOf: (e: ts.Expression) => TapedTarget | undefined): boolean {
  const seen = new Set<TapedTarget>([from]);
  const stack: TapedTarget[] = [from];
  while (stack.length > 0) {
    const fn = stack.pop()!;
    let found = false;
    const visit = (n: ts.Node): void => {
      if (found) return;
      // A function named anywhere (called or passed as a value) may run.
      if (t.isIdentifier(n)) {
        let callee: TapedTarget | undefined;
        try {
          callee = targetOf(n);
        } catch {
          callee = undefined;
        }
        if (callee && targets.includes(callee)) found = true;
        else if (callee && !seen.has(callee)) {
          seen.add(callee);
          stack.push(callee);
        }
      }
      t.forEachChild(n, visit);
    };
    if (fn.body) visit(fn.body);
    if (found) return true;
  }
  return false;
}
