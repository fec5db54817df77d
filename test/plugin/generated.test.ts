// End-to-end property test: random differentiable TypeScript functions (smooth operations,
// lets with reassignment and compound assignment, tuple destructuring, calls to another marked
// function) go through the plugin; the compiled grad, valueAndGrad and jvp must agree with the
// function itself and with central finite differences at random points.
import fc from 'fast-check';
import { compile, loadOutput } from './harness';

type Expr = string;

/** Smooth expressions over the given variables (bounded growth, so differences stay accurate). */
function expr(vars: readonly string[]): fc.Arbitrary<Expr> {
  const leaf = fc.oneof(fc.constantFrom(...vars), fc.constantFrom('0.5', '1.5', '2', 'Math.PI / 4'));
  return fc.letrec<{ e: Expr }>((tie) => ({
    e: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.tuple(fc.constantFrom('Math.sin', 'Math.cos', 'Math.tanh', 'Math.atan'), tie('e')).map(([f, a]) => `${f}(${a})`),
      tie('e').map((a) => `Math.exp(Math.sin(${a}))`),
      tie('e').map((a) => `Math.sqrt(1 + (${a}) ** 2)`),
      tie('e').map((a) => `Math.log1p((${a}) * (${a}))`),
      fc.tuple(tie('e'), tie('e')).map(([a, b]) => `Math.hypot(${a}, ${b}, 1)`),
      fc.tuple(tie('e'), fc.constantFrom('+', '-', '*'), tie('e')).map(([a, op, b]) => `(${a} ${op} ${b})`),
      fc.tuple(tie('e'), tie('e')).map(([a, b]) => `(${a}) / (1 + (${b}) ** 2)`),
      tie('e').map((a) => `-(${a})`),
      tie('e').map((a) => `(${a}) ** 3`),
    ),
  })).e;
}

const body = fc
  .tuple(expr(['x', 'y']), expr(['x', 'y', 'a']), expr(['x', 'a', 'b']), fc.constantFrom('+=', '-=', '*='), expr(['y', 'b']), expr(['a', 'b', 'p', 'q', 'x']), fc.boolean())
  .map(([e1, e2, e3, op, e4, ret, useHelper]) =>
    [`  let a = ${e1};`, `  const b = ${useHelper ? `h(${e2}, x)` : e2};`, `  a ${op} Math.tanh(${e3});`, `  const [p, q] = [${e4}, a * b];`, `  a = a + 0.25 * p;`, `  return ${ret};`].join('\n'),
  );

const point = fc.tuple(fc.double({ min: -1.5, max: 1.5, noNaN: true }), fc.double({ min: -1.5, max: 1.5, noNaN: true }));

function source(fnBody: string): string {
  return `import { grad, valueAndGrad, jvp } from 'tsad';
/** @differentiable */
export function h(u: number, v: number): number { return Math.sin(u) * v + u * u / 4; }
/** @differentiable */
export function f(x: number, y: number): number {
${fnBody}
}
export const g = grad(f, { wrt: [0, 1] });
export const vg = valueAndGrad(f, { wrt: ['y'] });
export const t = (x: number, y: number, dx: number, dy: number) => jvp(f, [x, y], [dx, dy]);
`;
}

const H = 1e-6;
function near(actual: number, expected: number, tol: number): boolean {
  return Math.abs(actual - expected) <= tol * Math.max(1, Math.abs(expected));
}

test('compiled derivatives of random functions agree with finite differences (property)', () => {
  fc.assert(
    fc.property(body, point, (fnBody, [x, y]) => {
      const checked = compile(source(fnBody), { throwOnError: false });
      if (checked.diagnostics.length > 0) throw new Error(`${checked.messages.join('\n')}\n${source(fnBody)}`);
      const m = loadOutput(checked);
      const f = m.f as (x: number, y: number) => number;
      const fx = f(x, y);
      fc.pre(Number.isFinite(fx) && Math.abs(fx) < 1e6);
      // Central differences at two steps: where they disagree (an intermediate of 10⁷ leaves few
      // digits to a step of 10⁻⁶), their disagreement widens the tolerance, so a limit of the
      // reference is not reported as a wrong gradient.
      const diff = (h: number, ex: number, ey: number) => (f(x + h * ex, y + h * ey) - f(x - h * ex, y - h * ey)) / (2 * h);
      const [dx, dy] = [diff(H, 1, 0), diff(H, 0, 1)];
      const [spreadX, spreadY] = [Math.abs(dx - diff(10 * H, 1, 0)), Math.abs(dy - diff(10 * H, 0, 1))];
      const [gx, gy] = m.g(x, y);
      const agrees = (g: number, d: number, spread: number) => Math.abs(g - d) <= 1e-4 * Math.max(1, Math.abs(d)) + 2 * spread;
      if (!agrees(gx, dx, spreadX) || !agrees(gy, dy, spreadY)) throw new Error(`grad (${gx}, ${gy}) vs differences (${dx}, ${dy})\n${fnBody}`);
      const [v, gyOnly] = m.vg(x, y);
      expect(near(v, fx, 1e-14)).toBe(true);
      expect(gyOnly).toBeCloseTo(gy, 12);
      const [tv, tdot] = m.t(x, y, 0.3, -0.7);
      expect(near(tv, fx, 1e-14)).toBe(true);
      expect(near(tdot, 0.3 * gx - 0.7 * gy, 1e-9)).toBe(true);
    }),
    { numRuns: 50 },
  );
});
