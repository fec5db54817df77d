// Roles (issue 8): a derived def says what it is, the text format keeps it, and passes name and
// pick defs by role, never by reading a name.
import { parseProgram } from '../../transformer/language/parse';
import { printProgram } from '../../transformer/ir/print';
import { evalFn } from '../../transformer/language/interp';
import { findDef } from '../../transformer/ir/program';
import { sourceOf, primalNameOf, barName } from '../../transformer/ir/names';
import { defMap } from '../../transformer/ir/program';
import { jvpOf, linearizeOf, vjpOf, gradOf, hvpOf } from '../gen/drivers';

const src = 'def f(x: real, y: real ;) -> (real ;) {\n  let a = mul(x, y)\n  let b = sin(a)\n  (b ;)\n}';

test('every derived def carries its role, and the role leads back to the source function', () => {
  const { program } = hvpOf(parseProgram(src), 'f');
  const roles = Object.fromEntries(program.defs.map((d) => [d.name, d.role ? `${d.role.kind}(${d.role.of})` : '-']));
  expect(roles).toEqual({
    f: '-',
    'f.jvp': 'jvp(f)',
    'f.fwd': 'fwd(f)',
    'f.lin': 'lin(f)',
    'f.bwd': 'bwd(f)',
    'f.bwd.E': 'erased(f.bwd)',
    'f.grad': 'grad(f)',
    'f.grad.jvp': 'jvp(f.grad)',
    'f.grad.jvp.E': 'erased(f.grad.jvp)',
    'f.fwd.jvp': 'jvp(f.fwd)',
    'f.fwd.jvp.E': 'erased(f.fwd.jvp)',
    'f.bwd.E.jvp': 'jvp(f.bwd.E)',
    'f.bwd.E.jvp.E': 'erased(f.bwd.E.jvp)',
    'f.hvp': 'hvp(f)',
  });
  const byName = defMap(program);
  for (const d of program.defs) expect(sourceOf(d.name, byName)).toBe('f');
});

test('the text format prints roles and reads them back', () => {
  const { program } = vjpOf(parseProgram(src), 'f');
  const text = printProgram(program, { types: true });
  expect(text).toMatch(/^def f\.bwd\(.*\) -> \(; real, real\) as bwd\(f\) \{$/m);
  const back = parseProgram(text);
  expect(back.defs.map((d) => d.role)).toEqual(program.defs.map((d) => d.role));
  expect(() => parseProgram('def g(x: real ;) -> (real ;) as derivative(f) { (x ;) }')).toThrow(/unknown role derivative; expected one of jvp, fwd/);
});

test('U names the halves of a parsed JVP after the function its role names, not after its name', () => {
  // A JVP written by hand under another name: its halves follow the role.
  const text = printProgram(jvpOf(parseProgram(src), 'f').program).replace(/\bf\.jvp\b/g, 'tangent_of_f');
  const p = parseProgram(text);
  expect(findDef(p, 'tangent_of_f').role).toEqual({ kind: 'jvp', of: 'f' });
  const lin = linearizeOf(p, 'f');
  expect(lin.fwd).toBe('f.fwd');
  const fw = evalFn(lin.program, 'f.fwd', [0.5, 2]);
  expect(fw.nl[0]).toBeCloseTo(Math.sin(1), 14);
});

test('gradients by role agree with the closed form', () => {
  const g = gradOf(parseProgram(src), 'f');
  expect(findDef(g.program, g.grad).role).toEqual({ kind: 'grad', of: 'f' });
  const [dx, dy] = evalFn(g.program, g.grad, [0.5, 2]).nl as number[];
  expect(dx).toBeCloseTo(Math.cos(1) * 2, 14);
  expect(dy).toBeCloseTo(Math.cos(1) * 0.5, 14);
});

test('derived variable names map back to their primal', () => {
  expect(primalNameOf('a_dot_2')).toBe('a');
  expect(primalNameOf('a_bar_2_dot')).toBe('a');
  expect(primalNameOf('x_2')).toBe('x_2');
  expect(barName('x_dot_1')).toBe('x_bar');
});
