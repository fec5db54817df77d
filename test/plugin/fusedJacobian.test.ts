// Reverse mode's Jacobian of a function of numbers as one def (issue 22, item 5): the primal once,
// then one backward pass per result scalar, all inlined together (ad/drivers.ts, jacobianRowsOf).
// No tape array and no array per backward pass; each seed's zeros fold away. Checked against
// central differences and the forward-mode Jacobian, with a branch, a call, a parameter held
// constant, a row that does not depend on the differentiated parameters, and one result.
import { load, expectClose, partial } from './harness';

const source = `
import { jacobian, jacfwd, jacrev } from 'tsad';

/** @differentiable */
function rotate(r: number, x: number, y: number): [number, number] {
  const th = Math.sqrt(r * r);
  if (th !== 0) return [x * Math.cos(th) - y * Math.sin(th), x * Math.sin(th) + y * Math.cos(th)];
  return [x - r * y, y + r * x];
}

/** @differentiable */
export function reproject(r: number, x: number, y: number, z: number, w: number, k: number): [number, number, number] {
  const [a, b] = rotate(r, x, y);
  const u = a / (z + 4);
  const v = b / (z + 4);
  const L = 1 + k * (u * u + v * v);
  return [w * u * L, w * v * L, k * k];
}

/** @differentiable */
export function energy(x: number, y: number): number {
  return Math.exp(x) * y + x * x;
}

export const revFlat = jacrev(reproject, { wrt: [0, 1, 2, 3, 4], flat: true });
export const jacFlat = jacobian(reproject, { wrt: [0, 1, 2, 3, 4], flat: true });
export const revNested = jacrev(reproject, { wrt: [0, 3] });
export const fwdFlat = jacfwd(reproject, { wrt: [0, 1, 2, 3, 4], flat: true });
export const revEnergy = jacrev(energy, { wrt: [0, 1], flat: true });
`;

const { exports: m, result } = load(source);
const f = (r: number, x: number, y: number, z: number, w: number, k: number): number[] => {
  const th = Math.sqrt(r * r);
  const [a, b] = th !== 0 ? [x * Math.cos(th) - y * Math.sin(th), x * Math.sin(th) + y * Math.cos(th)] : [x - r * y, y + r * x];
  const u = a / (z + 4);
  const v = b / (z + 4);
  const L = 1 + k * (u * u + v * v);
  return [w * u * L, w * v * L, k * k];
};
/** Central differences: rows the 3 results, columns the parameters `cols`. */
const fd = (at: number[], cols: number[]): number[][] => {
  const c = cols.map((j) => partial(f, at, j, 0));
  return [0, 1, 2].map((r) => c.map((col) => col[r]));
};

describe('Jacobians by reverse mode as one def', () => {
  test('flat and nested rows equal central differences and forward mode, on both sides of the branch', () => {
    for (const at of [
      [0.7, 1.2, -0.4, 0.3, 1.5, 0.2],
      [-1.1, 0.5, 0.9, -0.6, 0.8, -0.3],
    ]) {
      const ref = fd(at, [0, 1, 2, 3, 4]);
      for (const g of [m.revFlat, m.jacFlat]) {
        const J = g(...at);
        expect([J.rows, J.cols]).toEqual([3, 5]);
        expectClose([...J.data], ref.flat(), 1e-6);
        expectClose([...J.data], [...m.fwdFlat(...at).data], 1e-12);
      }
      // wrt [0, 3]: one matrix each, rows the results; the third row (k², no r or z in it) is zero.
      const [Jr, Jz] = m.revNested(...at);
      const sub = fd(at, [0, 3]);
      expectClose(
        Jr.map((row: number[]) => row[0]),
        sub.map((row) => row[0]),
        1e-6,
      );
      expectClose(
        Jz.map((row: number[]) => row[0]),
        sub.map((row) => row[1]),
        1e-6,
      );
      expect([Math.abs(Jr[2][0]), Math.abs(Jz[2][0])]).toEqual([0, 0]);
    }
  });

  test('at r = 0 (the other branch, where sqrt has no derivative) the rows are finite and as central differences', () => {
    const at = [0, 1.2, -0.4, 0.3, 1.5, 0.2];
    const J = m.revFlat(...at);
    // Columns x, y, z, w: central differences do not cross the branch (r held at 0).
    const ref = fd(at, [1, 2, 3, 4]);
    const data = [...J.data];
    expect(data.every(Number.isFinite)).toBe(true);
    expectClose(
      [0, 1, 2].flatMap((r) => data.slice(r * 5 + 1, r * 5 + 5)),
      ref.flat(),
      1e-6,
    );
  });

  test('one result: jacrev of a number is its gradient as one row', () => {
    const J = m.revEnergy(0.4, -1.3);
    expect([J.rows, J.cols]).toEqual([1, 2]);
    expectClose([...J.data], [Math.exp(0.4) * -1.3 + 0.8, Math.exp(0.4)], 1e-12);
  });

  test('the emitted wrappers call one def: no backward pass per row, no tape array, no array per row', () => {
    const text = result.outputText;
    for (const w of ['reproject_jacrev_0_1_2_3_4_flat', 'reproject_jacobian_0_1_2_3_4_flat', 'reproject_jacrev_0_3', 'energy_jacrev_0_1_flat']) {
      const start = text.indexOf(`function ${w}(`);
      expect(start).toBeGreaterThanOrEqual(0);
      const body = text.slice(start, text.indexOf('\n}\n', start));
      expect(body).not.toMatch(/\$bwd|\$fwd|tape/);
    }
    // The backward passes were inlined: no def of them is left in the module.
    expect(text).not.toMatch(/function reproject\$bwd|function energy\$bwd/);
    const def = text.slice(text.indexOf('function reproject$jac_0_1_2_3_4('));
    expect(def.slice(0, def.indexOf('\n}\n'))).not.toMatch(/return \[\[|= \[\w+(, \w+)+\];/);
  });
});
