// Call inlining and block flattening: a generic pass that knows no primitive. A call becomes the
// callee's body with parameters substituted and every local renamed apart (keeping its readable
// name when free); nested blocks are hoisted into the enclosing block. After it, the
// simplifier sees one straight-line function: the tape a primal pass builds for its backward
// pass becomes plain variables (tuple construction followed by unpacking folds away), which is
// what makes a compiled gradient as cheap as a hand-written one.
//
// Linear A stays well-typed: substitution preserves every use count, and names are unique after
// renaming, so hoisting never captures. Inlining is bounded by a size budget per function.
//
// Calls stay calls where inlining would copy: a callee is inlined when its size after its own
// inlining is small and runs no loop, or when it has a single call site in the program (inlining
// it moves code, copies nothing). A callee called from many places that is large once inlined keeps one
// function (and one derivative function per role), so emitted code grows linearly with the
// source, never with the number of call paths (k functions each calling the next twice would
// otherwise inline to 2^k copies of the first).
// A construct's bodies stay bodies (only one of a cond's runs): calls are inlined and blocks
// flattened inside each body, whose parameters and bindings are renamed apart like the rest.
import { NameSupply } from '../ir/build';
import { Binder, Block, Expr, FnDef, Lambda, Program, Stmt, block, blockE, construct } from '../ir/syntax';
import { callSitesOfDef, defMap } from '../ir/program';
import { constructRule } from '../constructs/registry';
import { renameOperands, visitBlock, visitDef } from '../ir/traverse';

export interface InlineOptions {
  /** Largest callee (in bindings, after its own inlining) inlined wherever it is called. */
  readonly maxCalleeSize?: number;
  /** Largest callee inlined at its only call site in the program. */
  readonly maxSingleUseSize?: number;
  /** Stop inlining into a function once it has this many bindings. */
  readonly maxSize?: number;
  /** Calls of these functions stay calls (a function with its own JVP rule, for one). */
  readonly keep?: (fn: string) => boolean;
  /** Inline a callee that runs a loop at every call site too (a device program has no calls). */
  readonly loops?: boolean;
}

/** Number of statements in a body, nested blocks included (the unit of the budget). */
export function bodySize(body: Block): number {
  let n = 0;
  visitBlock(body, {
    stmt: () => {
      n++;
    },
  });
  return n;
}

/** Extra weight of a statement inside a construct's body (per level of nesting). */
const BODY_WEIGHT = 3; // so a body statement weighs 4 in all

/**
 * Which calls are inlined, program-wide: a def's size after inlining what it may inline, and the
 * number of call sites of each def (memoised; the program has no recursion).
 */
class InlinePolicy {
  private readonly sizes = new Map<string, number>();
  private readonly sites = new Map<string, number>();
  private readonly loops = new Map<string, boolean>();
  constructor(
    private readonly defs: ReadonlyMap<string, FnDef>,
    private readonly o: Required<InlineOptions>,
  ) {
    for (const d of defs.values()) for (const [fn, n] of callSitesOfDef(d)) this.sites.set(fn, (this.sites.get(fn) ?? 0) + n);
  }

  /** The callee to inline at a call of `fn`, or undefined when the call stays a call. */
  callee(fn: string): FnDef | undefined {
    const d = this.defs.get(fn);
    if (!d || this.o.keep(fn)) return undefined;
    const n = this.inlinedSize(fn);
    if ((this.sites.get(fn) ?? 0) <= 1) return n <= this.o.maxSingleUseSize ? d : undefined;
    return n <= this.o.maxCalleeSize && (this.o.loops || !this.holdsLoop(fn)) ? d : undefined;
  }

  /** Whether `fn`, or a callee inlined into it, runs a loop (a construct that repeats its body). */
  holdsLoop(fn: string): boolean {
    const known = this.loops.get(fn);
    if (known !== undefined) return known;
    const d = this.defs.get(fn)!;
    let found = ownWeight(d.body).repeats;
    for (const callee of callSitesOfDef(d).keys()) if (!found && this.callee(callee) && this.holdsLoop(callee)) found = true;
    this.loops.set(fn, found);
    return found;
  }

  /** Statements of `fn` once the calls it may inline are inlined. */
  inlinedSize(fn: string): number {
    const known = this.sizes.get(fn);
    if (known !== undefined) return known;
    const d = this.defs.get(fn)!;
    let n = ownWeight(d.body).size;
    for (const [callee, calls] of callSitesOfDef(d)) if (this.callee(callee)) n += calls * this.inlinedSize(callee);
    this.sizes.set(fn, n);
    return n;
  }
}

const weights = new WeakMap<Block, { readonly size: number; readonly repeats: boolean }>();

/**
 * A body's own weight, its calls not counted, and whether it runs a loop itself; remembered per
 * body (blocks are never mutated), as every inlining asks for every def it may inline.
 * A body's derivative code is several copies of it (a loop's forward loop with its stacks, the
 * reversed loop): a statement weighs BODY_WEIGHT more for each construct body around it. Counted
 * in one walk (a walk of each body from each construct around it was quadratic).
 */
function ownWeight(body: Block): { readonly size: number; readonly repeats: boolean } {
  const known = weights.get(body);
  if (known) return known;
  let size = 0;
  let repeats = false;
  const constructBodies = new Set<Lambda>();
  let depth = 0;
  visitBlock(body, {
    stmt: () => {
      size += 1 + BODY_WEIGHT * depth;
    },
    expr: (e) => {
      if (e.tag !== 'construct') return;
      if (constructRule(e, 'inline').repeats) repeats = true;
      for (const l of e.bodies) constructBodies.add(l);
    },
    enter: (l) => {
      if (constructBodies.has(l)) depth++;
    },
    leave: (l) => {
      if (constructBodies.has(l)) depth--;
    },
  });
  const w = { size, repeats };
  weights.set(body, w);
  return w;
}

class Inliner {
  private size = 0;
  constructor(
    private readonly policy: InlinePolicy,
    private readonly supply: NameSupply,
    private readonly o: Required<InlineOptions>,
  ) {}

  private inlinable(fn: string): FnDef | undefined {
    const d = this.policy.callee(fn);
    if (!d || this.size + this.policy.inlinedSize(fn) > this.o.maxSize) return undefined;
    return d;
  }

  /** Flattens a block (renaming with `env`) into `out`; returns its result expression. */
  flatten(body: Block, env: Map<string, string>, out: Stmt[]): Expr {
    const r = (n: string) => env.get(n) ?? n;
    for (const s of body.stmts) {
      if (s.tag === 'unpack') {
        const tuple = r(s.tuple);
        const names = s.names.map((b) => this.bind(b, env));
        out.push({ tag: 'unpack', linear: s.linear, names, tuple });
      } else {
        const rhs = this.leafOrBlock(s.rhs, env, out);
        const nl = s.nl.map((b) => this.bind(b, env));
        const lin = s.lin.map((b) => this.bind(b, env));
        out.push({ tag: 'let', nl, lin, rhs });
      }
      this.size++;
    }
    return this.leafOrBlock(body.result, env, out);
  }

  /**
   * A right-hand side or result: nested blocks and inlinable calls are hoisted into `out`. One
   * level of recursion per nested block or inlined call: inlining runs on generated and lowered
   * code, whose blocks are shallow.
   */
  private leafOrBlock(e: Expr, env: Map<string, string>, out: Stmt[]): Expr {
    const r = (n: string) => env.get(n) ?? n;
    switch (e.tag) {
      case 'construct':
        // A body is closed: it starts from an environment of its own parameters.
        return construct(
          e.op,
          e.nl.map(r),
          e.lin.map(r),
          e.bodies.map((l) => this.body(l)),
        );
      case 'block':
        // A nested block's own names are scoped to it: rename them in a copy of the environment.
        return this.flatten(e.block, new Map(env), out);
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
        const leaf = this.leafOrBlock(e.expr, new Map(env), inner);
        return { tag: 'drop', expr: inner.length === 0 ? leaf : blockE(block(inner, leaf)) };
      }
      default:
        return renameOperands(e, r);
    }
  }

  private body(l: Lambda): Lambda {
    const env = new Map<string, string>();
    const nlParams = l.nlParams.map((b) => this.bind(b, env));
    const linParams = l.linParams.map((b) => this.bind(b, env));
    const out: Stmt[] = [];
    const result = this.flatten(l.body, env, out);
    return { nlParams, linParams, body: block(out, result) };
  }

  private bind(b: Binder, env: Map<string, string>): Binder {
    const name = this.supply.fresh(b.name);
    env.set(b.name, name);
    return b.type ? { name, type: b.type } : { name };
  }
}

/**
 * Whether inlining would give the def back as it is: no call it may inline, no nested block to
 * flatten, and no name bound twice (each binder keeps its name). Such a def is not copied.
 */
function unchangedBy(d: FnDef, policy: InlinePolicy): boolean {
  const seen = new Set<string>();
  let changes = false;
  visitDef(d, {
    expr: (e) => {
      if (e.tag === 'block' || (e.tag === 'call' && policy.callee(e.fn) !== undefined)) changes = true;
    },
    bind: (b) => {
      if (seen.has(b.name)) changes = true;
      seen.add(b.name);
    },
  });
  return !changes;
}

/** Inlines calls (transitively) and flattens blocks in the named defs. */
export function inlineProgram(p: Program, fns: readonly string[], opts: InlineOptions = {}): Program {
  const o: Required<InlineOptions> = {
    maxCalleeSize: opts.maxCalleeSize ?? 64,
    maxSingleUseSize: opts.maxSingleUseSize ?? 2000,
    maxSize: opts.maxSize ?? 20000,
    keep: opts.keep ?? (() => false),
    loops: opts.loops ?? false,
  };
  const policy = new InlinePolicy(defMap(p), o);
  const which = new Set(fns);
  return {
    ...p,
    defs: p.defs.map((d) => {
      if (!which.has(d.name) || unchangedBy(d, policy)) return d;
      // Every binder is renamed through the supply, so the def keeps its own names (first come)
      // and inlined bodies take the next free ones; parameters are never reused.
      const supply = new NameSupply([...d.nlParams, ...d.linParams].map((b) => b.name));
      const env = new Map<string, string>();
      const out: Stmt[] = [];
      const leaf = new Inliner(policy, supply, o).flatten(d.body, env, out);
      return { ...d, body: block(out, leaf) };
    }),
  };
}
