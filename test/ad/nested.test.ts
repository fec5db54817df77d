// A derivative as a def of its own (plan/nested.ts): non-linear, role-free, its helpers renamed
// into its namespace, so that differentiating it again, or deriving the same function again in
// the same program, never mistakes one for the other. Numbers against closed forms.
import { parseProgram } from '../../transformer/language/parse';
import { evalFn } from '../../transformer/language/interp';
import { hvpOf } from '../../transformer/ad/drivers';
import { nestedDerivative } from '../../transformer/plan/nested';
import { NUMBER } from '../../transformer/frontend/shapes';
import type { Program } from '../../transformer/ir/syntax';
import type { Signature } from '../../transformer/plan/request';

const src = 'def f(x: real, y: real ;) -> (real ;) {\n  let a = mul(x, y)\n  let b = sin(a)\n  let c = mul(b, x)\n  (c ;)\n}';
const driver = { recheck: true, simplify: true, inlinePrimal: true };
const f: Signature = {
  name: 'f',
  params: [
    { name: 'x', shape: NUMBER },
    { name: 'y', shape: NUMBER },
  ],
  result: NUMBER,
};

// f = x sin(xy)
const grad = (x: number, y: number) => [Math.sin(x * y) + x * y * Math.cos(x * y), x * x * Math.cos(x * y)];
const hessian = (x: number, y: number) => {
  const [s, c] = [Math.sin(x * y), Math.cos(x * y)];
  return [
    [2 * y * c - x * y * y * s, 2 * x * c - x * x * y * s],
    [2 * x * c - x * x * y * s, -x * x * x * s],
  ];
};

function withNested(p: Program, kind: 'grad' | 'jvp' | 'hvp', sig: Signature = f, name = `${sig.name}_${kind}`) {
  const made = nestedDerivative(p, sig, kind, [0, 1], driver, name);
  return { program: { defs: [...p.defs, ...made.defs] }, made };
}

test('the derivative is one non-linear def without a role, its helpers named after it', () => {
  const { made } = withNested(parseProgram(src), 'grad');
  const self = made.defs[made.defs.length - 1];
  expect(self.name).toBe('f_grad');
  for (const d of made.defs) {
    expect(d.role).toBeUndefined();
    expect(d.linParams).toEqual([]);
    expect(d.linResults).toEqual([]);
    if (d !== self) expect(d.name.startsWith('f_grad.')).toBe(true);
  }
  expect(made.signature.result).toEqual({ kind: 'tuple', elems: [NUMBER, NUMBER] });
});

test('grad, then jvp of the grad def, then hvp of the function in the same program', () => {
  const [x, y, vx, vy] = [0.7, -1.3, 0.4, 2];
  const first = withNested(parseProgram(src), 'grad');
  const g = evalFn(first.program, 'f_grad', [x, y]).nl[0] as number[];
  grad(x, y).forEach((want, i) => expect(g[i]).toBeCloseTo(want, 12));
  // jvp of the gradient def: (∇f, H·v). The gradient def is differentiated like any function.
  const second = withNested(first.program, 'jvp', first.made.signature);
  const [value, tangent] = evalFn(second.program, 'f_grad_jvp', [x, y, vx, vy]).nl[0] as number[][];
  const H = hessian(x, y);
  grad(x, y).forEach((want, i) => expect(value[i]).toBeCloseTo(want, 12));
  [0, 1].forEach((i) => expect(tangent[i]).toBeCloseTo(H[i][0] * vx + H[i][1] * vy, 12));
  // The ordinary driver on the same program still derives f itself, beside the nested defs.
  const h = hvpOf(second.program, 'f', driver);
  const hv = evalFn(h.program, h.hvp, [x, y, vx, vy]).nl as number[];
  [0, 1].forEach((i) => expect(hv[i]).toBeCloseTo(H[i][0] * vx + H[i][1] * vy, 12));
});

test('the hvp def takes one direction for several wrt and returns H·v in the same shape', () => {
  const [x, y, vx, vy] = [-0.2, 0.9, 1.5, -0.5];
  const { program } = withNested(parseProgram(src), 'hvp');
  const hv = evalFn(program, 'f_hvp', [x, y, [vx, vy]]).nl[0] as number[];
  const H = hessian(x, y);
  [0, 1].forEach((i) => expect(hv[i]).toBeCloseTo(H[i][0] * vx + H[i][1] * vy, 12));
});
