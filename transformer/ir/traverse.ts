// The one module that knows the shape of the IR: which fields of an expression hold variables
// (operands) and which hold bodies (nested blocks, construct bodies). Every pass and analysis is a
// visitor (a fold with scope events) or a rewriter with default recursion; a new construct or a
// new leaf is taught here once, not to each pass (style guide §10: Dex's GenericTraversal, tsc's
// visitEachChild).
//
// The visitor and foldBlock keep an explicit stack: blocks can be 100 000 statements long and
// nested 20 000 deep. The rewriter folds nested blocks with foldBlock and walks construct bodies
// in stretches (DeepWalk), so it is stack-safe too.
import { Binder, Block, Expr, FnDef, InternalError, Lambda, Stmt } from './syntax';
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

// ---- nested blocks ----

type LetStmt = Extract<Stmt, { tag: 'let' }>;
type UnpackStmt = Extract<Stmt, { tag: 'unpack' }>;
type BlockExpr = Extract<Expr, { tag: 'block' }>;
type DropExpr = Extract<Expr, { tag: 'drop' }>;

/**
 * Where a block walked by `foldBlock` stands: the root; the right-hand side of a let or its
 * parent's result (`node`, under `drops`, outermost first); or a body a leaf's run asked for.
 */
export type BlockSite =
  | { readonly k: 'root' }
  | { readonly k: 'let'; readonly s: LetStmt; readonly node: BlockExpr; readonly drops: readonly DropExpr[] }
  | { readonly k: 'result'; readonly node: BlockExpr; readonly drops: readonly DropExpr[] }
  | { readonly k: 'body' };

/**
 * A fold over a block and the blocks nested in it, computing a value `V` per expression. Events
 * come in evaluation order: a nested block is entered, its statements folded, and left with its
 * result's value, which becomes the value of the expression it stands in.
 */
export interface BlockFold<V> {
  /** Whether a block under `drops` is walked as a nested block (else it is a leaf); every block when absent. */
  nested?(node: BlockExpr, drops: readonly DropExpr[]): boolean;
  /** A block is entered (the root first). */
  enter?(b: Block, site: BlockSite): void;
  unpack(s: UnpackStmt): void;
  /**
   * The value of an expression that is no nested block (its drops included): a let's right-hand
   * side (`s`) or a block's result (null).
   */
  leaf(e: Expr, s: LetStmt | null): V;
  /** A leaf that needs the values of bodies: a run yielding each body's block; undefined for an ordinary leaf. */
  run?(e: Expr, s: LetStmt | null): Generator<Block, V, V> | undefined;
  /** A let whose right-hand side's value is known. */
  let(s: LetStmt, v: V): void;
  /** A block is left with its result's value: the value of the block's expression (of the whole fold at the root). */
  leave(b: Block, site: BlockSite, v: V): V;
}

/**
 * Folds a block with an explicit stack: blocks nested 20 000 deep, and the bodies a leaf's run
 * asks for, take no JavaScript frame per level.
 */
export function foldBlock<V>(root: Block, f: BlockFold<V>): V {
  type Frame =
    | { readonly k: 'block'; readonly b: Block; readonly site: BlockSite; i: number }
    | { readonly k: 'let'; readonly s: LetStmt }
    | { readonly k: 'run'; readonly g: Generator<Block, V, V>; started: boolean };
  const frames: Frame[] = [];
  const open = (b: Block, site: BlockSite) => {
    f.enter?.(b, site);
    frames.push({ k: 'block', b, site, i: 0 });
  };
  // Runs a leaf's run until it asks for a body (opened: undefined) or returns its value.
  const resume = (fr: Extract<Frame, { k: 'run' }>, v: V | undefined): { v: V } | undefined => {
    const step = fr.started ? fr.g.next(v as V) : fr.g.next();
    fr.started = true;
    if (step.done) {
      frames.pop();
      return { v: step.value };
    }
    open(step.value, { k: 'body' });
    return undefined;
  };
  // The value of an expression, or undefined when a nested block or a body was opened for it.
  const value = (e: Expr, s: LetStmt | null): { v: V } | undefined => {
    let x = e;
    const drops: DropExpr[] = [];
    while (x.tag === 'drop') {
      drops.push(x);
      x = x.expr;
    }
    if (x.tag === 'block' && (f.nested?.(x, drops) ?? true)) {
      open(x.block, s ? { k: 'let', s, node: x, drops } : { k: 'result', node: x, drops });
      return undefined;
    }
    const g = f.run?.(e, s);
    if (g === undefined) return { v: f.leaf(e, s) };
    const fr: Extract<Frame, { k: 'run' }> = { k: 'run', g, started: false };
    frames.push(fr);
    return resume(fr, undefined);
  };
  open(root, { k: 'root' });
  for (;;) {
    const top = frames[frames.length - 1];
    if (top.k !== 'block') throw new InternalError('foldBlock: a value is owed to a waiting expression');
    let out: { v: V } | undefined;
    if (top.i < top.b.stmts.length) {
      const s = top.b.stmts[top.i++];
      if (s.tag === 'unpack') {
        f.unpack(s);
        continue;
      }
      frames.push({ k: 'let', s });
      out = value(s.rhs, s);
    } else if (top.i++ === top.b.stmts.length) {
      out = value(top.b.result, null);
    } else {
      throw new InternalError('foldBlock: a block was left open');
    }
    // Hand the value outwards until a statement is complete and its block goes on.
    while (out !== undefined) {
      const fr = frames[frames.length - 1];
      if (fr.k === 'let') {
        frames.pop();
        f.let(fr.s, out.v);
        out = undefined;
      } else if (fr.k === 'run') {
        out = resume(fr, out.v);
      } else {
        frames.pop();
        const v = f.leave(fr.b, fr.site, out.v);
        if (fr.site.k === 'root') return v;
        out = { v };
      }
    }
  }
}

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
  /** A body (a construct's, or a nested block: no parameters) is entered, before anything in it is rewritten. */
  enter?(l: Lambda): void;
  /** A body is left, after everything in it was rewritten. */
  leave?(l: Lambda): void;
}

/**
 * Rewrites a block; the block itself (and each body, nested block and expression that nothing
 * changed) when nothing changed. Nested blocks take no JavaScript frame (foldBlock); construct
 * bodies nested thousands deep are rewritten in stretches (DeepWalk): a body's rewrite may run
 * twice, so a rewriter keeps no count of what it saw (what it emits goes into the block being
 * rewritten, which a rerun builds anew), and its scope events may repeat for such a body.
 */
export function rewriteBlock(b: Block, r: Rewriter): Block {
  const walk = new DeepWalk();
  return walk.run(() => rewriteIn(b, r, walk));
}

function rewriteIn(root: Block, r: Rewriter, walk: DeepWalk): Block {
  const outs: Stmt[][] = [];
  const emit = (s: Stmt) => {
    outs[outs.length - 1].push(s);
  };
  const lam = (l: Lambda): Lambda => {
    r.enter?.(l);
    const body = rewriteIn(l.body, r, walk);
    r.leave?.(l);
    return body === l.body ? l : { ...l, body };
  };
  const ex = (e: Expr): Expr => {
    const mapped = mapChildren(e, (l) => walk.body(l.body, () => lam(l)), ex);
    return r.expr ? r.expr(mapped) : mapped;
  };
  const block = foldBlock<Expr | Block>(root, {
    enter: (b, site) => {
      if (site.k !== 'root') r.enter?.({ nlParams: NO_PARAMS, linParams: NO_PARAMS, body: b });
      outs.push([]);
    },
    unpack: (s) => (r.stmt ? r.stmt(s, emit) : emit(s)),
    leaf: (e) => ex(e),
    let: (s, rhs) => {
      const s2 = rhs === s.rhs ? s : { ...s, rhs: rhs as Expr };
      if (r.stmt) r.stmt(s2, emit);
      else emit(s2);
    },
    leave: (b, site, v) => {
      const res = r.result ? r.result(v as Expr, emit) : (v as Expr);
      const out = outs.pop()!;
      const same = res === b.result && out.length === b.stmts.length && out.every((s, i) => s === b.stmts[i]);
      const block = same ? b : { stmts: out, result: res };
      if (site.k === 'root') return block;
      r.leave?.({ nlParams: NO_PARAMS, linParams: NO_PARAMS, body: b });
      if (site.k === 'body') throw new InternalError('rewriteBlock: a body was asked for');
      walkMeter.exprs++;
      let e: Expr = block === b ? site.node : { tag: 'block', block };
      if (r.expr) e = r.expr(e);
      for (let j = site.drops.length - 1; j >= 0; j--) {
        walkMeter.exprs++;
        const d = site.drops[j];
        e = e === d.expr ? d : { tag: 'drop', expr: e };
        if (r.expr) e = r.expr(e);
      }
      return e;
    },
  });
  return block as Block;
}

export function rewriteLambda(l: Lambda, r: Rewriter): Lambda {
  const body = rewriteBlock(l.body, r);
  return body === l.body ? l : { ...l, body };
}

export function rewriteDef(d: FnDef, r: Rewriter): FnDef {
  const body = rewriteBlock(d.body, r);
  return body === d.body ? d : { ...d, body };
}

// ---- common folds ----

interface BlockFacts {
  /** Every name the block binds or reads (its bodies' too), in order of first appearance. */
  readonly names: readonly string[];
  /** Whether every binder in it carries its type. */
  readonly typed: boolean;
}

const blockFacts = new WeakMap<Block, BlockFacts>();

/**
 * A block's names and whether its binders are typed, from one walk, remembered per block (blocks
 * are never mutated): the next pass gathers the names of each def a pass built, and the drivers
 * ask whether it needs typing (language/check.ts `typeUntyped`); several passes gather the names
 * of the same def (the emitter's rewrites, J after hoisting, flattening after inlining).
 */
function factsOfBlock(b: Block): BlockFacts {
  let known = blockFacts.get(b);
  if (known === undefined) {
    const found = new Set<string>();
    let typed = true;
    visitBlock(b, {
      read: (n) => void found.add(n),
      bind: (x) => {
        found.add(x.name);
        if (x.type === undefined) typed = false;
      },
    });
    blockFacts.set(b, (known = { names: [...found], typed }));
  }
  return known;
}

const namesOfBlock = (b: Block): readonly string[] => factsOfBlock(b).names;

/** Does every binder of the block, in its bodies too, carry its type? */
export const bindsTyped = (b: Block): boolean => factsOfBlock(b).typed;

/** Every name bound or read anywhere in a definition or block (for a collision-free NameSupply). */
export function namesIn(root: Lambda | Block, out: Set<string> = new Set()): Set<string> {
  if ('stmts' in root) {
    for (const n of namesOfBlock(root)) out.add(n);
    return out;
  }
  // A body's parameters come into scope before anything in it.
  for (const b of root.nlParams) out.add(b.name);
  for (const b of root.linParams) out.add(b.name);
  for (const n of namesOfBlock(root.body)) out.add(n);
  return out;
}

/** The functions a block calls directly. */
export function calleesOf(root: Block, out: Set<string> = new Set()): Set<string> {
  visitBlock(root, collectCallees(out));
  return out;
}

/** The functions an expression calls, in its nested bodies too. */
export function calleesOfExpr(e: Expr, out: Set<string> = new Set()): Set<string> {
  visitExpr(e, collectCallees(out));
  return out;
}

function collectCallees(out: Set<string>): Visitor {
  return {
    expr: (e) => {
      if (e.tag === 'call') out.add(e.fn);
    },
  };
}

const constructHolders = new WeakMap<Block, boolean>();

/**
 * Does the block hold a construct anywhere (nested blocks and drops included)? Remembered per
 * block, and found without a visitor: the passes that rewrite only constructs (loops, array
 * updates) leave a def without one as it is, and most defs of a gradient are straight-line code.
 */
export function holdsConstruct(root: Block): boolean {
  const known = constructHolders.get(root);
  if (known !== undefined) return known;
  // Blocks nest thousands deep: an explicit stack of the blocks still to look at.
  const open: Block[] = [root];
  const holds = (e: Expr): boolean => {
    while (e.tag === 'drop') e = e.expr;
    if (e.tag === 'block') open.push(e.block);
    return e.tag === 'construct';
  };
  let found = false;
  while (!found && open.length > 0) {
    const b = open.pop()!;
    found = b.stmts.some((s) => s.tag === 'let' && holds(s.rhs)) || holds(b.result);
  }
  constructHolders.set(root, found);
  return found;
}
