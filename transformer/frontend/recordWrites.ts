// Writes into the fields of an array of records (`ps[i].x = v`, `ps[i].pos[0] += v`,
// `ps[i].vel[j] = v`): docs/frontend.md, "Arrays of records". In JavaScript the elements are
// objects, and another array can hold the same objects (`q = ps.slice()`, `q.push(ps[0])`,
// `ps.map((p) => p)`): a write into a field of one shows in the other. tsad's records are
// values, so a field may be written only in an array whose every element is a record built in
// place (an object or array literal): then no other name can see the write.
import type * as ts from 'typescript';
import { fail } from './diagnostics';
import { recordAccess } from './recordAccess';
import { sharedArrayIn } from './freshArrays';

/** The array of records whose field a statement writes (`ps[i].x = v`, `ps[i].x++`), when it is a plain name. */
export function writtenRecord(t: typeof ts, checker: ts.TypeChecker, n: ts.Node): ts.Identifier | undefined {
  const K = t.SyntaxKind;
  let target: ts.Expression | undefined;
  if (t.isBinaryExpression(n) && n.operatorToken.kind >= K.FirstAssignment && n.operatorToken.kind <= K.LastAssignment) target = n.left;
  if ((t.isPrefixUnaryExpression(n) || t.isPostfixUnaryExpression(n)) && (n.operator === K.PlusPlusToken || n.operator === K.MinusMinusToken)) target = n.operand;
  const access = target && recordAccess(t, checker, target);
  if (!access) return undefined;
  let base = access.base;
  while (t.isParenthesizedExpression(base)) base = base.expression;
  return t.isIdentifier(base) ? base : undefined;
}

/**
 * Each array of records whose fields `body` writes must hold only records built in place: its
 * initializer (a literal of literals, `[]`, or a `.map`/`Array.from` whose callback returns a
 * literal), and every record pushed onto it or stored into it (TSAD1123 otherwise).
 */
export function checkRecordWrites(t: typeof ts, checker: ts.TypeChecker, body: ts.Node): void {
  const written = new Map<ts.Symbol, ts.Identifier>();
  const find = (n: ts.Node): void => {
    const id = writtenRecord(t, checker, n);
    const sym = id && checker.getSymbolAtLocation(id);
    if (sym && !written.has(sym)) written.set(sym, id!);
    t.forEachChild(n, find);
  };
  find(body);
  if (written.size === 0) return;
  // A record built in place may still hold an array another name holds (`{ w }`, `{ w: p.w }`).
  const sharedArrays = (record: ts.Expression, name: string): void => {
    const part = sharedArrayIn(t, checker, record);
    if (part)
      fail(
        1123,
        part,
        `the arrays in the records of '${name}' are written, and ${part.getText()} may be an array another name holds (in JavaScript the write would show there): build it in place, [ … ], .map(…), new Array(n).fill(0) or a .slice()`,
      );
  };
  const shared = (e: ts.Node, name: string, what: string): never =>
    fail(1123, e, `the fields of '${name}' are written, and ${what} may be a record another array holds too (in JavaScript the write would show there): build each record in place, { … } or [ … ]`);
  for (const [sym, id] of written) {
    const decl = sym.valueDeclaration;
    const init = decl && t.isVariableDeclaration(decl) ? decl.initializer : undefined;
    // Parameters and other non-locals are reported by checkArrayWrites (writes.ts) as for any array.
    if (init && !isFreshRecords(t, init)) shared(init, id.text, 'its initializer');
    if (init) for (const r of builtRecords(t, init)) sharedArrays(r, id.text);
  }
  // A copy that holds the same records (`ps.slice()`, `.filter(f)`, `.concat(…)`, `[...ps]`)
  // would see the field writes in JavaScript; tsad's copy would not.
  const copied = (e: ts.Expression, what: (name: string) => string): void => {
    while (t.isParenthesizedExpression(e) || t.isAsExpression(e)) e = e.expression;
    const s = t.isIdentifier(e) ? checker.getSymbolAtLocation(e) : undefined;
    if (s && written.has(s))
      fail(
        1123,
        e,
        `the fields of '${e.getText()}' are written, and ${what(e.getText())} holds the same records (in JavaScript a write shows through both): copy each record in place, ${e.getText()}.map((p) => ({ … }))`,
      );
  };
  const stores = (n: ts.Node): void => {
    if (t.isCallExpression(n) && t.isPropertyAccessExpression(n.expression) && SHARING.has(n.expression.name.text)) {
      const method = n.expression.name.text;
      copied(n.expression.expression, (name) => `${name}.${method}(…)`);
      if (method === 'concat') for (const a of n.arguments) copied(t.isSpreadElement(a) ? a.expression : a, (name) => `.concat(${name})`);
    }
    if (t.isSpreadElement(n) && t.isArrayLiteralExpression(n.parent)) copied(n.expression, (name) => `[...${name}]`);
    const pushed = pushedArray(t, n);
    const pushedSym = pushed && checker.getSymbolAtLocation(pushed);
    if (pushedSym && written.has(pushedSym)) {
      for (const arg of (n as ts.CallExpression).arguments) {
        if (!isLiteral(t, arg)) shared(arg, pushed!.text, 'the record pushed');
        sharedArrays(arg, pushed!.text);
      }
    }
    if (t.isBinaryExpression(n) && n.operatorToken.kind === t.SyntaxKind.EqualsToken) {
      let left = n.left;
      while (t.isParenthesizedExpression(left)) left = left.expression;
      if (t.isElementAccessExpression(left) && t.isIdentifier(left.expression)) {
        const s = checker.getSymbolAtLocation(left.expression);
        if (s && written.has(s) && !isLiteral(t, n.right)) shared(n.right, left.expression.text, 'the record stored');
        if (s && written.has(s)) sharedArrays(n.right, left.expression.text);
      }
    }
    t.forEachChild(n, stores);
  };
  stores(body);
}

/** The methods whose result holds the receiver's records (and `concat`'s arguments'). */
const SHARING = new Set(['slice', 'filter', 'concat']);

/** `q.push(v, …)` onto a plain name (as writes.ts's pushedArray, which imports this module). */
function pushedArray(t: typeof ts, n: ts.Node): ts.Identifier | undefined {
  if (!t.isCallExpression(n) || !t.isPropertyAccessExpression(n.expression) || n.expression.name.text !== 'push') return undefined;
  let base: ts.Expression = n.expression.expression;
  while (t.isParenthesizedExpression(base)) base = base.expression;
  return t.isIdentifier(base) ? base : undefined;
}

function isLiteral(t: typeof ts, e: ts.Expression): boolean {
  while (t.isParenthesizedExpression(e) || t.isAsExpression(e)) e = e.expression;
  return t.isObjectLiteralExpression(e) || t.isArrayLiteralExpression(e);
}

/** The record literals an initializer builds: a literal's elements, or what a `.map`/`Array.from` callback returns. */
function builtRecords(t: typeof ts, e: ts.Expression): ts.Expression[] {
  while (t.isParenthesizedExpression(e) || t.isAsExpression(e)) e = e.expression;
  if (t.isArrayLiteralExpression(e)) return e.elements.filter((el) => isLiteral(t, el));
  if (!t.isCallExpression(e) || !t.isPropertyAccessExpression(e.expression)) return [];
  const method = e.expression.name.text;
  let fn = method === 'map' ? e.arguments[0] : method === 'from' ? e.arguments[1] : undefined;
  while (fn && t.isParenthesizedExpression(fn)) fn = fn.expression;
  if (!fn || !(t.isArrowFunction(fn) || t.isFunctionExpression(fn))) return [];
  if (!t.isBlock(fn.body)) return [fn.body];
  const out: ts.Expression[] = [];
  const visit = (n: ts.Node): void => {
    if (t.isReturnStatement(n) && n.expression) out.push(n.expression);
    if (!t.isFunctionLike(n)) t.forEachChild(n, visit);
  };
  t.forEachChild(fn.body, visit);
  return out;
}

/** A new array of new records: `[]`, `[{ … }, [ … ]]`, `xs.map((x) => ({ … }))`, `Array.from({ length: n }, () => [ … ])`. */
function isFreshRecords(t: typeof ts, e: ts.Expression): boolean {
  while (t.isParenthesizedExpression(e) || t.isAsExpression(e)) e = e.expression;
  if (t.isArrayLiteralExpression(e)) return e.elements.every((el) => isLiteral(t, el));
  // `new Array<P>(n)`: holes, filled by the stores checked below.
  if (t.isNewExpression(e) && t.isIdentifier(e.expression) && e.expression.text === 'Array' && (e.arguments?.length ?? 0) <= 1) return true;
  if (!t.isCallExpression(e) || !t.isPropertyAccessExpression(e.expression)) return false;
  const method = e.expression.name.text;
  let fn = method === 'map' ? e.arguments[0] : method === 'from' ? e.arguments[1] : undefined;
  while (fn && t.isParenthesizedExpression(fn)) fn = fn.expression;
  if (!fn || !(t.isArrowFunction(fn) || t.isFunctionExpression(fn))) return false;
  if (!t.isBlock(fn.body)) return isLiteral(t, fn.body);
  let fresh = true;
  const visit = (n: ts.Node): void => {
    if (t.isReturnStatement(n)) fresh &&= !!n.expression && isLiteral(t, n.expression);
    if (!t.isFunctionLike(n)) t.forEachChild(n, visit);
  };
  t.forEachChild(fn.body, visit);
  return fresh;
}
