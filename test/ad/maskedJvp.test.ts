// J with a mask (ad/jvp.ts): the parameters outside it are constants, with no tangent parameter
// and no terms. A call passes on which of its arguments have tangents: the callee gets a masked
// JVP of its own (g.jvp_0), a call with none is the primal call, and a full J of the same
// function in the same program still gets every tangent. Numbers against central differences.
import { parseProgram } from '../../transformer/language/parse';
import { evalFn } from '../../transformer/language/interp';
import { findDef } from '../../transformer/ir/program';
import { hvpOf, jvpOf } from '../gen/drivers';

const src = `def g(a: real, b: real ;) -> (real ;) {
  let ab = mul(a, b)
  let s = sin(ab)
  let e = exp(b)
  let t = mul(s, e)
  add(t, a)
}
def h(b: real ;) -> (real ;) {
  let c = cos(b)
  mul(c, b)
}
def f(x: real, y: real, z: real ;) -> (real ;) {
  let u = g(x, z)
  let w = h(z)
  let v = mul(u, y)
  add(v, w)
}`;

const f = (x: number, y: number, z: number) => (Math.sin(x * z) * Math.exp(z) + x) * y + Math.cos(z) * z;
const at = [0.7, -1.3, 0.4];
const along = (dir: number[], s = 1e-6) => (f(...(at.map((v, i) => v + s * dir[i]) as [number, number, number])) - f(...(at.map((v, i) => v - s * dir[i]) as [number, number, number]))) / (2 * s);

test('J along x only: g gets a masked JVP, h (no tangent) is called as it is, the result matches differences', () => {
  const { program, jvp } = jvpOf(parseProgram(src), 'f', {}, [true, false, false]);
  expect(jvp).toBe('f.jvp_0');
  const names = program.defs.map((d) => d.name);
  expect(names).toContain('g.jvp_0');
  expect(names).not.toContain('g.jvp');
  expect(names).not.toContain('h.jvp');
  expect(findDef(program, 'f.jvp_0').linParams).toHaveLength(1);
  expect(findDef(program, 'g.jvp_0').linParams).toHaveLength(1);
  const r = evalFn(program, jvp, at, [1]);
  expect(r.nl[0]).toBeCloseTo(f(...(at as [number, number, number])), 12);
  expect(r.lin[0] as number).toBeCloseTo(along([1, 0, 0]), 7);
});

test('a masked and a full J of one function in one program: both right, the full one along z too', () => {
  const masked = jvpOf(parseProgram(src), 'f', {}, [true, true, false]);
  const { program, jvp } = jvpOf(masked.program, 'f');
  expect(jvp).toBe('f.jvp');
  expect(findDef(program, 'f.jvp').linParams).toHaveLength(3);
  const dir = [0.5, -2, 1.5];
  expect(evalFn(program, 'f.jvp', at, dir).lin[0] as number).toBeCloseTo(along(dir), 7);
  expect(evalFn(program, masked.jvp, at, [0.5, -2]).lin[0] as number).toBeCloseTo(along([0.5, -2, 0]), 7);
});

test('the masked J does less work than the full one along zeros (interpreter work counter)', () => {
  const masked = jvpOf(parseProgram(src), 'f', {}, [true, false, false]);
  const full = jvpOf(parseProgram(src), 'f');
  const m = evalFn(masked.program, masked.jvp, at, [1]);
  const a = evalFn(full.program, full.jvp, at, [1, 0, 0]);
  expect(m.lin[0]).toBe(a.lin[0]);
  expect(m.work).toBeLessThan(a.work);
});

test('hvp in x only (IR): H·v against differences of the gradient, its J masked', () => {
  const { program, hvp } = hvpOf(parseProgram(src), 'f', {}, [0]);
  expect(program.defs.some((d) => d.role?.kind === 'jvp' && d.role.mask !== undefined)).toBe(true);
  // One direction, x's: y and z have none.
  expect(program.defs.find((d) => d.name === hvp)!.nlParams).toHaveLength(4);
  const r = evalFn(program, hvp, [...at, 1]);
  const gx = (x: number) => (f(x + 1e-6, at[1], at[2]) - f(x - 1e-6, at[1], at[2])) / 2e-6;
  expect(r.nl[0] as number).toBeCloseTo((gx(at[0] + 1e-4) - gx(at[0] - 1e-4)) / 2e-4, 4);
});
