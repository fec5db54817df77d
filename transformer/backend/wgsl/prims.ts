// WGSL for the scalar primitives, by IR name (transformer/prims): each entry builds the f32 (or
// bool) expression of the primitive applied to already-typed operands. A primitive missing here
// is not on the GPU: the lowering says so by name. The kernel tests run every entry against the
// primitive's `impl` (test/webgpu/kernels.test.ts), so an entry that differs from JavaScript
// beyond f32 rounding fails there.
export type WgslType = 'f32' | 'bool';

/** An operand or result: WGSL text and its type. */
export interface Typed {
  readonly code: string;
  readonly type: WgslType;
}

const f = (code: string): Typed => ({ code, type: 'f32' });
const b = (code: string): Typed => ({ code, type: 'bool' });

/** The operand as a number (JavaScript's `true + 1`). */
export const num = (x: Typed): string => (x.type === 'f32' ? x.code : `select(0.0, 1.0, ${x.code})`);
/** The operand as a condition (JavaScript's truthiness of a number). */
export const cond = (x: Typed): string => (x.type === 'bool' ? x.code : `(${x.code} != 0.0)`);

/** A number literal as WGSL f32 text (Infinity and NaN through the helpers). */
export function wgslNumber(v: number): string {
  if (Number.isNaN(v)) return 'tsad_nan()';
  const r = Math.fround(v);
  if (r === Infinity) return 'tsad_inf()';
  if (r === -Infinity) return '(-tsad_inf())';
  const s = String(r);
  return /[.e]/.test(s) ? s : `${s}.0`;
}

type Rule = (args: readonly Typed[]) => Typed;

const unary =
  (fn: (x: string) => string): Rule =>
  ([x]) =>
    f(fn(num(x)));
const binary =
  (fn: (x: string, y: string) => string): Rule =>
  ([x, y]) =>
    f(fn(num(x), num(y)));
const compare =
  (op: string): Rule =>
  ([x, y]) =>
    b(`(${num(x)} ${op} ${num(y)})`);
/** Math.min/max over any number of operands: NaN wins, as in JavaScript (WGSL's min leaves it open). */
const extremum =
  (name: 'min' | 'max', empty: string): Rule =>
  (args) =>
    f(args.length === 0 ? empty : args.map(num).reduce((acc, x) => `tsad_${name}(${acc}, ${x})`));

export const WGSL_PRIMS: Readonly<Record<string, Rule>> = {
  add: binary((x, y) => `(${x} + ${y})`),
  sub: binary((x, y) => `(${x} - ${y})`),
  neg: unary((x) => `(-${x})`),
  mul: binary((x, y) => `(${x} * ${y})`),
  mul0: binary((x, y) => `select(${x} * ${y}, 0.0, ${y} == 0.0)`),
  div: binary((x, y) => `(${x} / ${y})`),
  mod: binary((x, y) => `(${x} - ${y} * trunc(${x} / ${y}))`),
  pow: binary((x, y) => `tsad_pow(${x}, ${y})`),
  sqrt: unary((x) => `sqrt(${x})`),
  cbrt: unary((x) => `(sign(${x}) * pow(abs(${x}), 1.0 / 3.0))`),
  exp: unary((x) => `exp(${x})`),
  expm1: unary((x) => `tsad_expm1(${x})`),
  log: unary((x) => `log(${x})`),
  log1p: unary((x) => `tsad_log1p(${x})`),
  log2: unary((x) => `log2(${x})`),
  log10: unary((x) => `(log2(${x}) * 0.30102999566398120)`),
  sin: unary((x) => `sin(${x})`),
  cos: unary((x) => `cos(${x})`),
  tan: unary((x) => `tan(${x})`),
  // Through atan2: the software adapter's asin and acos are off by 3e-4.
  asin: unary((x) => `atan2(${x}, sqrt((1.0 - ${x}) * (1.0 + ${x})))`),
  acos: unary((x) => `atan2(sqrt((1.0 - ${x}) * (1.0 + ${x})), ${x})`),
  atan: unary((x) => `atan(${x})`),
  sinh: unary((x) => `sinh(${x})`),
  cosh: unary((x) => `cosh(${x})`),
  tanh: unary((x) => `tanh(${x})`),
  asinh: unary((x) => `asinh(${x})`),
  acosh: unary((x) => `acosh(${x})`),
  atanh: unary((x) => `atanh(${x})`),
  abs: unary((x) => `abs(${x})`),
  sign: unary((x) => `sign(${x})`),
  floor: unary((x) => `floor(${x})`),
  ceil: unary((x) => `ceil(${x})`),
  // JavaScript rounds halves up; WGSL's round() rounds them to even.
  round: unary((x) => `floor(${x} + 0.5)`),
  trunc: unary((x) => `trunc(${x})`),
  // Kernels compute in f32 already.
  fround: unary((x) => x),
  stop_gradient: unary((x) => x),
  atan2: binary((y, x) => `atan2(${y}, ${x})`),
  hypot: (args) => f(args.length === 0 ? '0.0' : `sqrt(${args.map((a) => `(${num(a)} * ${num(a)})`).join(' + ')})`),
  min: extremum('min', 'tsad_inf()'),
  max: extremum('max', '(-tsad_inf())'),
  lt: compare('<'),
  le: compare('<='),
  gt: compare('>'),
  ge: compare('>='),
  eq: compare('=='),
  ne: compare('!='),
  not: ([x]) => b(`(!${cond(x)})`),
  and: ([x, y]) => b(`(${cond(x)} && ${cond(y)})`),
  or: ([x, y]) => b(`(${cond(x)} || ${cond(y)})`),
  select: ([c, x, y]) => (x.type === 'bool' && y.type === 'bool' ? b(`select(${y.code}, ${x.code}, ${cond(c)})`) : f(`select(${num(y)}, ${num(x)}, ${cond(c)})`)),
  mask: ([c, v]) => f(`select(0.0, ${num(v)}, ${cond(c)})`),
  maskn: ([c, v]) => f(`select(${num(v)}, 0.0, ${cond(c)})`),
};

/** The linear primitives on scalars (erased programs may keep them): WGSL by name. */
export const WGSL_LIN_PRIMS: Readonly<Record<string, Rule>> = {
  ladd: binary((x, y) => `(${x} + ${y})`),
  lneg: unary((x) => `(-${x})`),
  scale: binary((u, v) => `(${u} * ${v})`),
  scale0: binary((u, v) => `select(${u} * ${v}, 0.0, ${v} == 0.0)`),
  lselect: ([c, x, y]) => f(`select(${num(y)}, ${num(x)}, ${cond(c)})`),
  lmask: ([c, v]) => f(`select(0.0, ${num(v)}, ${cond(c)})`),
  lmaskn: ([c, v]) => f(`select(${num(v)}, 0.0, ${cond(c)})`),
};

/**
 * The helpers the entries call, prepended to every kernel (unused functions cost nothing).
 * Infinity and NaN go through a variable: WGSL rejects them as constant expressions.
 */
export const WGSL_HELPERS = `
fn tsad_inf() -> f32 { var bits = 0x7f800000u; return bitcast<f32>(bits); }
fn tsad_nan() -> f32 { var bits = 0x7fc00000u; return bitcast<f32>(bits); }
fn tsad_isnan(x: f32) -> bool { return !(x == x); }
fn tsad_min(a: f32, b: f32) -> f32 { return select(select(min(a, b), b, tsad_isnan(b)), a, tsad_isnan(a)); }
fn tsad_max(a: f32, b: f32) -> f32 { return select(select(max(a, b), b, tsad_isnan(b)), a, tsad_isnan(a)); }
fn tsad_expm1(x: f32) -> f32 { if (abs(x) < 1e-3) { return x + 0.5 * x * x + x * x * x / 6.0; } return exp(x) - 1.0; }
fn tsad_log1p(x: f32) -> f32 { if (abs(x) < 1e-3) { return x - 0.5 * x * x + x * x * x / 3.0; } return log(1.0 + x); }
fn tsad_pow(x: f32, y: f32) -> f32 {
  if (y == 0.0) { return 1.0; }
  if (x >= 0.0) { return pow(x, y); }
  if (trunc(y) != y) { return tsad_nan(); }
  let m = pow(-x, y);
  return select(m, -m, (trunc(y * 0.5) * 2.0) != y);
}
`;
