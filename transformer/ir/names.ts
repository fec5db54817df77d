// Names of derived functions and variables, generated in one place so passes, drivers and
// emitters agree. A derived def also records its role (`FnDef.role`: which transformation of
// which function it is); code that needs to know what a def is reads the role, never the name.
//   f.jvp   J(f): (x̄ ; ẋ̄) -> (ȳ ; ẏ̄)
//   f.fwd   the non-linear half of U(f.jvp): (x̄ ;) -> (ȳ, tape ;)
//   f.lin   the linear half of U(f.jvp): (tape ; ẋ̄) -> (; ẏ̄)
//   f.bwd   T(f.lin): (tape ; ȳ̄) -> (; x̄̄)
//   g.T     T(g) for any other linear function g
//   f.tape  the tape type of f
//   f.grad  E of the reverse pass composed with f.fwd: (x̄ ;) -> (gradients ;)
//   f.vg    value and (selected) gradients in one function, calls inlined: (x̄ ;) -> (y, gradients ;)
//   f.jac   reverse mode's Jacobian rows of a function of numbers, calls inlined: (x̄ ;) -> (rows ;)
//   f.hvp   J(E(f.grad)) specialised to Hessian-vector products: (x̄, v̄ ;) -> (H·v̄ ;)
//   f.rule  a derivative rule the user wrote for f, lowered as it stands
//   f.pb    the pullback of a VJP rule, linear in the cotangent; f.pb.T is its transpose
import type { FnDef, Role, RoleKind } from './syntax';

const SUFFIX: Readonly<Record<RoleKind, string>> = {
  jvp: 'jvp',
  fwd: 'fwd',
  lin: 'lin',
  bwd: 'bwd',
  transpose: 'T',
  grad: 'grad',
  vg: 'vg',
  jac: 'jac',
  hvp: 'hvp',
  erased: 'E',
  rule: 'rule',
  pullback: 'pb',
};

/** The name of the def with this role. */
export const derivedName = (role: Role): string => `${role.of}.${SUFFIX[role.kind]}`;
export const role = (kind: RoleKind, of: string): Role => ({ kind, of });

/** The function whose unzipped halves a def's halves are named after: f for f.jvp. */
export const unzipStem = (d: FnDef): string => (d.role?.kind === 'jvp' && !d.role.mask ? d.role.of : d.name);
/** The role of T(g): the backward pass of f for g = f.lin, else g.T. */
export const transposeRole = (g: FnDef): Role => (g.role?.kind === 'lin' ? role('bwd', g.role.of) : role('transpose', g.name));

/**
 * f with only some of its results (opt/unreadResults.ts): `f.keep_1` returns f's result 1. A part
 * of its own, so that it names no other derived def (`f.jvp_1` is a masked JVP).
 */
export const keptResultsName = (f: string, keep: readonly boolean[]): string => `${f}.keep_${keep.flatMap((k, i) => (k ? [i] : [])).join('_')}`;
export const jvpName = (f: string) => derivedName(role('jvp', f));
export const fwdName = (f: string) => derivedName(role('fwd', f));
export const linName = (f: string) => derivedName(role('lin', f));
export const bwdName = (f: string) => derivedName(role('bwd', f));
export const tapeName = (f: string) => `${f}.tape`;
/** A tuple type a construct's U packs residuals into (`f.slots_2`), named beside f's tape: printed by this alias. */
export const residualTypeName = (f: string, local: string) => `${f}.${local}`;
export const gradName = (f: string) => derivedName(role('grad', f));
export const valueAndGradName = (f: string) => derivedName(role('vg', f));
export const hvpName = (f: string) => derivedName(role('hvp', f));
export const erasedName = (f: string) => derivedName(role('erased', f));

/** The source function a def was derived from, following roles back (f for f.lin.T). */
export function sourceOf(name: string, defs: ReadonlyMap<string, FnDef>): string {
  let n = name;
  for (let d = defs.get(n); d?.role; d = defs.get(n)) n = d.role.of;
  return n;
}

/** Conventional tangent and cotangent names for a primal variable. */
const DOT = '_dot';
const BAR = '_bar';
export const dotName = (x: string) => `${x}${DOT}`;
/** The cotangent of a tangent x_dot (or x_dot_2, x_dot_y) is x_bar: the names follow the primal. */
export const barName = (x: string) => {
  const m = /^(.*?)_dot(?:_.*)?$/.exec(x);
  return `${m ? m[1] : x}${BAR}`;
};

/**
 * The primal variable a derived variable name was made from (`a` for `a_dot_2`, `a_bar`):
 * the inverse of dotName/barName and the fresh-name suffixes, for display and source maps only.
 */
export function primalNameOf(x: string): string {
  let n = x;
  for (;;) {
    const base = stripCounter(n);
    if (base.endsWith(DOT)) n = base.slice(0, -DOT.length);
    else if (base.endsWith(BAR)) n = base.slice(0, -BAR.length);
    else return n;
  }
}

/** `a_dot` for `a_dot_2` (NameSupply's counter suffix), else the name itself. */
function stripCounter(n: string): string {
  const i = n.lastIndexOf('_');
  if (i < 0 || i === n.length - 1) return n;
  for (let k = i + 1; k < n.length; k++) if (n.charCodeAt(k) < 48 || n.charCodeAt(k) > 57) return n;
  const base = n.slice(0, i);
  return base.endsWith(DOT) || base.endsWith(BAR) ? base : n;
}

/**
 * The standard JavaScript globals, which no variable of a def is named after. Emitted code reads
 * them by name (`Array.isArray` in a wrapper's argument check, `new Float64Array`, `Math.max`,
 * `new Set()`, `throw new RangeError`), so a user's parameter or local named `Array` would
 * shadow them there and break every wrapper and def (fuzz23-findings P6): the front end names
 * such a variable `Array_1` instead, and messages still use the source's name.
 */
export const JS_GLOBALS: ReadonlySet<string> = new Set(
  (
    'globalThis Infinity NaN undefined eval isFinite isNaN parseFloat parseInt decodeURI decodeURIComponent encodeURI encodeURIComponent ' +
    'AggregateError Array ArrayBuffer Atomics BigInt BigInt64Array BigUint64Array Boolean DataView Date Error EvalError FinalizationRegistry ' +
    'Float32Array Float64Array Function Int8Array Int16Array Int32Array JSON Map Math Number Object Promise Proxy RangeError ReferenceError ' +
    'Reflect RegExp Set SharedArrayBuffer String Symbol SyntaxError TypeError Uint8Array Uint8ClampedArray Uint16Array Uint32Array URIError ' +
    'WeakMap WeakRef WeakSet console'
  ).split(' '),
);
