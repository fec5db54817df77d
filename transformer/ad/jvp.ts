// Forward mode J (notes §3): the only pass that knows derivatives, and it knows them only
// through the primitive records' `jvp` rules.
//
//   J(f(x̄ ;) -> (σ̄ ;))  =  f.jvp(x̄ ; x̄_dot) -> (σ̄ ; tangent(σ̄))
//
// Tangents are symbolic: a primal variable maps to a linear variable or to null (a known zero,
// e.g. the tangent of a literal). Zeros are materialised with `zero(τ)` only where a value must
// exist (tuple components, call arguments, results), so no rule ever multiplies a partial
// derivative by a zero it does not need. The pass may mention a tangent several times or not at
// all; its builders (SettlingBuilder) insert the dups and drops that make the output well-typed
// as each block is finished.
import { NameSupply, namesIn } from '../ir/build';
import { SettlingBuilder } from '../ir/usageBuilder';
import { Binder, Block, Expr, FnDef, InternalError, Lambda, Program, Type, binder, call, ret, tangentType, tuple, REAL, block, blockE, lambda, literalType } from '../ir/syntax';
import { constructRule } from '../constructs/registry';
import type { JvpOps } from '../constructs/types';
import { arityOf, defArity } from '../language/arity';
import { constructResultTypes } from '../language/check';
import { PRIMS } from '../prims/registry';
import type { Guarded, Tangent } from '../prims/types';
import { unguard } from '../prims/helpers';
import { DeepWalk } from '../ir/deepWalk';
import { peekReads } from './peek';
import { hoistBlocks } from '../opt/hoist';
import { dotName, jvpName, role } from '../ir/names';
import { calleesFirst, defMap } from '../ir/program';

interface Ctx {
  readonly b: SettlingBuilder;
  readonly tangent: Map<string, Tangent>;
  /**
   * The component tangents of a tuple built in this block, by the primal tuple's name: its unpack
   * here gets them back, known zeros included, so a zero does not come back as a number that a
   * rule's infinite partial (sqrt at 0) would turn into NaN (reverse mode never multiplies it).
   */
  readonly parts: Map<string, Tangent[]>;
  /**
   * Masks on a real's tangent, by the primal's name: its tangent is `tangent.get(name)` where
   * every mask holds and 0 elsewhere (a select with a constant side, Guarded). Rules after it
   * work on the unmasked tangent and the mask moves to their result, so a zero from the mask
   * never meets an infinite partial; it is applied where the tangent leaves the rules.
   */
  readonly guards: Map<string, readonly Mask[]>;
  /** Masked tangents already applied in this builder or one around it, by the primal's name. */
  readonly masked: Map<string, string>;
  readonly types: Map<string, Type>;
  readonly defs: ReadonlyMap<string, FnDef>;
  readonly walk: DeepWalk;
  /**
   * In a masked J (jvpProgram's `mask`), the JVP a call should use given which of its arguments
   * have tangents: a masked callee built on demand, or the callee's full JVP (zeros materialised
   * for the arguments without one). Absent in a plain J, whose calls use the full JVPs.
   */
  readonly calleeJvp?: (fn: string, active: readonly boolean[]) => { readonly name: string; readonly masked: boolean };
}

interface Mask {
  readonly test: string;
  readonly keep: boolean;
}

interface Results {
  readonly names: string[];
  readonly tangents: Tangent[];
}

function typeOf(ctx: Ctx, name: string): Type {
  const t = ctx.types.get(name);
  if (!t) throw new InternalError(`jvp: no type for ${name} (annotate types first)`);
  return t;
}

function materialize(ctx: Ctx, t: Tangent, primalType: Type): string {
  return t ?? ctx.b.zero(tangentType(primalType), 'zero');
}

/** The tangent of a primal as a linear variable: its masks, if any, applied. */
function tangentOf(ctx: Ctx, name: string): Tangent {
  const done = ctx.masked.get(name);
  if (done !== undefined) return done;
  const masks = ctx.guards.get(name);
  let t = ctx.tangent.get(name) ?? null;
  if (masks === undefined || t === null) return t;
  for (const m of masks) t = unguard(ctx.b, { test: m.test, keep: m.keep, tangent: t! }, dotName(name));
  ctx.masked.set(name, t!);
  return t;
}

/** The masks every non-zero tangent among `args` carries, when they all carry the same ones. */
function sharedMasks(ctx: Ctx, args: readonly string[]): readonly Mask[] | undefined {
  let shared: readonly Mask[] | undefined;
  for (const n of args) {
    if ((ctx.tangent.get(n) ?? null) === null) continue;
    const ms = ctx.guards.get(n);
    if (ms === undefined) return undefined;
    if (shared === undefined) shared = ms;
    else if (ms.length !== shared.length || ms.some((m, i) => m.test !== shared![i].test || m.keep !== shared![i].keep)) return undefined;
  }
  return shared;
}

/** Records y's tangent: a Guarded result of a real keeps its mask symbolic. */
function setTangent(ctx: Ctx, y: string, t: Tangent | Guarded, type: Type, masks: readonly Mask[] = []): void {
  if (t !== null && typeof t !== 'string' && type.tag !== 'real') t = unguard(ctx.b, t, dotName(y));
  if (t === null || typeof t === 'string') {
    ctx.tangent.set(y, t);
    if (t !== null && masks.length > 0) ctx.guards.set(y, masks);
    return;
  }
  ctx.tangent.set(y, t.tangent);
  ctx.guards.set(y, [...masks, { test: t.test, keep: t.keep }]);
}

function copyMasks(ctx: Ctx, from: string, to: string): void {
  const ms = ctx.guards.get(from);
  if (ms !== undefined) ctx.guards.set(to, ms);
}

function bindPrimal(ctx: Ctx, b: Binder, rhs: Expr, type: Type): void {
  ctx.b.bind([b], [], rhs);
  ctx.types.set(b.name, type);
}

/** Emits J(rhs) bound to the given non-linear binders; records their tangents. */
function jvpLet(ctx: Ctx, binders: readonly Binder[], rhs: Expr): void {
  const { b, tangent } = ctx;
  const single = binders.length === 1 ? binders[0] : undefined;
  switch (rhs.tag) {
    case 'lit': {
      bindPrimal(ctx, single!, rhs, literalType(rhs.value));
      tangent.set(single!.name, null);
      return;
    }
    case 'var': {
      bindPrimal(ctx, single!, rhs, typeOf(ctx, rhs.name));
      tangent.set(single!.name, tangent.get(rhs.name) ?? null);
      copyMasks(ctx, rhs.name, single!.name);
      return;
    }
    case 'tuple': {
      const types = rhs.elems.map((n) => typeOf(ctx, n));
      const t: Type = { tag: 'tuple', elems: types };
      bindPrimal(ctx, single!, rhs, single!.type ?? t);
      const ts = rhs.elems.map((n) => tangentOf(ctx, n));
      ctx.parts.set(single!.name, ts);
      if (ts.every((x) => x === null)) tangent.set(single!.name, null);
      else {
        const comps = ts.map((x, i) => materialize(ctx, x, types[i]));
        tangent.set(single!.name, b.lin(dotName(single!.name), tuple(true, comps), tangentType(t)));
      }
      return;
    }
    case 'prim': {
      const def = PRIMS[rhs.op];
      const argTypes = rhs.args.map((n) => typeOf(ctx, n));
      const y = single!.name;
      const t0 = def.typeRule(argTypes);
      const t = typeof t0 === 'string' ? REAL : t0;
      bindPrimal(ctx, single!, rhs, t);
      // Linear in the tangents: where they all carry the same masks, the rule applies to the
      // unmasked ones and the masks to its result.
      const masks = t.tag === 'real' ? sharedMasks(ctx, rhs.args) : undefined;
      const tangents = rhs.args.map((n) => (masks ? (tangent.get(n) ?? null) : tangentOf(ctx, n)));
      const mark = b.length;
      const yDot = tangents.every((x) => x === null) ? null : def.jvp({ b, args: rhs.args, argTypes, tangents, y });
      // A scalar rule's linear values are all reals: typed here, not by a checker after the pass.
      if (t.tag === 'real' && argTypes.every((a) => a.tag === 'real')) b.typeLinearSince(mark, REAL);
      setTangent(ctx, y, yDot, t, masks);
      return;
    }
    case 'call': {
      const callee = ctx.defs.get(rhs.fn);
      if (!callee) throw new InternalError(`jvp: unknown callee ${rhs.fn}`);
      const ts = rhs.nl.map((n) => tangentOf(ctx, n));
      if (ctx.calleeJvp && ts.every((t) => t === null)) {
        // A masked J only: the call is a constant, its results have no tangents.
        b.bind([...binders], [], rhs);
        binders.forEach((x, i) => {
          ctx.types.set(x.name, callee.nlResults[i]);
          tangent.set(x.name, null);
        });
        return;
      }
      const active = ts.map((t) => t !== null);
      const target = ctx.calleeJvp?.(rhs.fn, active) ?? { name: jvpName(rhs.fn), masked: false };
      const dots = target.masked ? ts.filter((t): t is string => t !== null) : ts.map((t, i) => materialize(ctx, t, typeOf(ctx, rhs.nl[i])));
      const outDots = binders.map((x, i) => binder(b.fresh(dotName(x.name)), tangentType(callee.nlResults[i])));
      b.bind([...binders], outDots, call(target.name, rhs.nl, dots));
      binders.forEach((x, i) => {
        ctx.types.set(x.name, callee.nlResults[i]);
        tangent.set(x.name, outDots[i].name);
      });
      return;
    }
    case 'ret': {
      rhs.nl.forEach((n, i) => {
        bindPrimal(ctx, binders[i], { tag: 'var', linear: false, name: n }, typeOf(ctx, n));
        tangent.set(binders[i].name, tangent.get(n) ?? null);
        copyMasks(ctx, n, binders[i].name);
      });
      return;
    }
    case 'drop': {
      if (binders.length !== 0) throw new InternalError('jvp: drop binds nothing');
      b.drop(jvpBlock(ctx, rhs.expr.tag === 'block' ? rhs.expr.block : block([], rhs.expr), true));
      return;
    }
    case 'block': {
      // A nested block: J it as a block returning primals and (materialised) tangents.
      const inner = jvpBlock(ctx, rhs.block, false);
      const outDots = binders.map((x, i) => binder(b.fresh(dotName(x.name)), tangentType(inner.types[i])));
      b.bind([...binders], outDots, inner.expr);
      binders.forEach((x, i) => {
        ctx.types.set(x.name, inner.types[i]);
        tangent.set(x.name, outDots[i].name);
      });
      return;
    }
    case 'construct': {
      // The rule binds the results; J of its bodies comes from jvpBody, with this def's names.
      binders.forEach((x) => {
        if (!x.type) throw new InternalError(`jvp: untyped result ${x.name} of ${rhs.op} (annotate types first)`);
        ctx.types.set(x.name, x.type);
      });
      // Linear in the operands' tangents, like a prim: where they all carry the same masks and
      // every result is a real, the construct runs on the unmasked tangents (a cond then meets
      // no zero from a mask) and its results carry the masks.
      const masks = binders.every((x) => x.type!.tag === 'real') ? sharedMasks(ctx, rhs.nl) : undefined;
      const ops: JvpOps = {
        b,
        typeOf: (n) => typeOf(ctx, n),
        tangentOf: (n) => (masks ? (tangent.get(n) ?? null) : tangentOf(ctx, n)),
        jvpBody: (body, constants, symbolicZeros, zeroResults) => ctx.walk.body(body.body, () => jvpBody(ctx, body, constants ?? 0, symbolicZeros, zeroResults)),
      };
      const dots = constructRule(rhs, 'jvp').jvp(ops, rhs, binders);
      binders.forEach((x, i) => setTangent(ctx, x.name, dots[i], x.type!, masks));
      return;
    }
    default:
      throw new InternalError(`jvp: ${rhs.tag} in a non-linear program`);
  }
}

/** J of a block in its own builder, as an expression; `forDrop` keeps only the non-zero tangents. */
function jvpBlock(ctx: Ctx, e: Block, forDrop: true): Expr;
function jvpBlock(ctx: Ctx, e: Block, forDrop: false): { expr: Expr; types: Type[] };
function jvpBlock(ctx: Ctx, e: Block, forDrop: boolean): Expr | { expr: Expr; types: Type[] } {
  const inner: Ctx = { ...ctx, b: ctx.b.inner(), masked: new Map(ctx.masked) };
  const r = jvpTail(inner, e);
  const types = r.names.map((n) => typeOf(inner, n));
  if (forDrop)
    return asExpr(
      inner.b.finish(
        ret(
          r.names,
          r.tangents.filter((t): t is string => t !== null),
        ),
      ),
    );
  const dots = r.tangents.map((t, i) => materialize(inner, t, types[i]));
  return { expr: asExpr(inner.b.finish(ret(r.names, dots))), types };
}

/**
 * J of a construct's body `|p̄ ;| { e }`: `|p̄ ; p̄_dot| { J({p̄ ↦ p̄_dot} | e) }` with every result
 * tangent materialised. Bodies are closed, so the body starts with no tangents but its
 * parameters'; names come from the def's supply (they stay unique in the def).
 */
function jvpBody(ctx: Ctx, l: Lambda, constants: number, symbolicZeros: readonly boolean[] = [], zeroResults?: boolean[]): Lambda {
  const inner: Ctx = { ...ctx, b: ctx.b.inner(), tangent: new Map(), parts: new Map(), guards: new Map(), masked: new Map() };
  l.nlParams.slice(0, constants).forEach((x) => {
    if (!x.type) throw new InternalError(`jvp: untyped parameter ${x.name}`);
    inner.types.set(x.name, x.type);
  });
  const linParams = tangentParams(inner, l.nlParams.slice(constants));
  // A parameter whose operand has no tangent (a literal, a constant) keeps it symbolic in the
  // body: rules then skip its partials, which may be NaN where the value is constant (ln x of
  // pow's exponent at x < 0); the zero passed in for it is dropped unread.
  l.nlParams.slice(constants).forEach((x, k) => {
    if (symbolicZeros[k]) inner.tangent.set(x.name, null);
  });
  const r = jvpTail(inner, l.body);
  zeroResults?.push(...r.tangents.map((t) => t === null));
  const dots = r.tangents.map((t, i) => materialize(inner, t, typeOf(inner, r.names[i])));
  return lambda(l.nlParams, linParams, inner.b.finishBody(l.nlParams, linParams, ret(r.names, dots)));
}

/** One tangent parameter per primal parameter; a boolean's lives in `<>` and is dropped. */
function tangentParams(ctx: Ctx, params: readonly Binder[]): Binder[] {
  return params.map((x) => {
    if (!x.type) throw new InternalError(`jvp: untyped parameter ${x.name}`);
    const t = x.type;
    ctx.types.set(x.name, t);
    const dotParam = binder(ctx.b.fresh(dotName(x.name)), tangentType(t));
    ctx.tangent.set(x.name, t.tag === 'bool' || t.tag === 'str' ? null : dotParam.name);
    return dotParam;
  });
}

/** A block as a right-hand side: a nested block only when it has statements. */
const asExpr = (b: Block): Expr => (b.stmts.length === 0 ? b.result : blockE(b));

/** Emits the statements of a block and returns its results with their tangents. */
function jvpTail(ctx: Ctx, blk: Block): Results {
  for (;;) {
    for (const s of blk.stmts) {
      if (s.tag === 'let') {
        if (s.lin.length > 0) throw new InternalError('jvp: linear binder in a non-linear program');
        jvpLet(ctx, s.nl, s.rhs);
        continue;
      }
      const t = typeOf(ctx, s.tuple);
      if (t.tag !== 'tuple') throw new InternalError(`jvp: unpack of non-tuple ${s.tuple}`);
      ctx.b.unpack(false, [...s.names], s.tuple);
      s.names.forEach((x, i) => ctx.types.set(x.name, t.elems[i]));
      const td = ctx.tangent.get(s.tuple) ?? null;
      const parts = ctx.parts.get(s.tuple);
      if (parts) s.names.forEach((x, i) => ctx.tangent.set(x.name, parts[i]));
      else if (td === null) s.names.forEach((x) => ctx.tangent.set(x.name, null));
      else {
        const dots = s.names.map((x, i) => binder(ctx.b.fresh(dotName(x.name)), tangentType(t.elems[i])));
        ctx.b.unpack(true, dots, td);
        s.names.forEach((x, i) => ctx.tangent.set(x.name, dots[i].name));
      }
    }
    const e = blk.result;
    switch (e.tag) {
      case 'block':
        // A block in result position continues this one (names are unique after hoisting).
        blk = e.block;
        continue;
      case 'ret':
        return { names: [...e.nl], tangents: e.nl.map((n) => tangentOf(ctx, n)) };
      case 'drop':
        jvpLet(ctx, [], e);
        return { names: [], tangents: [] };
      default: {
        // A leaf in result position: bind it to fresh names first (a construct's typed: its rule
        // reads its results' types).
        const binders =
          e.tag === 'construct'
            ? constructResultTypes(e, (n) => typeOf(ctx, n), ctx.defs).nl.map((t) => binder(ctx.b.fresh('y'), t))
            : Array.from({ length: arityOf(e, defArity(ctx.defs)).nl }, () => binder(ctx.b.fresh('y')));
        jvpLet(ctx, binders, e);
        return { names: binders.map((x) => x.name), tangents: binders.map((x) => tangentOf(ctx, x.name)) };
      }
    }
  }
}

/**
 * J of a def. With `mask` (one flag per parameter), only the flagged parameters have tangents:
 * the others are constants, with no tangent parameter and no terms (symbolic zeros, as JAX's
 * forward mode has for inputs outside wrt). Such a def is named after its mask (maskedJvpName),
 * so it never serves a request for all tangents; its calls use masked callees (`calleeJvp`).
 */
export function jvpDef(d0: FnDef, defs: ReadonlyMap<string, FnDef>, mask?: readonly boolean[], calleeJvp?: Ctx['calleeJvp']): FnDef {
  if (d0.linParams.length > 0 || d0.linResults.length > 0) {
    throw new InternalError(`jvp: ${d0.name} is not purely non-linear (J applies to non-linear programs; erase first)`);
  }
  // One binder per name and no nested blocks: tangents are keyed by name (hoist.ts).
  const d = hoistBlocks(d0);
  const names = new NameSupply(namesIn(d.body, new Set(d.nlParams.map((x) => x.name))));
  const walk = new DeepWalk();
  const { linParams, body } = walk.run(() => {
    const ctx: Ctx = { b: SettlingBuilder.forDef(names), tangent: new Map(), parts: new Map(), guards: new Map(), masked: new Map(), types: new Map(), defs, walk, calleeJvp };
    // A boolean's tangent lives in the zero-dimensional space: it is accepted and dropped.
    const linParams = tangentParams(
      ctx,
      d.nlParams.filter((_, i) => !mask || mask[i]),
    );
    d.nlParams.forEach((x, i) => {
      if (mask && !mask[i]) {
        ctx.types.set(x.name, x.type!);
        ctx.tangent.set(x.name, null);
      }
    });
    const r = jvpTail(ctx, d.body);
    const dots = r.tangents.map((t, i) => materialize(ctx, t, typeOf(ctx, r.names[i])));
    return { linParams, body: ctx.b.finishBody(d.nlParams, linParams, ret(r.names, dots)) };
  });
  // A tangent read and then updated (h[j] = f(h[j])) keeps one holder, so the update is in place.
  return peekReads({
    name: mask ? maskedJvpName(d.name, mask) : jvpName(d.name),
    role: mask ? { ...role('jvp', d.name), mask: activeIndices(mask) } : role('jvp', d.name),
    nlParams: d.nlParams,
    linParams,
    nlResults: d.nlResults,
    linResults: d.nlResults.map(tangentType),
    body,
  });
}

const activeIndices = (mask: readonly boolean[]): number[] => mask.flatMap((m, i) => (m ? [i] : []));

/** `f.jvp_0_2`: J of f along its parameters 0 and 2 only (`f.jvp_` along none). */
export const maskedJvpName = (f: string, mask: readonly boolean[]): string => `${jvpName(f)}_${activeIndices(mask).join('_')}`;

/**
 * Appends `f.jvp` for each named function and, callees first, every function they call. With
 * `mask`, J of each named function along the flagged parameters only (`f.jvp_0` for the first):
 * its callees get masked JVPs of their own where some argument has no tangent, built here unless
 * the program has them. A callee whose JVP the program already has (a rule the user wrote for it)
 * keeps that one, with zeros passed for the tangents it lacks.
 */
export function jvpProgram(p: Program, fns: readonly string[], mask?: readonly boolean[]): Program {
  const defs = defMap(p);
  const given = new Set(defs.keys());
  const out = [...p.defs];
  const build = (name: string, m?: readonly boolean[]): string => {
    const n = m ? maskedJvpName(name, m) : jvpName(name);
    if (defs.has(n)) return n;
    const d = jvpDef(defs.get(name)!, defs, m, m ? calleeJvp : undefined);
    defs.set(d.name, d);
    out.push(d);
    return d.name;
  };
  // Built on demand, so only the JVPs the masked defs call exist; each precedes its caller.
  const full = (fn: string): string => {
    for (const g of calleesFirst(p, [fn])) build(g);
    return jvpName(fn);
  };
  const calleeJvp = (fn: string, active: readonly boolean[]): { name: string; masked: boolean } => {
    if (given.has(jvpName(fn))) return { name: jvpName(fn), masked: false };
    // A parameter without a tangent space (a boolean) costs nothing in the full JVP.
    const callee = defs.get(fn)!;
    if (active.every((a, i) => a || !hasTangentSpace(callee.nlParams[i].type!))) return { name: full(fn), masked: false };
    return { name: build(fn, active), masked: true };
  };
  for (const name of mask ? fns : calleesFirst(p, fns)) build(name, mask && defs.get(name)!.nlParams.map((_, i) => mask[i] ?? false));
  return { ...p, defs: out };
}

const hasTangentSpace = (t: Type): boolean => t.tag !== 'bool' && t.tag !== 'str';
