// Call inlining and block flattening: a generic pass that knows no primitive. A call becomes the
// callee's body with parameters substituted and every local renamed apart (keeping its readable
// name when free); nested blocks are hoisted into the enclosing let chain. After it, the
// simplifier sees one straight-line function: the tape a primal pass builds for its backward
// pass becomes plain variables (tuple construction followed by unpacking folds away), which is
// what makes a compiled gradient as cheap as a hand-written one.
//
// Linear A stays well-typed: substitution preserves every use count, and names are unique after
// renaming, so hoisting never captures. Inlining is bounded by a size budget per function.
import { NameSupply } from '../ir/build';
import { Binder, Expr, FnDef, Program } from '../ir/syntax';
import { defMap } from './program';
import { renameOperands } from '../ir/operands';

export interface InlineOptions {
  /** Largest callee (in bindings) that is inlined; bigger ones stay calls. */
  readonly maxCalleeSize?: number;
  /** Stop inlining into a function once it has this many bindings. */
  readonly maxSize?: number;
  /** Calls of these functions stay calls (a function with its own JVP rule, for one). */
  readonly keep?: (fn: string) => boolean;
}

type Stmt = { readonly tag: 'let'; readonly nl: readonly Binder[]; readonly lin: readonly Binder[]; readonly rhs: Expr } | { readonly tag: 'unpack'; readonly linear: boolean; readonly names: readonly Binder[]; readonly tuple: string };

/** Number of bindings in a body, nested blocks included (the unit of the budget). */
export function bodySize(start: Expr): number {
  let n = 0;
  const stack: Expr[] = [start];
  while (stack.length > 0) {
    let e = stack.pop()!;
    for (;;) {
      if (e.tag === 'let') {
        n++;
        stack.push(e.rhs);
        e = e.body;
      } else if (e.tag === 'unpack') {
        n++;
        e = e.body;
      } else {
        if (e.tag === 'drop') stack.push(e.expr);
        break;
      }
    }
  }
  return n;
}

class Inliner {
  private size = 0;
  constructor(
    private readonly defs: ReadonlyMap<string, FnDef>,
    private readonly supply: NameSupply,
    private readonly o: Required<InlineOptions>,
  ) {}

  private inlinable(fn: string): FnDef | undefined {
    const d = this.defs.get(fn);
    if (!d || this.o.keep(fn)) return undefined;
    const n = bodySize(d.body);
    if (n > this.o.maxCalleeSize || this.size + n > this.o.maxSize) return undefined;
    return d;
  }

  /** Flattens `e` (renaming with `env`) into `out`; returns its final leaf expression. */
  flatten(start: Expr, env: Map<string, string>, out: Stmt[]): Expr {
    const r = (n: string) => env.get(n) ?? n;
    let e = start;
    for (;;) {
      if (e.tag === 'unpack') {
        const tuple = r(e.tuple);
        const names = e.names.map((b) => this.bind(b, env));
        out.push({ tag: 'unpack', linear: e.linear, names, tuple });
        this.size++;
        e = e.body;
        continue;
      }
      if (e.tag !== 'let') break;
      const rhs = this.leafOrBlock(e.rhs, env, out);
      const nl = e.nl.map((b) => this.bind(b, env));
      const lin = e.lin.map((b) => this.bind(b, env));
      out.push({ tag: 'let', nl, lin, rhs });
      this.size++;
      e = e.body;
    }
    return this.leafOrBlock(e, env, out);
  }

  /** A right-hand side or final expression: blocks and inlinable calls are hoisted into `out`. */
  private leafOrBlock(e: Expr, env: Map<string, string>, out: Stmt[]): Expr {
    const r = (n: string) => env.get(n) ?? n;
    switch (e.tag) {
      case 'let':
      case 'unpack':
        // A nested block's own names are scoped to it: rename them in a copy of the environment.
        return this.flatten(e, new Map(env), out);
      case 'call': {
        const nl = e.nl.map(r);
        const lin = e.lin.map(r);
        const callee = this.inlinable(e.fn);
        if (!callee) return { ...e, nl, lin };
        const calleeEnv = new Map<string, string>();
        callee.nlParams.forEach((p, i) => calleeEnv.set(p.name, nl[i]));
        callee.linParams.forEach((p, i) => calleeEnv.set(p.name, lin[i]));
        return this.flatten(callee.body, calleeEnv, out);
      }
      case 'drop': {
        // Everything dropped is consumed where it is computed; keep the block as it is, renamed.
        const inner: Stmt[] = [];
        const leaf = this.flatten(e.expr, new Map(env), inner);
        return { tag: 'drop', expr: assemble(inner, leaf) };
      }
      default:
        return renameOperands(e, r);
    }
  }

  private bind(b: Binder, env: Map<string, string>): Binder {
    const name = this.supply.fresh(b.name);
    env.set(b.name, name);
    return b.type ? { name, type: b.type } : { name };
  }
}

function assemble(stmts: readonly Stmt[], leaf: Expr): Expr {
  let e = leaf;
  for (let i = stmts.length - 1; i >= 0; i--) {
    const s = stmts[i];
    e = s.tag === 'let' ? { tag: 'let', nl: s.nl, lin: s.lin, rhs: s.rhs, body: e } : { tag: 'unpack', linear: s.linear, names: s.names, tuple: s.tuple, body: e };
  }
  return e;
}

/** Inlines calls (transitively) and flattens blocks in the named defs. */
export function inlineProgram(p: Program, fns: readonly string[], opts: InlineOptions = {}): Program {
  const o: Required<InlineOptions> = { maxCalleeSize: opts.maxCalleeSize ?? 2000, maxSize: opts.maxSize ?? 20000, keep: opts.keep ?? (() => false) };
  const defs = defMap(p);
  const which = new Set(fns);
  return {
    ...p,
    defs: p.defs.map((d) => {
      if (!which.has(d.name)) return d;
      // Every binder is renamed through the supply, so the def keeps its own names (first come)
      // and inlined bodies take the next free ones; parameters are never reused.
      const supply = new NameSupply([...d.nlParams, ...d.linParams].map((b) => b.name));
      const env = new Map<string, string>();
      const out: Stmt[] = [];
      const leaf = new Inliner(defs, supply, o).flatten(d.body, env, out);
      return { ...d, body: assemble(out, leaf) };
    }),
  };
}
