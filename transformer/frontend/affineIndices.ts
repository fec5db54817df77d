// Affine forms of the indices a loop body reads (frontend/readChecks.ts moves their checks out of
// the loop): f(k) = c·k + r in the loop's counter k, c and r linear combinations of names defined
// outside the body (x[c*d + r], x[d - 1 - r], x[2*i], a position stepped by a literal, `li++`),
// and the copy of a body's invariant computations into the enclosing scope, where the check of
// the whole range is emitted.
import type { Builder } from '../ir/build';
import { REAL, binder, construct, prim as primE } from '../ir/syntax';
import type { Block, Expr, Stmt, Type } from '../ir/syntax';
import { constructRule } from '../constructs/registry';

/** A linear combination Σ terms[name]·name + c of names defined outside a loop body. */
export interface Lin {
  readonly c: number;
  readonly terms: ReadonlyMap<string, number>;
}

/** f(k) = kc·k + rest, k the loop's counter. */
export interface Affine {
  readonly kc: Lin;
  readonly rest: Lin;
}

export const ZERO: Lin = { c: 0, terms: new Map() };
export const constant = (c: number): Lin => ({ c, terms: new Map() });
export const isConstant = (l: Lin): boolean => l.terms.size === 0;
export const isZero = (l: Lin): boolean => isConstant(l) && l.c === 0;

export function plus(a: Lin, b: Lin, s = 1): Lin {
  const terms = new Map(a.terms);
  for (const [n, v] of b.terms) {
    const w = (terms.get(n) ?? 0) + s * v;
    if (w === 0) terms.delete(n);
    else terms.set(n, w);
  }
  return { c: a.c + s * b.c, terms };
}

export function times(a: Lin, s: number): Lin {
  if (s === 0) return ZERO;
  return { c: a.c * s, terms: new Map([...a.terms].map(([n, v]) => [n, v * s])) };
}

export const affineKey = (f: Affine) => [f.kc.c, [...f.kc.terms], f.rest.c, [...f.rest.terms]];

/** A value a loop carries: its parameter in the body, its value before the loop. */
export interface Carried {
  readonly param: string;
  readonly init: string;
  /** A typed array (its length cannot change): the same length as init if the body only writes into it. */
  readonly typed?: boolean;
}

/**
 * The typed arrays a loop carries that its body only writes elements of (a chain of `update`s
 * back to the parameter, frontend/arrayBasics.ts): as long as their value before the loop, which
 * stands for them in a moved check's length.
 */
export function sameLengths(body: Block, carried: readonly Carried[], defs: Defs): Map<string, string> {
  const out = new Map<string, string>();
  if (body.result.tag !== 'ret') return out;
  const result = body.result.nl;
  carried.forEach((c, i) => {
    if (!c.typed) return;
    let at: string | undefined = result[i];
    for (let steps = 0; at !== undefined && at !== c.param && steps < 1000; steps++) {
      const st = defs.get(at);
      at = st?.tag === 'let' && st.rhs.tag === 'construct' && st.rhs.op === 'update' ? st.rhs.nl[0] : undefined;
    }
    if (at === c.param) out.set(c.param, c.init);
  });
  return out;
}

/**
 * The positions a loop moves by a fixed whole step (`li++`, `p += 3`): the parameter whose new
 * value is itself plus a literal is init + step·k at the start of iteration k.
 */
export function inductions(body: Block, carried: readonly Carried[], defs: Defs): Map<string, Affine> {
  const out = new Map<string, Affine>();
  if (body.result.tag !== 'ret') return out;
  const literal = (n: string): number | undefined => {
    const st = defs.get(n);
    return st?.tag === 'let' && st.rhs.tag === 'lit' && typeof st.rhs.value === 'number' ? st.rhs.value : undefined;
  };
  carried.forEach((c, i) => {
    const next = body.result.tag === 'ret' ? body.result.nl[i] : undefined;
    const st = next === undefined ? undefined : defs.get(next);
    if (st?.tag !== 'let' || st.rhs.tag !== 'prim' || (st.rhs.op !== 'add' && st.rhs.op !== 'sub')) return;
    const [a, b] = st.rhs.args;
    const step = a === c.param ? literal(b) : st.rhs.op === 'add' && b === c.param ? literal(a) : undefined;
    if (step === undefined || !Number.isInteger(step)) return;
    out.set(c.param, { kc: constant(st.rhs.op === 'sub' ? -step : step), rest: { c: 0, terms: new Map([[c.init, 1]]) } });
  });
  return out;
}

/** A body's statements by the names they bind: a let of one value, or an unpack (of a tuple, an object). */
export type Defs = Map<string, Stmt>;

/** Affine forms of a loop body's names in its counter, over names from outside the body. */
export class Affinity {
  private readonly memo = new Map<string, Affine | undefined>();
  private readonly pure = new Map<string, boolean>();

  constructor(
    private readonly defs: Defs,
    private readonly bodyNames: ReadonlySet<string>,
    private readonly counter: string,
    private readonly steps: ReadonlyMap<string, Affine>,
  ) {}

  /** Is `name` the same on every iteration, and computable outside (true), or not (false)? */
  invariant(name: string): boolean {
    if (!this.bodyNames.has(name)) return true;
    if (name === this.counter) return false;
    const known = this.pure.get(name);
    if (known !== undefined) return known;
    this.pure.set(name, false);
    const st = this.defs.get(name);
    if (st?.tag === 'unpack') {
      const ok = this.invariant(st.tuple);
      this.pure.set(name, ok);
      return ok;
    }
    const rhs = st?.rhs;
    const on = rhs?.tag === 'construct' ? constructRule(rhs, 'readChecks').passesOn : undefined;
    const args = rhs?.tag === 'construct' && on !== undefined ? [rhs.nl[on]] : rhs ? operandsOf(rhs) : undefined;
    const ok = args?.every((a) => this.invariant(a)) === true;
    this.pure.set(name, ok);
    return ok;
  }

  /** Body statements computing the same from the same (c·d in two reads): one name, so their forms compare equal. */
  private readonly shapes = new Map<string, string>();

  private canonical(name: string): string {
    const st = this.defs.get(name);
    if (st?.tag !== 'let' || st.rhs.tag !== 'prim') return name;
    const key = `${st.rhs.op}(${st.rhs.args.map((a) => this.canonical(a)).join(',')})`;
    const known = this.shapes.get(key);
    if (known !== undefined) return known;
    this.shapes.set(key, name);
    return name;
  }

  of(name: string): Affine | undefined {
    if (this.memo.has(name)) return this.memo.get(name);
    this.memo.set(name, undefined);
    const f = this.compute(name);
    this.memo.set(name, f);
    return f;
  }

  private compute(name: string): Affine | undefined {
    if (name === this.counter) return { kc: constant(1), rest: ZERO };
    const walked = this.steps.get(name);
    if (walked) return walked;
    const st = this.defs.get(name);
    const rhs = st?.tag === 'let' ? st.rhs : undefined;
    if (rhs?.tag === 'lit') return typeof rhs.value === 'number' ? { kc: ZERO, rest: constant(rhs.value) } : undefined;
    if (rhs?.tag === 'var') return this.of(rhs.name);
    if (rhs?.tag === 'prim') {
      const [a, b] = rhs.args.map((x) => this.of(x));
      if (rhs.op === 'add' && a && b) return { kc: plus(a.kc, b.kc), rest: plus(a.rest, b.rest) };
      if (rhs.op === 'sub' && a && b) return { kc: plus(a.kc, b.kc, -1), rest: plus(a.rest, b.rest, -1) };
      if (rhs.op === 'neg' && a) return { kc: times(a.kc, -1), rest: times(a.rest, -1) };
      if (rhs.op === 'mul' && a && b) {
        const scaled = (f: Affine, s: Affine): Affine | undefined => {
          if (!isZero(s.kc)) return undefined;
          if (isConstant(s.rest)) return { kc: times(f.kc, s.rest.c), rest: times(f.rest, s.rest.c) };
          // k·d: the step is the invariant d (the rest must then be a number times d, or none).
          if (isConstant(f.kc) && isConstant(f.rest) && s.rest.terms.size > 0) return { kc: times(s.rest, f.kc.c), rest: times(s.rest, f.rest.c) };
          return undefined;
        };
        const r = scaled(a, b) ?? scaled(b, a);
        if (r) return r;
      }
    }
    // The checked count `atmost(n, …)` is n (ConstructRule.passesOn).
    if (rhs?.tag === 'construct') {
      const on = constructRule(rhs, 'readChecks').passesOn;
      if (on !== undefined) return this.of(rhs.nl[on]);
    }
    return this.invariant(name) ? { kc: ZERO, rest: { c: 0, terms: new Map([[this.canonical(name), 1]]) } } : undefined;
  }
}

/** The names a pure statement's right side reads, or undefined when it is not pure (a construct, a call). */
export function operandsOf(rhs: Expr): readonly string[] | undefined {
  if (rhs.tag === 'lit') return [];
  if (rhs.tag === 'var' && !rhs.linear) return [rhs.name];
  if (rhs.tag === 'prim') return rhs.args;
  // An array's length (arrays.length), the same before the loop as in it.
  if (rhs.tag === 'construct' && rhs.op === 'len') return rhs.nl;
  return undefined;
}

/** An invariant of the body, computed in the enclosing scope: a name from outside as it is, a body statement copied. */
export function copyOut(b: Builder, name: string, defs: Defs, bodyNames: ReadonlySet<string>, copies: Map<string, string>): string {
  if (!bodyNames.has(name)) return name;
  const done = copies.get(name);
  if (done) return done;
  const st = defs.get(name)!;
  if (st.tag === 'unpack') {
    // The whole tuple unpacked once here, each part under a fresh name.
    const tuple = copyOut(b, st.tuple, defs, bodyNames, copies);
    const fresh = st.names.map((x) => binder(b.fresh(x.name), x.type));
    b.unpack(false, fresh, tuple);
    st.names.forEach((x, i) => copies.set(x.name, fresh[i].name));
    return copies.get(name)!;
  }
  const rhs = st.rhs;
  // A checked count is its count: the check itself stays where it is.
  const on = rhs.tag === 'construct' ? constructRule(rhs, 'readChecks').passesOn : undefined;
  if (on !== undefined && rhs.tag === 'construct') return copyOut(b, rhs.nl[on], defs, bodyNames, copies);
  const type: Type = st.nl[0].type ?? REAL;
  const args = (operandsOf(rhs) ?? []).map((a) => copyOut(b, a, defs, bodyNames, copies));
  let fresh: string;
  if (rhs.tag === 'prim') fresh = b.nl(name, primE(rhs.op, args), type);
  else if (rhs.tag === 'construct') fresh = b.nl(name, construct(rhs.op, args, [], []), type);
  else if (rhs.tag === 'var') fresh = args[0];
  else fresh = b.nl(name, rhs, type);
  copies.set(name, fresh);
  return fresh;
}

/** Σ terms + c in the enclosing scope. */
export function emitLin(b: Builder, l: Lin, copy: (n: string) => string): string {
  let acc: string | undefined;
  for (const [n, v] of l.terms) {
    const term = v === 1 ? copy(n) : b.prim('mul', [b.lit(v, 'coef'), copy(n)], 'term');
    acc = acc === undefined ? term : b.prim('add', [acc, term], 'sum');
  }
  if (acc === undefined) return b.lit(l.c, 'at');
  return l.c === 0 ? acc : b.prim('add', [acc, b.lit(l.c, 'offset')], 'sum');
}
