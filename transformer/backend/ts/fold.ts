// Tidies an emitted function body (TypeScript AST) before printing: emitTs writes one IR
// operation per `const`, and the loop and branch constructs hand values around through `let`
// variables, so the text is several times the source it came from. Four rewrites, each checked
// against JavaScript's evaluation order:
// - `let x; …; x = e;` with that one assignment, at the same level, is `const x = e;` there;
// - `const a = b;` (a variable) renames a to b while b is not assigned;
// - `const t = e; … t …` with t used once, later in the same block, prints e at the use when
//   moving e there cannot change what it or the code it moves past computes (nothing in between
//   writes what e reads; e itself pure, or nothing in between reads or does anything);
// - `x = x;` goes and `x = x + e;` is `x += e;`.
// The use must be evaluated exactly once where the declaration was (never into a loop, a nested
// block or a function), so the work done is the same; only the text and V8's register
// allocation see the difference. Names are unique per emitted function (emitTs.ts).
import type * as ts from 'typescript';
import { NodeFacts, type Effects, commute, isAssignment, merge, none, pure } from './nodeFacts';
import { mapNested } from './nestedStatements';

/**
 * How many statements after its declaration a value is looked for to be nested into its use. A
 * derivative reads many temporaries a few dozen statements after A-normal form binds them (past a
 * loop body's tape stores); 48 rather than 12 took 5–7 % off the demo and the GradBench tool with
 * no measurable change in the tidy's time (docs/benchmarks.md, s13 size22f). Bounded all the same:
 * the scan per value is linear in it.
 */
const INLINE_REACH = 48;

/**
 * How deep an expression nesting may grow. A long chain of single-use values (a 1,500-term sum in
 * A-normal form) would otherwise fold into one expression thousands deep: unreadable, and past the
 * call stack of every recursive walk after it (this pass's, TypeScript's printer, V8's parser).
 */
const MAX_NEST = 20;

/**
 * `rounds`: how many passes at most; each runs only if the one before changed something, and may
 * open chances to the next. A derivative's body gets up to six: a copy that sharedTail moves out
 * of nested ifs (`x_1 = x; … x = x_1;`, a branch handing a cotangent on) takes a round per if,
 * then one to make x_1 a const, one to read x for it and drop `x = x`, after which the loop's
 * carried x may go too (the GradBench tool: −1,950 B against two rounds; s15 minors24).
 */
export function tidyBody(t: typeof ts, statements: readonly ts.Statement[], rounds = 6): ts.Statement[] {
  return new Tidy(t).body(statements, rounds);
}

class Tidy {
  /** References to each variable in the function (declarations and assignment targets excluded). */
  private uses = new Map<string, number>();
  /** Assignments to each variable (`x = …`, `x += …`, `x++`, `[x, y] = …`). */
  private assigned = new Map<string, number>();

  /** `&&`, `||`, `??` and their assignments: their right side may not run. */
  private readonly shortCircuit: Set<ts.SyntaxKind>;
  /** What each node may read or do, and each identifier's role (nodeFacts.ts). */
  private readonly nodes: NodeFacts;
  /** The blocks around the one list() is tidying, outermost first, each with the place of the statement that holds it. */
  private readonly enclosing: { list: readonly ts.Statement[]; at: number }[] = [];
  /** The nodes from a statement down to the read useIn found last. */
  private usePath: readonly ts.Node[] = [];

  constructor(private readonly t: typeof ts) {
    this.nodes = new NodeFacts(t);
    const K = t.SyntaxKind;
    this.shortCircuit = new Set([K.AmpersandAmpersandToken, K.BarBarToken, K.QuestionQuestionToken, K.AmpersandAmpersandEqualsToken, K.BarBarEqualsToken, K.QuestionQuestionEqualsToken]);
  }

  body(statements: readonly ts.Statement[], rounds: number): ts.Statement[] {
    let out = [...statements];
    // Each round may open new chances to the next (a let made const becomes a copy to rename).
    for (let round = 0; round < rounds; round++) {
      this.count(out);
      const before = out;
      out = this.list(out);
      if (out === before) break;
    }
    return out;
  }

  private count(statements: readonly ts.Statement[]): void {
    this.uses = new Map();
    this.assigned = new Map();
    const bump = (m: Map<string, number>, n: string) => m.set(n, (m.get(n) ?? 0) + 1);
    const visit = (node: ts.Node, parent: ts.Node | undefined): void => {
      if (this.t.isIdentifier(node) && parent) {
        const role = this.nodes.role(node, parent);
        if (role === 'read') bump(this.uses, node.text);
        else if (role === 'write') bump(this.assigned, node.text);
        else if (role === 'readWrite') {
          bump(this.uses, node.text);
          bump(this.assigned, node.text);
        }
        return;
      }
      this.nodes.note(node);
      this.t.forEachChild(node, (c) => visit(c, node));
    };
    for (const s of statements) visit(s, undefined);
  }

  /** The statements of one block, rewritten (the same array when nothing changed). */
  private list(input: readonly ts.Statement[]): ts.Statement[] {
    const t = this.t;
    let changed = false;
    const out = input.map((s, at) => {
      this.enclosing.push({ list: input, at });
      const inner = this.nested(s);
      this.enclosing.pop();
      if (inner !== s) changed = true;
      return inner;
    });
    for (let i = 0; i < out.length; i++) {
      if (this.sharedTail(out, i)) changed = true;
      const choice = this.choice(out[i]) ?? this.reversed(out, i);
      if (choice) {
        out[i] = choice;
        changed = true;
      }
      if (this.constantsFirst(out, i)) changed = true;
      let s = out[i];
      if (this.neverAssigned(s)) {
        s = out[i] = this.asConst(s as ts.VariableStatement);
        changed = true;
      }
      if (t.isVariableStatement(s) && (s.declarationList.flags & t.NodeFlags.Let) !== 0 && this.constLets(out, i)) {
        changed = true;
        i--;
        continue;
      }
      const decl = singleConst(t, s);
      if (!decl) continue;
      const name = decl.name.text;
      if ((this.assigned.get(name) ?? 0) > 0) continue;
      // A pure value nobody reads (an element read a construct made for nothing) goes.
      if ((this.uses.get(name) ?? 0) === 0 && pure(this.nodes.effects(decl.initializer))) {
        out.splice(i, 1);
        changed = true;
        i--;
        continue;
      }
      if (t.isIdentifier(decl.initializer) && this.rename(out, i, name, decl.initializer)) {
        changed = true;
        i--;
        continue;
      }
      if (this.uses.get(name) === 1 && this.inline(out, i, name, decl.initializer)) {
        changed = true;
        i--;
      }
    }
    const tidy = this.assignments(out);
    return changed || tidy !== out ? tidy : (input as ts.Statement[]);
  }

  /** A statement whose blocks are tidied (loops, branches, try, nested blocks); functions are left alone. */
  private nested(s: ts.Statement): ts.Statement {
    return mapNested(this.t, s, (ss) => this.list(ss));
  }

  /**
   * `for (let k = 0; k < n; k++) { const i = c - k - 1; … }`, k read nowhere else, c being ⌈n⌉
   * (`Math.ceil(n)` or a const of it declared before the loop, or n itself as an integer literal) and n never assigned, is
   * `for (let i = c - 1; i >= 0; i--) { … }`: a reversed loop (T's) reads as one. The same values
   * of i in the same order: both run ⌈n⌉ times (none for n ≤ 0 or NaN) and the integers below
   * 2⁵³ that c − k − 1 and the decrements give are exact.
   */
  private reversed(list: readonly ts.Statement[], at: number): ts.Statement | undefined {
    const t = this.t;
    const s = list[at];
    const K = t.SyntaxKind;
    if (!t.isForStatement(s) || !s.initializer || !s.condition || !s.incrementor || !t.isBlock(s.statement)) return undefined;
    const init = s.initializer;
    if (!t.isVariableDeclarationList(init) || (init.flags & t.NodeFlags.BlockScoped) !== t.NodeFlags.Let || init.declarations.length !== 1) return undefined;
    const kd = init.declarations[0];
    if (!t.isIdentifier(kd.name) || !kd.initializer || !t.isNumericLiteral(kd.initializer) || Number(kd.initializer.text) !== 0) return undefined;
    const k = kd.name.text;
    const cond = s.condition;
    if (!t.isBinaryExpression(cond) || cond.operatorToken.kind !== K.LessThanToken || !t.isIdentifier(cond.left) || cond.left.text !== k) return undefined;
    const inc = s.incrementor;
    if (!((t.isPostfixUnaryExpression(inc) || t.isPrefixUnaryExpression(inc)) && inc.operator === K.PlusPlusToken && t.isIdentifier(inc.operand) && inc.operand.text === k)) return undefined;
    // k is read by the test, the increment and i's value only, and written by the increment only.
    if (this.uses.get(k) !== 3 || this.assigned.get(k) !== 1) return undefined;
    const [first, ...rest] = s.statement.statements;
    const decl = first && singleConst(t, first);
    if (!decl) return undefined;
    const v = decl.initializer;
    // c - k - 1 parses as (c - k) - 1.
    if (!t.isBinaryExpression(v) || v.operatorToken.kind !== K.MinusToken || !t.isNumericLiteral(v.right) || Number(v.right.text) !== 1) return undefined;
    const ck = v.left;
    if (!t.isBinaryExpression(ck) || ck.operatorToken.kind !== K.MinusToken || !t.isIdentifier(ck.right) || ck.right.text !== k) return undefined;
    if (!this.ceilingOf(ck.left, cond.right, list, at)) return undefined;
    const i = decl.name.text;
    if ((this.assigned.get(i) ?? 0) > 0) return undefined;
    const f = t.factory;
    // `40 - 1`, not 39: the trip count stays as written (and the text is the same for every count).
    const start = f.createSubtract(ck.left, f.createNumericLiteral(1));
    const out = f.updateForStatement(
      s,
      f.createVariableDeclarationList([f.createVariableDeclaration(i, undefined, undefined, start)], t.NodeFlags.Let),
      f.createGreaterThanEquals(f.createIdentifier(i), f.createNumericLiteral(0)),
      f.createPostfixDecrement(f.createIdentifier(i)),
      f.updateBlock(s.statement, rest),
    );
    this.uses.set(k, 0);
    this.assigned.set(i, 1);
    this.bump(i, 2);
    return out;
  }

  /**
   * Whether c is ⌈n⌉ for the loop bound n, n never assigned: an equal integer literal,
   * `Math.ceil(n)`, or a const of it declared before the loop in its block or a block around it
   * (so it has its value when the loop starts, even one that runs no times and never read it).
   */
  private ceilingOf(c: ts.Expression, n: ts.Expression, list: readonly ts.Statement[], at: number): boolean {
    const t = this.t;
    if (t.isNumericLiteral(n)) return t.isNumericLiteral(c) && Number(c.text) === Number(n.text) && Number.isInteger(Number(n.text));
    if (!t.isIdentifier(n) || (this.assigned.get(n.text) ?? 0) > 0) return false;
    let value: ts.Expression | undefined = c;
    if (t.isIdentifier(c)) {
      value = undefined;
      for (const block of [{ list, at }, ...[...this.enclosing].reverse()]) {
        for (let j = 0; j < block.at && !value; j++) {
          const d = singleConst(t, block.list[j]);
          if (d && d.name.text === c.text) value = d.initializer;
        }
        if (value) break;
      }
    }
    if (!value || !t.isCallExpression(value) || value.arguments.length !== 1) return false;
    const callee = value.expression;
    const arg = value.arguments[0];
    return t.isPropertyAccessExpression(callee) && t.isIdentifier(callee.expression) && callee.expression.text === 'Math' && callee.name.text === 'ceil' && t.isIdentifier(arg) && arg.text === n.text;
  }

  /** `let a = …, b = …;` none of them assigned again. */
  private neverAssigned(s: ts.Statement): boolean {
    const t = this.t;
    if (!t.isVariableStatement(s) || (s.declarationList.flags & t.NodeFlags.Let) === 0) return false;
    return s.declarationList.declarations.every((d) => d.initializer && t.isIdentifier(d.name) && (this.assigned.get(d.name.text) ?? 0) === 0);
  }

  private asConst(s: ts.VariableStatement): ts.VariableStatement {
    const t = this.t;
    const list = t.factory.createVariableDeclarationList(s.declarationList.declarations, t.NodeFlags.Const);
    return t.factory.updateVariableStatement(s, s.modifiers, list);
  }

  /** `if (c) { x = a; } else { x = b; }` with a, b variables or literals is `x = c ? a : b;`. */
  /**
   * `if (c) { …; x = y; } else { …; x = y; }` is `if (c) { … } else { … } x = y;`: the same copy
   * ends both branches (a cond handing an array cotangent on unchanged), so it runs after either
   * way. Only a copy of one name into another, neither declared by either branch (the copy after
   * the if must see the same variables); the then-branch keeps a statement, an empty else goes.
   * A branch that leaves early (return, break, throw) skipped the copy and still does. True when
   * out changed.
   */
  private sharedTail(out: ts.Statement[], i: number): boolean {
    const t = this.t;
    const s = out[i];
    if (!t.isIfStatement(s) || !s.elseStatement || !t.isBlock(s.thenStatement) || !t.isBlock(s.elseStatement)) return false;
    const copy = (x: ts.Statement | undefined): [string, string] | undefined => {
      if (!x || !t.isExpressionStatement(x) || !t.isBinaryExpression(x.expression)) return undefined;
      const e = x.expression;
      return e.operatorToken.kind === t.SyntaxKind.EqualsToken && t.isIdentifier(e.left) && t.isIdentifier(e.right) ? [e.left.text, e.right.text] : undefined;
    };
    const declared = (b: ts.Block): Set<string> =>
      new Set(b.statements.flatMap((x) => (t.isVariableStatement(x) ? x.declarationList.declarations.flatMap((d) => (t.isIdentifier(d.name) ? [d.name.text] : ['*'])) : [])));
    const inThen = declared(s.thenStatement);
    const inElse = declared(s.elseStatement);
    if (inThen.has('*') || inElse.has('*')) return false;
    const thenS = [...s.thenStatement.statements];
    const elseS = [...s.elseStatement.statements];
    const tail: ts.Statement[] = [];
    while (thenS.length > 1 && elseS.length > 0) {
      const a = copy(thenS[thenS.length - 1]);
      const b = copy(elseS[elseS.length - 1]);
      if (!a || !b || a[0] !== b[0] || a[1] !== b[1] || a.some((n) => inThen.has(n) || inElse.has(n))) break;
      tail.unshift(thenS.pop()!);
      elseS.pop();
    }
    if (tail.length === 0) return false;
    const f = t.factory;
    const branch = f.updateIfStatement(s, s.expression, f.updateBlock(s.thenStatement, thenS), elseS.length > 0 ? f.updateBlock(s.elseStatement, elseS) : undefined);
    out.splice(i, 1, branch, ...tail);
    return true;
  }

  private choice(s: ts.Statement): ts.Statement | undefined {
    const t = this.t;
    if (!t.isIfStatement(s) || !s.elseStatement) return undefined;
    const only = (b: ts.Statement): ts.BinaryExpression | undefined => {
      const one = t.isBlock(b) ? (b.statements.length === 1 ? b.statements[0] : undefined) : b;
      if (!one || !t.isExpressionStatement(one) || !t.isBinaryExpression(one.expression)) return undefined;
      const e = one.expression;
      return e.operatorToken.kind === t.SyntaxKind.EqualsToken && t.isIdentifier(e.left) ? e : undefined;
    };
    const a = only(s.thenStatement);
    const b = only(s.elseStatement);
    if (!a || !b || (a.left as ts.Identifier).text !== (b.left as ts.Identifier).text) return undefined;
    // Branches that compute something stay an if/else: it reads as the source's control flow.
    if (!this.atom(a.right) || !this.atom(b.right)) return undefined;
    const f = t.factory;
    const out = f.createExpressionStatement(
      f.createAssignment(f.createIdentifier((a.left as ts.Identifier).text), f.createConditionalExpression(s.expression, undefined, a.right, undefined, b.right)),
    );
    t.setOriginalNode(out, s);
    t.setSourceMapRange(out, t.getSourceMapRange(s));
    return out;
  }

  /**
   * `let x; … if (c) { …; x = e; } else { x = 0; }` is `let x = 0; … if (c) { …; x = e; }`: an
   * else that gives constants (a guard's zeros: a loop that runs no times) becomes the
   * initializers of the variables it assigns, declared by a `let` of this block that nothing between
   * them mentions, when c and the then-branch do not read them. True when out changed.
   */
  private constantsFirst(out: ts.Statement[], i: number): boolean {
    const t = this.t;
    const s = out[i];
    if (!t.isIfStatement(s) || !s.elseStatement || !t.isBlock(s.elseStatement)) return false;
    // What c or the then-branch reads (or c writes) must keep the value it had.
    const reads = new Set([...this.nodes.effects(s.expression).reads, ...this.nodes.effects(s.expression).writes, ...this.nodes.effects(s.thenStatement).reads]);
    const kept: ts.Statement[] = [];
    const moved = new Map<number, Map<string, ts.Expression>>();
    for (const a of s.elseStatement.statements) {
      const target = this.constantAssignment(a);
      const at = target && !reads.has(target.name) ? this.letOf(out, i, target.name) : undefined;
      if (at === undefined || moved.get(at)?.has(target!.name)) {
        kept.push(a);
        continue;
      }
      if (!moved.has(at)) moved.set(at, new Map());
      moved.get(at)!.set(target!.name, target!.value);
    }
    if (moved.size === 0) return false;
    for (const [at, values] of moved) {
      const decl = out[at] as ts.VariableStatement;
      const list = decl.declarationList.declarations.map((d) =>
        t.isIdentifier(d.name) && values.has(d.name.text) ? t.factory.updateVariableDeclaration(d, d.name, d.exclamationToken, d.type, values.get(d.name.text)) : d,
      );
      out[at] = t.factory.updateVariableStatement(decl, decl.modifiers, t.factory.updateVariableDeclarationList(decl.declarationList, list));
      for (const name of values.keys()) this.assigned.set(name, (this.assigned.get(name) ?? 1) - 1);
    }
    const elseS = kept.length === 0 ? undefined : t.factory.updateBlock(s.elseStatement, kept);
    out[i] = t.factory.updateIfStatement(s, s.expression, s.thenStatement, elseS);
    return true;
  }

  /** `x = c;` with c a number, a negated number or a boolean. */
  private constantAssignment(s: ts.Statement): { name: string; value: ts.Expression } | undefined {
    const t = this.t;
    if (!t.isExpressionStatement(s) || !t.isBinaryExpression(s.expression) || s.expression.operatorToken.kind !== t.SyntaxKind.EqualsToken) return undefined;
    const { left, right } = s.expression;
    if (!t.isIdentifier(left)) return undefined;
    let v = right;
    while (t.isParenthesizedExpression(v)) v = v.expression;
    if (t.isPrefixUnaryExpression(v) && v.operator === t.SyntaxKind.MinusToken) v = v.operand;
    const constant = t.isNumericLiteral(v) || v.kind === t.SyntaxKind.TrueKeyword || v.kind === t.SyntaxKind.FalseKeyword || (t.isIdentifier(v) && (v.text === 'Infinity' || v.text === 'NaN'));
    return constant ? { name: left.text, value: right } : undefined;
  }

  /** The index of the `let` before out[i] that declares name without a value, when nothing between them mentions name. */
  private letOf(out: readonly ts.Statement[], i: number, name: string): number | undefined {
    const t = this.t;
    for (let j = i - 1; j >= 0; j--) {
      const s = out[j];
      if (t.isVariableStatement(s) && (s.declarationList.flags & t.NodeFlags.Let) !== 0) {
        const d = s.declarationList.declarations.find((x) => t.isIdentifier(x.name) && x.name.text === name);
        if (d) return d.initializer ? undefined : j;
      }
      if (this.mentions(s, name)) return undefined;
    }
    return undefined;
  }

  /** A variable, a literal, or one negated. */
  private atom(e: ts.Expression): boolean {
    const t = this.t;
    if (t.isParenthesizedExpression(e)) return this.atom(e.expression);
    if (t.isPrefixUnaryExpression(e)) return e.operator === t.SyntaxKind.MinusToken && this.atom(e.operand);
    return t.isIdentifier(e) || t.isNumericLiteral(e) || e.kind === t.SyntaxKind.TrueKeyword || e.kind === t.SyntaxKind.FalseKeyword;
  }

  /**
   * `let x, y;` where x is assigned once, by a statement of this block, and not read before: that
   * statement becomes `const x = …;`. True when the list changed.
   */
  private constLets(out: ts.Statement[], i: number): boolean {
    const t = this.t;
    const s = out[i] as ts.VariableStatement;
    const kept: ts.VariableDeclaration[] = [];
    const moves: { name: string; at: number }[] = [];
    for (const d of s.declarationList.declarations) {
      if (!t.isIdentifier(d.name) || d.initializer || (this.assigned.get(d.name.text) ?? 0) === 0) {
        kept.push(d);
        continue;
      }
      const name = d.name.text;
      const at = this.findAssignment(out, i + 1, name);
      if (at === undefined) kept.push(d);
      else moves.push({ name, at });
    }
    if (moves.length === 0) return false;
    for (const { name, at } of moves) {
      const old = out[at] as ts.ExpressionStatement;
      const value = (old.expression as ts.BinaryExpression).right;
      // Assigned again later (a loop's carried value): the first assignment is its initializer.
      const once = this.assigned.get(name) === 1;
      const decl = t.factory.createVariableStatement(
        undefined,
        t.factory.createVariableDeclarationList([t.factory.createVariableDeclaration(name, undefined, undefined, value)], once ? t.NodeFlags.Const : t.NodeFlags.Let),
      );
      t.setOriginalNode(decl, old);
      t.setSourceMapRange(decl, t.getSourceMapRange(old));
      out[at] = decl;
      this.assigned.set(name, (this.assigned.get(name) ?? 1) - 1);
    }
    if (kept.length === 0) out.splice(i, 1);
    else out[i] = t.factory.updateVariableStatement(s, s.modifiers, t.factory.updateVariableDeclarationList(s.declarationList, kept));
    return true;
  }

  /** The index of `name = …;` in out[from…], when nothing before it (nor its value) mentions name. */
  private findAssignment(out: readonly ts.Statement[], from: number, name: string): number | undefined {
    const t = this.t;
    for (let j = from; j < out.length; j++) {
      const s = out[j];
      if (
        t.isExpressionStatement(s) &&
        t.isBinaryExpression(s.expression) &&
        s.expression.operatorToken.kind === t.SyntaxKind.EqualsToken &&
        t.isIdentifier(s.expression.left) &&
        s.expression.left.text === name
      )
        return this.mentions(s.expression.right, name) ? undefined : j;
      if (this.mentions(s, name)) return undefined;
    }
    return undefined;
  }

  private mentions(node: ts.Node, name: string): boolean {
    return this.nodes.facts(node).names.has(name);
  }

  /**
   * `const a = b;`: every later use of a reads b instead, when b is not assigned before the last
   * use (an assignment to b by the statement holding it, `b = … a …`, comes after the read).
   */
  private rename(out: ts.Statement[], i: number, a: string, to: ts.Identifier): boolean {
    const t = this.t;
    const b = to.text;
    let last = -1;
    for (let j = i + 1; j < out.length; j++) if (this.mentions(out[j], a)) last = j;
    if (last < 0) {
      out.splice(i, 1);
      this.bump(b, -1);
      return true;
    }
    for (let j = i + 1; j < last; j++) if (this.nodes.effects(out[j]).writes.has(b)) return false;
    const end = out[last];
    const endWrites = this.nodes.effects(end).writes.has(b);
    if (endWrites) {
      // Only `b = expr;` whose value is the sole place b is written.
      if (!(t.isExpressionStatement(end) && t.isBinaryExpression(end.expression) && end.expression.operatorToken.kind === t.SyntaxKind.EqualsToken)) return false;
      if (!t.isIdentifier(end.expression.left) || end.expression.left.text !== b || this.nodes.effects(end.expression.right).writes.has(b)) return false;
    }
    const uses = this.uses.get(a) ?? 0;
    // Each new b keeps the old one as its original: a wrapper's read of an exported module variable
    // is an identifier TypeScript's module transform rewrites (`exports.scale`) by its original.
    for (let j = i + 1; j <= last; j++) if (this.mentions(out[j], a)) out[j] = this.substitute(out[j], a, () => t.setOriginalNode(t.factory.createIdentifier(b), to));
    out.splice(i, 1);
    this.uses.set(a, 0);
    this.bump(b, uses - 1);
    return true;
  }

  private bump(name: string, by: number): void {
    this.uses.set(name, (this.uses.get(name) ?? 0) + by);
  }

  /** `const name = value;` printed at name's one use, when that is allowed (see the top). */
  private inline(out: ts.Statement[], i: number, name: string, value: ts.Expression): boolean {
    const moved = this.nodes.effects(value);
    // A use further than this is left alone: the scan is linear in the reach, and a value carried
    // that far is better read under its name.
    const end = Math.min(out.length, i + 1 + INLINE_REACH);
    for (let j = i + 1; j < end; j++) {
      const at = this.useIn(out[j], name, pure(moved));
      if (at === 'none') {
        if (!commute(moved, this.nodes.effects(out[j]))) return false;
        continue;
      }
      if (at === 'blocked' || !commute(moved, at)) return false;
      if (this.nodes.height(value) + this.usePath.length > MAX_NEST) return false;
      if (this.literalIndexed(value)) return false;
      const t = this.t;
      const range = t.getSourceMapRange(out[i]);
      // The removed statement's source position stays with its value.
      if (!t.isIdentifier(value) && range !== out[i]) t.setSourceMapRange(value, range);
      this.nodes.moved.add(value);
      out[j] = this.replaceAlong(this.usePath, name, value) as ts.Statement;
      out.splice(i, 1);
      this.uses.set(name, 0);
      return true;
    }
    return false;
  }

  /** An array or object literal whose use reads an element or field of it: `[[a]][0][0]` reads worse than a name. */
  private literalIndexed(value: ts.Expression): boolean {
    const t = this.t;
    const parent = this.usePath[this.usePath.length - 2];
    const use = this.usePath[this.usePath.length - 1];
    if (!(t.isArrayLiteralExpression(value) || t.isObjectLiteralExpression(value))) return false;
    return (t.isElementAccessExpression(parent) || t.isPropertyAccessExpression(parent)) && parent.expression === use;
  }

  /**
   * Where statement s reads name: 'none'; 'blocked' when the read is somewhere the value may not
   * go (a nested block, a loop, a function, a branch unless the value is pure); else what s
   * evaluates before the read.
   */
  private useIn(s: ts.Statement, name: string, valuePure: boolean): Effects | 'none' | 'blocked' {
    const t = this.t;
    if (!this.mentions(s, name)) return 'none';
    const before = none();
    let result: Effects | 'blocked' = 'blocked';
    const path: ts.Node[] = [];
    // Evaluation order is child order for the node kinds emitted here; a node's own effect
    // (a call, a store) happens after its children, so it is recorded when the walk leaves it.
    const walk = (n: ts.Node, parent: ts.Node | undefined, ok: boolean): boolean => {
      if (t.isIdentifier(n)) {
        if (n.text === name && parent && this.nodes.role(n, parent) === 'read') {
          result = ok ? before : 'blocked';
          this.usePath = [...path, n];
          return true;
        }
        this.nodes.record(n, parent, before);
        return false;
      }
      // A value moved here that does not read the name is evaluated whole before the read.
      if (parent && this.nodes.moved.has(n) && !this.mentions(n, name)) {
        merge(before, this.nodes.effects(n));
        return false;
      }
      this.nodes.note(n);
      const kids: ts.Node[] = [];
      t.forEachChild(n, (c) => void kids.push(c));
      path.push(n);
      for (const c of kids) {
        let childOk = ok && allowedParent(t, n);
        if (t.isIfStatement(n) && c !== n.expression) childOk = false;
        if (t.isConditionalExpression(n) && c !== n.condition) childOk = childOk && valuePure;
        if (t.isBinaryExpression(n) && c === n.right && this.shortCircuit.has(n.operatorToken.kind)) childOk = childOk && valuePure;
        if (walk(c, n, childOk)) return true;
      }
      path.pop();
      this.nodes.own(n, before);
      return false;
    };
    walk(s, undefined, true);
    return result;
  }

  /** The statement at path[0] with the identifier at the end of path replaced by value; only the nodes on the path are rebuilt. */
  private replaceAlong(path: readonly ts.Node[], name: string, value: ts.Expression): ts.Node {
    const t = this.t;
    let k = path.length - 1;
    let child: ts.Node = path[k];
    let replacement: ts.Node = this.needsParentheses(value, path[k - 1], child) ? t.factory.createParenthesizedExpression(value) : value;
    // `{ t }` keeps its key: `{ t: value }`.
    if (t.isShorthandPropertyAssignment(path[k - 1])) {
      k--;
      child = path[k];
      replacement = t.factory.createPropertyAssignment(name, value);
    }
    for (k--; k >= 0; k--) {
      const [old, rep] = [child, replacement];
      replacement = t.visitEachChild(path[k], (c) => (c === old ? rep : c), undefined);
      child = path[k];
    }
    return replacement;
  }

  /** s with its read of name replaced by the expression make() gives (parenthesized as its new place needs). */
  private substitute<T extends ts.Node>(s: T, name: string, make: () => ts.Expression): T {
    const t = this.t;
    const visitor =
      (parent: ts.Node) =>
      (n: ts.Node): ts.Node => {
        if (t.isIdentifier(n)) {
          if (n.text !== name || this.nodes.role(n, parent) !== 'read') return n;
          const value = make();
          return this.needsParentheses(value, parent, n) ? t.factory.createParenthesizedExpression(value) : value;
        }
        // `{ t }` keeps its key: `{ t: value }`.
        if (t.isShorthandPropertyAssignment(n) && n.name.text === name) return t.factory.createPropertyAssignment(name, make());
        this.nodes.note(n);
        return t.visitEachChild(n, visitor(n), undefined);
      };
    return t.visitEachChild(s, visitor(s), undefined);
  }

  /**
   * Parentheses the factory would leave out: `-x ** 2` is a syntax error, and it prints
   * `a * (b * c)` as `a * b * c`, which rounds differently.
   */
  private needsParentheses(value: ts.Expression, parent: ts.Node, at: ts.Node): boolean {
    const t = this.t;
    if (!t.isBinaryExpression(parent)) return false;
    const op = parent.operatorToken.kind;
    if (op === t.SyntaxKind.AsteriskAsteriskToken && parent.left === at) return t.isPrefixUnaryExpression(value) || t.isTypeOfExpression(value) || t.isVoidExpression(value);
    if (parent.right !== at) return false;
    if (t.isConditionalExpression(value)) return true;
    return t.isBinaryExpression(value) && !(this.precedence(value.operatorToken.kind) > this.precedence(op));
  }

  /** Binding strength of a binary operator (higher binds tighter); 0 for one not listed. */
  private precedence(k: ts.SyntaxKind): number {
    if (isAssignment(this.t, k)) return 2;
    return precedenceTable(this.t).get(k) ?? 0;
  }

  /** `x = x;` goes, `x = x + e;` is `x += e;` (and -, *, /). */
  private assignments(out: ts.Statement[]): ts.Statement[] {
    const t = this.t;
    const K = t.SyntaxKind;
    const compound = new Map<ts.SyntaxKind, ts.CompoundAssignmentOperator>([
      [K.PlusToken, K.PlusEqualsToken],
      [K.MinusToken, K.MinusEqualsToken],
      [K.AsteriskToken, K.AsteriskEqualsToken],
      [K.SlashToken, K.SlashEqualsToken],
    ]);
    let changed = false;
    const result: ts.Statement[] = [];
    for (const s of out) {
      if (t.isExpressionStatement(s) && t.isBinaryExpression(s.expression) && s.expression.operatorToken.kind === K.EqualsToken && t.isIdentifier(s.expression.left)) {
        const x = s.expression.left.text;
        let right = s.expression.right;
        while (t.isParenthesizedExpression(right)) right = right.expression;
        if (t.isIdentifier(right) && right.text === x) {
          changed = true;
          continue;
        }
        const op = t.isBinaryExpression(right) ? compound.get(right.operatorToken.kind) : undefined;
        if (op !== undefined && t.isBinaryExpression(right) && t.isIdentifier(right.left) && right.left.text === x) {
          // `x += (a + b)`: the parentheses that kept `x + (a + b)` in order are not needed after `+=`.
          let value = right.right;
          while (t.isParenthesizedExpression(value)) value = value.expression;
          const updated = t.factory.updateExpressionStatement(s, t.factory.createBinaryExpression(t.factory.createIdentifier(x), op, value));
          changed = true;
          result.push(updated);
          continue;
        }
      }
      result.push(s);
    }
    return changed ? result : out;
  }
}

const precedences = new WeakMap<typeof ts, ReadonlyMap<ts.SyntaxKind, number>>();

/** Each binary operator's binding strength, lowest 3 (`??`, `||`) to highest 13 (`**`); built once per TypeScript (the tidy asks at every nesting). */
function precedenceTable(t: typeof ts): ReadonlyMap<ts.SyntaxKind, number> {
  let table = precedences.get(t);
  if (table === undefined) {
    const K = t.SyntaxKind;
    const levels: ts.SyntaxKind[][] = [
      [K.QuestionQuestionToken, K.BarBarToken],
      [K.AmpersandAmpersandToken],
      [K.BarToken],
      [K.CaretToken],
      [K.AmpersandToken],
      [K.EqualsEqualsToken, K.ExclamationEqualsToken, K.EqualsEqualsEqualsToken, K.ExclamationEqualsEqualsToken],
      [K.LessThanToken, K.GreaterThanToken, K.LessThanEqualsToken, K.GreaterThanEqualsToken, K.InstanceOfKeyword, K.InKeyword],
      [K.LessThanLessThanToken, K.GreaterThanGreaterThanToken, K.GreaterThanGreaterThanGreaterThanToken],
      [K.PlusToken, K.MinusToken],
      [K.AsteriskToken, K.SlashToken, K.PercentToken],
      [K.AsteriskAsteriskToken],
    ];
    const built = new Map<ts.SyntaxKind, number>();
    levels.forEach((kinds, i) => {
      for (const k of kinds) built.set(k, 3 + i);
    });
    precedences.set(t, (table = built));
  }
  return table;
}

/** Nodes through which a value may be moved to its use: expressions evaluated once, in order. */
function allowedParent(t: typeof ts, n: ts.Node): boolean {
  return (
    t.isVariableStatement(n) ||
    t.isVariableDeclarationList(n) ||
    t.isVariableDeclaration(n) ||
    t.isArrayBindingPattern(n) ||
    t.isBindingElement(n) ||
    t.isExpressionStatement(n) ||
    t.isReturnStatement(n) ||
    t.isIfStatement(n) ||
    t.isThrowStatement(n) ||
    t.isBinaryExpression(n) ||
    t.isCallExpression(n) ||
    t.isNewExpression(n) ||
    t.isElementAccessExpression(n) ||
    t.isPropertyAccessExpression(n) ||
    t.isArrayLiteralExpression(n) ||
    t.isObjectLiteralExpression(n) ||
    t.isPropertyAssignment(n) ||
    t.isParenthesizedExpression(n) ||
    t.isPrefixUnaryExpression(n) ||
    t.isConditionalExpression(n) ||
    t.isSpreadElement(n) ||
    t.isTemplateExpression(n) ||
    t.isTemplateSpan(n)
  );
}

/** `const name = value;` with one plain name. */
function singleConst(t: typeof ts, s: ts.Statement): (ts.VariableDeclaration & { name: ts.Identifier; initializer: ts.Expression }) | undefined {
  if (!t.isVariableStatement(s) || (s.declarationList.flags & t.NodeFlags.Const) === 0 || s.declarationList.declarations.length !== 1) return undefined;
  const d = s.declarationList.declarations[0];
  return t.isIdentifier(d.name) && d.initializer ? (d as ts.VariableDeclaration & { name: ts.Identifier; initializer: ts.Expression }) : undefined;
}
