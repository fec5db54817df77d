// A user's custom JVP rule, `(x̄, ẋ̄) => [y, ẏ]`, lowered as an ordinary non-linear function,
// becomes a Linear A def `f.jvp(x̄ ; ẋ̄) -> (y ; ẏ)`: the tangent parameters turn linear, and so
// does everything computed from them. The pass knows no primitive. An operation touching a
// tangent is re-expressed by its own JVP rule, with the tangents as the tangents of its linear
// arguments (that is the operation itself when it is linear in them: ȧ + ḃ, c·ȧ, ȧ / c,
// c ? ȧ : ḃ), and it must vanish when those arguments are zero (so no `ȧ + 1`). The linear type
// checker then proves the result linear: an operation that needs a tangent's value (sin(ȧ),
// ȧ·ḃ) puts a linear variable where a non-linear one must be, and is rejected. Transposition
// then gives the reverse rule for free.
import { Builder, NameSupply, namesIn } from '../ir/build';
import { annotateTypes } from '../language/check';
import { transposeProgram } from './transpose';
import { derivedName, jvpName, role } from '../ir/names';
import { Binder, Block, Expr, FnDef, InternalError, Program, Role, Type, binder, block, call, drop, letS, nvar, ret, tangentType, tupleType, unpackS, zero as zeroE } from '../ir/syntax';
import { PRIMS } from '../prims/registry';
import { unguard } from '../prims/helpers';
import type { Scalar } from '../prims/types';
import { simplifyDef } from '../opt/simplify';

/** Why a rule is not linear in its tangents, at which variable of the rule. */
export class NotLinearError extends Error {
  constructor(
    message: string,
    readonly variable: string,
  ) {
    super(message);
  }
}

type Sort = 'nl' | 'lin';

interface Ctx {
  readonly b: Builder;
  readonly sort: Map<string, Sort>;
  readonly types: Map<string, Type>;
  readonly literals: Map<string, Scalar>;
  /** Tuples mixing a primal and a tangent (the rule's `[y, ẏ]`): never built, only taken apart. */
  readonly mixed: Map<string, readonly string[]>;
  readonly subst: Map<string, string>;
  /** The elements of every tuple built in the rule. */
  readonly elements: Map<string, readonly string[]>;
}

const SAMPLES: readonly (readonly [number, boolean])[] = [
  [0.7, true],
  [-1.3, false],
  [2.9, true],
];

/** True if `op` is 0 whenever its linear arguments are 0, whatever its other arguments are. */
function vanishesAtZero(op: string, args: readonly string[], linear: readonly boolean[], ctx: Ctx): boolean {
  return SAMPLES.every(([x, c]) => {
    const values = args.map((a, i) => {
      if (linear[i]) return 0;
      const known = ctx.literals.get(a);
      if (known !== undefined) return known;
      return ctx.types.get(a)?.tag === 'bool' ? c : x;
    });
    const v = PRIMS[op].impl(...values);
    return v === 0;
  });
}

/** Copies a JVP rule's emitted lets into the rule being built, checking they read no tangent as a value. */
function spliceLinear(emitted: Block, ctx: Ctx, primal: string, op: string, out: string): void {
  const valueUse = (names: readonly string[]) => names.some((n) => n === primal || ctx.sort.get(n) === 'lin');
  for (const s of emitted.stmts) {
    if (s.tag !== 'let') break;
    const rhs = s.rhs;
    const readsTangentAsValue = (rhs.tag === 'prim' && valueUse(rhs.args)) || (rhs.tag === 'lprim' && valueUse(rhs.nl)) || (rhs.tag === 'call' && valueUse(rhs.nl));
    if (readsTangentAsValue) throw new NotLinearError(`${op} needs the value of a tangent, so its result is not linear in the tangent`, out);
    s.nl.forEach((b) => ctx.sort.set(b.name, 'nl'));
    s.lin.forEach((b) => ctx.sort.set(b.name, 'lin'));
    ctx.b.bind([...s.nl], [...s.lin], rhs);
  }
}

function convert(body: Block, ctx: Ctx, last: (leaf: Expr) => Block): Block {
  const r = (n: string) => ctx.subst.get(n) ?? n;
  for (const e of body.stmts) {
    if (e.tag === 'unpack') {
      const tuple = r(e.tuple);
      const mixed = ctx.mixed.get(tuple);
      if (mixed) e.names.forEach((n, i) => ctx.subst.set(n.name, mixed[i]));
      else {
        const s = ctx.sort.get(tuple) ?? 'nl';
        const t = ctx.types.get(tuple);
        e.names.forEach((n, i) => {
          ctx.sort.set(n.name, s);
          if (t?.tag === 'tuple') ctx.types.set(n.name, t.elems[i]);
        });
        const names = e.names.map((n) => ({ ...n }));
        ctx.b.unpack(s === 'lin', names, tuple);
      }
      continue;
    }
    const rhs = e.rhs;
    const out = e.nl[0]?.name;
    // The front end lowers no control flow into rules yet; a construct here is a bug upstream.
    if (rhs.tag === 'construct') throw new InternalError(`customJvp: construct ${rhs.op} in a derivative rule`);
    switch (rhs.tag) {
      case 'lit':
        ctx.literals.set(out, rhs.value);
        ctx.sort.set(out, 'nl');
        ctx.b.bind([...e.nl], [], rhs);
        break;
      case 'var': {
        ctx.subst.set(out, r(rhs.name));
        break;
      }
      case 'tuple': {
        const elems = rhs.elems.map(r);
        const sorts = elems.map((x) => ctx.sort.get(x) ?? 'nl');
        ctx.elements.set(out, elems);
        if (sorts.every((s) => s === 'nl')) {
          ctx.sort.set(out, 'nl');
          ctx.b.bind([...e.nl], [], { ...rhs, elems });
        } else if (sorts.every((s) => s === 'lin')) {
          ctx.sort.set(out, 'lin');
          ctx.b.bind([], [...e.nl], { ...rhs, linear: true, elems });
        } else ctx.mixed.set(out, elems);
        break;
      }
      case 'prim': {
        const args = rhs.args.map(r);
        const linear = args.map((a) => ctx.sort.get(a) === 'lin');
        if (!linear.some(Boolean)) {
          ctx.sort.set(out, 'nl');
          ctx.b.bind([...e.nl], [], { ...rhs, args });
          break;
        }
        if (!vanishesAtZero(rhs.op, args, linear, ctx)) {
          throw new NotLinearError(`${rhs.op} of a tangent and a value that is not zero is affine, not linear in the tangent`, out);
        }
        // The operation's own JVP with the tangents in the linear positions; what it emits must
        // use tangents only where linear values go, and never the operation's primal result.
        const y = ctx.b.fresh(`${out}_primal`);
        const tangents = args.map((a, i) => (linear[i] ? a : null));
        const argTypes = args.map((a) => ctx.types.get(a) ?? { tag: 'real' as const });
        const inner = new Builder(ctx.b.names);
        const t = unguard(inner, PRIMS[rhs.op].jvp({ b: inner, args, argTypes, tangents, y }), `${y}_dot`);
        if (t === null) throw new NotLinearError(`${rhs.op} has no derivative, so it cannot carry a tangent`, out);
        spliceLinear(inner.finish(ret([], [t])), ctx, y, rhs.op, out);
        ctx.subst.set(out, t);
        ctx.sort.set(t, 'lin');
        break;
      }
      case 'call': {
        const args = rhs.nl.map(r);
        if (args.some((a) => ctx.sort.get(a) === 'lin')) throw new NotLinearError(`a tangent is passed to ${rhs.fn}; a custom derivative may only combine tangents linearly`, out);
        e.nl.forEach((n) => ctx.sort.set(n.name, 'nl'));
        ctx.b.bind([...e.nl], [], { ...rhs, nl: args });
        break;
      }
      case 'drop':
        break;
      default:
        ctx.b.bind([...e.nl], [...e.lin], rhs);
    }
    e.nl.forEach((n) => n.type && ctx.types.set(n.name, n.type));
  }
  return last(body.result);
}

/**
 * `rule(x̄, ẋ̄) -> <y, ẏ>` (non-linear, with binder types) to `name(x̄ ; ẋ̄) -> (y ; ẏ)`.
 * `primalCount` parameters are primal, the rest are their tangents in the same order.
 */
export function customJvpDef(rule: FnDef, primalCount: number, as: Role, resultType: Type, tangentOut: Type = tangentType(resultType)): FnDef {
  const names = new NameSupply([...rule.nlParams.map((p) => p.name)]);
  const b = new Builder(names);
  const ctx: Ctx = { b, sort: new Map(), types: new Map(), literals: new Map(), mixed: new Map(), subst: new Map(), elements: new Map() };
  const params = rule.nlParams.slice(0, primalCount);
  const dots = rule.nlParams.slice(primalCount);
  params.forEach((p) => {
    ctx.sort.set(p.name, 'nl');
    if (p.type) ctx.types.set(p.name, p.type);
  });
  dots.forEach((p) => {
    ctx.sort.set(p.name, 'lin');
    if (p.type) ctx.types.set(p.name, p.type);
  });
  const body = convert(rule.body, ctx, (leaf) => {
    if (leaf.tag !== 'ret' || leaf.nl.length !== 1) throw new NotLinearError('a custom derivative returns [value, tangent]', '');
    const whole = ctx.subst.get(leaf.nl[0]) ?? leaf.nl[0];
    const pair = ctx.elements.get(whole);
    let y: string;
    let dy: string;
    if (pair) [y, dy] = pair;
    else {
      // All primal (the tangent is a constant): only a literal zero tangent is linear.
      const parts: Binder[] = [binder(names.fresh('value')), binder(names.fresh('tangent'))];
      b.unpack(false, parts, whole);
      [y, dy] = parts.map((p) => p.name);
    }
    if ((ctx.sort.get(y) ?? 'nl') !== 'nl') throw new NotLinearError('the value (first element) of a custom derivative must not depend on the tangents', y);
    const parts = ctx.mixed.get(dy);
    if (parts && tangentOut.tag === 'tuple') {
      // A tuple of tangents where some are a literal 0 (`[ct * x, 0]`): those become zeros.
      const elems = parts.map((part, i) => {
        if (ctx.sort.get(part) === 'lin') return part;
        if (ctx.literals.get(part) !== 0) throw new NotLinearError('a tangent must be linear in the tangent arguments; a constant other than 0 is not', part);
        const t = (tangentOut as Extract<Type, { tag: 'tuple' }>).elems[i];
        return b.lin('zero', zeroE(t), t);
      });
      const packed = b.lin('tangent', { tag: 'tuple', linear: true, elems }, tangentOut);
      return b.finish(ret([y], [packed]));
    }
    if ((ctx.sort.get(dy) ?? 'nl') !== 'lin') {
      const zero = ctx.literals.get(dy);
      if (zero !== 0) throw new NotLinearError('the tangent (second element) must be linear in the tangent arguments; a constant other than 0 is not', dy);
      const z = b.lin('tangent', zeroE(tangentOut), tangentOut);
      return b.finish(ret([y], [z]));
    }
    return b.finish(ret([y], [dy]));
  });
  const def: FnDef = {
    name: derivedName(as),
    role: as,
    nlParams: params.map((p) => binder(p.name, p.type)),
    linParams: dots.map((p) => binder(p.name, p.type)),
    nlResults: [resultType],
    linResults: [tangentOut],
    body,
  };
  // Dead primal results of linear operations go first; simplifyDef then restores dups and drops.
  return simplifyDef(def);
}

/**
 * A VJP rule `(x̄) => [value, (ct) => [x̄_bar...]]`, lowered to `rule(x̄, ct) -> <value, <x̄_bar...>>`,
 * becomes three defs: the pullback `name.pb(x̄ ; ct) -> (; x̄_bar...)` (linear in ct, checked
 * like a JVP rule), its transpose `name.pb.T(x̄ ; ẋ̄) -> (; ẏ)` (forward mode, by transposition),
 * and `name.jvp(x̄ ; ẋ̄) -> (y ; ẏ)` with the value from `name` itself. `program` holds the
 * typed primal and whatever it calls.
 */
export function customVjpDefs(rule: FnDef, primal: FnDef, program: Program): FnDef[] {
  const n = primal.nlParams.length;
  const cotangents = tupleType(primal.nlParams.map((p) => tangentType(p.type!)));
  const full = customJvpDef(rule, n, role('pullback', primal.name), primal.nlResults[0], cotangents);
  // Keep only the cotangents, one result per parameter.
  const names = new NameSupply(namesIn(full.body, new Set([...full.nlParams, ...full.linParams].map((p) => p.name))));
  const retarget = (body: Block): Block => {
    const e = body.result;
    if (e.tag !== 'ret') return body;
    const parts = primal.nlParams.map((p) => binder(names.fresh(`${p.name}_bar`), tangentType(p.type!)));
    return block(
      [...body.stmts, letS([], [], drop(nvar(e.nl[0]))), unpackS(true, parts, e.lin[0])],
      ret(
        [],
        parts.map((p) => p.name),
      ),
    );
  };
  const pb = simplifyDef({ ...full, nlResults: [], linResults: primal.nlParams.map((p) => tangentType(p.type!)), body: retarget(full.body) });
  const transposed = annotateTypes(transposeProgram(annotateTypes({ defs: [...program.defs, pb] }), [pb.name]));
  const pbT = transposed.defs[transposed.defs.length - 1];
  const b = new Builder(new NameSupply(primal.nlParams.map((p) => p.name)));
  const dots = primal.nlParams.map((p) => binder(b.fresh(`${p.name}_dot`), tangentType(p.type!)));
  const y = b.nl(
    'y',
    call(
      primal.name,
      primal.nlParams.map((p) => p.name),
    ),
    primal.nlResults[0],
  );
  const yDot = b.fresh('y_dot');
  b.bind(
    [],
    [binder(yDot, tangentType(primal.nlResults[0]))],
    call(
      pbT.name,
      primal.nlParams.map((p) => p.name),
      dots.map((d) => d.name),
    ),
  );
  const jvp: FnDef = {
    name: jvpName(primal.name),
    role: role('jvp', primal.name),
    nlParams: primal.nlParams,
    linParams: dots,
    nlResults: primal.nlResults,
    linResults: [tangentType(primal.nlResults[0])],
    body: b.finish(ret([y], [yDot])),
  };
  return [pb, pbT, jvp];
}
