// Transposition T (notes §5): turns a linear function g(ū ; v̇̄) -> (; τ̄) around into
// g.T(ū ; ȳ̄) -> (; v̄̄) with ⟨g(ẋ), ȳ⟩ = ⟨ẋ, g.T(ȳ)⟩.
//
// Linear B makes this a straight walk: non-linear statements never read linear values, so they
// are hoisted and run forward first (TNonLin, TLetNonLin, TUnpack); linear statements are then
// visited in reverse (TLetLin). Every linear variable is used exactly once, so each receives its
// cotangent exactly once, from its single use site, and no rule ever has to accumulate: all
// summation comes from transposing `dup` into `ladd` (TDup). Cotangents are symbolic like J's
// tangents: null is a known zero, materialised as `zero(τ)` only where a value is required.
//
// A linear construct is transposed by its record's `transpose` rule, which receives
// `transposeBody`: this same walk applied to a body, its results' cotangents as its parameters.
import { Builder, NameSupply, namesIn } from '../ir/build';
import { Block, Expr, FnDef, InternalError, IrError, Lambda, Program, Stmt, Type, binder, call, letS, lvar, ret, tuple, lambda } from '../ir/syntax';
import { constructRule } from '../constructs/registry';
import type { TransposeOps } from '../constructs/types';
import { arityOf, defArity } from '../language/arity';
import { LIN_PRIMS } from '../prims/registry';
import type { Tangent } from '../prims/types';
import { closedFreeLinear } from '../ir/freeVars';
import { SettlingBuilder } from '../ir/usageBuilder';
import { guardBranches } from './guards';
import { DeepWalk } from '../ir/deepWalk';
import { barName, derivedName, transposeRole } from '../ir/names';
import { calleesFirst, defMap } from '../ir/program';
import { foldBlock } from '../ir/traverse';

/**
 * Flattens nested blocks (names are unique per function) into statements and a final return. A
 * linear function may come straight from the user, nested arbitrarily deep: foldBlock's explicit
 * stack.
 */
function flatten(body: Block, out: Stmt[], names: NameSupply, types: Map<string, Type>, arity: (leaf: Expr) => number, resultTypes: readonly (Type | undefined)[]): Expr {
  // The result types of each open block: a let's binders', or its parent's for a block in result position.
  const wanted: (readonly (Type | undefined)[])[] = [];
  return foldBlock<Expr>(body, {
    nested: (_node, drops) => drops.length === 0,
    enter: (_b, site) => wanted.push(site.k === 'let' ? [...site.s.nl, ...site.s.lin].map((x) => x.type) : site.k === 'root' ? resultTypes : wanted[wanted.length - 1]),
    unpack: (s) => {
      s.names.forEach((x) => x.type && types.set(x.name, x.type));
      out.push(s);
    },
    leaf: (value, s) => {
      if (s !== null || value.tag === 'ret') return value;
      // A leaf in result position: name its linear results.
      const top = wanted[wanted.length - 1];
      const rs = Array.from({ length: arity(value) }, () => names.fresh('r'));
      rs.forEach((r, i) => top[i] && types.set(r, top[i]!));
      out.push(
        letS(
          [],
          rs.map((r, i) => binder(r, top[i])),
          value,
        ),
      );
      return ret([], rs);
    },
    let: (s, rhs) => {
      [...s.nl, ...s.lin].forEach((x) => x.type && types.set(x.name, x.type));
      out.push(rhs === s.rhs ? s : letS(s.nl, s.lin, rhs));
    },
    leave: (_b, _site, v) => {
      wanted.pop();
      return v;
    },
  });
}

function isForward(s: Stmt): boolean {
  if (s.tag === 'unpack') return !s.linear;
  if (s.lin.length > 0) return false;
  if (s.rhs.tag === 'drop') return closedFreeLinear(s.rhs).size === 0;
  if (s.rhs.tag === 'construct') return s.rhs.lin.length === 0;
  return true;
}

class Transposer {
  private readonly ct = new Map<string, Tangent>();
  constructor(
    private readonly b: Builder,
    private readonly types: Map<string, Type>,
    private readonly defs: ReadonlyMap<string, FnDef>,
    private readonly definitions: ReadonlyMap<string, Expr>,
    private readonly walk: DeepWalk,
  ) {}

  set(name: string, t: Tangent): void {
    if (this.ct.has(name)) throw new InternalError(`transpose: ${name} received two cotangents (input not linear?)`);
    this.ct.set(name, t);
  }

  get(name: string): Tangent {
    return this.ct.get(name) ?? null;
  }

  typeOf(name: string): Type {
    const t = this.types.get(name);
    if (!t) throw new InternalError(`transpose: no type for ${name} (annotate types first)`);
    return t;
  }

  materialize(name: string): string {
    return this.get(name) ?? this.b.zero(this.typeOf(name), 'zero');
  }

  stmt(s: Stmt): void {
    const { b } = this;
    if (s.tag === 'unpack') {
      // TLinUnpack: the tuple's cotangent is the tuple of its parts' cotangents.
      if (s.names.every((w) => this.get(w.name) === null)) return this.set(s.tuple, null);
      const parts = s.names.map((w) => this.materialize(w.name));
      return this.set(s.tuple, b.lin(barName(s.tuple), tuple(true, parts), this.typeOf(s.tuple)));
    }
    const rhs = s.rhs;
    const outs = s.lin.map((x) => this.get(x.name));
    switch (rhs.tag) {
      case 'var':
        return this.set(rhs.name, outs[0]);
      case 'ret':
        return rhs.lin.forEach((x, i) => this.set(x, outs[i]));
      case 'tuple': {
        // TLinTuple: unpack the cotangent into the components' cotangents.
        if (outs[0] === null) return rhs.elems.forEach((x) => this.set(x, null));
        const parts = rhs.elems.map((x) => binder(b.fresh(barName(x)), this.typeOf(x)));
        b.unpack(true, parts, outs[0]);
        return rhs.elems.forEach((x, i) => this.set(x, parts[i].name));
      }
      case 'zero':
        // TLinZero: a zero ignores its cotangent.
        if (outs[0] !== null) b.drop(lvar(outs[0]));
        return;
      case 'dup': {
        // TDup: fan-out transposes to addition; this is where gradients accumulate.
        const [c1, c2] = outs;
        const sum = c1 === null ? c2 : c2 === null ? c1 : b.lprim('ladd', [], [c1, c2], barName(rhs.name), this.typeOf(rhs.name));
        return this.set(rhs.name, sum);
      }
      case 'lprim': {
        if (outs[0] === null) return rhs.lin.forEach((x) => this.set(x, null));
        const cts = LIN_PRIMS[rhs.op].transpose({
          b,
          nl: rhs.nl,
          ct: outs[0],
          resultType: this.typeOf(s.lin[0].name),
          linTypes: rhs.lin.map((x) => this.typeOf(x)),
          bars: rhs.lin.map(barName),
        });
        return rhs.lin.forEach((x, i) => this.set(x, cts[i]));
      }
      case 'call': {
        // TApp: the callee's transpose maps the results' cotangents to the arguments'.
        if (outs.every((c) => c === null)) return rhs.lin.forEach((x) => this.set(x, null));
        const cts = s.lin.map((x) => this.materialize(x.name));
        const argBars = rhs.lin.map((x) => binder(b.fresh(barName(x)), this.typeOf(x)));
        b.bind([], argBars, call(derivedName(transposeRole(this.defs.get(rhs.fn)!)), rhs.nl, cts));
        return rhs.lin.forEach((x, i) => this.set(x, argBars[i].name));
      }
      case 'drop':
        // TDrop: whatever was discarded contributes nothing; it is not transposed at all.
        return closedFreeLinear(rhs).forEach((x) => this.set(x, null));
      case 'construct': {
        const ops: TransposeOps = {
          b,
          typeOf: (n) => this.typeOf(n),
          transposeBody: (body, resultTypes, zeroResults) => this.walk.body(body.body, () => transposeLambda(body, resultTypes, b.names, this.defs, this.walk, zeroResults)),
          definition: (n) => this.definitions.get(n),
        };
        const types = s.lin.map((x) => this.typeOf(x.name));
        const cts = constructRule(rhs, 'transpose').transpose(ops, rhs, outs, types);
        return rhs.lin.forEach((x, i) => this.set(x, cts[i]));
      }
      default:
        throw new InternalError(`transpose: unexpected ${rhs.tag} binding linear results`);
    }
  }
}

/**
 * T of a linear body `(ū ; v̇̄) -> (; ẇ̄)` (a def's or a construct's): `(ū ; w̄_bar) -> (; v̄_bar)`.
 * Non-linear statements run forward first, then the linear ones are transposed in reverse.
 */
function transposeLambda(l: Lambda, resultTypes: readonly Type[], names: NameSupply, defs: ReadonlyMap<string, FnDef>, walk: DeepWalk, zeroResults?: boolean[]): Lambda {
  const types = new Map<string, Type>();
  [...l.nlParams, ...l.linParams].forEach((x) => types.set(x.name, x.type!));
  const arity = (leaf: Expr) => arityOf(leaf, defArity(defs)).lin;
  const flat: Stmt[] = [];
  const final = flatten(l.body, flat, names, types, arity, resultTypes);
  if (final.tag !== 'ret') throw new InternalError('transpose: flatten must end in a return');
  // What feeds only one side of a select is computed in that side's branch (guards.ts).
  const stmts = guardBranches(flat, final, types, names);

  const forward = stmts.filter(isForward);
  const definitions = new Map<string, Expr>();
  for (const s of forward) if (s.tag === 'let' && s.nl.length === 1 && s.lin.length === 0) definitions.set(s.nl[0].name, s.rhs);
  // The forward statements first, so the builder counts their reads; it writes the drops of what
  // no transposed statement reads (a coefficient of a zero cotangent) and the dups of a cotangent
  // read twice as the body is finished. A body is closed: its uses are its own.
  const b = SettlingBuilder.forDef(names);
  for (const s of forward) b.stmt(s);
  const tr = new Transposer(b, types, defs, definitions, walk);
  const ctParams = final.lin.map((y, i) => binder(names.fresh(barName(y)), resultTypes[i]));
  final.lin.forEach((y, i) => tr.set(y, ctParams[i].name));
  for (let i = stmts.length - 1; i >= 0; i--) if (!isForward(stmts[i])) tr.stmt(stmts[i]);
  zeroResults?.push(...l.linParams.map((x) => tr.get(x.name) === null));
  const results = l.linParams.map((x) => tr.materialize(x.name));
  return lambda(l.nlParams, ctParams, b.finishBody(l.nlParams, ctParams, ret([], results)));
}

export function transposeDef(g: FnDef, defs: ReadonlyMap<string, FnDef>): FnDef {
  if (g.nlResults.length > 0) throw new IrError(`cannot transpose ${g.name}: it has non-linear results (unzip it first)`);
  const names = new NameSupply(namesIn(g.body, new Set([...g.nlParams, ...g.linParams].map((x) => x.name))));
  // Bodies nested thousands deep are transposed in stretches (DeepWalk).
  const walk = new DeepWalk();
  const t = walk.run(() => transposeLambda(g, g.linResults, names, defs, walk));
  return {
    name: derivedName(transposeRole(g)),
    role: transposeRole(g),
    nlParams: g.nlParams,
    linParams: t.linParams,
    nlResults: [],
    linResults: g.linParams.map((x) => x.type!),
    body: t.body,
  };
}

/** Appends the transpose of each named linear function and of every linear function it calls. */
export function transposeProgram(p: Program, fns: readonly string[]): Program {
  const defs = defMap(p);
  const out = [...p.defs];
  for (const name of calleesFirst(p, fns)) {
    const d = defs.get(name)!;
    const isLinear = d.nlResults.length === 0 && (d.linParams.length > 0 || d.linResults.length > 0);
    if (!isLinear || defs.has(derivedName(transposeRole(d)))) continue;
    const t = transposeDef(d, defs);
    defs.set(t.name, t);
    out.push(t);
  }
  for (const name of fns) {
    const d = defs.get(name)!;
    if (d.nlResults.length > 0) throw new IrError(`cannot transpose ${name}: it has non-linear results (unzip it first)`);
  }
  return { ...p, defs: out };
}

export const linearTranspose = transposeProgram;
