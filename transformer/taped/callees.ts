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
