// Instance methods and `this`. `grad(s.energy)` differentiates energy with `this` bound to `s`:
// each field it reads (`this.k`, `this.rest[i]`, `this.friction.linear`) is a constant read when
// the derivative runs, like module state (moduleState.ts). A method it calls through `this` is
// lowered statically, so the wrapper checks that the object's methods are the ones compiled
// (compile.ts): a subclass's override is never silently replaced by the base's body.
import type * as ts from 'typescript';
import { fail } from './diagnostics';
import type { StateSource } from './values';

/** Is `decl` an instance method of a class (not a static one)? */
export function isInstanceMethod(t: typeof ts, decl: ts.Node): decl is ts.MethodDeclaration {
  return t.isMethodDeclaration(decl) && t.isClassLike(decl.parent) && (t.getCombinedModifierFlags(decl) & t.ModifierFlags.Static) === 0;
}

/** `this.k` in an instance method `decl`: a field of the object, read when the derivative runs. */
export function thisField(t: typeof ts, checker: ts.TypeChecker, decl: ts.SignatureDeclaration, e: ts.PropertyAccessExpression): StateSource {
  if (!isInstanceMethod(t, decl)) fail(1102, e.expression, "'this' is supported only in an instance method of a class (this.field, this.method(...)); pass the value as a parameter");
  const symbol = checker.getSymbolAtLocation(e.name);
  if (!symbol) return fail(1102, e.name, `no field ${e.name.text}`);
  if (symbol.flags & t.SymbolFlags.Method) fail(1102, e, `'this.${e.name.text}' is a method, not a value: call it, this.${e.name.text}(...)`);
  return { kind: 'this', symbol, field: e.name.text };
}

/**
 * A call of the marked function `callee` (`target`, whose calls through `this` are `inner`) from
 * `decl`: the instance methods the object must still have as compiled. An instance method of
 * another object is refused: its class, known only at run time, may override it.
 */
export function methodCall(t: typeof ts, decl: ts.SignatureDeclaration, callee: ts.Expression, target: ts.SignatureDeclaration, inner: readonly ts.MethodDeclaration[]): ts.MethodDeclaration[] {
  if (!isInstanceMethod(t, target)) return [];
  const viaThis = t.isPropertyAccessExpression(callee) && callee.expression.kind === t.SyntaxKind.ThisKeyword && isInstanceMethod(t, decl);
  if (!viaThis) {
    fail(
      1102,
      callee,
      `'${callee.getText()}' calls an instance method of another object, which a differentiable function cannot do yet (the object's class may override it): call it through this in a method of the same class, or make the method static and pass the object's fields`,
    );
  }
  return [target, ...inner];
}

/** The class a method belongs to, where generated code can name it: a class declared at module level, with a name. */
export function classOf(t: typeof ts, m: ts.MethodDeclaration): (ts.ClassDeclaration & { readonly name: ts.Identifier }) | undefined {
  const cls = m.parent;
  return t.isClassDeclaration(cls) && cls.name && t.isSourceFile(cls.parent) ? (cls as ts.ClassDeclaration & { readonly name: ts.Identifier }) : undefined;
}
