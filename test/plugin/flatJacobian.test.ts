// jacobian, jacfwd and jacrev with `{ flat: true }` (issue 22, item 5): the whole Jacobian in one
// row-major Float64Array, `{ data, rows, cols }`, with no array per row. Checked against the
// nested Jacobian of the same call and against central differences.
import { compile, load, expectClose, partial } from './harness';

const source = `
import { jacobian, jacfwd, jacrev } from 'tsad';

/** @differentiable */
export function project(r: number, c: number, X: [number, number, number], w: number): [number, number] {
  const s = Math.sin(r);
  const k = Math.cos(r);
  const x = k * (X[0] - c) - s * X[1];
  const y = s * (X[0] - c) + k * X[1];
  const z = X[2] + 3;
  return [w * x / z, w * y / z];
}

/** @differentiable */
export function polar(p: { r: number; t: number }): { x: number; y: number; r2: number } {
  return { x: p.r * Math.cos(p.t), y: p.r * Math.sin(p.t), r2: p.r * p.r };
}

export const flatAll = jacobian(project, { wrt: [0, 1, 2, 3], flat: true });
export const nestedAll = jacobian(project, { wrt: [0, 1, 2, 3] });
export const flatFwd = jacfwd(project, { wrt: [0, 1, 2, 3], flat: true });
export const flatRev = jacrev(project, { wrt: [0, 1, 2, 3], flat: true });
export const flatPolar = jacobian(polar, { flat: true });
export const flatPolarRev = jacrev(polar, { flat: true });
export const nestedPolar = jacobian(polar);
`;

const { exports: m, result } = load(source);
const at: [number, number, [number, number, number], number] = [0.3, -0.4, [1.2, 0.7, 0.5], 1.7];
const proj = (r: number, c: number, X: [number, number, number], w: number): [number, number] => {
  const s = Math.sin(r);
  const k = Math.cos(r);
  const x = k * (X[0] - c) - s * X[1];
  const y = s * (X[0] - c) + k * X[1];
  const z = X[2] + 3;
  return [(w * x) / z, (w * y) / z];
};
/** Central differences, rows the result's numbers, columns r, c, X0, X1, X2, w. */
function fdProject(): number[][] {
  const flatArgs = (v: number[]) => proj(v[0], v[1], [v[2], v[3], v[4]], v[5]);
  const x0 = [at[0], at[1], ...at[2], at[3]];
  const cols = x0.map((_, j) => partial((...v: number[]) => flatArgs(v), x0, j, 0));
  return [0, 1].map((r) => cols.map((col) => col[r]));
}

describe('flat Jacobians', () => {
  test('jacobian, jacfwd and jacrev: one Float64Array, entries as the nested Jacobian and central differences', () => {
    const ref = fdProject();
    for (const f of [m.flatAll, m.flatFwd, m.flatRev]) {
      const J = f(...at);
      expect(J.data).toBeInstanceOf(Float64Array);
      expect([J.rows, J.cols, J.data.length]).toEqual([2, 6, 12]);
      expectClose([...J.data], ref.flat(), 1e-6);
    }
    // The nested form: one matrix per wrt parameter (a tuple's matrix has 3 columns).
    const N = m.nestedAll(...at);
    const nestedRows = [0, 1].map((r) => N.flatMap((block: number[][]) => block[r]));
    expect([...m.flatAll(...at).data]).toEqual(nestedRows.flat());
  });

  test('an object parameter and an object result: rows and columns in field-name order, as the nested Jacobian', () => {
    const p = { r: 1.3, t: 0.4 };
    // r2, x, y
    const f = (r: number, t: number) => [r * r, r * Math.cos(t), r * Math.sin(t)];
    const cols = [0, 1].map((j) => partial(f, [p.r, p.t], j, 0));
    const ref = [0, 1, 2].map((i) => cols.map((c) => c[i]));
    for (const g of [m.flatPolar, m.flatPolarRev]) {
      const J = g(p);
      expect([J.rows, J.cols]).toEqual([3, 2]);
      expectClose([...J.data], ref.flat(), 1e-6);
      expect([...J.data]).toEqual(m.nestedPolar(p).flat());
    }
  });

  test('the emitted wrapper writes one Float64Array and builds no row arrays', () => {
    const text = result.outputText;
    const bodyOf = (name: string) => {
      const wrapper = text.slice(text.indexOf(`function ${name}(`));
      return wrapper.slice(0, wrapper.indexOf('\n}\n'));
    };
    // Forward mode: the wrapper stores each entry; reverse mode (jacobian picks it: 2 rows, 6
    // columns): the fused def writes them itself (test/plugin/jacobianInto.test.ts).
    const fwd = bodyOf('project_jacfwd_0_1_2_3_flat');
    expect(fwd.match(/new Float64Array\(offset \+ 12\)/g)).toHaveLength(1);
    expect(fwd.match(/\bout\[offset( \+ \d+)?\] = /g)).toHaveLength(12);
    const rev = bodyOf('project_jacobian_0_1_2_3_flat');
    expect(rev.match(/new Float64Array\(offset \+ 12\)/g)).toHaveLength(1);
    expect(rev).toMatch(/project\$jac_0_1_2_3\$into\(/);
    for (const body of [fwd, rev]) expect(body).not.toMatch(/return \[\[/);
  });

  test('an output argument is written and returned, and reused from call to call', () => {
    const out = new Float64Array(12);
    const J = m.flatAll(...at, out);
    expect(J.data).toBe(out);
    expect([...out]).toEqual([...m.flatAll(...at).data]);
    const at2: typeof at = [0.9, 0.1, [0.2, -0.3, 1.5], 0.8];
    expect(m.flatRev(...at2, out).data).toBe(out);
    expectClose([...out], [...m.flatFwd(...at2).data], 1e-12);
    // Longer is fine: the entries go first.
    const long = new Float64Array(20).fill(7);
    m.flatFwd(...at, long);
    expectClose([...long.subarray(0, 12)], [...m.flatAll(...at).data], 1e-12);
    expect([...long.subarray(12)]).toEqual(Array(8).fill(7));
    // At an offset: forward mode's wrapper stores there too, reverse mode's def writes there.
    for (const f of [m.flatFwd, m.flatRev]) {
      const big = new Float64Array(20).fill(7);
      expect(f(...at, big, 5).offset).toBe(5);
      expectClose([...big.subarray(5, 17)], [...m.flatAll(...at).data], 1e-12);
      expect([...big.subarray(0, 5), ...big.subarray(17)]).toEqual(Array(8).fill(7));
    }
  });

  test('an output argument of the wrong size or kind, and wrong arguments, are errors naming them', () => {
    expect(() => m.flatAll(...at, new Float64Array(11))).toThrow(
      new RangeError("jacobian(project): the output argument 'out' must be a Float64Array of at least 12 numbers (2 rows × 6 columns), got length 11"),
    );
    expect(() => m.flatAll(...at, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])).toThrow(/'out' must be a Float64Array of at least 12 numbers \(2 rows × 6 columns\), got object/);
    expect(() => m.flatAll(...at, new Float32Array(12))).toThrow(TypeError);
    expect(() => m.flatAll(...at, new Float64Array(12), 0, 1)).toThrow(/expects 4 arguments, got 7/);
    expect(() => m.flatAll(0.3, -0.4, [1, 2], 1, new Float64Array(12))).toThrow("jacobian(project): argument 3 'X[2]' must be a number, got undefined");
  });

  test('wrong arguments are TypeErrors naming them', () => {
    expect(() => m.flatAll(0.3, -0.4, [1, 2], 1)).toThrow(TypeError);
    expect(() => m.flatAll(0.3, -0.4, [1, 2, 3])).toThrow(/expects 4 arguments, got 3/);
    expect(() => m.flatPolar({ r: 1 })).toThrow("jacobian(polar): argument 1 'p.t' must be a number, got undefined");
  });

  test('flat must be written true or false, and takes no arrays (TSAD1003, TSAD1121)', () => {
    const diagnose = (body: string) => compile(`import { jacobian, grad } from 'tsad';\n${body}`, { throwOnError: false }).diagnostics.map((d) => `TSAD${d.code - 900000}: ${d.messageText}`);
    const f = '/** @differentiable */\nexport function f(x: number[]): number[] { return x.map((v) => v * v); }\n';
    expect(diagnose(`${f}const on = true;\nexport const j = jacobian(f, { flat: on });`).join('\n')).toMatch(/TSAD1003: .*flat must be written true or false/);
    expect(diagnose(`${f}export const j = jacobian(f, { flat: true });`).join('\n')).toMatch(/TSAD1121: jacobian\(f, \{ flat: true \}\) needs numbers/);
    expect(diagnose(`/** @differentiable */\nexport function g(x: number): number { return x * x; }\nexport const d = grad(g, { flat: true });`).join('\n')).toMatch(/TSAD1003: unknown option 'flat'/);
  });
});
