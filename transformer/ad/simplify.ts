// The simplifier: copy propagation, symbolic-zero propagation, literal folding, common
// subexpressions of non-linear primitives and dead code, then `restoreLinearity` to put back
// the drops the type system needs. It uses only generic facts: every primitive is pure, and a
// linear primitive maps all-zero linear inputs to zero (that is what linear means).
import { Expr, FnDef, Program, Type, letE, zero as zeroE } from '../ir/syntax';
import { PRIMS } from '../prims/registry';
import { restoreLinearity } from './linearity';
import type { Scalar } from '../prims/types';
import { forEachOperand, renameOperands } from '../ir/operands';
import { hoistBlocks, rebindsAName } from './hoist';

interface Env {
  readonly subst: Map<string, string>;
  readonly zeros: Map<string, Type>;
  readonly literals: Map<string, Scalar>;
  readonly cse: Map<string, string>;
  /** Variables bound to a tuple constructor: unpacking them is renaming. */
  readonly tuples: Map<string, readonly string[]>;
}

const isVarDrop = (e: Expr) => e.tag === 'drop' && (e.expr.tag === 'var' || (e.expr.tag === 'ret' && true));

/** Literals are shared like any other pure expression; -0 and 0 stay distinct. */
function literalKey(v: Scalar): string {
  return `lit:${typeof v}:${Object.is(v, -0) ? '-0' : String(v)}`;
}

function rename(env: Env, n: string): string {
  let m = n;
  while (env.subst.has(m)) m = env.subst.get(m)!;
  return m;
}

function renameLeaf(e: Expr, env: Env): Expr {
  const r = (n: string) => rename(env, n);
  switch (e.tag) {
    case 'drop':
      return { ...e, expr: forward(e.expr, { ...env, cse: new Map(env.cse) }) };
    case 'let':
    case 'unpack':
      return forward(e, { ...env, cse: new Map(env.cse) });
    default:
      return renameOperands(e, r);
  }
}

/** Forward rewriting: aliases, zeros, folding, CSE. Drops of bare variables are removed. */
function forward(start: Expr, env: Env): Expr {
  // Let chains in a loop (generated code can be thousands deep); rewritten bindings are
  // collected as wrappers and folded around the rewritten tail at the end.
  const out: ((body: Expr) => Expr)[] = [];
  let e = start;
  for (;;) {
    if (e.tag === 'unpack') {
      const node = e;
      const tuple = rename(env, node.tuple);
      const known = env.tuples.get(tuple);
      if (known && known.length === node.names.length) {
        node.names.forEach((b, i) => {
          if (b.name !== known[i]) env.subst.set(b.name, known[i]);
        });
        e = node.body;
        continue;
      }
      out.push((body) => ({ ...node, tuple, body }));
      e = node.body;
      continue;
    }
    if (e.tag !== 'let') break;
    const node = e;
    e = node.body;
    if (node.nl.length + node.lin.length === 0 && isVarDrop(node.rhs)) continue;
    const rhs = renameLeaf(node.rhs, env);
    const all = [...node.nl, ...node.lin];
    if (rhs.tag === 'var' && all.length === 1) {
      env.subst.set(all[0].name, rhs.name);
      continue;
    }
    if (rhs.tag === 'ret') {
      [...rhs.nl, ...rhs.lin].forEach((n, i) => env.subst.set(all[i].name, n));
      continue;
    }
    if (rhs.tag === 'tuple' && all.length === 1) env.tuples.set(all[0].name, rhs.elems);
    if (rhs.tag === 'zero') env.zeros.set(all[0].name, rhs.type);
    if (rhs.tag === 'lit') {
      const key = literalKey(rhs.value);
      const seen = env.cse.get(key);
      if (seen !== undefined) {
        env.subst.set(all[0].name, seen);
        continue;
      }
      env.cse.set(key, all[0].name);
      env.literals.set(all[0].name, rhs.value);
    }
    if (rhs.tag === 'lprim' && rhs.lin.every((n) => env.zeros.has(n)) && node.lin[0]?.type) {
      const t = node.lin[0].type;
      env.zeros.set(node.lin[0].name, t);
      out.push((body) => letE([], node.lin, zeroE(t), body));
      continue;
    }
    if (rhs.tag === 'dup' && env.zeros.has(rhs.name)) {
      const t = env.zeros.get(rhs.name)!;
      node.lin.forEach((b) => env.zeros.set(b.name, t));
      out.push((body) => letE([], [node.lin[0]], zeroE(t), letE([], [node.lin[1]], zeroE(t), body)));
      continue;
    }
    if (rhs.tag === 'prim') {
      if (rhs.args.every((a) => env.literals.has(a))) {
        const v = PRIMS[rhs.op].impl(...rhs.args.map((a) => env.literals.get(a)!));
        env.literals.set(all[0].name, v);
        out.push((body) => letE(node.nl, [], { tag: 'lit', value: v }, body));
        continue;
      }
      const folded = PRIMS[rhs.op].fold?.(rhs.args.map((a) => env.literals.get(a)));
      if (folded && 'arg' in folded) {
        env.subst.set(all[0].name, rhs.args[folded.arg]);
        continue;
      }
      if (folded) {
        env.literals.set(all[0].name, folded.literal);
        out.push((body) => letE(node.nl, [], { tag: 'lit', value: folded.literal }, body));
        continue;
      }
      const key = `${rhs.op}(${rhs.args.join(',')})`;
      const seen = env.cse.get(key);
      if (seen !== undefined) {
        env.subst.set(all[0].name, seen);
        continue;
      }
      env.cse.set(key, all[0].name);
    }
    out.push((body) => ({ ...node, rhs, body }));
  }
  let result = renameLeaf(e, env);
  for (let i = out.length - 1; i >= 0; i--) result = out[i](result);
  return result;
}

function uses(e: Expr, counts: Map<string, number>): void {
  const u = (n: string) => counts.set(n, (counts.get(n) ?? 0) + 1);
  for (;;) {
    if (e.tag === 'let') {
      uses(e.rhs, counts);
      e = e.body;
    } else if (e.tag === 'unpack') {
      u(e.tuple);
      e = e.body;
    } else break;
  }
  if (e.tag === 'drop') uses(e.expr, counts);
  else forEachOperand(e, u);
}

/**
 * Removes bindings of pure expressions whose results are never used, in one backward pass: a
 * let chain is walked from its result to its first statement, counting only the uses of the
 * statements kept so far, so a binding used only by dead code is dead too (no repeated rounds).
 * Names are unique within a def here (see rebindsAName), so counts by name are counts by binder.
 */
function dce(start: Expr, counts: Map<string, number>): Expr {
  const chain: Expr[] = [];
  let e = start;
  while (e.tag === 'let' || e.tag === 'unpack') {
    chain.push(e);
    e = e.body;
  }
  uses(e, counts);
  let result: Expr = e;
  const unused = (n: string) => (counts.get(n) ?? 0) === 0;
  for (let i = chain.length - 1; i >= 0; i--) {
    const node = chain[i];
    if (node.tag === 'let') {
      const binders = [...node.nl, ...node.lin];
      if (binders.length > 0 && binders.every((b) => unused(b.name)) && node.rhs.tag !== 'drop') continue;
      const rhs = node.rhs.tag === 'let' || node.rhs.tag === 'unpack' ? dce(node.rhs, counts) : node.rhs.tag === 'drop' ? dropDce(node.rhs, counts) : countUses(node.rhs, counts);
      result = { ...node, rhs, body: result };
    } else if (node.tag === 'unpack') {
      if (!node.linear && node.names.every((b) => unused(b.name))) continue;
      counts.set(node.tuple, (counts.get(node.tuple) ?? 0) + 1);
      result = { ...node, body: result };
    }
  }
  return result;
}

function dropDce(e: Extract<Expr, { tag: 'drop' }>, counts: Map<string, number>): Expr {
  return { ...e, expr: dce(e.expr, counts) };
}

function countUses(e: Expr, counts: Map<string, number>): Expr {
  uses(e, counts);
  return e;
}

export function simplifyDef(d0: FnDef): FnDef {
  // Substitutions are keyed by name: a def that binds a name twice is renamed apart first.
  const d = rebindsAName(d0) ? hoistBlocks(d0) : d0;
  const env: Env = { subst: new Map(), zeros: new Map(), literals: new Map(), cse: new Map(), tuples: new Map() };
  const body = dce(forward(d.body, env), new Map());
  return restoreLinearity({ ...d, body });
}

/** Simplifies the named defs (default: all), keeping names and signatures. */
export function simplifyProgram(p: Program, fns?: readonly string[]): Program {
  const which = fns ? new Set(fns) : null;
  return { ...p, defs: p.defs.map((d) => (which === null || which.has(d.name) ? simplifyDef(d) : d)) };
}


