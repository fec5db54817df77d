// Where a variable is written after its declaration. A transform compiles the function a variable
// holds where it is declared; a `let` that is later given another function would be
// differentiated as its first one, silently, so markers.ts refuses it (TSAD1009).
import type * as ts from 'typescript';

/** The identifiers written in a file (`f = …`, `f += …`, `f++`, `[f] = …`, `for (f of …)`), by name. */
const writesCache = new WeakMap<ts.SourceFile, Map<string, ts.Identifier[]>>();

function writesIn(t: typeof ts, sf: ts.SourceFile): Map<string, ts.Identifier[]> {
  let writes = writesCache.get(sf);
  if (writes) return writes;
  writes = new Map();
  const stack: ts.Node[] = [sf];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (t.isIdentifier(node) && isWritten(t, node)) {
      const known = writes.get(node.text) ?? [];
      known.push(node);
      writes.set(node.text, known);
    }
    t.forEachChild(node, (c) => {
      stack.push(c);
    });
  }
  writesCache.set(sf, writes);
  return writes;
}

/** Is this identifier the target of an assignment, an increment or a `for…of`/`for…in` head? */
function isWritten(t: typeof ts, id: ts.Identifier): boolean {
  const K = t.SyntaxKind;
  let node: ts.Node = id;
  let destructured = false;
  // Up through parentheses and the array and object literals of a destructuring assignment.
  for (;;) {
    const p = node.parent;
    if (!p) return false;
    if (t.isParenthesizedExpression(p)) node = p;
    else if (t.isArrayLiteralExpression(p) || t.isSpreadElement(p) || t.isSpreadAssignment(p) || t.isObjectLiteralExpression(p)) {
      node = p;
      destructured = true;
    } else if ((t.isShorthandPropertyAssignment(p) && p.name === node) || (t.isPropertyAssignment(p) && p.initializer === node)) {
      node = p;
      destructured = true;
    } else if (t.isBinaryExpression(p) && p.operatorToken.kind === K.EqualsToken && p.right === node && destructured) {
      // `[a, f] = [f, a]` is on the right here: not a write of f.
      return false;
    } else break;
  }
  const p = node.parent;
  if (t.isBinaryExpression(p) && p.left === node) {
    const op = p.operatorToken.kind;
    return destructured ? op === K.EqualsToken : op >= K.FirstAssignment && op <= K.LastAssignment;
  }
  if (destructured) return (t.isForOfStatement(p) || t.isForInStatement(p)) && p.initializer === node;
  if ((t.isPrefixUnaryExpression(p) || t.isPostfixUnaryExpression(p)) && (p.operator === K.PlusPlusToken || p.operator === K.MinusMinusToken)) return true;
  return (t.isForOfStatement(p) || t.isForInStatement(p)) && p.initializer === node;
}

/**
 * The first place a `let` or `var` is written after its declaration, if any (a const cannot be).
 * Only its own file can write it: an imported binding is read-only.
 */
export function reassignment(t: typeof ts, decl: ts.VariableDeclaration, checker: ts.TypeChecker): ts.Identifier | undefined {
  if (decl.parent.flags & t.NodeFlags.Const || !t.isIdentifier(decl.name)) return undefined;
  const sym = checker.getSymbolAtLocation(decl.name);
  if (!sym) return undefined;
  const candidates = writesIn(t, decl.getSourceFile()).get(decl.name.text) ?? [];
  return candidates.find((id) => checker.getSymbolAtLocation(id) === sym);
}
