// One name for a slab address that a run of statements repeats (s15, size; size23c's lstm note).
//
// A loop's tape record of k values is written, and read back, field by field at the same base:
// lstm's cell prints `flat_1.a[flat_1.b + (off_1 | 0) + k_4 * 8 + j]` eight times in its forward
// loop and eight in its backward one. Where consecutive plain statements repeat such a base
// (`s.b + …`, the stack's slab offset plus the record's place) often enough that one const pays
// for itself, the base is bound once before its first use and each access reads
// `s.a[at + j]`: the same additions, once (V8 did them once already: the text only).
//
// The base may be bound once only while nothing changes it: the statements between its uses
// declare constants, or assign to variables it does not read or to array elements, and call
// nothing but `Math`'s functions (the runtime's stack calls move `s.b`); any other statement ends
// the run. Names stay unique in the function (the emitter's rule, emitTs.ts).
import type * as ts from 'typescript';
import { mapNested } from './nestedStatements';

/** What a const costs beyond its name and value: `const  = ;`, a newline, some indentation. */
const DECLARATION = 25;
/** The length of the name it gets, about (`at`, `at_1`). */
const NAME = 4;

/** An access `s.a[base + j]` (or `s.a[base]`) into a slab stack's array, its base starting with `s.b`. */
interface Access {
  readonly node: ts.ElementAccessExpression;
  readonly key: string;
  readonly base: ts.Expression;
  readonly offset: number;
}

export function sharedBases(t: typeof ts, statements: readonly ts.Statement[], params: readonly string[]): readonly ts.Statement[] {
  const taken = new Set(params);
  const collect = (n: ts.Node): void => {
    if (t.isIdentifier(n)) taken.add(n.text);
    t.forEachChild(n, collect);
  };
  for (const s of statements) collect(s);
  const fresh = (): string => {
    let name = 'at';
    for (let k = 1; taken.has(name); k++) name = `at_${k}`;
    taken.add(name);
    return name;
  };
  const list = (ss: readonly ts.Statement[]): readonly ts.Statement[] => {
    const nested = ss.map((s) => mapNested(t, s, list));
    const out = runs(t, nested, fresh);
    return out.every((s, i) => s === ss[i]) && out.length === ss.length ? ss : out;
  };
  return list(statements);
}

/** The text of an expression of names, fields, numbers, `+`, `*`, `|` and parentheses, as printed; undefined for anything else. */
function keyOf(t: typeof ts, e: ts.Expression): string | undefined {
  if (t.isIdentifier(e)) return e.text;
  if (t.isNumericLiteral(e)) return e.text;
  if (t.isPropertyAccessExpression(e) && t.isIdentifier(e.expression) && t.isIdentifier(e.name)) return `${e.expression.text}.${e.name.text}`;
  if (t.isParenthesizedExpression(e)) {
    const inner = keyOf(t, e.expression);
    return inner === undefined ? undefined : `(${inner})`;
  }
  if (t.isBinaryExpression(e)) {
    const K = t.SyntaxKind;
    const op = e.operatorToken.kind === K.PlusToken ? '+' : e.operatorToken.kind === K.AsteriskToken ? '*' : e.operatorToken.kind === K.BarToken ? '|' : undefined;
    const l = keyOf(t, e.left);
    const r = keyOf(t, e.right);
    return op && l !== undefined && r !== undefined ? `${l} ${op} ${r}` : undefined;
  }
  return undefined;
}

/** The slab accesses in a statement: `s.a[I]` with I = `s.b + …` (+ a whole number). */
function accesses(t: typeof ts, s: ts.Node): Access[] {
  const out: Access[] = [];
  const visit = (n: ts.Node): void => {
    if (t.isElementAccessExpression(n) && t.isPropertyAccessExpression(n.expression) && t.isIdentifier(n.expression.expression) && n.expression.name.text === 'a') {
      const stack = n.expression.expression.text;
      const index = n.argumentExpression;
      const split =
        t.isBinaryExpression(index) && index.operatorToken.kind === t.SyntaxKind.PlusToken && t.isNumericLiteral(index.right)
          ? { base: index.left, offset: Number(index.right.text) }
          : { base: index, offset: 0 };
      const key = keyOf(t, split.base);
      if (key?.startsWith(`${stack}.b + `)) out.push({ node: n, key, ...split });
    }
    t.forEachChild(n, visit);
  };
  visit(s);
  return out;
}

/** The names an expression reads. */
function namesOf(t: typeof ts, e: ts.Node, out: Set<string> = new Set()): Set<string> {
  if (t.isIdentifier(e)) out.add(e.text);
  else if (t.isPropertyAccessExpression(e)) namesOf(t, e.expression, out);
  else t.forEachChild(e, (c) => void namesOf(t, c, out));
  return out;
}

/**
 * What a plain statement writes (variables declared or assigned, and whether it writes a field),
 * or undefined where it may do more: a call other than `Math`'s, a nested statement, an update.
 */
function writes(t: typeof ts, s: ts.Statement): { names: Set<string>; field: boolean } | undefined {
  const K = t.SyntaxKind;
  const names = new Set<string>();
  let field = false;
  let plain = true;
  const target = (e: ts.Expression): void => {
    if (t.isIdentifier(e)) names.add(e.text);
    else if (t.isPropertyAccessExpression(e)) field = true;
    else if (!t.isElementAccessExpression(e)) plain = false;
  };
  const visit = (n: ts.Node): void => {
    if (t.isCallExpression(n)) {
      const callee = n.expression;
      if (!(t.isPropertyAccessExpression(callee) && t.isIdentifier(callee.expression) && callee.expression.text === 'Math')) plain = false;
    } else if (t.isBinaryExpression(n) && n.operatorToken.kind >= K.FirstAssignment && n.operatorToken.kind <= K.LastAssignment) target(n.left);
    else if ((t.isPrefixUnaryExpression(n) || t.isPostfixUnaryExpression(n)) && (n.operator === K.PlusPlusToken || n.operator === K.MinusMinusToken)) target(n.operand);
    else if (t.isFunctionLike(n) || t.isNewExpression(n) || t.isDeleteExpression(n)) plain = false;
    if (plain) t.forEachChild(n, visit);
  };
  if (t.isVariableStatement(s)) {
    for (const d of s.declarationList.declarations) {
      if (!t.isIdentifier(d.name)) return undefined;
      names.add(d.name.text);
      if (d.initializer) visit(d.initializer);
    }
  } else if (t.isExpressionStatement(s)) visit(s.expression);
  else return undefined;
  return plain ? { names, field } : undefined;
}

/** The statements with each base repeated often enough in a run of plain statements bound once. */
function runs(t: typeof ts, ss: readonly ts.Statement[], fresh: () => string): ts.Statement[] {
  const out = [...ss];
  let start = 0;
  while (start < out.length) {
    // The run: plain statements from `start`, none writing a field or what a base it repeats reads.
    let end = start;
    const seen = new Map<string, { first: number; count: number; reads: Set<string>; stack: string }>();
    for (; end < out.length; end++) {
      const w = writes(t, out[end]);
      if (!w) break;
      const found = accesses(t, out[end]);
      for (const a of found) {
        const known = seen.get(a.key);
        if (known) known.count++;
        else seen.set(a.key, { first: end, count: 1, reads: namesOf(t, a.base), stack: a.key.slice(0, a.key.indexOf('.')) });
      }
      // A statement that writes a field, or a name a base reads, ends the run after it (its own reads came first).
      if (w.field || [...seen.values()].some((b) => [...b.reads].some((n) => w.names.has(n)))) {
        end++;
        break;
      }
    }
    const chosen = [...seen.entries()].filter(([key, b]) => b.count * (key.length - NAME) > key.length + NAME + DECLARATION);
    // Bound before its first use, latest first so that earlier places keep their indices.
    for (const [key, b] of chosen.sort((x, y) => y[1].first - x[1].first)) {
      const name = fresh();
      const f = t.factory;
      let base: ts.Expression | undefined;
      for (let k = b.first; k < end; k++) {
        out[k] = rewrite(t, out[k], key, name, (e) => (base ??= e));
      }
      const decl = f.createVariableStatement(undefined, f.createVariableDeclarationList([f.createVariableDeclaration(name, undefined, undefined, base!)], t.NodeFlags.Const));
      out.splice(b.first, 0, decl);
      end++;
    }
    start = Math.max(end, start + 1);
  }
  return out;
}

/** The statement with each access at base `key` reading `name` instead (`found` gets the base expression once). */
function rewrite(t: typeof ts, s: ts.Statement, key: string, name: string, found: (base: ts.Expression) => void): ts.Statement {
  const f = t.factory;
  const visit = (n: ts.Node): ts.Node => {
    if (t.isElementAccessExpression(n)) {
      const [a] = accesses(t, f.createExpressionStatement(n)).filter((x) => x.node === n);
      if (a && a.key === key) {
        found(a.base);
        const at = f.createIdentifier(name);
        return f.updateElementAccessExpression(n, n.expression, a.offset === 0 ? at : f.createAdd(at, f.createNumericLiteral(a.offset)));
      }
    }
    return t.visitEachChild(n, visit, undefined);
  };
  return visit(s) as ts.Statement;
}
