// The simplifier: copy propagation, symbolic-zero propagation, literal folding, common
// subexpressions of non-linear primitives and dead code, then `restoreLinearity` to put back
// the drops the type system needs. It uses only generic facts: every primitive is pure, and a
// linear primitive maps all-zero linear inputs to zero (that is what linear means).
import { Expr, FnDef, Program, Type, letE, zero as zeroE } from '../ir/syntax';
import { PRIMS } from '../prims/registry';
import { restoreLinearity } from './linearity';
import type { Scalar } from '../prims/types';

interface Env {
  readonly subst: Map<string, string>;
  readonly zeros: Map<string, Type>;
  readonly literals: Map<string, Scalar>;
  readonly cse: Map<string, string>;
}

const isVarDrop = (e: Expr) => e.tag === 'drop' && (e.expr.tag === 'var' || (e.expr.tag === 'ret' && true));

function rename(env: Env, n: string): string {
  let m = n;
  while (env.subst.has(m)) m = env.subst.get(m)!;
  return m;
}

function renameLeaf(e: Expr, env: Env): Expr {
  const r = (n: string) => rename(env, n);
  switch (e.tag) {
    case 'ret':
    case 'call':
    case 'lprim':
      return { ...e, nl: e.nl.map(r), lin: e.lin.map(r) };
    case 'var':
    case 'dup':
      return { ...e, name: r(e.name) };
    case 'tuple':
      return { ...e, elems: e.elems.map(r) };
    case 'prim':
      return { ...e, args: e.args.map(r) };
    case 'drop':
      return { ...e, expr: forward(e.expr, { ...env, cse: new Map(env.cse) }) };
    case 'let':
    case 'unpack':
      return forward(e, { ...env, cse: new Map(env.cse) });
    default:
      return e;
  }
}

/** Forward rewriting: aliases, zeros, folding, CSE. Drops of bare variables are removed. */
function forward(e: Expr, env: Env): Expr {
  if (e.tag === 'unpack') return { ...e, tuple: rename(env, e.tuple), body: forward(e.body, env) };
  if (e.tag !== 'let') return renameLeaf(e, env);
  if (e.nl.length + e.lin.length === 0 && isVarDrop(e.rhs)) return forward(e.body, env);
  const rhs = renameLeaf(e.rhs, env);
  const all = [...e.nl, ...e.lin];
  // Aliases: let x = y, let (a ; b) = (c ; d).
  if (rhs.tag === 'var' && all.length === 1) {
    env.subst.set(all[0].name, rhs.name);
    return forward(e.body, env);
  }
  if (rhs.tag === 'ret') {
    [...rhs.nl, ...rhs.lin].forEach((n, i) => env.subst.set(all[i].name, n));
    return forward(e.body, env);
  }
  if (rhs.tag === 'zero') env.zeros.set(all[0].name, rhs.type);
  if (rhs.tag === 'lit') env.literals.set(all[0].name, rhs.value);
  if (rhs.tag === 'lprim' && rhs.lin.every((n) => env.zeros.has(n)) && e.lin[0]?.type) {
    env.zeros.set(e.lin[0].name, e.lin[0].type);
    return letE([], e.lin, zeroE(e.lin[0].type), forward(e.body, env));
  }
  if (rhs.tag === 'dup' && env.zeros.has(rhs.name)) {
    const t = env.zeros.get(rhs.name)!;
    e.lin.forEach((b) => env.zeros.set(b.name, t));
    return letE([], [e.lin[0]], zeroE(t), letE([], [e.lin[1]], zeroE(t), forward(e.body, env)));
  }
  if (rhs.tag === 'prim') {
    if (rhs.args.every((a) => env.literals.has(a))) {
      const v = PRIMS[rhs.op].impl(...rhs.args.map((a) => env.literals.get(a)!));
      env.literals.set(all[0].name, v);
      return letE(e.nl, [], { tag: 'lit', value: v }, forward(e.body, env));
    }
    const key = `${rhs.op}(${rhs.args.join(',')})`;
    const seen = env.cse.get(key);
    if (seen !== undefined) {
      env.subst.set(all[0].name, seen);
      return forward(e.body, env);
    }
    env.cse.set(key, all[0].name);
  }
  return { ...e, rhs, body: forward(e.body, env) };
}

function uses(e: Expr, counts: Map<string, number>): void {
  const u = (n: string) => counts.set(n, (counts.get(n) ?? 0) + 1);
  switch (e.tag) {
    case 'ret':
    case 'call':
    case 'lprim':
      e.nl.forEach(u);
      e.lin.forEach(u);
      return;
    case 'var':
    case 'dup':
      u(e.name);
      return;
    case 'tuple':
      e.elems.forEach(u);
      return;
    case 'prim':
      e.args.forEach(u);
      return;
    case 'drop':
      uses(e.expr, counts);
      return;
    case 'let':
      uses(e.rhs, counts);
      uses(e.body, counts);
      return;
    case 'unpack':
      u(e.tuple);
      uses(e.body, counts);
      return;
    default:
      return;
  }
}

const removed = { count: 0 };

/** Removes bindings of pure expressions whose results are never used. */
function dce(e: Expr, counts: Map<string, number>): Expr {
  if (e.tag === 'let') {
    const body = dce(e.body, counts);
    const binders = [...e.nl, ...e.lin];
    const dead = binders.length > 0 && binders.every((b) => (counts.get(b.name) ?? 0) === 0) && e.rhs.tag !== 'drop';
    if (dead) {
      removed.count++;
      return body;
    }
    const rhs = e.rhs.tag === 'let' || e.rhs.tag === 'unpack' || e.rhs.tag === 'drop' ? dceInner(e.rhs, counts) : e.rhs;
    return { ...e, rhs, body };
  }
  if (e.tag === 'unpack') {
    const body = dce(e.body, counts);
    if (!e.linear && e.names.every((b) => (counts.get(b.name) ?? 0) === 0)) {
      removed.count++;
      return body;
    }
    return { ...e, body };
  }
  return e;
}

function dceInner(e: Expr, counts: Map<string, number>): Expr {
  return e.tag === 'drop' ? { ...e, expr: dce(e.expr, counts) } : dce(e, counts);
}

export function simplifyDef(d: FnDef): FnDef {
  const env: Env = { subst: new Map(), zeros: new Map(), literals: new Map(), cse: new Map() };
  let body = forward(d.body, env);
  for (let round = 0; round < 20; round++) {
    const counts = new Map<string, number>();
    uses(body, counts);
    removed.count = 0;
    body = dce(body, counts);
    if (removed.count === 0) break;
  }
  return restoreLinearity({ ...d, body });
}

/** Simplifies the named defs (default: all), keeping names and signatures. */
export function simplifyProgram(p: Program, fns?: readonly string[]): Program {
  const which = fns ? new Set(fns) : null;
  return { ...p, defs: p.defs.map((d) => (which === null || which.has(d.name) ? simplifyDef(d) : d)) };
}


