// Reference interpreter for Linear A, counting work with the paper's cost model (notes §2.5):
// a non-linear primitive costs 1, a linear primitive 1 per scalar of its result, drop(e) costs
// W(e) plus 1 per scalar it discards, a call costs its body, everything else is free.
import { Expr, FnDef, IrError, Program, Type, InternalError } from './syntax';
import { PRIMS, LIN_PRIMS } from '../prims/registry';
import type { Scalar } from '../prims/types';
import { printType } from './printType';

export type Value = number | boolean | string | Value[];

export interface EvalResult {
  readonly nl: Value[];
  readonly lin: Value[];
  readonly work: number;
}

/** Scope chain as a persistent linked list: binding is O(1) and closures are never needed. */
interface Env {
  readonly name: string;
  readonly value: Value;
  readonly next: Env | null;
}

function lookup(env: Env | null, name: string): Value {
  for (let e = env; e !== null; e = e.next) if (e.name === name) return e.value;
  throw new InternalError(`unbound variable ${name} at run time (was the program type-checked?)`);
}

export function leafCount(v: Value): number {
  return Array.isArray(v) ? v.reduce<number>((n, x) => n + leafCount(x), 0) : 1;
}

export function zeroOf(t: Type): Value {
  return t.tag === 'tuple' ? t.elems.map(zeroOf) : 0;
}

/** Applies a leaf function across tuple structure; coefficients are broadcast. */
function leafwise(f: (lin: number[]) => number, args: Value[]): Value {
  const first = args[0];
  if (Array.isArray(first)) return first.map((_, i) => leafwise(f, args.map((a) => (a as Value[])[i])));
  return f(args as number[]);
}

class Machine {
  work = 0;
  private readonly defs = new Map<string, FnDef>();
  constructor(p: Program) {
    for (const d of p.defs) this.defs.set(d.name, d);
  }

  callFn(name: string, nl: Value[], lin: Value[]): Value[][] {
    const d = this.defs.get(name);
    if (!d) throw new IrError(`no function named ${name}`);
    let env: Env | null = null;
    d.nlParams.forEach((b, i) => (env = { name: b.name, value: nl[i], next: env }));
    d.linParams.forEach((b, i) => (env = { name: b.name, value: lin[i], next: env }));
    return this.eval(d.body, env);
  }

  /** Returns [non-linear results, linear results]. */
  eval(e: Expr, env: Env | null): Value[][] {
    for (;;) {
      switch (e.tag) {
        case 'let': {
          const [nl, lin] = this.eval(e.rhs, env);
          e.nl.forEach((b, i) => (env = { name: b.name, value: nl[i], next: env }));
          e.lin.forEach((b, i) => (env = { name: b.name, value: lin[i], next: env }));
          e = e.body;
          continue;
        }
        case 'unpack': {
          const t = lookup(env, e.tuple) as Value[];
          e.names.forEach((b, i) => (env = { name: b.name, value: t[i], next: env }));
          e = e.body;
          continue;
        }
        case 'ret':
          return [e.nl.map((n) => lookup(env, n)), e.lin.map((n) => lookup(env, n))];
        case 'call':
          return this.callFn(
            e.fn,
            e.nl.map((n) => lookup(env, n)),
            e.lin.map((n) => lookup(env, n)),
          );
        case 'var':
          return e.linear ? [[], [lookup(env, e.name)]] : [[lookup(env, e.name)], []];
        case 'lit':
          return [[e.value], []];
        case 'tuple': {
          const v = e.elems.map((n) => lookup(env, n));
          return e.linear ? [[], [v]] : [[v], []];
        }
        case 'prim': {
          this.work += 1;
          const args = e.args.map((n) => lookup(env, n) as Scalar);
          return [[PRIMS[e.op].impl(...args)], []];
        }
        case 'lprim': {
          const def = LIN_PRIMS[e.op];
          const coeffs = e.nl.map((n) => lookup(env, n) as Scalar);
          const v = leafwise((leaves) => def.impl(coeffs, leaves), e.lin.map((n) => lookup(env, n)));
          this.work += leafCount(v);
          return [[], [v]];
        }
        case 'zero':
          return [[], [zeroOf(e.type)]];
        case 'dup': {
          const v = lookup(env, e.name);
          return [[], [v, v]];
        }
        case 'drop': {
          const [nl, lin] = this.eval(e.expr, env);
          for (const v of nl) this.work += leafCount(v);
          for (const v of lin) this.work += leafCount(v);
          return [[], []];
        }
      }
    }
  }
}

function conforms(v: Value, t: Type): boolean {
  switch (t.tag) {
    case 'real':
      return typeof v === 'number';
    case 'bool':
      return typeof v === 'boolean';
    case 'str':
      return typeof v === 'string';
    case 'tuple':
      return Array.isArray(v) && v.length === t.elems.length && v.every((x, i) => conforms(x, t.elems[i]));
  }
}

/** Runs `fn`; values are checked against the signature (IrError naming the parameter). */
export function evalFn(p: Program, fn: string, nl: Value[], lin: Value[] = []): EvalResult {
  const d = p.defs.find((x) => x.name === fn);
  if (!d) throw new IrError(`no function named ${fn}`);
  if (nl.length !== d.nlParams.length) throw new IrError(`${fn} takes ${d.nlParams.length} non-linear argument(s), got ${nl.length}`);
  if (lin.length !== d.linParams.length) throw new IrError(`${fn} takes ${d.linParams.length} linear argument(s), got ${lin.length}`);
  const params = [...d.nlParams, ...d.linParams];
  [...nl, ...lin].forEach((v, i) => {
    const t = params[i].type;
    if (t && !conforms(v, t)) throw new IrError(`argument ${params[i].name} of ${fn} must be ${printType(t)}, got ${JSON.stringify(v)}`);
  });
  const m = new Machine(p);
  const [rn, rl] = m.callFn(fn, nl, lin);
  return { nl: rn, lin: rl, work: m.work };
}

export function workOf(p: Program, fn: string, nl: Value[], lin: Value[] = []): number {
  return evalFn(p, fn, nl, lin).work;
}
