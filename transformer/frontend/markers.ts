// Finding tsad's markers and API calls through the type checker: a name counts only if its
// symbol resolves (through imports, re-exports and aliases) into the tsad runtime module, which
// is recognised by its TSAD_RUNTIME export, never by the identifier's text.
import type * as ts from 'typescript';
import { fail } from './diagnostics';

export interface MarkerInfo {
  readonly node: ts.Node;
  readonly wrt?: readonly (string | number)[];
}

let tsApi: typeof ts;
export function useTypeScript(api: typeof ts): void {
  tsApi = api;
}
function api(): typeof ts {
  return (tsApi ??= require('typescript'));
}

/** The tsad export an expression refers to (`grad`, `differentiable`, ...), if any. */
export function tsadExportName(expr: ts.Expression, checker: ts.TypeChecker): string | undefined {
  const t = api();
  expr = unwrap(expr);
  const at = t.isPropertyAccessExpression(expr) ? expr.name : expr;
  let sym = checker.getSymbolAtLocation(at);
  if (!sym) return undefined;
  if (sym.flags & t.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
  const decl = sym.declarations?.[0];
  if (!decl) return undefined;
  const moduleSym = checker.getSymbolAtLocation(decl.getSourceFile());
  if (!moduleSym?.exports?.has('TSAD_RUNTIME' as ts.__String)) return undefined;
  return sym.name;
}

export function isTsadExport(expr: ts.Expression, checker: ts.TypeChecker, name: string): boolean {
  return tsadExportName(expr, checker) === name;
}

/** Looks through parentheses and type assertions: `(f as any)` is still `f`. */
function unwrap(e: ts.Expression): ts.Expression {
  const t = api();
  while (t.isParenthesizedExpression(e) || t.isAsExpression(e) || t.isNonNullExpression(e) || t.isSatisfiesExpression(e) || t.isTypeAssertionExpression(e)) e = e.expression;
  return e;
}

function literalWrt(node: ts.Expression | undefined): readonly (string | number)[] | undefined {
  const t = api();
  if (!node) return undefined;
  if (!t.isObjectLiteralExpression(node)) return fail(1003, node, 'the options of @differentiable must be an object literal');
  for (const p of node.properties) {
    if (!t.isPropertyAssignment(p) || p.name.getText() !== 'wrt') continue;
    return wrtList(p.initializer);
  }
  return undefined;
}

/** `[0, 'x']` -> [0, 'x']; anything that is not a literal list is a diagnostic. */
export function wrtList(node: ts.Expression): (string | number)[] {
  const t = api();
  const inner = t.isAsExpression(node) || t.isSatisfiesExpression(node) ? node.expression : node;
  if (!t.isArrayLiteralExpression(inner)) return fail(1003, node, 'wrt must be an array literal of parameter names or indices');
  return inner.elements.map((e) => {
    if (t.isNumericLiteral(e)) return Number(e.text);
    if (t.isStringLiteral(e)) return e.text;
    return fail(1003, e, 'wrt entries must be number or string literals');
  });
}

function hasDocMarker(decl: ts.Node): boolean {
  const t = api();
  const sf = decl.getSourceFile();
  const ranges = t.getLeadingCommentRanges(sf.text, decl.getFullStart()) ?? [];
  return ranges.some((r) => /@differentiable\b/.test(sf.text.slice(r.pos, r.end)));
}

/** `derivative(f, rule)` calls per source file, by the declaration of `f`. */
const ruleCache = new WeakMap<ts.SourceFile, Map<ts.Node, ts.CallExpression>>();

/**
 * The `derivative(f, rule)` registration for a function declaration, if its module has one.
 * Registering a derivative also marks the function differentiable.
 */
export function customRuleOf(decl: ts.Node, checker: ts.TypeChecker): ts.CallExpression | undefined {
  const t = api();
  const sf = decl.getSourceFile();
  let rules = ruleCache.get(sf);
  if (!rules) {
    rules = new Map();
    const stack: ts.Node[] = [sf];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (t.isCallExpression(node) && node.arguments.length >= 1) {
        const callee = t.isPropertyAccessExpression(node.expression) ? node.expression.expression : node.expression;
        if (isTsadExport(callee, checker, 'derivative')) {
          const target = functionDeclarationOf(node.arguments[0], checker);
          if (target && !rules.has(target)) rules.set(target, node);
        }
      }
      t.forEachChild(node, (c) => {
        stack.push(c);
      });
    }
    ruleCache.set(sf, rules);
  }
  return rules.get(decl);
}

/** The function declaration (or function expression) an expression names, through aliases. */
function functionDeclarationOf(expr: ts.Expression, checker: ts.TypeChecker): ts.Node | undefined {
  const t = api();
  const e = unwrap(expr);
  let sym = checker.getSymbolAtLocation(t.isPropertyAccessExpression(e) ? e.name : e);
  if (!sym) return undefined;
  if (sym.flags & t.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
  for (const d of sym.declarations ?? []) {
    if (t.isFunctionDeclaration(d) || t.isMethodDeclaration(d)) return d;
    if (t.isVariableDeclaration(d) && d.initializer) {
      const init = unwrap(d.initializer);
      if (t.isArrowFunction(init) || t.isFunctionExpression(init)) return init;
      if (t.isCallExpression(init) && init.arguments[0] && (t.isArrowFunction(init.arguments[0]) || t.isFunctionExpression(init.arguments[0]))) return init.arguments[0];
    }
  }
  return undefined;
}

/** The marker on a function-like declaration, if it has one. */
export function markerOf(decl: ts.Node, checker: ts.TypeChecker): MarkerInfo | undefined {
  const t = api();
  const rule = customRuleOf(decl, checker);
  if (rule && !t.isMethodDeclaration(decl)) return { node: rule };
  if (t.isFunctionDeclaration(decl)) return hasDocMarker(decl) ? { node: decl } : undefined;
  if (t.isMethodDeclaration(decl)) {
    for (const d of t.getDecorators(decl) ?? []) {
      const e = d.expression;
      if (isTsadExport(e, checker, 'differentiable')) return { node: d };
      if (t.isCallExpression(e) && isTsadExport(e.expression, checker, 'differentiable')) {
        return { node: d, wrt: literalWrt(e.arguments[0]) };
      }
    }
    return hasDocMarker(decl) ? { node: decl } : undefined;
  }
  if ((t.isArrowFunction(decl) || t.isFunctionExpression(decl)) && t.isCallExpression(decl.parent)) {
    const call = decl.parent;
    if (call.arguments[0] === decl && isTsadExport(call.expression, checker, 'differentiable')) return { node: call };
  }
  return undefined;
}

/** `f` at a call site -> the marked declaration, through aliases, imports and `const g = f`. */
export function resolveMarkedFunction(
  expr: ts.Expression,
  checker: ts.TypeChecker,
  depth = 0,
): { decl: ts.SignatureDeclaration; marker: MarkerInfo } | undefined {
  const t = api();
  if (depth > 8) return undefined;
  expr = unwrap(expr);
  if (t.isCallExpression(expr) && isTsadExport(expr.expression, checker, 'differentiable')) {
    const fn = expr.arguments[0];
    if (fn && (t.isArrowFunction(fn) || t.isFunctionExpression(fn))) return { decl: fn, marker: { node: expr } };
    return fn ? resolveMarkedFunction(fn, checker, depth + 1) : undefined;
  }
  const at = t.isPropertyAccessExpression(expr) ? expr.name : expr;
  let sym = checker.getSymbolAtLocation(at);
  if (!sym) return undefined;
  if (sym.flags & t.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
  for (const decl of sym.declarations ?? []) {
    if (t.isFunctionDeclaration(decl) || t.isMethodDeclaration(decl)) {
      const marker = markerOf(decl, checker);
      if (marker && decl.body) return { decl, marker };
    }
    if (t.isVariableDeclaration(decl) && decl.initializer) {
      const init = unwrap(decl.initializer);
      const rule = (t.isArrowFunction(init) || t.isFunctionExpression(init)) && customRuleOf(init, checker);
      if (rule) return { decl: init as ts.SignatureDeclaration, marker: { node: rule } };
      const r = resolveMarkedFunction(decl.initializer, checker, depth + 1);
      if (r) return r;
    }
  }
  return undefined;
}
