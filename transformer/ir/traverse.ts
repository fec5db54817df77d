// The one module that knows the shape of the IR: which fields of an expression hold variables
// (operands) and which hold bodies (nested blocks, construct bodies). Every pass and analysis is a
// visitor (a fold with scope events) or a rewriter with default recursion; a new construct or a
// new leaf is taught here once, not to each pass (style guide §10: Dex's GenericTraversal, tsc's
// visitEachChild).
//
// The visitor keeps an explicit stack: blocks can be 100 000 statements long and nested 20 000
// deep. The rewriter recurses once per nesting level, so the passes that use it run on hoisted
// (flat) bodies or on bodies the front end built.
import { Binder, Block, Expr, FnDef, Lambda, Stmt } from './syntax';
import { DeepWalk } from './deepWalk';

/**
 * How many expressions the walks here visited (the visitor's and mapChildren's calls), summed
 * over the process: lets a test bound a compiler's work on deep programs without a clock.
 */
export const walkMeter = { exprs: 0 };

// ---- operands ----

/** Calls `f` on every variable an expression reads itself (not inside its bodies), in field order. */
export function forEachOperand(e: Expr, f: (name: string, linear: boolean) => void): void {
  switch (e.tag) {
    case 'ret':
    case 'call':
    case 'lprim':
    case 'construct':
      for (const n of e.nl) f(n, false);
      for (const n of e.lin) f(n, true);
      return;
    case 'var':
      f(e.name, e.linear);
      return;
    case 'dup':
      f(e.name, true);
      return;
    case 'tuple':
      for (const n of e.elems) f(n, e.linear);
      return;
    case 'prim':
      for (const n of e.args) f(n, false);
      return;
    case 'lit':
    case 'zero':
    case 'drop':
    case 'block':
      return;
  }
}

/** The expression with every variable it reads itself renamed (bodies and sub-expressions untouched). */
export function renameOperands(e: Expr, rename: (name: string) => string): Expr {
  switch (e.tag) {
    case 'ret':
    case 'call':
    case 'lprim':
    case 'construct':
      return { ...e, nl: e.nl.map(rename), lin: e.lin.map(rename) };
    case 'var':
    case 'dup':
      return { ...e, name: rename(e.name) };
    case 'tuple':
      return { ...e, elems: e.elems.map(rename) };
    case 'prim':
      return { ...e, args: e.args.map(rename) };
    case 'lit':
    case 'zero':
    case 'drop':
    case 'block':
      return e;
  }
}

/** Renames the variable a statement reads itself (an unpack's tuple); a let's rhs is an expression. */
export const renameStmtOperands = (s: Stmt, rename: (name: string) => string): Stmt => (s.tag === 'unpack' ? { ...s, tuple: rename(s.tuple) } : s);

// ---- bodies ----

const NO_PARAMS: readonly Binder[] = [];

/** The bodies an expression holds: a nested block is a body without parameters. */
export function bodiesOf(e: Expr): readonly Lambda[] {
  switch (e.tag) {
    case 'block':
      return [{ nlParams: NO_PARAMS, linParams: NO_PARAMS, body: e.block }];
    case 'construct':
      return e.bodies;
    default:
      return [];
  }
}

/** The expression inside `drop(e)`: evaluated in the enclosing scope, unlike a body. */
export const innerOf = (e: Expr): Expr | undefined => (e.tag === 'drop' ? e.expr : undefined);

/**
 * Rebuilds an expression with its bodies (and a drop's inner expression) mapped; the expression
 * itself when nothing changed, so callers can tell.
 */
export function mapChildren(e: Expr, body: (l: Lambda) => Lambda, inner: (e: Expr) => Expr = (x) => x): Expr {
  walkMeter.exprs++;
  switch (e.tag) {
    case 'block': {
      const b = body({ nlParams: NO_PARAMS, linParams: NO_PARAMS, body: e.block }).body;
      return b === e.block ? e : { tag: 'block', block: b };
    }
    case 'construct': {
      const bodies = e.bodies.map(body);
      return bodies.every((l, i) => l === e.bodies[i]) ? e : { ...e, bodies };
    }
    case 'drop': {
      const x = inner(e.expr);
      return x === e.expr ? e : { tag: 'drop', expr: x };
    }
    default:
      return e;
  }
}

/** True when the expression or anything in it holds a body. */
export const hasBodies = (e: Expr): boolean => {
  while (e.tag === 'drop') e = e.expr;
  return e.tag === 'block' || e.tag === 'construct';
};

// ---- the fold ----

/**
 * Events of a walk over a block in evaluation order. A statement's right-hand side is visited
 * before its binders come into scope; a body's parameters come into scope when it is entered and
 * everything it bound goes out of scope when it is left.
 */
export interface Visitor {
  /** A statement, before its right-hand side. */
  stmt?(s: Stmt): void;
  /** An expression (a right-hand side, a block result, the inside of a drop), before its operands. */
  expr?(e: Expr): void;
  /** A variable read by an expression or an unpack. */
  read?(name: string, linear: boolean): void;
  /** A binder coming into scope. */
  bind?(b: Binder, linear: boolean): void;
  /** A body is entered (before its parameters are bound). */
  enter?(l: Lambda): void;
  /** A body is left; `bound` lists what it bound, parameters first. */
  leave?(l: Lambda, bound: readonly string[]): void;
}

type Item =
  | { readonly k: 'body'; readonly l: Lambda }
  | { readonly k: 'stmts'; readonly l: Lambda; readonly bound: string[]; i: number }
  | { readonly k: 'bindLet'; readonly s: Extract<Stmt, { tag: 'let' }>; readonly bound: string[] };

/** Walks a body (its parameters, statements and result) with an explicit stack. */
export function visitLambda(root: Lambda, v: Visitor): void {
  const stack: Item[] = [{ k: 'body', l: root }];
  // Visits an expression's own operands, then schedules its bodies (they run before whatever is
  // below them on the stack, in order).
  const expr = (e: Expr) => {
    for (;;) {
      walkMeter.exprs++;
      v.expr?.(e);
      if (v.read) forEachOperand(e, v.read);
      if (e.tag !== 'drop') break;
      e = e.expr;
    }
    const bodies = bodiesOf(e);
    for (let j = bodies.length - 1; j >= 0; j--) stack.push({ k: 'body', l: bodies[j] });
  };
  const bind = (bound: string[], b: Binder, linear: boolean) => {
    bound.push(b.name);
    v.bind?.(b, linear);
  };
  while (stack.length > 0) {
    const item = stack[stack.length - 1];
    if (item.k === 'body') {
      stack.pop();
      const { l } = item;
      v.enter?.(l);
      const bound: string[] = [];
      for (const b of l.nlParams) bind(bound, b, false);
      for (const b of l.linParams) bind(bound, b, true);
      stack.push({ k: 'stmts', l, bound, i: 0 });
      continue;
    }
    if (item.k === 'bindLet') {
      stack.pop();
      for (const b of item.s.nl) bind(item.bound, b, false);
      for (const b of item.s.lin) bind(item.bound, b, true);
      continue;
    }
    const { stmts, result } = item.l.body;
    if (item.i < stmts.length) {
      const s = stmts[item.i++];
      v.stmt?.(s);
      if (s.tag === 'unpack') {
        v.read?.(s.tuple, s.linear);
        for (const b of s.names) bind(item.bound, b, s.linear);
      } else {
        stack.push({ k: 'bindLet', s, bound: item.bound });
        expr(s.rhs);
      }
      continue;
    }
    if (item.i === stmts.length) {
      item.i++;
      expr(result);
      continue;
    }
    stack.pop();
    v.leave?.(item.l, item.bound);
  }
}

export const visitBlock = (b: Block, v: Visitor): void => visitLambda({ nlParams: NO_PARAMS, linParams: NO_PARAMS, body: b }, v);

/** Walks a definition: its parameters are the outermost body's. */
export const visitDef = (d: FnDef, v: Visitor): void => visitLambda(d, v);

/** Walks an expression as if it were a block's result. */
export const visitExpr = (e: Expr, v: Visitor): void => visitBlock({ stmts: [], result: e }, v);

// ---- the rewriter ----

/**
 * Overridable cases of a rewrite; every case defaults to rebuilding with rewritten children.
 * `stmt` may emit any number of statements in place of one (nothing deletes it).
 */
export interface Rewriter {
  /** Rewrites an expression whose bodies (and drop's inside) were already rewritten. */
  expr?(e: Expr): Expr;
  /** Replaces a statement (its right-hand side already rewritten) by the statements it emits. */
  stmt?(s: Stmt, emit: (s: Stmt) => void): void;
  /** Rewrites a block's result expression (already rewritten by `expr`). */
  result?(e: Expr, emit: (s: Stmt) => void): Expr;
}

/**
 * Construct bodies nested thousands deep are rewritten in stretches (DeepWalk): a body's rewrite
 * may run twice, so a rewriter keeps no count of what it saw (what it emits goes into the block
 * being rewritten, which a rerun builds anew).
 */
export function rewriteBlock(b: Block, r: Rewriter): Block {
  const walk = new DeepWalk();
  return walk.run(() => rewriteIn(b, r, walk));
}

function rewriteIn(b: Block, r: Rewriter, walk: DeepWalk): Block {
  const out: Stmt[] = [];
  const emit = (s: Stmt) => {
    out.push(s);
  };
  const lam = (l: Lambda): Lambda => {
    const body = rewriteIn(l.body, r, walk);
    return body === l.body ? l : { ...l, body };
  };
  const ex = (e: Expr): Expr => {
    const mapped = mapChildren(e, (l) => (e.tag === 'construct' ? walk.body(l.body, () => lam(l)) : lam(l)), ex);
    return r.expr ? r.expr(mapped) : mapped;
  };
  for (const s of b.stmts) {
    const s2 = s.tag === 'let' ? rewriteRhs(s, ex) : s;
    if (r.stmt) r.stmt(s2, emit);
    else out.push(s2);
  }
  const res = ex(b.result);
  return { stmts: out, result: r.result ? r.result(res, emit) : res };
}

export function rewriteLambda(l: Lambda, r: Rewriter): Lambda {
  const body = rewriteBlock(l.body, r);
  return body === l.body ? l : { ...l, body };
}

export function rewriteDef(d: FnDef, r: Rewriter): FnDef {
  return { ...d, body: rewriteBlock(d.body, r) };
}

function rewriteRhs(s: Extract<Stmt, { tag: 'let' }>, ex: (e: Expr) => Expr): Stmt {
  const rhs = ex(s.rhs);
  return rhs === s.rhs ? s : { ...s, rhs };
}

// ---- common folds ----

/** Every name bound or read anywhere in a definition or block (for a collision-free NameSupply). */
export function namesIn(root: Lambda | Block, out: Set<string> = new Set()): Set<string> {
  const add = (n: string) => {
    out.add(n);
  };
  const v: Visitor = { read: add, bind: (b) => add(b.name) };
  if ('stmts' in root) visitBlock(root, v);
  else visitLambda(root, v);
  return out;
}

/** The functions a block calls directly. */
export function calleesOf(root: Block, out: Set<string> = new Set()): Set<string> {
  visitBlock(root, {
    expr: (e) => {
      if (e.tag === 'call') out.add(e.fn);
    },
  });
  return out;
}
