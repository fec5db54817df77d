// A derivative as an ordinary function: the def another transform (or a marked function that
// calls it) differentiates again. tsad is source to source, so the inner derivative is a def of
// its own with its own tangent variables; the outer pass treats it like any user function, and
// two perturbations can never be confused.
//
// The drivers' output names its defs by role (f.fwd, f.bwd.E, ...), and the outer transform
// would derive its own f.fwd for f: the defs made here are renamed into the new def's namespace
// and lose their roles, so that no pass mistakes them for a custom rule or for the outer
// transform's halves.
import { fuse, hvpOf, jvpOf, valueAndGradOf, DriverOptions } from '../ad/drivers';
import { eraseProgram } from '../ad/erase';
import { erasedName } from '../ir/names';
import { findDef } from '../ir/program';
import { annotateTypes } from '../language/check';
import { Builder, NameSupply } from '../ir/build';
import { rewriteDef } from '../ir/traverse';
import { Binder, FnDef, Program, REAL, Type, arrayType, binder, call, construct, lambda, nvar, ret, tangentType, tuple, tupleType } from '../ir/syntax';
import { Shape, irType } from './shapes';
import { reachable } from './closure';
import type { Signature } from './request';

/** The transforms whose result is a value a marked function can use (numbers, tuples, objects). */
export const NESTABLE = ['grad', 'valueAndGrad', 'jvp', 'hvp'] as const;
export type NestedKind = (typeof NESTABLE)[number];

export function isNestable(kind: string): kind is NestedKind {
  return (NESTABLE as readonly string[]).includes(kind);
}

export interface NestedDerivative {
  /** The new defs, callees first; the last is the derivative itself, non-linear and role-free. */
  readonly defs: readonly FnDef[];
  readonly signature: Signature;
}

/** Tangents have the primal's shape with numbers throughout; a constant's is the empty tuple. */
export function tangentShape(s: Shape): Shape {
  switch (s.kind) {
    case 'number':
      return s;
    case 'boolean':
    case 'string':
      return { kind: 'tuple', elems: [] };
    case 'tuple':
      return { kind: 'tuple', elems: s.elems.map(tangentShape) };
    case 'object':
      return { kind: 'object', fields: s.fields.map(([k, f]) => [k, tangentShape(f)] as const) };
    case 'array':
      return s.constant ? { kind: 'tuple', elems: [] } : { kind: 'array', container: s.container, elem: tangentShape(s.elem) };
  }
}

/**
 * `kind` of `fn` as one def named `name` with one result:
 *   grad          (x̄) -> ∂f/∂x_w               (a tuple of them for several wrt)
 *   valueAndGrad  (x̄) -> [f(x̄), gradient]
 *   jvp           (x̄, ẋ̄) -> [f(x̄), tangent]   (wrt is not used: every parameter has a tangent)
 *   hvp           (x̄, v) -> H·v                (v and the result have the gradient's shape)
 */
export function nestedDerivative(program: Program, fn: Signature, kind: NestedKind, wrt: readonly number[], driver: DriverOptions, name: string): NestedDerivative {
  const built = build(program, fn, kind, wrt, driver, name);
  const fused = fuse({ defs: [...built.program.defs, built.def] }, name, driver);
  const before = new Set(program.defs.map((d) => d.name));
  const fresh = reachable(fused, [name]).defs.filter((d) => !before.has(d.name));
  const renamed = new Map(fresh.filter((d) => d.name !== name).map((d) => [d.name, `${name}.${d.name}`]));
  const defs = fresh.map((d) => {
    const { role: _role, ...plain } = rewriteDef(d, { expr: (e) => (e.tag === 'call' && renamed.has(e.fn) ? { ...e, fn: renamed.get(e.fn)! } : e) });
    return { ...plain, name: renamed.get(d.name) ?? d.name };
  });
  // The derivative last: callers find it there, and everything it calls comes before it.
  const self = defs.findIndex((d) => d.name === name);
  return { defs: [...defs.slice(0, self), ...defs.slice(self + 1), defs[self]], signature: built.signature };
}

interface Built {
  readonly program: Program;
  readonly def: FnDef;
  readonly signature: Signature;
}

function build(program: Program, fn: Signature, kind: NestedKind, wrt: readonly number[], driver: DriverOptions, name: string): Built {
  const params = fn.params.map((p) => binder(p.name, irType(p.shape)));
  const names = new NameSupply(params.map((p) => p.name));
  const b = new Builder(names);
  const gradShape = (): Shape => (wrt.length === 1 ? fn.params[wrt[0]].shape : { kind: 'tuple', elems: wrt.map((i) => fn.params[i].shape) });
  const pack = (xs: readonly string[], base: string): string => (xs.length === 1 ? xs[0] : b.nl(base, tuple(false, xs)));
  /** `extra`: the parameters after the function's own (tangents, a direction), with their shapes. */
  const finish = (p: Program, extra: readonly (readonly [Binder, Shape])[], result: string, shape: Shape): Built => ({
    program: p,
    def: { name, nlParams: [...params, ...extra.map(([x]) => x)], linParams: [], nlResults: [irType(shape)], linResults: [], body: b.finish(ret([result])) },
    signature: { name, params: [...fn.params, ...extra.map(([x, s]) => ({ name: x.name, shape: s }))], result: shape },
  });

  if (kind === 'grad' || kind === 'valueAndGrad') {
    const withValue = kind === 'valueAndGrad';
    const vg = valueAndGradOf(program, fn.name, { ...driver, wrt, value: withValue, inline: true });
    const d = findDef(vg.program, vg.valueAndGrad);
    const outs = d.nlResults.map((t, i) => binder(names.fresh(withValue && i === 0 ? 'value' : 'grad'), t));
    b.bind(
      outs,
      [],
      call(
        d.name,
        params.map((p) => p.name),
      ),
    );
    const grads = outs.slice(withValue ? 1 : 0).map((g, k) => dense(b, g.name, params[wrt[k]].name, params[wrt[k]].type!));
    const g = pack(grads, 'grads');
    const shape: Shape = withValue ? { kind: 'tuple', elems: [{ kind: 'number' }, gradShape()] } : gradShape();
    return finish(vg.program, [], withValue ? b.nl('vg', tuple(false, [outs[0].name, g])) : g, shape);
  }

  if (kind === 'jvp') {
    const j = jvpOf(program, fn.name, { ...driver, inline: true });
    const erased = annotateTypes(eraseProgram(j.program, [j.jvp]));
    const dots = fn.params.map((p, i) => binder(names.fresh(`${p.name}_dot`), tangentType(params[i].type!)));
    const [y, yDot] = [binder(names.fresh('value'), irType(fn.result)), binder(names.fresh('tangent'), tangentType(irType(fn.result)))];
    b.bind(
      [y, yDot],
      [],
      call(
        erasedName(j.jvp),
        [...params, ...dots].map((p) => p.name),
      ),
    );
    const shape: Shape = { kind: 'tuple', elems: [fn.result, tangentShape(fn.result)] };
    const tangent = dense(b, yDot.name, y.name, y.type!);
    return finish(
      erased,
      dots.map((x, i) => [x, tangentShape(fn.params[i].shape)] as const),
      b.nl('jvp', tuple(false, [y.name, tangent])),
      shape,
    );
  }

  // hvp: one direction per differentiated parameter, zero along the others.
  const h = hvpOf(program, fn.name, driver);
  const v = binder(names.fresh('v'), irType(gradShape()));
  const given =
    wrt.length === 1
      ? [v.name]
      : unpackAll(
          b,
          names,
          v.name,
          wrt.map((i) => params[i].type!),
        );
  const dirs = params.map((p, i) => (wrt.includes(i) ? given[wrt.indexOf(i)] : zeroOf(b, tangentType(p.type!))));
  const hvs = params.map((p) => binder(names.fresh(`${p.name}_hv`), tangentType(p.type!)));
  b.bind(hvs, [], call(h.hvp, [...params.map((p) => p.name), ...dirs]));
  hvs.forEach((x, i) => {
    if (!wrt.includes(i)) b.drop({ tag: 'var', linear: false, name: x.name });
  });
  return finish(
    h.program,
    [[v, gradShape()]],
    pack(
      wrt.map((i) => dense(b, hvs[i].name, params[i].name, params[i].type!)),
      'hv',
    ),
    gradShape(),
  );
}

/**
 * The tangent or cotangent `t` of the value `primal` (of type `type`) with every array of reals
 * as long as the primal's: the passes leave them sparse at the end (a zero is the empty array, a
 * one-hot stops at its element), which only their own constructs read as zeros; the code of a
 * marked function that uses a derivative reads them as arrays (`g[i]`, `g.length`), as the
 * wrappers' `fit` gives them to the user. A map over the primal's length reading the erased
 * `lindex` (0 past the end): O(n) per array, in a derivative that already costs more than that.
 */
function dense(b: Builder, t: string, primal: string, type: Type): string {
  if (type.tag === 'array' && type.elem.tag === 'real') {
    const n = b.nl(`${primal}_n`, construct('len', [primal], [], []), REAL);
    const slots = b.nl('slots', construct('fill', [n, b.lit(0, 'zero')], [], []), arrayType(REAL));
    const [i, slot, from] = [binder(b.fresh('i'), REAL), binder(b.fresh('slot'), REAL), binder(b.fresh(t), arrayType(REAL))];
    const inner = new Builder(b.names);
    inner.drop(nvar(slot.name));
    const x = inner.nl('x', construct('lindex', [i.name, from.name], [], []), REAL);
    const body = inner.finish(ret([x]));
    return b.nl(`${t}_dense`, construct('map', [n, slots, t], [], [lambda([i, slot, from], [], body)]), arrayType(REAL));
  }
  if (type.tag !== 'tuple' || !type.elems.some(holdsRealArray)) return t;
  const parts = unpackAll(b, b.names, t, type.elems.map(tangentType));
  const primals = unpackAll(b, b.names, primal, type.elems);
  return b.nl(
    t,
    tuple(
      false,
      type.elems.map((e, k) => dense(b, parts[k], primals[k], e)),
    ),
    tangentType(type),
  );
}

const holdsRealArray = (t: Type): boolean => (t.tag === 'array' && t.elem.tag === 'real') || (t.tag === 'tuple' && t.elems.some(holdsRealArray));

function unpackAll(b: Builder, names: NameSupply, t: string, types: readonly Type[]): string[] {
  const parts = types.map((ty, k) => binder(names.fresh(`${t}_${k}`), ty));
  b.unpack(false, parts, t);
  return parts.map((p) => p.name);
}

/** A non-linear zero of a tangent type (the direction along a parameter hvp does not move). */
function zeroOf(b: Builder, t: Type): string {
  if (t.tag === 'real') return b.lit(0, 'zero');
  if (t.tag === 'tuple')
    return b.nl(
      'zero',
      tuple(
        false,
        t.elems.map((e) => zeroOf(b, e)),
      ),
      t,
    );
  return b.nl('zero', tuple(false, []), tupleType([]));
}
