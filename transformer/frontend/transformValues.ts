// A transform is compiled where it is called: `grad(f)`, through a renamed import or a const
// alias (`const g = grad; g(f)`), which markers.ts resolves. Any other use of a transform as a
// value (held by a let, passed as an argument, stored in an object) would reach the runtime's
// uncompiled stub and fail there with advice to add the plugin that is already there, so it is
// an error at the build (TSAD1010).
import type * as ts from 'typescript';
import { TRANSFORM_NAMES, tsadExportName, tsadExportOfSymbol } from './markers';

export interface TransformValueUse {
  /** The reference to the transform (an identifier or `tsad.grad`). */
  readonly node: ts.Expression;
  readonly message: string;
}

/** Every use of a tsad transform in `sf` other than a call, a const alias, an import or export, or a type. */
export function transformValueUses(t: typeof ts, sf: ts.SourceFile, checker: ts.TypeChecker): TransformValueUse[] {
  // Only an import can bring a transform into a file.
  if (!sf.statements.some((s) => t.isImportDeclaration(s) || t.isImportEqualsDeclaration(s))) return [];
  const names = candidateNames(t, sf);
  const uses: TransformValueUse[] = [];
  const stack: ts.Node[] = [sf];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (t.isIdentifier(node) && names.has(node.text)) {
      const use = valueUse(t, node, checker);
      if (use) uses.push(use);
    }
    t.forEachChild(node, (c) => {
      stack.push(c);
    });
  }
  return uses.sort((a, b) => a.node.pos - b.node.pos);
}

/**
 * The names a reference to a transform can have in this file: the transforms' own (as members
 * of a namespace), the local names of imports, and consts given a name (a possible alias).
 */
function candidateNames(t: typeof ts, sf: ts.SourceFile): Set<string> {
  const names = new Set<string>(TRANSFORM_NAMES);
  const stack: ts.Node[] = [sf];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if ((t.isImportSpecifier(node) || t.isImportClause(node) || t.isNamespaceImport(node) || t.isImportEqualsDeclaration(node)) && node.name) names.add(node.name.text);
    if (t.isVariableDeclaration(node) && t.isIdentifier(node.name) && node.initializer && isNameOrMember(t, node.initializer)) names.add(node.name.text);
    t.forEachChild(node, (c) => {
      stack.push(c);
    });
  }
  return names;
}

/** `x`, `a.b`, also in parentheses or under `as`: what a const alias of a transform is given. */
function isNameOrMember(t: typeof ts, e: ts.Expression): boolean {
  while (t.isParenthesizedExpression(e) || t.isAsExpression(e) || t.isNonNullExpression(e) || t.isSatisfiesExpression(e) || t.isTypeAssertionExpression(e)) e = e.expression;
  return t.isIdentifier(e) || t.isPropertyAccessExpression(e);
}

/** Looks through parentheses and type assertions, as markers.ts does for a callee. */
function outermost(t: typeof ts, e: ts.Node): ts.Node {
  while (
    e.parent &&
    (t.isParenthesizedExpression(e.parent) || t.isAsExpression(e.parent) || t.isNonNullExpression(e.parent) || t.isSatisfiesExpression(e.parent) || t.isTypeAssertionExpression(e.parent))
  ) {
    e = e.parent;
  }
  return e;
}

function valueUse(t: typeof ts, id: ts.Identifier, checker: ts.TypeChecker): TransformValueUse | undefined {
  const p = id.parent;
  // Declarations, imports and exports name a transform without using it.
  if (t.isImportSpecifier(p) || t.isExportSpecifier(p) || t.isImportClause(p) || t.isNamespaceImport(p) || t.isImportEqualsDeclaration(p)) return undefined;
  if ((t.isVariableDeclaration(p) || t.isBindingElement(p) || t.isParameter(p)) && p.name === id) return undefined;
  // `tsad.grad`: the member is the reference; the namespace alone is not one.
  if (t.isPropertyAccessExpression(p) && p.expression === id) return undefined;
  if (t.isQualifiedName(p) || isPropertyName(t, id)) return undefined;
  if (t.isShorthandPropertyAssignment(p)) {
    // `{ grad }`: the field holds the transform.
    const value = checker.getShorthandAssignmentValueSymbol(p);
    const name = value && tsadExportOfSymbol(value, checker);
    return name && TRANSFORM_NAMES.has(name) ? { node: id, message: valueMessage(name) } : undefined;
  }
  const ref: ts.Expression = t.isPropertyAccessExpression(p) && p.name === id ? p : id;
  for (let a: ts.Node | undefined = ref.parent; a && !t.isStatement(a); a = a.parent) if (t.isTypeNode(a) || t.isExpressionWithTypeArguments(a)) return undefined;
  const name = tsadExportName(ref, checker);
  if (!name || !TRANSFORM_NAMES.has(name)) return undefined;
  const outer = outermost(t, ref);
  const at = outer.parent;
  if (t.isCallExpression(at) && at.expression === outer) return undefined;
  if (t.isTypeOfExpression(at) || t.isExportAssignment(at)) return undefined;
  if (t.isVariableDeclaration(at) && at.initializer === outer) {
    if (at.parent.flags & t.NodeFlags.Const) return undefined;
    const kind = at.parent.flags & t.NodeFlags.Let ? 'let' : 'var';
    return {
      node: ref,
      message: `'${at.name.getText()}' holds the transform ${name} in a ${kind}: only calls of ${name} through its import or a const are compiled, a call of '${at.name.getText()}' would reach the uncompiled ${name}`,
    };
  }
  return { node: ref, message: valueMessage(name) };
}

function valueMessage(name: string): string {
  return `the transform ${name} is used here as a value, not called: tsad compiles each call of ${name} at build time, and a call through this value would reach the uncompiled ${name}`;
}

/** The name of a property in an object literal, a class member or an enum member (not a reference). */
function isPropertyName(t: typeof ts, id: ts.Identifier): boolean {
  const p = id.parent;
  return (
    ((t.isPropertyAssignment(p) || t.isPropertyDeclaration(p) || t.isMethodDeclaration(p) || t.isPropertySignature(p) || t.isGetAccessor(p) || t.isSetAccessor(p) || t.isEnumMember(p)) &&
      p.name === id) ||
    (t.isBindingElement(p) && p.propertyName === id) ||
    t.isLabeledStatement(p) ||
    t.isBreakOrContinueStatement(p)
  );
}
