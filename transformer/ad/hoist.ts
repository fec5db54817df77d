// Block hoisting with renaming apart, the normal form J works on: nested blocks (`let a = { … }`,
// `drop({ … })`) become statements of the enclosing chain, and every binder gets a name no other
// binder of the def has. J keeps one tangent per name, so a rebinding (`let x = sin(x)`) or a
// name reused in a sibling block would otherwise read the wrong tangent or partial; and a flat
// body keeps every later pass free of recursion per nesting level.
//
// Hoisting preserves results and work: a block costs the sum of its statements, and
// `drop({ s̄; e })` costs W(s̄) + W(e) + |results of e|, which is what `s̄; drop(e)` costs.
import { NameSupply, namesIn } from '../ir/build';
import { Binder, Expr, FnDef } from '../ir/syntax';
import { ScopeStack } from '../ir/scopeStack';
import { renameOperands } from '../ir/operands';

type Stmt =
  | { readonly tag: 'let'; readonly nl: readonly Binder[]; readonly lin: readonly Binder[]; readonly rhs: Expr }
  | { readonly tag: 'unpack'; readonly linear: boolean; readonly names: readonly Binder[]; readonly tuple: string };

interface Scoped {
  readonly name: string;
  readonly actual: string;
}

/** A nested block being hoisted, and the let of its parent that receives its value. */
interface Open {
  readonly node: Extract<Expr, { tag: 'let' }> | null;
  readonly drops: number;
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

const isBlock = (e: Expr) => e.tag === 'let' || e.tag === 'unpack';

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
    let out = renameOperands(e, r);
    for (let i = 0; i < drops; i++) out = { tag: 'drop', expr: out };
    return out;
  };
  const nlParams = d.nlParams.map(bind);
  const linParams = d.linParams.map(bind);

  const out: Stmt[] = [];
  const open: Open[] = [];
  let e: Expr = d.body;
  for (;;) {
    if (e.tag === 'unpack') {
      const tuple = r(e.tuple);
      out.push({ tag: 'unpack', linear: e.linear, names: e.names.map(bind), tuple });
      e = e.body;
      continue;
    }
    if (e.tag === 'let') {
      const { drops, inner } = stripDrops(e.rhs);
      if (isBlock(inner)) {
        changed = true;
        open.push({ node: e, drops, depth: scope.size });
        e = inner;
        continue;
      }
      const rhs = leaf(inner, drops);
      out.push({ tag: 'let', nl: e.nl.map(bind), lin: e.lin.map(bind), rhs });
      e = e.body;
      continue;
    }
    // A final expression: `drop({ … })` hoists like a statement, then returns nothing.
    const { drops, inner } = stripDrops(e);
    if (isBlock(inner)) {
      changed = true;
      open.push({ node: null, drops, depth: scope.size });
      e = inner;
      continue;
    }
    let value = leaf(inner, drops);
    // The block ends: its value goes to the let that was waiting for it.
    for (;;) {
      const k = open.pop();
      if (k === undefined) {
        if (!changed) return d;
        let body = value;
        for (let i = out.length - 1; i >= 0; i--) {
          const s = out[i];
          body = s.tag === 'let' ? { tag: 'let', nl: s.nl, lin: s.lin, rhs: s.rhs, body } : { tag: 'unpack', linear: s.linear, names: s.names, tuple: s.tuple, body };
        }
        return { ...d, nlParams, linParams, body };
      }
      while (scope.size > k.depth) scope.pop();
      for (let i = 0; i < k.drops; i++) value = { tag: 'drop', expr: value };
      if (k.node === null) {
        // A final `drop({ … })` (k.drops ≥ 1): the drop becomes a statement, the block returns ().
        out.push({ tag: 'let', nl: [], lin: [], rhs: value });
        value = { tag: 'ret', nl: [], lin: [] };
        continue;
      }
      out.push({ tag: 'let', nl: k.node.nl.map(bind), lin: k.node.lin.map(bind), rhs: value });
      e = k.node.body;
      break;
    }
  }
}

/** Does any binder of the def reuse a name bound before it (parameters included)? */
export function rebindsAName(d: FnDef): boolean {
  const seen = new Set<string>();
  const fresh = (b: Binder) => {
    if (seen.has(b.name)) return false;
    seen.add(b.name);
    return true;
  };
  if (![...d.nlParams, ...d.linParams].every(fresh)) return true;
  const stack: Expr[] = [d.body];
  while (stack.length > 0) {
    const e = stack.pop()!;
    if (e.tag === 'let') {
      if (![...e.nl, ...e.lin].every(fresh)) return true;
      stack.push(e.body, e.rhs);
    } else if (e.tag === 'unpack') {
      if (!e.names.every(fresh)) return true;
      stack.push(e.body);
    } else if (e.tag === 'drop') stack.push(e.expr);
  }
  return false;
}
