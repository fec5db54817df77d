// Two variables that always hold the same value are one (s15, size).
//
// Code hoisted out of loops runs under a trip guard (constructs/cond/tripGuard.ts), and each
// loop it came out of gets its own result of the guard: where two loops hoisted the same value
// (the trip count's checked value, a `b > 0`), the emitted code declares both and copies it twice,
// `let checked = 0, checked_7 = 0; if (runs) { const t = …; checked = t; checked_7 = t; }`.
// Two variables declared together with the same literal, each assigned once, both from the same
// name in one block with nothing reading the second, writing that name or leaving the block
// (`continue`, `break`, `return`, `throw`) in between, hold the same value wherever the second
// is read: the second goes, its readers read the first.
// Names are unique per emitted function (emitTs.ts), so a name is one variable throughout.
import type * as ts from 'typescript';
import { mapNested } from './nestedStatements';

type Role = 'declared' | 'written' | 'read' | 'key';

/** `x = y;` with two names: [x, y]. */
function copyOf(t: typeof ts, s: ts.Statement): [string, string] | undefined {
  if (!t.isExpressionStatement(s) || !t.isBinaryExpression(s.expression) || s.expression.operatorToken.kind !== t.SyntaxKind.EqualsToken) return undefined;
  const { left, right } = s.expression;
  return t.isIdentifier(left) && t.isIdentifier(right) ? [left.text, right.text] : undefined;
}

/** The literal a declaration starts with, as text (`undefined` for none); undefined for anything else. */
function startOf(t: typeof ts, d: ts.VariableDeclaration): string | undefined {
  const e = d.initializer;
  if (!e) return 'undefined';
  if (t.isNumericLiteral(e)) return e.text;
  if (e.kind === t.SyntaxKind.TrueKeyword) return 'true';
  if (e.kind === t.SyntaxKind.FalseKeyword) return 'false';
  return undefined;
}

/** The function body with each such second variable gone (the emitter's nodes have no parents: every walk passes them down). */
export function sameLets(t: typeof ts, statements: readonly ts.Statement[]): readonly ts.Statement[] {
  // Counts per name over the whole function.
  const writes = new Map<string, number>();
  const keysOrShorthand = new Set<string>();
  const bump = (m: Map<string, number>, n: string) => m.set(n, (m.get(n) ?? 0) + 1);
  const walk = (n: ts.Node, parent: ts.Node | undefined): void => {
    if (t.isIdentifier(n)) {
      const role = parent ? roleWithParent(t, n, parent) : 'read';
      if (role === 'written') bump(writes, n.text);
      if (parent && t.isShorthandPropertyAssignment(parent)) keysOrShorthand.add(n.text);
      return;
    }
    for (const x of destructured(t, n)) bump(writes, x);
    t.forEachChild(n, (c) => walk(c, n));
  };
  for (const s of statements) walk(s, undefined);

  const renamed = new Map<string, string>();
  const dropped = new Set<ts.Statement>();
  const visitList = (ss: readonly ts.Statement[]): void => {
    for (const s of ss) {
      mapNested(t, s, (inner) => {
        visitList(inner);
        return inner;
      });
    }
    for (let i = 0; i < ss.length; i++) {
      const s = ss[i];
      if (!t.isVariableStatement(s) || (s.declarationList.flags & t.NodeFlags.Let) === 0) continue;
      const groups = new Map<string, string[]>();
      for (const d of s.declarationList.declarations) {
        const start = t.isIdentifier(d.name) ? startOf(t, d) : undefined;
        if (start === undefined || writes.get((d.name as ts.Identifier).text) !== 1 || keysOrShorthand.has((d.name as ts.Identifier).text)) continue;
        groups.set(start, [...(groups.get(start) ?? []), (d.name as ts.Identifier).text]);
      }
      for (const names of groups.values()) if (names.length > 1) pairUp(names, ss, i);
    }
  };
  /** Within the statements after the declaration (and the blocks in them), pairs of copies of one name. */
  const pairUp = (names: readonly string[], ss: readonly ts.Statement[], declaredAt: number): void => {
    const lists: (readonly ts.Statement[])[] = [];
    const collect = (list: readonly ts.Statement[]) => {
      lists.push(list);
      for (const s of list) mapNested(t, s, (inner) => (collect(inner), inner));
    };
    collect(ss.slice(declaredAt + 1));
    const wanted = new Set(names);
    for (const list of lists) {
      for (let p = 0; p < list.length; p++) {
        const first = copyOf(t, list[p]);
        if (!first || !wanted.has(first[0]) || renamed.has(first[0])) continue;
        for (let q = p + 1; q < list.length; q++) {
          const second = copyOf(t, list[q]);
          // Nothing in between may read the second's name (it would see its old value) or write the copied one.
          if (
            second &&
            wanted.has(second[0]) &&
            second[0] !== first[0] &&
            second[1] === first[1] &&
            !renamed.has(second[0]) &&
            !list.slice(p + 1, q).some((x) => mentionsAny(t, x, [second[0]]) || leaves(t, x))
          ) {
            renamed.set(second[0], first[0]);
            dropped.add(list[q]);
            continue;
          }
          if (writesName(t, list[q], first[1])) break;
        }
      }
    }
  };
  visitList(statements);
  if (renamed.size === 0) return statements;
  return rewrite(t, statements, renamed, dropped);
}

function roleWithParent(t: typeof ts, id: ts.Identifier, p: ts.Node): Role {
  if ((t.isVariableDeclaration(p) || t.isParameter(p)) && p.name === id) return 'declared';
  if ((t.isPropertyAccessExpression(p) && p.name === id) || (t.isPropertyAssignment(p) && p.name === id)) return 'key';
  if (t.isBinaryExpression(p) && p.left === id && p.operatorToken.kind >= t.SyntaxKind.FirstAssignment && p.operatorToken.kind <= t.SyntaxKind.LastAssignment) return 'written';
  if ((t.isPrefixUnaryExpression(p) || t.isPostfixUnaryExpression(p)) && (p.operator === t.SyntaxKind.PlusPlusToken || p.operator === t.SyntaxKind.MinusMinusToken)) return 'written';
  return 'read';
}

/** The names a destructuring assignment (`[a, b] = …`, `({ a, k: b } = …)`) writes; none for anything else. */
function destructured(t: typeof ts, n: ts.Node): string[] {
  if (!t.isBinaryExpression(n) || n.operatorToken.kind !== t.SyntaxKind.EqualsToken) return [];
  const out: string[] = [];
  const target = (e: ts.Node): void => {
    if (t.isIdentifier(e)) out.push(e.text);
    else if (t.isArrayLiteralExpression(e)) e.elements.forEach(target);
    else if (t.isObjectLiteralExpression(e))
      for (const p of e.properties) {
        if (t.isShorthandPropertyAssignment(p)) out.push(p.name.text);
        else if (t.isPropertyAssignment(p)) target(p.initializer);
        else if (t.isSpreadAssignment(p)) target(p.expression);
      }
    else if (t.isSpreadElement(e)) target(e.expression);
    else if (t.isBinaryExpression(e) && e.operatorToken.kind === t.SyntaxKind.EqualsToken) target(e.left);
    else if (t.isParenthesizedExpression(e)) target(e.expression);
  };
  if (t.isArrayLiteralExpression(n.left) || t.isObjectLiteralExpression(n.left)) target(n.left);
  return out;
}

/** Whether a statement may end the run of its block early (`continue` would skip the second copy). */
function leaves(t: typeof ts, n: ts.Node): boolean {
  if (t.isReturnStatement(n) || t.isBreakStatement(n) || t.isContinueStatement(n) || t.isThrowStatement(n)) return true;
  return t.forEachChild(n, (c) => leaves(t, c) || undefined) ?? false;
}

function mentionsAny(t: typeof ts, n: ts.Node, names: readonly string[]): boolean {
  if (t.isIdentifier(n)) return names.includes(n.text);
  return t.forEachChild(n, (c) => mentionsAny(t, c, names) || undefined) ?? false;
}

function writesName(t: typeof ts, n: ts.Node, name: string): boolean {
  let found = false;
  const walk = (x: ts.Node, parent: ts.Node | undefined): void => {
    if (found) return;
    if (t.isIdentifier(x)) {
      if (x.text === name && parent && roleWithParent(t, x, parent) === 'written') found = true;
      return;
    }
    if (destructured(t, x).includes(name)) found = true;
    t.forEachChild(x, (c) => walk(c, x));
  };
  walk(n, undefined);
  return found;
}

/** The statements with the dropped copies and declarations gone and each renamed name read as its first. */
function rewrite(t: typeof ts, statements: readonly ts.Statement[], renamed: ReadonlyMap<string, string>, dropped: ReadonlySet<ts.Statement>): readonly ts.Statement[] {
  const f = t.factory;
  const list = (ss: readonly ts.Statement[], parent: ts.Node | undefined) =>
    ss
      .filter((s) => !dropped.has(s))
      .map((s) => visit(s, parent) as ts.Statement)
      .filter((s) => !(t.isVariableStatement(s) && s.declarationList.declarations.length === 0));
  const visit = (n: ts.Node, parent: ts.Node | undefined): ts.Node => {
    if (t.isIdentifier(n)) {
      const to = renamed.get(n.text);
      return to !== undefined && parent && roleWithParent(t, n, parent) === 'read' ? f.createIdentifier(to) : n;
    }
    if (t.isBlock(n)) return f.updateBlock(n, list(n.statements, n));
    if (t.isVariableStatement(n)) {
      const kept = n.declarationList.declarations.filter((d) => !(t.isIdentifier(d.name) && renamed.has(d.name.text)));
      const decls = kept.map((d) => visit(d, n.declarationList) as ts.VariableDeclaration);
      return f.updateVariableStatement(n, n.modifiers, f.updateVariableDeclarationList(n.declarationList, decls));
    }
    return t.visitEachChild(n, (c) => visit(c, n), undefined);
  };
  return list(statements, undefined);
}
