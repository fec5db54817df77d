// Second derivatives of structured parameters: hessian and hvp with respect to a tuple and an
// object parameter, against hand-derived Hessians.
import { load } from './harness';

const { exports: m, result } = load(`import { hessian, hvp } from 'tsad';
/** @differentiable */
export function bowl(p: [number, number], k: number): number {
  const [x, y] = p;
  return k * x * x * y + Math.sin(x * y);
}
/** @differentiable */
export function spring(q: { a: number; b: number }): number {
  return Math.exp(q.a) * q.b * q.b;
}
export const H = hessian(bowl);
export const Hv = hvp(bowl);
export const Hk = hessian(bowl, { wrt: ['k'] });
export const G = hessian(spring);
export const Gv = hvp(spring);
`);

function bowlHessian(x: number, y: number, k: number): number[][] {
  const s = Math.sin(x * y);
  const c = Math.cos(x * y);
  return [
    [2 * k * y - y * y * s, 2 * k * x + c - x * y * s],
    [2 * k * x + c - x * y * s, -x * x * s],
  ];
}

test('compiles', () => expect(result.diagnostics).toEqual([]));

test('hessian with respect to a tuple parameter', () => {
  const H = m.H([0.7, -1.1], 2.5);
  const ref = bowlHessian(0.7, -1.1, 2.5);
  H.forEach((row: number[], i: number) => row.forEach((v, j) => expect(v).toBeCloseTo(ref[i][j], 12)));
});

test('hvp with respect to a tuple parameter is H·v', () => {
  const ref = bowlHessian(0.7, -1.1, 2.5);
  const v = [0.3, -2];
  const hv = m.Hv([0.7, -1.1], 2.5, v);
  [0, 1].forEach((i) => expect(hv[i]).toBeCloseTo(ref[i][0] * v[0] + ref[i][1] * v[1], 12));
});

test('hessian with respect to a parameter that enters linearly is zero', () => {
  expect(m.Hk([0.7, -1.1], 2.5)).toEqual([[0]]);
});

test('hessian and hvp with respect to an object parameter (fields in name order)', () => {
  const [a, b] = [0.4, 1.3];
  const e = Math.exp(a);
  const ref = [
    [e * b * b, 2 * e * b],
    [2 * e * b, 2 * e],
  ];
  const G = m.G({ a, b });
  G.forEach((row: number[], i: number) => row.forEach((v, j) => expect(v).toBeCloseTo(ref[i][j], 12)));
  const gv = m.Gv({ a, b }, { a: 1, b: -0.5 });
  expect(gv.a).toBeCloseTo(ref[0][0] - 0.5 * ref[0][1], 12);
  expect(gv.b).toBeCloseTo(ref[1][0] - 0.5 * ref[1][1], 12);
});

test('hessian with respect to nested tuples (columns flattened through temporaries)', () => {
  const { exports: n, result: r } = load(`import { hessian } from 'tsad';
/** @differentiable */
export function cubic(p: [[number, number], number]): number {
  return p[0][0] * p[0][1] * p[1] + p[1] * p[1];
}
/** @differentiable */
export function scaled(k: number, p: [[number, number], number]): number {
  return k * p[0][0] * p[0][1] * p[1];
}
export const H = hessian(cubic);
export const Hs = hessian(scaled, { wrt: [0, 1] });
`);
  expect(r.diagnostics).toEqual([]);
  const [a, b, c, k] = [0.5, -2, 3, 1.5];
  const Hp = [
    [0, c, b],
    [c, 0, a],
    [b, a, 2],
  ];
  n.H([[a, b], c]).forEach((row: number[], i: number) => row.forEach((v, j) => expect(v).toBeCloseTo(Hp[i][j], 12)));
  const [[Hkk, Hkp], [Hpk, Hpp]] = n.Hs(k, [[a, b], c]);
  expect(Hkk).toEqual([[0]]);
  const grad = [b * c, a * c, a * b];
  Hkp[0].forEach((v: number, j: number) => expect(v).toBeCloseTo(grad[j], 12));
  Hpk.forEach((row: number[], i: number) => expect(row[0]).toBeCloseTo(grad[i], 12));
  const Hq = [
    [0, k * c, k * b],
    [k * c, 0, k * a],
    [k * b, k * a, 0],
  ];
  Hpp.forEach((row: number[], i: number) => row.forEach((v, j) => expect(v).toBeCloseTo(Hq[i][j], 12)));
});

describe('several wrt parameters', () => {
  const { exports: s, result: r } = load(`import { jacobian, jacfwd, jacrev, hessian, hvp } from 'tsad';
/** @differentiable */
export function bowl(p: [number, number], k: number): number {
  const [x, y] = p;
  return k * x * x * y + Math.sin(x * y) + k * k * x;
}
/** @differentiable */
export function field(p: [number, number], k: number): [number, number, number] {
  return [p[0] * k, Math.sin(p[1]) * k * k, p[0] * p[1]];
}
export const J = jacobian(field, { wrt: [0, 1] });
export const Jf = jacfwd(field, { wrt: ['p', 'k'] });
export const Jr = jacrev(field, { wrt: [0, 1] });
export const H = hessian(bowl, { wrt: [0, 1] });
export const Hv = hvp(bowl, { wrt: [0, 1] });
export const Hk = hvp(bowl, { wrt: ['k'] });
`);

  const [x, y, k] = [0.7, -1.1, 2.5];
  const Jp = [
    [k, 0],
    [0, Math.cos(y) * k * k],
    [y, x],
  ];
  const Jk = [[x], [2 * Math.sin(y) * k], [0]];
  // bowl: f = k x² y + sin(xy) + k² x
  const s_ = Math.sin(x * y);
  const c_ = Math.cos(x * y);
  const Hpp = [
    [2 * k * y - y * y * s_, 2 * k * x + c_ - x * y * s_],
    [2 * k * x + c_ - x * y * s_, -x * x * s_],
  ];
  const Hpk = [[2 * x * y + 2 * k], [x * x]];
  const Hkp = [[2 * x * y + 2 * k, x * x]];
  const Hkk = [[2 * x]];

  const near = (a: number[][], b: number[][]) => {
    expect(a.length).toBe(b.length);
    a.forEach((row, i) => {
      expect(row.length).toBe(b[i].length);
      row.forEach((v, j) => expect(v).toBeCloseTo(b[i][j], 12));
    });
  };

  test('compiles', () => expect(r.diagnostics).toEqual([]));

  test.each(['J', 'Jf', 'Jr'])('%s gives one Jacobian per parameter, rows = outputs', (name) => {
    const [A, B] = s[name]([x, y], k);
    near(A, Jp);
    near(B, Jk);
  });

  test('hessian gives the blocks H[a][b]', () => {
    const [[A, B], [C, D]] = s.H([x, y], k);
    near(A, Hpp);
    near(B, Hpk);
    near(C, Hkp);
    near(D, Hkk);
  });

  test('hvp takes and returns the gradient shape', () => {
    const v: [[number, number], number] = [[0.3, -2], 0.5];
    const [hp, hk] = s.Hv([x, y], k, v);
    [0, 1].forEach((i) => expect(hp[i]).toBeCloseTo(Hpp[i][0] * 0.3 + Hpp[i][1] * -2 + Hpk[i][0] * 0.5, 12));
    expect(hk).toBeCloseTo(Hkp[0][0] * 0.3 + Hkp[0][1] * -2 + Hkk[0][0] * 0.5, 12);
    expect(s.Hk([x, y], k, 0.5)).toBeCloseTo(Hkk[0][0] * 0.5, 12);
  });
});

test("the runtime's declarations type the results by wrt (no plugin needed for the types)", () => {
  const { compile } = require('./harness');
  const r = compile(
    `import { jacobian, hessian, hvp } from 'tsad';
/** @differentiable */
export function bowl(p: [number, number], k: number): number { return k * p[0] * p[1]; }
const one: number[][] = jacobian(bowl)([1, 2], 3);
const two: [number[][], number[][]] = jacobian(bowl, { wrt: [0, 1] })([1, 2], 3);
const blocks: [[number[][], number[][]], [number[][], number[][]]] = hessian(bowl, { wrt: [0, 1] })([1, 2], 3);
const hv: [[number, number], number] = hvp(bowl, { wrt: [0, 1] })([1, 2], 3, [[1, 0], 0]);
const hk: number = hvp(bowl, { wrt: ['k'] })([1, 2], 3, 1);
// @ts-expect-error: the direction has the shape of the differentiated parameter
hvp(bowl)([1, 2], 3, 1);
export { one, two, blocks, hv, hk };
`,
    { throwOnError: false },
  );
  expect(r.typeErrors.map((d: any) => d.messageText)).toEqual([]);
  expect(r.diagnostics).toEqual([]);
});
