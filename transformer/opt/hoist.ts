// Block hoisting with renaming apart, the normal form J works on: nested blocks (`let a = { … }`,
// `drop({ … })`) become statements of the enclosing block, and every binder gets a name no other
// binder of the def has. J keeps one tangent per name, so a rebinding (`let x = sin(x)`) or a
// name reused in a sibling block would otherwise read the wrong tangent or partial; and a flat
// body keeps every later pass free of recursion per nesting level.
//
// Hoisting preserves results and work: a block costs the sum of its statements, and
// `drop({ s̄; e })` costs W(s̄) + W(e) + |results of e|, which is what `s̄; drop(e)` costs.
//
// A construct's bodies are not hoisted into the enclosing block (only one of a cond's bodies
// runs, and a body is a closed scope): each body is hoisted in place, its parameters and
// bindings renamed apart from every other binder of the def.
import { NameSupply, namesIn } from '../ir/build';
import { Binder, Block, Expr, FnDef, Lambda, Stmt, block, letS, ret, unpackS } from '../ir/syntax';
import { ScopeStack } from '../ir/scopeStack';
import { DeepWalk } from '../ir/deepWalk';
import { mapChildren, renameOperands, visitDef } from '../ir/traverse';

interface Scoped {
  readonly name: string;
  readonly actual: string;
}

/**
 * A block being hoisted: the next statement to move, and where its value goes when it ends (the
 * let of its parent that receives it, or, for a block in result position, the parent's result).
 */
interface Frame {
  readonly block: Block;
  i: number;
  readonly node: Extract<Stmt, { tag: 'let' }> | null;
  readonly drops: number;
  /** Scope size when the block opened: its bindings end with it. */
  readonly depth: number;
}

function stripDrops(e: Expr): { drops: number; inner: Expr } {
  let drops = 0;
  while (e.tag === 'drop') {
    drops++;
    e = e.expr;
  }
  return { drops, inner: e };
}

/** Nesting is unbounded (blocks 20 000 deep), so open blocks live on an explicit stack. */
export function hoistBlocks(d: FnDef): FnDef {
  const supply = new NameSupply(namesIn(d.body, new Set([...d.nlParams, ...d.linParams].map((b) => b.name))));
  const bound = new Set<string>();
  const scope = new ScopeStack<Scoped>();
  let changed = false;
  const bind = (b: Binder): Binder => {
    const actual = bound.has(b.name) ? supply.fresh(b.name) : b.name;
    bound.add(actual);
    scope.push({ name: b.name, actual });
    if (actual === b.name) return b;
    changed = true;
    return b.type ? { name: actual, type: b.type } : { name: actual };
  };
  const r = (n: string) => scope.find(n)?.actual ?? n;
  const leaf = (e: Expr, drops: number): Expr => {
    let out = renameOperands(e.tag === 'construct' ? mapChildren(e, body) : e, r);
    for (let i = 0; i < drops; i++) out = { tag: 'drop', expr: out };
    return out;
  };
  // Bodies nested thousands deep are walked in stretches (DeepWalk).
  const walk = new DeepWalk();
  const body = (l: Lambda): Lambda =>
    walk.body(l.body, () => {
      const depth = scope.size;
      try {
        const nlParams = l.nlParams.map(bind);
        const linParams = l.linParams.map(bind);
        return { nlParams, linParams, body: hoist(l.body) };
      } finally {
        while (scope.size > depth) scope.pop();
      }
    });
  const nlParams = d.nlParams.map(bind);
  const linParams = d.linParams.map(bind);
  const depth = scope.size;
  const result = walk.run(() => {
    while (scope.size > depth) scope.pop();
    return hoist(d.body);
  });
  return changed ? { ...d, nlParams, linParams, body: result } : d;

  function hoist(root: Block): Block {
    const out: Stmt[] = [];
    const stack: Frame[] = [{ block: root, i: 0, node: null, drops: 0, depth: scope.size }];
    for (;;) {
      const top = stack[stack.length - 1];
      const { stmts, result } = top.block;
      if (top.i < stmts.length) {
        const s = stmts[top.i++];
        if (s.tag === 'unpack') {
          const tuple = r(s.tuple);
          out.push(unpackS(s.linear, s.names.map(bind), tuple));
          continue;
        }
        const { drops, inner } = stripDrops(s.rhs);
        if (inner.tag === 'block') {
          changed = true;
          stack.push({ block: inner.block, i: 0, node: s, drops, depth: scope.size });
          continue;
        }
        const rhs = leaf(inner, drops);
        out.push(letS(s.nl.map(bind), s.lin.map(bind), rhs));
        continue;
      }
      // The result: `drop({ … })` hoists like a statement, then returns nothing.
      const { drops, inner } = stripDrops(result);
      if (inner.tag === 'block') {
        changed = true;
        stack.push({ block: inner.block, i: 0, node: null, drops, depth: scope.size });
        continue;
      }
      let value = leaf(inner, drops);
      // The block ends: its value goes to the let that was waiting for it.
      for (;;) {
        const k = stack.pop()!;
        if (stack.length === 0) return block(out, value);
        while (scope.size > k.depth) scope.pop();
        for (let i = 0; i < k.drops; i++) value = { tag: 'drop', expr: value };
        if (k.node === null) {
          // A block in result position ends its parent too; under `drop` (k.drops ≥ 1) the drop
          // becomes a statement and the parent returns ().
          if (k.drops > 0) {
            out.push(letS([], [], value));
            value = ret([], []);
          }
          continue;
        }
        out.push(letS(k.node.nl.map(bind), k.node.lin.map(bind), value));
        break;
      }
    }
  }
}

/** Does any binder of the def reuse a name bound before it (parameters included)? */
export function rebindsAName(d: FnDef): boolean {
  const seen = new Set<string>();
  let rebinds = false;
  visitDef(d, {
    bind: (b) => {
      if (seen.has(b.name)) rebinds = true;
      seen.add(b.name);
    },
  });
  return rebinds;
}
