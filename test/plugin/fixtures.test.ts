// End-to-end fixtures: test/fixtures/<case>/input.ts goes through the plugin; the emitted code is
// snapshotted and every transform in the fixture's `checks` is compared with central finite
// differences at its point.
import * as fs from 'fs';
import * as path from 'path';
import { load, leaves, partial, directional, expectClose } from './harness';

const fixtures = path.join(__dirname, '../fixtures');
const cases = fs.readdirSync(fixtures).filter((d) => fs.existsSync(path.join(fixtures, d, 'input.ts')));

function verify(c: any): void {
  const at = c.at;
  switch (c.kind) {
    case 'grad':
    case 'valueAndGrad': {
      const out = c.d(...at);
      let g = out;
      if (c.kind === 'valueAndGrad') {
        expect(out[0]).toBeCloseTo(c.f(...at), 12);
        g = out[1];
      }
      const grads = c.wrt.length === 1 ? [g] : g;
      c.wrt.forEach((i: number, n: number) => {
        const fd = leaves(at[i]).map((_, k) => partial(c.f, at, i, k)[0]);
        expectClose(leaves(grads[n]), fd);
      });
      return;
    }
    case 'jvp': {
      const [value, tangent] = c.d(...at);
      expectClose(leaves(value), leaves(c.f(...at)), 1e-12);
      expectClose(leaves(tangent), directional(c.f, at, c.dir));
      return;
    }
    case 'linearize': {
      const [value, fLin] = c.d(...at);
      expectClose(leaves(value), leaves(c.f(...at)), 1e-12);
      expectClose(leaves(fLin(...c.dir)), directional(c.f, at, c.dir));
      return;
    }
    case 'vjp': {
      const [value, pullback] = c.d(...at);
      const ct = c.ct ?? 1;
      const cts = pullback(ct);
      const ctLeaves = leaves(ct);
      expectClose(leaves(value), leaves(c.f(...at)), 1e-12);
      at.forEach((a: any, i: number) => {
        // ⟨ct, ∂f/∂x_ik⟩ for every input leaf: the reverse-mode identity checked numerically.
        const fd = leaves(a).map((_, k) => partial(c.f, at, i, k).reduce((s, d, j) => s + d * ctLeaves[j], 0));
        expectClose(leaves(cts[i]), fd);
      });
      return;
    }
    case 'jacobian': {
      const J = c.d(...at);
      const w = c.wrt?.[0] ?? 0;
      const cols = leaves(at[w]).map((_, k) => partial(c.f, at, w, k));
      expect(J.length).toBe(cols[0].length);
      J.forEach((row: number[], r: number) =>
        expectClose(
          row,
          cols.map((col) => col[r]),
        ),
      );
      return;
    }
    case 'hessian': {
      const Hm = c.d(...at);
      const h = 1e-4;
      const n = leaves(at[0]).length + (at.length > 1 ? 0 : 0);
      const f2 = (i: number, j: number) => {
        const x = at.map((v: number) => v);
        const e = (di: number, dj: number) => c.f(...x.map((v: number, k: number) => v + (k === i ? di : 0) + (k === j ? dj : 0)));
        return (e(h, h) - e(h, -h) - e(-h, h) + e(-h, -h)) / (4 * h * h);
      };
      expect(Hm.length).toBe(n);
      Hm.forEach((row: number[], i: number) => row.forEach((v, j) => expect(Math.abs(v - f2(i, j))).toBeLessThan(1e-5 * Math.max(1, Math.abs(v)))));
      return;
    }
    case 'hvp': {
      const r = c.d(...at, c.v);
      const h = 1e-4;
      const x = at[0];
      const second = (c.f(x + h) - 2 * c.f(x) + c.f(x - h)) / (h * h);
      expect(Math.abs(r - second * c.v)).toBeLessThan(1e-5 * Math.max(1, Math.abs(r)));
      return;
    }
    default:
      throw new Error(`unknown check kind ${c.kind}`);
  }
}

describe.each(cases)('fixture %s', (name) => {
  const source = fs.readFileSync(path.join(fixtures, name, 'input.ts'), 'utf8');
  const { exports, result } = load(source);

  test('compiles without diagnostics; the emitted code matches the snapshot', () => {
    expect(result.typeErrors.map(String)).toEqual([]);
    expect(result.diagnostics).toEqual([]);
    expect(result.outputText).toMatchSnapshot();
  });

  test('emitted code uses no eval or new Function', () => {
    expect(result.outputText).not.toMatch(/\beval\(|new Function/);
  });

  test.each((exports.checks as any[]).map((c, i) => [i, c.kind, c] as const))('check %i: %s agrees with finite differences', (_i, _kind, c) => {
    verify(c);
  });
});
