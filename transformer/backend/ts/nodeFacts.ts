// What a statement or expression of an emitted function may read or do, and what each identifier
// in it is (a read, an assignment target, a declared name): the analysis behind the tidying's
// rewrites (fold.ts), which checks each move against JavaScript's evaluation order with it.
import type * as ts from 'typescript';
import { READING_HELPERS } from './constructs/stackEmit';

/** What evaluating some code may do: the variables it reads and writes, and the heap. */
export interface Effects {
  readonly reads: Set<string>;
  readonly writes: Set<string>;
  readsHeap: boolean;
  writesHeap: boolean;
  /** A call or allocation the rewrite cannot see into (it may throw or write the heap), or a jump. */
  opaque: boolean;
}

/** A node's effects and the variables it references (declared names excluded). */
interface Facts {
  readonly effects: Effects;
  readonly names: ReadonlySet<string>;
}

export const none = (): Effects => ({ reads: new Set(), writes: new Set(), readsHeap: false, writesHeap: false, opaque: false });

/** Adds what `more` reads and does to `e`. */
export function merge(e: Effects, more: Effects): void {
  for (const r of more.reads) e.reads.add(r);
  for (const w of more.writes) e.writes.add(w);
  e.readsHeap ||= more.readsHeap;
  e.writesHeap ||= more.writesHeap;
  e.opaque ||= more.opaque;
}

export function pure(e: Effects): boolean {
  return e.writes.size === 0 && !e.writesHeap && !e.opaque;
}

/** May `moved` be evaluated after `passed` instead of before it? */
export function commute(moved: Effects, passed: Effects): boolean {
  // The moved value is small, what it passes may be a whole loop: look its few names up there.
  for (const r of moved.reads) if (passed.writes.has(r)) return false;
  if (moved.readsHeap && (passed.writesHeap || passed.opaque)) return false;
  if (pure(moved)) return true;
  // Something with an effect moves only past code that reads nothing it may change and does nothing.
  if (!pure(passed) || passed.readsHeap) return false;
  for (const w of moved.writes) if (passed.reads.has(w)) return false;
  return true;
}

/** Math's functions (and constants) are pure; every other call is opaque. */
const PURE_CALLEE = 'Math';

/**
 * Node kinds the walks can pass over at once: `inert`, a node with no effect of its own (`own`
 * does nothing); `plainParent`, a parent under which an identifier is always a read (`role`).
 * Every test of `own` and `role` looks at the kind first; the tables are built once per TypeScript
 * from those same tests, so they cannot disagree with them.
 */
interface KindTables {
  readonly inert: Uint8Array;
  readonly plainParent: Uint8Array;
}

const kindTables = new WeakMap<typeof ts, KindTables>();

function kindTablesOf(t: typeof ts): KindTables {
  let known = kindTables.get(t);
  if (known === undefined) {
    const count = Math.max(...Object.values(t.SyntaxKind).filter((v): v is number => typeof v === 'number')) + 1;
    const effectful = [
      t.isElementAccessExpression,
      t.isPropertyAccessExpression,
      t.isCallExpression,
      t.isNewExpression,
      t.isThrowStatement,
      t.isReturnStatement,
      t.isBreakOrContinueStatement,
      t.isDeleteExpression,
      t.isFunctionLike,
      t.isAwaitExpression,
      t.isYieldExpression,
      t.isBinaryExpression,
      t.isPrefixUnaryExpression,
      t.isPostfixUnaryExpression,
    ];
    const naming = [
      t.isPropertyAccessExpression,
      t.isPropertyAssignment,
      t.isMethodDeclaration,
      t.isVariableDeclaration,
      t.isBindingElement,
      t.isParameter,
      t.isFunctionDeclaration,
      t.isFunctionExpression,
      t.isLabeledStatement,
      t.isBreakOrContinueStatement,
      t.isBinaryExpression,
      t.isPrefixUnaryExpression,
      t.isPostfixUnaryExpression,
      t.isArrayLiteralExpression,
    ];
    const inert = new Uint8Array(count);
    const plainParent = new Uint8Array(count);
    for (let k = 0; k < count; k++) {
      const n = { kind: k } as ts.Node;
      inert[k] = effectful.some((is) => is(n)) ? 0 : 1;
      plainParent[k] = naming.some((is) => is(n)) ? 0 : 1;
    }
    kindTables.set(t, (known = { inert, plainParent }));
  }
  return known;
}

/** Facts about the nodes of one function, remembered per node (the function's nodes are not mutated). */
export class NodeFacts {
  /** Array literals that are the target of `=` (`[a, b] = …`): their elements are written. */
  private readonly patterns = new WeakSet<ts.Node>();
  private readonly factsOf = new WeakMap<ts.Node, Facts>();
  private readonly heights = new WeakMap<ts.Node, number>();
  /**
   * Values moved into their use (fold.ts, inline): their effects and names are remembered, so the
   * walks of the statement that now holds them take them whole instead of walking them again.
   */
  readonly moved = new WeakSet<ts.Node>();
  private readonly kinds: KindTables;

  constructor(private readonly t: typeof ts) {
    this.kinds = kindTablesOf(t);
  }

  /** Notes a destructuring assignment's target before its elements are visited. */
  note(n: ts.Node): void {
    const t = this.t;
    if (t.isBinaryExpression(n) && n.operatorToken.kind === t.SyntaxKind.EqualsToken && t.isArrayLiteralExpression(n.left)) this.patterns.add(n.left);
  }

  /** What an identifier does in its parent: a reference, an assignment target, or neither (a name). */
  role(id: ts.Identifier, parent: ts.Node): 'read' | 'write' | 'readWrite' | 'name' {
    if (this.kinds.plainParent[parent.kind]) return 'read';
    const t = this.t;
    const K = t.SyntaxKind;
    if (t.isPropertyAccessExpression(parent) && parent.name === id) return 'name';
    if ((t.isPropertyAssignment(parent) || t.isMethodDeclaration(parent)) && parent.name === id) return 'name';
    if ((t.isVariableDeclaration(parent) || t.isBindingElement(parent) || t.isParameter(parent) || t.isFunctionDeclaration(parent) || t.isFunctionExpression(parent)) && parent.name === id)
      return 'name';
    if (t.isBindingElement(parent) && parent.propertyName === id) return 'name';
    if (t.isLabeledStatement(parent) || t.isBreakOrContinueStatement(parent)) return 'name';
    if (t.isBinaryExpression(parent) && parent.left === id && isAssignment(t, parent.operatorToken.kind)) return parent.operatorToken.kind === K.EqualsToken ? 'write' : 'readWrite';
    if ((t.isPrefixUnaryExpression(parent) || t.isPostfixUnaryExpression(parent)) && (parent.operator === K.PlusPlusToken || parent.operator === K.MinusMinusToken)) return 'readWrite';
    // `[a, b] = …`: the elements of a destructuring assignment's target.
    if (t.isArrayLiteralExpression(parent) && this.patterns.has(parent)) return 'write';
    return 'read';
  }

  /** The height of n's tree, found without recursion (inputs may be deep before the cap applies). */
  height(n: ts.Node): number {
    const t = this.t;
    const stack: [ts.Node, boolean][] = [[n, false]];
    while (stack.length > 0) {
      const [node, childrenDone] = stack.pop()!;
      if (this.heights.has(node)) continue;
      if (childrenDone) {
        let h = 0;
        t.forEachChild(node, (c) => void (h = Math.max(h, this.heights.get(c) ?? 0)));
        this.heights.set(node, h + 1);
      } else {
        stack.push([node, true]);
        t.forEachChild(node, (c) => void (this.heights.has(c) || stack.push([c, false])));
      }
    }
    return this.heights.get(n)!;
  }

  /** Everything statement or expression n may read or do. */
  effects(n: ts.Node): Effects {
    return this.facts(n).effects;
  }

  /**
   * What a node may read or do, and the variables it references (declared names excluded), from
   * one walk. A value moved into its use is not walked again: a chain of single-use values folds
   * into one expression, and every statement it passes asks for these.
   */
  facts(node: ts.Node): Facts {
    const cached = this.factsOf.get(node);
    if (cached) return cached;
    const t = this.t;
    const e = none();
    const names = new Set<string>();
    const walk = (n: ts.Node, parent: ts.Node | undefined): void => {
      if (t.isIdentifier(n)) {
        const role = parent ? this.role(n, parent) : 'read';
        if (role !== 'name') names.add(n.text);
        return this.record(n, parent, e, role);
      }
      if (parent && this.moved.has(n)) {
        const known = this.facts(n);
        merge(e, known.effects);
        for (const x of known.names) names.add(x);
        return;
      }
      this.note(n);
      t.forEachChild(n, (c) => walk(c, n));
      this.own(n, e);
    };
    walk(node, undefined);
    const facts = { effects: e, names };
    this.factsOf.set(node, facts);
    return facts;
  }

  record(id: ts.Identifier, parent: ts.Node | undefined, e: Effects, role = parent ? this.role(id, parent) : 'read'): void {
    // A write happens when the assignment completes (own), after its value is evaluated.
    if (role === 'read' || role === 'readWrite') e.reads.add(id.text);
    // A declaration writes its name (a later statement's value cannot read it before).
    if (role === 'name' && parent && (this.t.isVariableDeclaration(parent) || this.t.isBindingElement(parent))) e.writes.add(id.text);
  }

  /** The effect of the node itself, beyond its children's. */
  own(n: ts.Node, e: Effects): void {
    if (this.kinds.inert[n.kind]) return;
    const t = this.t;
    const K = t.SyntaxKind;
    if (t.isElementAccessExpression(n) || (t.isPropertyAccessExpression(n) && !(t.isIdentifier(n.expression) && n.expression.text === PURE_CALLEE))) e.readsHeap = true;
    else if (t.isCallExpression(n)) {
      const callee = n.expression;
      const math = t.isPropertyAccessExpression(callee) && t.isIdentifier(callee.expression) && callee.expression.text === PURE_CALLEE && callee.name.text !== 'random';
      if (t.isIdentifier(callee) && READING_HELPERS.has(callee.text)) e.readsHeap = true;
      else if (!math) e.opaque = true;
    } else if (t.isNewExpression(n)) {
      if (!freshZeros(t, n)) e.opaque = true;
    } else if (t.isThrowStatement(n) || t.isReturnStatement(n) || t.isBreakOrContinueStatement(n) || t.isDeleteExpression(n)) e.opaque = true;
    else if (t.isFunctionLike(n) || t.isAwaitExpression(n) || t.isYieldExpression(n)) e.opaque = true;
    else if (t.isBinaryExpression(n) && isAssignment(t, n.operatorToken.kind)) {
      if (t.isIdentifier(n.left)) e.writes.add(n.left.text);
      else if (t.isArrayLiteralExpression(n.left)) {
        for (const el of n.left.elements) {
          if (t.isIdentifier(el)) e.writes.add(el.text);
          else e.writesHeap = true;
        }
      } else e.writesHeap = true;
    } else if ((t.isPrefixUnaryExpression(n) || t.isPostfixUnaryExpression(n)) && (n.operator === K.PlusPlusToken || n.operator === K.MinusMinusToken)) {
      if (t.isIdentifier(n.operand)) e.writes.add(n.operand.text);
      else e.writesHeap = true;
    }
  }
}

/**
 * `new Float64Array(k)` with k a literal length: it cannot throw and does nothing anyone sees but
 * make a new array, so it may move like a pure value (still evaluated once, where its use is: a
 * zero cotangent printed in the tuple that holds it).
 */
function freshZeros(t: typeof ts, n: ts.NewExpression): boolean {
  const k = literalFloat64ArrayLength(t, n);
  return k !== undefined && k <= 0xffff;
}

/** k for `new Float64Array(k)` with k a numeric literal (a zero array of known length), else undefined. */
export function literalFloat64ArrayLength(t: typeof ts, e: ts.Expression): number | undefined {
  if (!t.isNewExpression(e) || !t.isIdentifier(e.expression) || e.expression.text !== 'Float64Array' || e.arguments?.length !== 1) return undefined;
  const n = e.arguments[0];
  return t.isNumericLiteral(n) ? Number(n.text) : undefined;
}

export function isAssignment(t: typeof ts, k: ts.SyntaxKind): boolean {
  return k >= t.SyntaxKind.FirstAssignment && k <= t.SyntaxKind.LastAssignment;
}
