// Random well-typed Linear A programs for property tests. A program is built from a stream of
// choices (so fast-check can shrink it); the builder references variables freely and then
// `restoreLinearity` adds the dups and drops that make it well-typed — the same mechanism the
// passes use, which the checker then verifies independently.
import fc from 'fast-check';
import { Binder, Block, Expr, FnDef, Program, REAL, Stmt, Type, binder, block, call, letS, lprim, prim, ret, tuple, tupleType, unpackS, zero, lit } from '../../transformer/ir/syntax';
import { visitBlock } from '../../transformer/ir/traverse';
import { restoreLinearity } from '../../transformer/ir/linearity';
import { annotateTypes } from '../../transformer/language/check';
import type { Value } from '../../transformer/language/interp';

const PAIR = tupleType([REAL, REAL]);

class Choices {
  private i = 0;
  constructor(private readonly xs: readonly number[]) {}
  pick(n: number): number {
    const v = this.xs.length === 0 ? 0 : this.xs[this.i++ % this.xs.length];
    return n <= 1 ? 0 : v % n;
  }
  get exhausted(): boolean {
    return this.i >= this.xs.length;
  }
}

const UNARY = ['sin', 'cos', 'tanh', 'neg', 'atan'];
const BINARY = ['add', 'sub', 'mul'];

/** A purely non-linear program; its last def is the one under test (parameters: reals and pairs). */
export function nonLinearProgram(xs: readonly number[], maxDefs = 3, maxStmts = 10): Program {
  const c = new Choices(xs);
  const defs: FnDef[] = [];
  const ndefs = 1 + c.pick(maxDefs);
  for (let k = 0; k < ndefs; k++) {
    let fresh = 0;
    const name = () => `v${fresh++}`;
    const reals: string[] = [];
    const pairs: string[] = [];
    const params: Binder[] = [];
    const nparams = 1 + c.pick(3);
    for (let i = 0; i < nparams; i++) {
      const isPair = c.pick(4) === 0;
      const n = name();
      params.push(binder(n, isPair ? PAIR : REAL));
      (isPair ? pairs : reals).push(n);
    }
    const stmts: Stmt[] = [];
    const nstmts = 1 + c.pick(maxStmts);
    for (let s = 0; s < nstmts; s++) {
      const r = () => reals[c.pick(reals.length)];
      const choice = c.pick(10);
      if (choice < 3 && reals.length > 0) {
        const arg = r();
        // Sometimes the result rebinds a name in scope (`let v = sin(v)`): the old value is
        // shadowed from here on, which every pass must respect.
        const n = c.pick(3) === 0 ? arg : name();
        stmts.push(letS([binder(n)], [], prim(UNARY[c.pick(UNARY.length)], [arg])));
        if (n === arg) reals.splice(reals.indexOf(n), 1);
        reals.push(n);
      } else if (choice < 7 && reals.length > 0) {
        const n = name();
        stmts.push(letS([binder(n)], [], prim(BINARY[c.pick(BINARY.length)], [r(), r()])));
        reals.push(n);
      } else if (choice === 7) {
        const n = name();
        stmts.push(letS([binder(n)], [], lit([0.5, 2, -1.5, 3][c.pick(4)])));
        reals.push(n);
      } else if (choice === 8 && reals.length > 0) {
        const n = name();
        stmts.push(letS([binder(n)], [], tuple(false, [r(), r()])));
        pairs.push(n);
      } else if (choice === 9 && pairs.length > 0) {
        const a = name();
        const b = name();
        stmts.push(unpackS(false, [binder(a), binder(b)], pairs[c.pick(pairs.length)]));
        reals.push(a, b);
      } else if (defs.length > 0) {
        const callee = defs[c.pick(defs.length)];
        const args = callee.nlParams.map((p) => {
          if (p.type!.tag === 'real') return reals.length > 0 ? r() : null;
          return pairs.length > 0 ? pairs[c.pick(pairs.length)] : null;
        });
        if (args.every((x): x is string => x !== null)) {
          const outs = callee.nlResults.map((t) => {
            const n = name();
            (t.tag === 'real' ? reals : pairs).push(n);
            return binder(n);
          });
          stmts.push(letS(outs, [], call(callee.name, args)));
        }
      }
    }
    // Results: the last real (always), sometimes a pair too (not for the def under test).
    if (reals.length === 0) {
      const n = name();
      stmts.push(unpackS(false, [binder(n), binder(name())], pairs[0]));
      reals.push(n);
    }
    const last = k === ndefs - 1;
    const withPair = !last && pairs.length > 0 && c.pick(2) === 0;
    const results = withPair ? [reals[reals.length - 1], pairs[pairs.length - 1]] : [reals[reals.length - 1]];
    const body = block(stmts, ret(results));
    const d: FnDef = {
      name: `g${k}`,
      nlParams: params,
      linParams: [],
      nlResults: withPair ? [REAL, PAIR] : [REAL],
      linResults: [],
      body,
    };
    defs.push(restoreLinearity(d));
  }
  return annotateTypes({ defs });
}

/** A Linear B linear program; its last def is the one under test. */
export function linearProgram(xs: readonly number[], maxDefs = 3, maxStmts = 10): Program {
  const c = new Choices(xs);
  const defs: FnDef[] = [];
  const ndefs = 1 + c.pick(maxDefs);
  for (let k = 0; k < ndefs; k++) {
    let fresh = 0;
    const name = (p: string) => `${p}${fresh++}`;
    const coeffs: string[] = [];
    const reals: string[] = [];
    const pairs: string[] = [];
    const nlParams: Binder[] = [];
    const linParams: Binder[] = [];
    for (let i = 0, n = 1 + c.pick(2); i < n; i++) {
      const u = name('u');
      nlParams.push(binder(u, REAL));
      coeffs.push(u);
    }
    for (let i = 0, n = 1 + c.pick(3); i < n; i++) {
      const isPair = c.pick(4) === 0;
      const x = name('x');
      linParams.push(binder(x, isPair ? PAIR : REAL));
      (isPair ? pairs : reals).push(x);
    }
    const stmts: Stmt[] = [];
    const r = () => reals[c.pick(reals.length)];
    const nstmts = 1 + c.pick(maxStmts);
    for (let s = 0; s < nstmts; s++) {
      const choice = c.pick(9);
      const n = name('t');
      if (choice === 0 && reals.length) stmts.push(letS([], [binder(n)], lprim('scale', [coeffs[c.pick(coeffs.length)]], [r()]))), reals.push(n);
      else if (choice === 1 && reals.length) stmts.push(letS([], [binder(n)], lprim('ladd', [], [r(), r()]))), reals.push(n);
      else if (choice === 2 && reals.length) stmts.push(letS([], [binder(n)], lprim('lneg', [], [r()]))), reals.push(n);
      else if (choice === 3 && reals.length) stmts.push(letS([], [binder(n)], lprim('lneg', [], [r()]))), reals.push(n);
      else if (choice === 4) stmts.push(letS([], [binder(n)], zero(REAL))), reals.push(n);
      else if (choice === 5 && reals.length) stmts.push(letS([], [binder(n)], tuple(true, [r(), r()]))), pairs.push(n);
      else if (choice === 6 && pairs.length) {
        const a = name('a');
        const b = name('b');
        stmts.push(unpackS(true, [binder(a), binder(b)], pairs[c.pick(pairs.length)]));
        reals.push(a, b);
      } else if (choice === 7 && coeffs.length) {
        // A non-linear computation inside linear code (allowed in Linear B).
        stmts.push(letS([binder(n)], [], prim('sin', [coeffs[c.pick(coeffs.length)]])));
        coeffs.push(n);
      } else if (choice === 8 && defs.length) {
        const callee = defs[c.pick(defs.length)];
        const nl = callee.nlParams.map(() => coeffs[c.pick(coeffs.length)]);
        const lin = callee.linParams.map((p) => (p.type!.tag === 'real' ? (reals.length ? r() : null) : pairs.length ? pairs[c.pick(pairs.length)] : null));
        if (lin.every((x): x is string => x !== null)) {
          const outs = callee.linResults.map(() => binder(name('o')));
          stmts.push(letS([], outs, call(callee.name, nl, lin)));
          reals.push(...outs.map((o) => o.name));
        }
      }
    }
    if (reals.length === 0) {
      const n = name('z');
      stmts.push(letS([], [binder(n)], zero(REAL)));
      reals.push(n);
    }
    const nres = 1 + c.pick(2);
    const results = Array.from({ length: nres }, (_, i) => reals[reals.length - 1 - (i % reals.length)]);
    // Distinct result variables keep the function linear without dups on the return itself;
    // repeated ones are fine too, restoreLinearity dups them.
    const d: FnDef = {
      name: `h${k}`,
      nlParams,
      linParams,
      nlResults: [],
      linResults: results.map(() => REAL),
      body: block(stmts, ret([], results)),
    };
    defs.push(restoreLinearity(d));
  }
  return annotateTypes({ defs });
}

export const choices = fc.array(fc.nat({ max: 1000 }), { minLength: 10, maxLength: 60 });

/** Random values of the given types. */
export function valuesFor(types: readonly Type[]): fc.Arbitrary<Value[]> {
  const one = (t: Type): fc.Arbitrary<Value> => (t.tag === 'tuple' ? fc.tuple(...t.elems.map(one)).map((v) => v as Value[]) : fc.double({ min: -2, max: 2, noNaN: true }));
  return fc.tuple(...types.map(one)).map((v) => v as Value[]);
}

export function flat(v: Value | readonly Value[]): number[] {
  if (Array.isArray(v)) return (v as Value[]).flatMap((x) => flat(x));
  return [typeof v === 'boolean' ? (v ? 1 : 0) : (v as number)];
}

export function dot(a: Value | readonly Value[], b: Value | readonly Value[]): number {
  const x = flat(a);
  const y = flat(b);
  if (x.length !== y.length) throw new Error(`dot: ${x.length} vs ${y.length}`);
  return x.reduce((s, v, i) => s + v * y[i], 0);
}

/** Rebuilds values of the given types from a flat list. */
export function unflat(types: readonly Type[], xs: readonly number[]): Value[] {
  let i = 0;
  const take = (t: Type): Value => (t.tag === 'tuple' ? t.elems.map(take) : xs[i++]);
  return types.map(take);
}

/** Size of a block: binders, operands and one per statement and expression node. */
export function size(b: Block): number {
  let n = 0;
  visitBlock(b, {
    stmt: (s) => {
      n += s.tag === 'let' ? 1 + s.nl.length + s.lin.length : 2 + s.names.length;
    },
    expr: (e) => {
      n += exprSize(e);
    },
  });
  return n;
}

/** An expression's own size; the visitor adds what a drop or a body holds. */
function exprSize(e: Expr): number {
  switch (e.tag) {
    case 'drop':
      return 1;
    case 'block':
      return 0;
    case 'ret':
    case 'call':
    case 'lprim':
    case 'construct':
      return 1 + e.nl.length + e.lin.length;
    case 'prim':
      return 1 + e.args.length;
    case 'tuple':
      return 1 + e.elems.length;
    default:
      return 2;
  }
}

export const programSize = (p: Program) => p.defs.reduce((n, d) => n + 1 + d.nlParams.length + d.linParams.length + size(d.body), 0);
