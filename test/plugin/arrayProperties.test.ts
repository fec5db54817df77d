// Random array functions through the plugin (property): loops over Float64Arrays and number[],
// .map (with a free scalar and a zip), .reduce (sum and general folds), for…of, dot, prod, scan,
// .slice and neighbour differences (gathers), writes into local arrays, at lengths 0, 1 and 4. The gradient must equal the
// JVP along a random direction, and both must equal central finite differences of the function
// the plugin left as it was. Several generated functions share one compiled file (the plugin is
// the slow part).
import fc from 'fast-check';
import { smoothExpression } from '../gen/source';
import { compile, loadOutput } from './harness';

const smooth = (vars: readonly string[]) => smoothExpression(vars);

/** One statement adding to `s`, from the array operations the front end lowers. */
const statement: fc.Arbitrary<string> = fc.oneof(
  smooth(['x', 'c']).map((e) => `s = s + sum(a.map((x) => ${e}));`),
  smooth(['x', 'c', 'i']).map((e) => `s = s + sum(a.map((x, i) => ${e} * w[i]));`),
  smooth(['p', 'x']).map((e) => `s = s + a.reduce((p, x) => Math.tanh(${e}), c);`),
  fc.constant('s = s + w.reduce((p, x) => p + x, c);'),
  smooth(['x', 'c', 's']).map((e) => `for (let i = 0; i < a.length; i++) {\n    const x = a[i];\n    s = s + Math.tanh(${e}) * w[i];\n  }`),
  smooth(['x', 'c']).map((e) => `for (const x of w) s = 0.5 * s + ${e};`),
  fc.constant('s = s + dot(a, w);'),
  smooth(['x']).map((e) => `s = s + prod(a.map((x) => Math.tanh(${e})));`),
  fc.constant("s = s + sum(scan(w, '+')) * c;"),
  fc.constant('s = s + sum(Float64Array.from({ length: a.length }, (_, i) => Math.sin(c * i + a[i])));'),
  smooth(['x', 'c']).map((e) => `s = s + sum(a.slice(1).map((x) => ${e}));`),
  fc.constant('s = s + sum(Float64Array.from({ length: Math.max(a.length - 1, 0) }, (_, i) => (a[i + 1] - a[i]) * w[i]));'),
  // Writes into local arrays: each element, a recurrence on the element written before, compound
  // writes inside a branch (value semantics in the IR, in place in the compiled code).
  smooth(['x', 'c']).map(
    (e) => `{
    const b = a.slice();
    for (let i = 0; i < b.length; i++) {
      const x = b[i];
      b[i] = ${e};
    }
    s = s + sum(b);
  }`,
  ),
  smooth(['x', 'c']).map(
    (e) => `{
    const b = new Float64Array(a.length);
    for (let i = 0; i < a.length; i++) {
      const x = a[i];
      b[i] = (i > 0 ? b[i - 1] : c) * Math.tanh(${e}) + w[i];
    }
    s = s + dot(b, a);
  }`,
  ),
  smooth(['x', 'c']).map(
    (e) => `{
    const b = Float64Array.from(w);
    for (let i = 0; i < b.length; i++) {
      const x = b[i];
      b[i] += ${e};
      if (i % 2 === 0) b[i] *= c;
    }
    s = s + sum(b) * s;
  }`,
  ),
);

const fnBody = fc.tuple(fc.array(statement, { minLength: 1, maxLength: 3 }), smooth(['s', 'c'])).map(([ss, r]) => `  let s = 0;\n  ${ss.join('\n  ')}\n  return ${r};`);

const PER_FILE = 5;
const H = 1e-6;
const LENGTHS = [0, 1, 4];

test('grad = JVP = finite differences for random array functions at lengths 0, 1 and 4 (property)', () => {
  let checked = 0;
  let total = 0;
  const point = (n: number) => fc.tuple(fc.array(fc.double({ min: -1.5, max: 1.5, noNaN: true }), { minLength: 3 * n + 1, maxLength: 3 * n + 1 }), fc.constant(n));
  fc.assert(
    fc.property(fc.array(fnBody, { minLength: PER_FILE, maxLength: PER_FILE }), fc.tuple(...LENGTHS.map(point)), (bodies, points) => {
      const src = [
        `import { grad, jvp, sum, dot, prod, scan } from 'tsad';`,
        ...bodies.map(
          (body, k) =>
            `/** @differentiable */\nexport function f${k}(a: Float64Array, w: number[], c: number): number {\n${body}\n}\n` +
            `export const g${k} = grad(f${k}, { wrt: [0, 1, 2] });\n` +
            `export const t${k} = (a: Float64Array, w: number[], c: number, da: Float64Array, dw: number[], dc: number) => jvp(f${k}, [a, w, c], [da, dw, dc]);`,
        ),
      ].join('\n');
      const compiled = compile(src, { throwOnError: false });
      if (compiled.diagnostics.length > 0 || compiled.typeErrors.length > 0) throw new Error(`${compiled.messages.join('\n')}\n${src}`);
      const e = loadOutput(compiled);
      bodies.forEach((body, k) => {
        const f = e[`f${k}`] as (a: Float64Array, w: number[], c: number) => number;
        for (const [xs, n] of points) {
          total++;
          const a = Float64Array.from(xs.slice(0, n));
          const w = xs.slice(n, 2 * n);
          const c = xs[3 * n];
          // A direction: the rest of the numbers, and 0.7 for c.
          const da = Float64Array.from(xs.slice(2 * n, 3 * n));
          const dw = xs.slice(0, n).map((v) => 0.5 - v);
          const dc = 0.7;
          const fx = f(a, w, c);
          const [ga, gw, gc] = e[`g${k}`](a, w, c);
          expect(ga).toBeInstanceOf(Float64Array);
          expect(Array.isArray(gw)).toBe(true);
          expect([ga.length, gw.length]).toEqual([n, n]);
          const [v, t] = e[`t${k}`](a, w, c, da, dw, dc);
          const same = (x: number, y: number, rel: number) => (Number.isNaN(x) && Number.isNaN(y)) || Math.abs(x - y) <= rel * Math.max(1, Math.abs(y));
          if (!same(v, fx, 1e-12)) throw new Error(`jvp value ${v} vs f ${fx}\n${body}`);
          const projected = gc * dc + Array.from(ga as Float64Array).reduce((acc, g, i) => acc + g * da[i], 0) + (gw as number[]).reduce((acc, g, i) => acc + g * dw[i], 0);
          if (!same(projected, t, 1e-8)) throw new Error(`grad·v ${projected} vs jvp ${t} at n = ${n}\n${body}`);
          if (!Number.isFinite(fx) || Math.abs(fx) > 1e4) continue;
          const at = (s: number) =>
            f(
              a.map((x, i) => x + s * da[i]),
              w.map((x, i) => x + s * dw[i]),
              c + s * dc,
            );
          const fd = (at(H) - at(-H)) / (2 * H);
          if (!same(fd, t, 1e-4)) throw new Error(`jvp ${t} vs finite differences ${fd} at n = ${n}\n${body}`);
          checked++;
        }
      });
    }),
    { numRuns: 3 },
  );
  expect(checked).toBeGreaterThan(total / 2);
});
