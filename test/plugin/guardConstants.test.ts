// Two printer forms that shorten emitted code (docs/benchmarks.md, "Emitted code size", s11):
// - a value hoisted out of a loop is computed under the loop's guard (`if (n > 0) { … } else
//   { x = 0; … }`); the else's constants are the initializers of the `let` instead
//   (backend/ts/fold.ts, constantsFirst);
// - a tangent stack's read with a number for its zero is one expression (`i < s.n ? s.a[s.b + i] : 0`,
//   backend/ts/constructs/stack.ts, lat), and a push past its top one runtime call (lpush).
// Checked against central differences, with loops that run zero times, and on the emitted text.
import { expectClose, load, partial } from './harness';

const source = `import { grad, hessian } from 'tsad';
/** @differentiable */
export function scaled(w: number, x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.sin(w) * Math.exp(0.5 * w) * x[i] * x[i];
  return s;
}
/** @differentiable */
export function stepped(a: number, b: number, t: Float64Array): number {
  let total = 0;
  for (let i = 0; i < t.length; i++) {
    let y = a;
    let v = b;
    for (let k = 0; k < 5; k++) {
      const acc = -a * y - b * v;
      y = y + 0.1 * t[i] * v;
      v = v + 0.1 * acc;
    }
    total += y * y;
  }
  return total;
}
export const gScaled = grad(scaled, { wrt: [0, 1] });
export const gStepped = grad(stepped, { wrt: [0, 1] });
export const hStepped = hessian(stepped, { wrt: [0, 1] });
`;

const { exports: m, result } = load(source);
const text = result.outputText;

function plainStepped(a: number, b: number, t: Float64Array): number {
  let total = 0;
  for (let i = 0; i < t.length; i++) {
    let y = a;
    let v = b;
    for (let k = 0; k < 5; k++) {
      const acc = -a * y - b * v;
      y = y + 0.1 * t[i] * v;
      v = v + 0.1 * acc;
    }
    total += y * y;
  }
  return total;
}

test('no else branch that only assigns constants: they initialize the let', () => {
  const elseBlocks = [...text.matchAll(/else \{\n((?:\s*[\w$]+ = [^;\n]+;\n)+)\s*\}/g)].map((b) => b[1]);
  const constantsOnly = elseBlocks.filter((b) => b.split('\n').every((l) => l.trim() === '' || /^\s*[\w$]+ = \(?-?(\d[\d.e+-]*|true|false|Infinity)\)?;$/.test(l)));
  expect(constantsOnly).toEqual([]);
  expect(text).toMatch(/^\s*let [\w$]+ = 0\b/m);
});

test('a guarded hoisted value: gradient against central differences, and with the loop run zero times', () => {
  const x = new Float64Array([0.3, -1.2, 2]);
  const [gw, gx] = m.gScaled(0.7, x);
  const f = (w: number, ...xs: number[]) => {
    let s = 0;
    for (const v of xs) s += Math.sin(w) * Math.exp(0.5 * w) * v * v;
    return s;
  };
  expectClose(
    [gw, ...gx],
    [0, 1, 2, 3].map((k) => partial(f, [0.7, ...x], k, 0)[0]),
  );
  const [gw0, gx0] = m.gScaled(0.7, new Float64Array(0));
  expect(gw0).toBe(0);
  expect(gx0.length).toBe(0);
});

test("a tangent stack's read is one runtime call, not an if/else; a push one runtime call", () => {
  expect(text).not.toMatch(/^\s*if \([\w$]+ < [\w$]+\.n\)$/m);
  // lat: `tsad$lat(s, i)` (0 past the size); lpush: `tsad$lpush(s, k, x, $slab)`, no size update of its own.
  expect(text).toMatch(/tsad\$lat\([\w$]+, /);
  expect(text).toMatch(/^\s*tsad\$lpush\([\w$]+, [^;]+, [\w$]+, \$slab\);$/m);
  expect(text).not.toMatch(/^\s*[\w$]+\.n = [\w$]+ \+ 1;$/m);
});

test('forward over reverse through nested loops (tangent stacks): the Hessian against central differences of the gradient, and zero trips', () => {
  const t = new Float64Array([0.5, 1.5, -0.7]);
  const [a, b] = [0.8, 0.3];
  const H = (m.hStepped(a, b, t) as number[][]).flat(Infinity) as number[];
  const g = (x: number, y: number) => m.gStepped(x, y, t) as number[];
  const ref = [0, 1].map((r) => [0, 1].map((c) => partial((x: number, y: number) => g(x, y)[r], [a, b], c, 0)[0]));
  expectClose(H, ref.flat(), 1e-5);
  const gRef = [0, 1].map((k) => partial((x: number, y: number) => plainStepped(x, y, t), [a, b], k, 0)[0]);
  expectClose(g(a, b), gRef);
  expect((m.hStepped(a, b, new Float64Array(0)) as number[][]).flat(Infinity)).toEqual([0, 0, 0, 0]);
});
