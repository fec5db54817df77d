// One simplification where a pipeline ends (issue 20 item 1): a grad call site fuses its primal
// and backward halves into one def and simplifies that, so the small straight-line defs J, U, T and
// E build wait for it instead of being simplified one by one; defs with loops still are, since the
// passes read the shape of a loop off their input. Counted with the drivers' trace hook.
import { parseProgram } from '../../transformer/language/parse';
import { evalFn } from '../../transformer/language/interp';
import { jvpOf, vjpOf, valueAndGradOf, DriverOptions } from '../gen/drivers';
import { DRIVER } from '../../transformer/plan/request';
import { Program } from '../../transformer/ir/syntax';

/** The passes traced while compiling a grad call site as the plugin does (plan/grad.ts, compile.ts). */
function gradSite(p: Program, fn: string, wrt: readonly number[]): { passes: string[]; program: Program; def: string } {
  const passes: string[] = [];
  const o: DriverOptions = { ...DRIVER, trace: (pass) => passes.push(pass) };
  const vjp = vjpOf(p, fn, { ...o, deferSimplify: true });
  const vg = valueAndGradOf(p, fn, { ...o, wrt, value: false, flatSignature: true, vjp });
  return { passes, program: vg.program, def: vg.valueAndGrad };
}

const scalar = parseProgram(`
def g(x: real, y: real ;) -> (real ;) {
  let a = mul(x, y)
  let b = sin(a)
  (b ;)
}
def f(x: real, y: real ;) -> (real ;) {
  let s = exp(x)
  let m = g(s, y)
  let q = sub(m, x)
  let r = mul(q, q)
  (r ;)
}`);

test('a grad call site of straight-line code simplifies once per fusion, not after every pass', () => {
  const { passes, program, def } = gradSite(scalar, 'f', [0, 1]);
  expect(passes.filter((p) => p === 'simplify')).toEqual([]);
  expect(passes.filter((p) => p === 'fuse').length).toBe(2);
  // ∂/∂x and ∂/∂y of (g(eˣ, y) − x)², g(a, y) = sin(a·y), at (0.3, 0.7).
  const [x, y] = [0.3, 0.7];
  const q = Math.sin(Math.exp(x) * y) - x;
  const dgda = Math.cos(Math.exp(x) * y);
  expect(evalFn(program, def, [x, y]).nl.map((v) => Number((v as number).toFixed(12)))).toEqual([2 * q * (dgda * y * Math.exp(x) - 1), 2 * q * dgda * Math.exp(x)].map((v) => Number(v.toFixed(12))));
});

test('a def with a loop is still simplified after each pass that adds it', () => {
  const looped = parseProgram(`
def f(x: real ;) -> (real ;) {
  let n = 3
  let y = loop(n, x) [|i: real, c: real ;| {
    drop(i)
    mul(c, c)
  }]
  (y ;)
}`);
  const { passes } = gradSite(looped, 'f', [0]);
  expect(passes.filter((p) => p === 'simplify').length).toBeGreaterThanOrEqual(3);
});

test('a jvp call site (J, then fusion) simplifies straight-line code once, in the fused def', () => {
  const passes: string[] = [];
  const j = jvpOf(scalar, 'f', { ...DRIVER, inline: true, trace: (pass) => passes.push(pass) });
  expect(passes.filter((p) => p === 'simplify')).toEqual([]);
  expect(passes.filter((p) => p === 'fuse').length).toBe(1);
  // The tangent of (g(eˣ, y) − x)² along (1, 0) at (0.3, 0.7), against the gradient's first entry.
  const [x, y] = [0.3, 0.7];
  const q = Math.sin(Math.exp(x) * y) - x;
  const dx = 2 * q * (Math.cos(Math.exp(x) * y) * y * Math.exp(x) - 1);
  const r = evalFn(j.program, j.jvp, [x, y], [1, 0]);
  const [value, tangent] = [r.nl[0], r.lin[0]] as number[];
  expect(value).toBeCloseTo(q * q, 12);
  expect(tangent).toBeCloseTo(dx, 12);
});
