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
import { foldBlock, mapChildren, renameOperands, visitDef } from '../ir/traverse';

interface Scoped {
  readonly name: string;
  readonly actual: string;
}

function stripDrops(e: Expr): { drops: number; inner: Expr } {
  let drops = 0;
  while (e.tag === 'drop') {
    drops++;
    e = e.expr;
  }
  return { drops, inner: e };
}

/** Nesting is unbounded (blocks 20 000 deep): open blocks live on foldBlock's explicit stack. */
export function hoistBlocks(d: FnDef): FnDef {
  // The def's names are gathered only when a binder needs renaming (most defs rebind nothing).
  let supply: NameSupply | undefined;
  const fresh = (n: string) => (supply ??= new NameSupply(namesIn(d.body, new Set([...d.nlParams, ...d.linParams].map((b) => b.name))))).fresh(n);
  const bound = new Set<string>();
  const scope = new ScopeStack<Scoped>();
  let changed = false;
  const bind = (b: Binder): Binder => {
    const actual = bound.has(b.name) ? fresh(b.name) : b.name;
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
        return { nlParams, linParams, body: unnest(l.body) };
      } finally {
        while (scope.size > depth) scope.pop();
      }
    });
  const nlParams = d.nlParams.map(bind);
  const linParams = d.linParams.map(bind);
  const depth = scope.size;
  const result = walk.run(() => {
    while (scope.size > depth) scope.pop();
    return unnest(d.body);
  });
  return changed ? { ...d, nlParams, linParams, body: result } : d;

  function unnest(root: Block): Block {
    const out: Stmt[] = [];
    // Scope size when each open block began: its bindings end with it.
    const depths: number[] = [];
    const value = foldBlock<Expr>(root, {
      enter: (_b, site) => {
        if (site.k !== 'root') changed = true;
        depths.push(scope.size);
      },
      unpack: (s) => {
        const tuple = r(s.tuple);
        out.push(unpackS(s.linear, s.names.map(bind), tuple));
      },
      leaf: (e) => {
        const { drops, inner } = stripDrops(e);
        return leaf(inner, drops);
      },
      let: (s, rhs) => {
        out.push(letS(s.nl.map(bind), s.lin.map(bind), rhs));
      },
      // The block ends: its value goes to the let that was waiting for it.
      leave: (_b, site, v) => {
        const depth = depths.pop()!;
        if (site.k === 'root' || site.k === 'body') return v;
        while (scope.size > depth) scope.pop();
        let value = v;
        for (let i = 0; i < site.drops.length; i++) value = { tag: 'drop', expr: value };
        // A block in result position ends its parent too; under `drop` the drop becomes a
        // statement and the parent returns ().
        if (site.k === 'result' && site.drops.length > 0) {
          out.push(letS([], [], value));
          return ret([], []);
        }
        return value;
      },
    });
    return block(out, value);
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
