// Conditionals around loops (cond/hoistLengths.ts, cond/slots.ts): branches that build arrays of
// different lengths and loop over them, a cond inside a while body choosing which array to read,
// and tuples carried through loops and branches (backend/ts/scalarize.ts). Gradients against
// central differences at lengths 0 to 6, on both sides of each branch.
import { load, partial, expectClose } from './harness';

const source = `
import { grad, hvp } from 'tsad';

/** @differentiable */
export function branchArrays(x: Float64Array, p: number): number {
  const n = x.length;
  const y = new Float64Array(p > 0 ? n : n + 2);
  if (p > 0) {
    for (let i = 0; i < n; i++) y[i] = x[i] * p;
  } else {
    for (let i = n - 1; i >= 0; i--) y[i + 2] = x[i] * x[i] + p;
  }
  let s = 0;
  for (let i = 0; i < y.length; i++) s += Math.sin(y[i]) * (i + 1);
  return s;
}

/** @differentiable */
export function whileChoose(x: Float64Array, p: number): number {
  const n = x.length;
  const a = new Float64Array(n);
  const b = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    a[i] = x[i] * p;
    b[i] = Math.exp(x[i] * 0.3);
  }
  let s = 0;
  let k = 0;
  let useA = p > 0;
  while (k < n) {
    const v = useA ? a[k] : b[n - 1 - k];
    if (v > 0.2) {
      s += v * v;
      useA = !useA;
    } else {
      s = s * 0.5 + v;
    }
    k++;
  }
  return s;
}

/** @differentiable */
export function tupleBranches(x: Float64Array, p: number): number {
  let st: [number, number, number] = [p, 1, 0];
  for (let i = 0; i < x.length; i++) {
    const [u, v, w] = st;
    if (u * x[i] > 0) st = [u * 0.9 + x[i], v * x[i], w + u];
    else st = [u - x[i] * v, v, w * 0.5 + x[i]];
  }
  const [u, v, w] = st;
  return u * v + w;
}

/** @differentiable */
export function condSum(x: Float64Array, p: number): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    const t = x[i] > p ? x[i] * x[i] : p * x[i];
    s += t;
  }
  let q = 0;
  for (let i = x.length - 1; i >= 0; i--) q += s * x[i];
  return q;
}
export const g = {
  branchArrays: grad(branchArrays, { wrt: [0, 1] }),
  whileChoose: grad(whileChoose, { wrt: [0, 1] }),
  tupleBranches: grad(tupleBranches, { wrt: [0, 1] }),
  condSum: grad(condSum, { wrt: [0, 1] }),
};
export const f = { branchArrays, whileChoose, tupleBranches, condSum };
export const hvBranch = hvp(branchArrays, { wrt: [0, 1] });
`;

const { exports: m } = load(source);
const rand = (k: number) => Math.sin(12.9898 * k + 1) * 0.9;
const vec = (n: number, seed: number) => Float64Array.from({ length: n }, (_, i) => rand(seed + 7 * i));
const asF =
  (fn: (...a: any[]) => any) =>
  (...a: any[]) =>
    fn(...a.map((v) => (Array.isArray(v) ? Float64Array.from(v) : v)));

for (const name of Object.keys(m.g)) {
  test(name, () => {
    for (let n = 0; n <= 6; n++) {
      for (const p of [0.8, -0.7, 0.15]) {
        const x = vec(n, 11 * n + 2);
        const [gx, gp] = m.g[name](x, p);
        const F = asF(m.f[name]);
        expectClose(
          Array.from(gx as Float64Array),
          Array.from(x, (_, k) => partial(F, [Array.from(x), p], 0, k)[0]),
          1e-5,
        );
        expectClose([gp], partial(F, [Array.from(x), p], 1, 0), 1e-5);
      }
    }
  });
}

test('hvp through branches building arrays of different lengths', () => {
  const h = 1e-6;
  for (const n of [0, 1, 4]) {
    for (const p of [0.8, -0.7]) {
      const x = vec(n, n + 8);
      const v = vec(n, n + 30);
      const [hx, hp] = m.hvBranch(x, p, [v, 0.4]);
      const [ux, up] = m.g.branchArrays(
        Float64Array.from(x, (xi, i) => xi + h * v[i]),
        p + h * 0.4,
      );
      const [dx, dp] = m.g.branchArrays(
        Float64Array.from(x, (xi, i) => xi - h * v[i]),
        p - h * 0.4,
      );
      expectClose([...Array.from(hx as Float64Array), hp], [...Array.from(ux as Float64Array, (u, i) => (u - dx[i]) / (2 * h)), (up - dp) / (2 * h)], 1e-5);
    }
  }
});
