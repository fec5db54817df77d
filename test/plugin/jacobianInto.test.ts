// A flat reverse-mode Jacobian of a function of numbers (issue 22, item 5) writes its entries
// straight into the caller's `out`: the fused def (ad/drivers.ts, jacobianRowsOf) is emitted in
// a form that takes the array (backend/emitTs.ts, emitWriterDefs), so a call builds no array of
// its entries for the wrapper to destructure and copy. Checked against central differences, the
// nested Jacobian (the def's returning form), an `out` that is also an argument, and the errors.
import { load, expectClose, partial } from './harness';

const source = `
import { jacobian, jacrev } from 'tsad';

/** @differentiable */
export function reproject(r: number, x: number, y: number, z: number, w: number, k: Float64Array): [number, number, number] {
  let a = 0;
  let b = 0;
  if (r !== 0) {
    const th = Math.sqrt(r * r);
    a = x * Math.cos(th) - y * Math.sin(th);
    b = x * Math.sin(th) + y * Math.cos(th);
  } else {
    a = x - r * y;
    b = y + r * x;
  }
  const u = a / (z + 4);
  const v = b / (z + 4);
  const L = 1 + k[0] * (u * u + v * v);
  return [w * u * L, w * v * L + k[1], w * w];
}

export const flat = jacrev(reproject, { wrt: [0, 1, 2, 3, 4], flat: true });
export const flatJ = jacobian(reproject, { wrt: [0, 1, 2, 3, 4], flat: true });
export const nested = jacrev(reproject, { wrt: [0, 1, 2, 3, 4] });
`;

const { exports: m, result } = load(source);
const f = (r: number, x: number, y: number, z: number, w: number, k: Float64Array): number[] => {
  const th = Math.sqrt(r * r);
  const [a, b] = r !== 0 ? [x * Math.cos(th) - y * Math.sin(th), x * Math.sin(th) + y * Math.cos(th)] : [x - r * y, y + r * x];
  const u = a / (z + 4);
  const v = b / (z + 4);
  const L = 1 + k[0] * (u * u + v * v);
  return [w * u * L, w * v * L + k[1], w * w];
};
/** Central differences: 3 rows (the results), 5 columns (r, x, y, z, w), row-major. */
const fd = (at: number[], k: Float64Array): number[] => {
  const cols = [0, 1, 2, 3, 4].map((j) => partial((...v: number[]) => f(v[0], v[1], v[2], v[3], v[4], k), at, j, 0));
  return [0, 1, 2].flatMap((row) => cols.map((c) => c[row]));
};
/** The function's text in the emitted module. */
const fnText = (name: string): string => {
  const text = result.outputText;
  const start = text.indexOf(`function ${name}(`);
  expect(start).toBeGreaterThanOrEqual(0);
  return text.slice(start, text.indexOf('\n}\n', start));
};

describe('a flat reverse-mode Jacobian written into out by the fused def', () => {
  const points = [
    [0.7, 1.2, -0.4, 0.3, 1.5],
    [-1.1, 0.5, 0.9, -0.6, 0.8],
  ];
  const k = new Float64Array([0.2, -0.7]);

  test('the entries in out equal central differences and the nested Jacobian, on both sides of the branch', () => {
    const out = new Float64Array(15);
    for (const at of points) {
      for (const g of [m.flat, m.flatJ]) {
        out.fill(NaN);
        const J = g(...at, k, out);
        expect(J.data).toBe(out);
        expect([J.rows, J.cols]).toEqual([3, 5]);
        expectClose([...out], fd(at, k), 1e-6);
        // The nested form calls the def's returning form: the same numbers, bit for bit.
        // (One 3 × 1 matrix per parameter: entry (row, c) is nested[c][row][0].)
        const N = m.nested(...at, k);
        expect([...out]).toEqual([0, 1, 2].flatMap((row) => [0, 1, 2, 3, 4].map((c) => N[c][row][0])));
        // Without out, a new array with the same entries.
        expect([...g(...at, k).data]).toEqual([...out]);
      }
    }
    // At r = 0 the other branch (sqrt has no derivative there): columns x, y, z, w as differences.
    const at = [0, 1.2, -0.4, 0.3, 1.5];
    const J = m.flat(...at, k, out);
    const ref = fd(at, k);
    for (let row = 0; row < 3; row++) expectClose([...out.subarray(row * 5 + 1, row * 5 + 5)], ref.slice(row * 5 + 1, row * 5 + 5), 1e-6);
    expect([...J.data].every(Number.isFinite)).toBe(true);
  });

  test('a longer out keeps what follows the entries', () => {
    const out = new Float64Array(18).fill(7);
    m.flat(...points[0], k, out);
    expectClose([...out.subarray(0, 15)], fd(points[0], k), 1e-6);
    expect([...out.subarray(15)]).toEqual([7, 7, 7]);
  });

  test('with an offset the entries go to out[offset …], the rest of out as it was', () => {
    const at = points[1];
    const expected = [...m.flat(...at, k).data];
    for (const g of [m.flat, m.flatJ]) {
      const big = new Float64Array(40).fill(-2);
      const J = g(...at, k, big, 20);
      expect([J.data, J.rows, J.cols, J.offset]).toEqual([big, 3, 5, 20]);
      expect([...big.subarray(20, 35)]).toEqual(expected);
      expect([...big.subarray(0, 20)]).toEqual(Array(20).fill(-2));
      expect([...big.subarray(35)]).toEqual(Array(5).fill(-2));
      // Exactly long enough, and offset 0 as no offset.
      expect([...g(...at, k, big, 25).data.subarray(25)]).toEqual(expected);
      expect(g(...at, k, big, 0).offset).toBe(0);
      expect(g(...at, k).offset).toBe(0);
    }
    // Without out, a new array as long as offset + 15, the entries at the offset.
    const fresh = m.flat(...at, k, undefined, 3);
    expect(fresh.data.length).toBe(18);
    expect([...fresh.data.subarray(3)]).toEqual(expected);
  });

  test('an offset past the end, or not a non-negative integer, is an error naming it, before anything is written', () => {
    const out = new Float64Array(20).fill(5);
    expect(() => m.flat(...points[0], k, out, 6)).toThrow(
      new RangeError("jacrev(reproject): the output argument 'out' must be a Float64Array of at least 15 numbers (3 rows × 5 columns) after offset 6, got length 20"),
    );
    for (const bad of [-1, 1.5, NaN, '3', Infinity]) {
      expect(() => m.flat(...points[0], k, out, bad)).toThrow(new TypeError(`jacrev(reproject): the offset argument 'offset' must be a non-negative integer, got ${String(bad)}`));
    }
    expect(() => m.flat(...points[0], k, undefined, -3)).toThrow(TypeError);
    expect([...out]).toEqual(Array(20).fill(5));
  });

  test('an out that is also the array argument: the def reads the argument as the call found it', () => {
    const at = points[1];
    const expected = [...m.flat(...at, k).data];
    // k is read (k[0] in L, k[1] in a row) by every backward pass; as out, it is written too.
    const shared = new Float64Array(15);
    shared.set(k);
    const J = m.flat(...at, shared, shared);
    expect(J.data).toBe(shared);
    expect([...shared]).toEqual(expected);
  });

  test('an out of the wrong length or kind is an error naming it, before anything is written', () => {
    const short = new Float64Array(14).fill(3);
    expect(() => m.flat(...points[0], k, short)).toThrow(
      new RangeError("jacrev(reproject): the output argument 'out' must be a Float64Array of at least 15 numbers (3 rows × 5 columns), got length 14"),
    );
    expect([...short]).toEqual(Array(14).fill(3));
    expect(() => m.flat(...points[0], k, new Float32Array(15))).toThrow(TypeError);
    expect(() => m.flat(...points[0], k, [0, 0, 0])).toThrow(/'out' must be a Float64Array .* got object/);
  });

  test('the emitted code builds no array per call: the def stores into its array, the wrapper only calls it', () => {
    // The writing form: 15 stores into its array parameter from its offset, no array returned.
    const writer = fnText('reproject$jac_0_1_2_3_4$into');
    expect(writer.match(/\$out\[\$at( \+ \d+)?\] = /g)).toHaveLength(15);
    expect(writer).not.toMatch(/return \[|= \[/);
    // The wrappers pass out to it; no array literal, no destructuring, no copy of entries.
    for (const w of ['reproject_jacrev_0_1_2_3_4_flat', 'reproject_jacobian_0_1_2_3_4_flat']) {
      const body = fnText(w);
      expect(body).toMatch(/reproject\$jac_0_1_2_3_4\$into\([^)]*, out, offset\);/);
      expect(body).not.toMatch(/const \[|= \[|out\[[^\]]+\] =/);
    }
    // The returning form exists for the nested Jacobian only, once.
    expect(result.outputText.match(/function reproject\$jac_0_1_2_3_4\(/g)).toHaveLength(1);
  });
});
