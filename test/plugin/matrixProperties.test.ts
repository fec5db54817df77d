// Random matrix functions through the plugin (property): over a matrix m: number[][], a vector
// w: Float64Array with as many elements as m has columns and a scalar c, statements built from
// nested loops reading m[i][j], for…of rows with dot(row, w), m[i] as a row value, m.map over rows
// (a number per row, then sum), rows-out maps m.map((row) => row.map((x) => …)) (with the indices
// too), writes m[i][j] = … and += … into a copied matrix or a new zero matrix (in both arms of an
// if on a value too), and matmul of m with a matrix built from w by Array.from / Float64Array.from.
// At sizes 0 × 0, 1 × 1, 1 × 3, 3 × 1, 3 × 3 and 3 × 0, the gradient (a matrix, a vector and a
// number) must equal central differences element by element, and the JVP along a random direction
// must equal ⟨gradient, direction⟩ and the directional difference. A second property returns a
// matrix (rows out, writes into a copy, a product) and checks its JVP against differences and its
// vjp pullback by the dot-product test ⟨ȳ, J·ẋ⟩ = ⟨Jᵀ·ȳ, ẋ⟩. Differences are not compared where a
// value comparison flips within the step (see smoothAlong). Several generated functions share one
// compiled file (the plugin is the slow part).
import fc from 'fast-check';
import { smoothExpression } from '../gen/source';
import { compile, directional, expectClose, leaves, loadOutput, mapLeaves, partial } from './harness';

const smooth = (vars: readonly string[]) => smoothExpression(vars);

/** One statement adding to `s`, from the matrix operations the front end lowers. */
const statement: fc.Arbitrary<string> = fc.oneof(
  // Nested loops reading m[i][j] (with the counters and the running sum in the expression).
  smooth(['x', 'c', 'i', 'j']).map(
    (e) => `for (let i = 0; i < m.length; i++) {
    for (let j = 0; j < m[i].length; j++) {
      const x = m[i][j];
      s = s + ${e} * w[j];
    }
  }`,
  ),
  smooth(['x', 'c', 's']).map(
    (e) => `for (let i = 0; i < m.length; i++) for (let j = 0; j < m[i].length; j++) {
    const x = m[i][j];
    s = 0.5 * s + Math.tanh(${e});
  }`,
  ),
  // for…of rows, dot(row, w).
  smooth(['d', 'c', 's']).map(
    (e) => `for (const row of m) {
    const d = dot(row, w);
    s = s + ${e};
  }`,
  ),
  // m[i] as a row value.
  smooth(['d', 'c']).map(
    (e) => `for (let i = 0; i < m.length; i++) {
    const d = dot(m[i], w) + sum(m[i]) * c;
    s = s + ${e};
  }`,
  ),
  // m.map over rows returning a number, then sum.
  smooth(['dot(row, w)', 'sum(row)', 'c', 'i']).map((e) => `s = s + sum(m.map((row, i) => ${e}));`),
  // Rows out, then a double loop summing.
  smooth(['x', 'c']).map(
    (e) => `{
    const q = m.map((row) => row.map((x) => ${e}));
    for (let i = 0; i < q.length; i++) for (let j = 0; j < q[i].length; j++) s = s + q[i][j] * (w[j] + c);
  }`,
  ),
  smooth(['x', 'c', 'i', 'j']).map(
    (e) => `{
    const q = m.map((row, i) => row.map((x, j) => ${e} * w[j]));
    s = s + sum(q.map((row) => sum(row)));
  }`,
  ),
  // Writes into a copied matrix: plain, a recurrence down the rows, compound in both arms of an
  // if on a value comparison.
  smooth(['x', 'c']).map(
    (e) => `{
    const b = m.map((row) => row.slice());
    for (let i = 0; i < b.length; i++) for (let j = 0; j < b[i].length; j++) {
      const x = b[i][j];
      b[i][j] = ${e};
    }
    for (let i = 1; i < b.length; i++) for (let j = 0; j < b[i].length; j++) b[i][j] += b[i - 1][j] * c;
    for (let i = 0; i < b.length; i++) for (let j = 0; j < b[i].length; j++) s = s + b[i][j] * m[i][j];
  }`,
  ),
  smooth(['x', 'c']).map(
    (e) => `{
    const b = m.map((row) => row.slice());
    for (let i = 0; i < b.length; i++) {
      for (let j = 0; j < b[i].length; j++) {
        const x = b[i][j];
        if (b[i][j] > c) b[i][j] *= ${e};
        else b[i][j] += w[j] * c;
      }
    }
    // A row of a written matrix is read by its elements (for…of or dot(b[i], w) would be TSAD1123).
    for (let i = 0; i < b.length; i++) for (let j = 0; j < b[i].length; j++) s = s + b[i][j] * w[j];
  }`,
  ),
  // Writes into a new zero matrix (rows × w.length).
  smooth(['x', 'c']).map(
    (e) => `{
    const z = new Array(m.length).fill(0).map(() => new Float64Array(w.length));
    for (let i = 0; i < m.length; i++) for (let j = 0; j < w.length; j++) {
      const x = m[i][j] * w[j];
      z[i][j] = ${e};
      if (x < c) z[i][j] += x * x;
    }
    for (let i = 0; i < z.length; i++) for (let j = 0; j < z[i].length; j++) s = s + z[i][j];
  }`,
  ),
  // matmul of m with a w.length × 2 matrix built from w.
  smooth(['p', 'c']).map(
    (e) => `{
    const B = Array.from({ length: w.length }, (_, i) => Float64Array.from({ length: 2 }, (_, j) => w[i] * (j + 1) + c));
    const P = matmul(m, B);
    for (let i = 0; i < P.length; i++) for (let j = 0; j < P[i].length; j++) {
      const p = P[i][j];
      s = s + ${e};
    }
  }`,
  ),
);

const fnBody = fc.tuple(fc.array(statement, { minLength: 1, maxLength: 3 }), smooth(['s', 'c'])).map(([ss, r]) => `  let s = 0;\n  ${ss.join('\n  ')}\n  return ${r};`);

/** A function returning a matrix from m and c (rows out). */
const matrixBody: fc.Arbitrary<string> = fc.oneof(
  smooth(['x', 'c']).map((e) => `  return m.map((row) => row.map((x) => ${e}));`),
  smooth(['x', 'c']).map(
    (e) => `  const b = m.map((row) => row.slice());
  for (let i = 0; i < b.length; i++) for (let j = 0; j < b[i].length; j++) {
    const x = b[i][j];
    b[i][j] = ${e};
    if (x > c) b[i][j] += c * x;
  }
  return b;`,
  ),
  smooth(['x', 'c', 'd']).map(
    (e) => `  return m.map((row) => {
    const d = sum(row);
    return row.map((x) => ${e});
  });`,
  ),
  // A 2 × columns product: matmul of a 2 × rows matrix built from c with m, then mapped.
  smooth(['x', 'c']).map(
    (e) => `  const B = Array.from({ length: 2 }, (_, i) => Float64Array.from({ length: m.length }, (_, j) => c * (i + 1) - j));
  return matmul(B, m).map((row) => row.map((x) => ${e}));`,
  ),
);

/** rows × columns; a matrix with no rows has no columns (m = [] says nothing of its width). */
const SIZES: readonly (readonly [number, number])[] = [
  [0, 0],
  [1, 1],
  [1, 3],
  [3, 1],
  [3, 3],
  [3, 0],
];

const numbers = (n: number) => fc.array(fc.double({ min: -1.5, max: 1.5, noNaN: true }), { minLength: n, maxLength: n });
/** Enough numbers for a point, a direction and a cotangent at each size. */
const points = fc.tuple(...SIZES.map(([r, k]) => numbers(3 * (r * k + k + 1))));

const same = (x: number, y: number, rel: number) => (Number.isNaN(x) && Number.isNaN(y)) || Math.abs(x - y) <= rel * Math.max(1, Math.abs(y));
const matrix = (xs: number[], r: number, k: number): number[][] => Array.from({ length: r }, (_, i) => xs.slice(i * k, (i + 1) * k));
const inner = (a: readonly number[], b: readonly number[]) => a.reduce((acc, x, i) => acc + x * b[i], 0);

type V = Parameters<typeof leaves>[0];
/** The step of the harness's central differences. */
const H = 1e-5;

/**
 * For each leaf of f's result: whether f is smooth along `dir` over [−H, H] around `at`, i.e. its
 * one-sided differences agree. Where a comparison on a value (`if (x > c)`) flips inside the
 * step, central differences see a kink or a jump that the derivative rightly does not have, and
 * that leaf is not compared. The guard looks at f alone, never at what tsad computed.
 */
function smoothAlong(f: (...a: any[]) => V, at: V[], dir: V[]): boolean[] {
  const shifted = (s: number) =>
    leaves(
      f(
        ...at.map((a, j) => {
          const d = leaves(dir[j]);
          return mapLeaves(a, (x, idx) => x + s * d[idx]);
        }),
      ),
    );
  const [down, mid, up] = [-H, 0, H].map(shifted);
  return mid.map((y, k) => {
    const fwd = (up[k] - y) / H;
    const bwd = (y - down[k]) / H;
    return Math.abs(fwd - bwd) <= 1e-4 * Math.max(1, Math.abs(fwd), Math.abs(bwd));
  });
}

/** The unit direction along leaf `k` of argument `i`. */
const unit = (args: V[], i: number, k: number): V[] => args.map((a, j) => mapLeaves(a, (_, idx) => (j === i && idx === k ? 1 : 0)));

test('grad = JVP = finite differences for random matrix functions at sizes 0 × 0 to 3 × 3 (property)', () => {
  const PER_FILE = 6;
  let checked = 0;
  let total = 0;
  let elements = 0;
  let smoothElements = 0;
  fc.assert(
    fc.property(fc.array(fnBody, { minLength: PER_FILE, maxLength: PER_FILE }), points, (bodies, pts) => {
      const src = [
        `import { grad, jvp, sum, dot, matmul } from 'tsad';`,
        ...bodies.map(
          (body, k) =>
            `/** @differentiable */\nexport function f${k}(m: number[][], w: Float64Array, c: number): number {\n${body}\n}\n` +
            `export const g${k} = grad(f${k}, { wrt: [0, 1, 2] });\n` +
            `export const t${k} = (m: number[][], w: Float64Array, c: number, dm: number[][], dw: Float64Array, dc: number) => jvp(f${k}, [m, w, c], [dm, dw, dc]);`,
        ),
      ].join('\n');
      const compiled = compile(src, { throwOnError: false });
      if (compiled.diagnostics.length > 0 || compiled.typeErrors.length > 0) throw new Error(`${compiled.messages.join('\n')}\n${src}`);
      const e = loadOutput(compiled);
      bodies.forEach((body, k) => {
        const f = e[`f${k}`] as (m: number[][], w: Float64Array, c: number) => number;
        // The function over plain numbers (the harness perturbs number[] leaves).
        const plain = (m: number[][], w: number[], c: number) => f(m, Float64Array.from(w), c);
        SIZES.forEach(([r, n], at) => {
          total++;
          const xs = pts[at];
          const size = r * n + n + 1;
          const unpack = (o: number) => [matrix(xs.slice(o, o + r * n), r, n), xs.slice(o + r * n, o + r * n + n), xs[o + size - 1]] as const;
          const [m, w, c] = unpack(0);
          const [dm, dw, dc] = unpack(size);
          const where = `at ${r} × ${n}, m = ${JSON.stringify(m)}, w = ${JSON.stringify(w)}, c = ${c}\n${body}`;
          const fx = plain(m, w, c);
          let g: [number[][], Float64Array, number];
          let v: number;
          let t: number;
          try {
            g = e[`g${k}`](m, Float64Array.from(w), c);
            [v, t] = e[`t${k}`](m, Float64Array.from(w), c, dm, Float64Array.from(dw), dc);
          } catch (err) {
            throw new Error(`${(err as Error).message} ${where}`);
          }
          const [gm, gw, gc] = g;
          // The gradient has the shapes of the arguments.
          expect(Array.isArray(gm)).toBe(true);
          expect(gm.map((row) => row.length)).toEqual(m.map((row) => row.length));
          expect(gw).toBeInstanceOf(Float64Array);
          expect(gw.length).toBe(n);
          expect(typeof gc).toBe('number');
          if (!same(v, fx, 1e-12)) throw new Error(`jvp value ${v} vs f ${fx} ${where}`);
          const flat = [...leaves(gm), ...gw, gc];
          const dir = [...leaves(dm), ...dw, dc];
          // The dot-product relation for a scalar function: jvp = ⟨∇f, direction⟩.
          const projected = inner(flat, dir);
          if (!same(projected, t, 1e-8)) throw new Error(`⟨grad, v⟩ ${projected} vs jvp ${t} ${where}`);
          if (!Number.isFinite(fx) || Math.abs(fx) > 1e4) return;
          // Element by element against central differences (each leaf of m, of w, and c), where
          // no branch flips within the step.
          const args: V[] = [m, w, c];
          args.forEach((a, i) =>
            leaves(a).forEach((_, idx) => {
              const g1 = flat[args.slice(0, i).reduce((acc: number, b) => acc + leaves(b).length, 0) + idx];
              elements++;
              if (!smoothAlong(plain as never, args, unit(args, i, idx))[0]) return;
              try {
                expectClose([g1], partial(plain as never, args, i, idx), 1e-4);
              } catch (err) {
                throw new Error(`∂f/∂(leaf ${idx} of argument ${i}): ${(err as Error).message} ${where}`);
              }
              smoothElements++;
            }),
          );
          if (!smoothAlong(plain as never, args, [dm, dw, dc])[0]) return;
          try {
            expectClose([t], directional(plain as never, args, [dm, dw, dc]), 1e-4);
          } catch (err) {
            throw new Error(`jvp vs directional differences: ${(err as Error).message} ${where}`);
          }
          checked++;
        });
      });
    }),
    { numRuns: 4 },
  );
  expect(checked).toBeGreaterThan(total / 2);
  expect(smoothElements).toBeGreaterThan(elements / 2);
});

test('jvp = directional differences and ⟨ȳ, J·ẋ⟩ = ⟨Jᵀ·ȳ, ẋ⟩ for random rows-out matrix functions (property)', () => {
  const PER_FILE = 4;
  let checked = 0;
  let total = 0;
  fc.assert(
    fc.property(fc.array(matrixBody, { minLength: PER_FILE, maxLength: PER_FILE }), points, (bodies, pts) => {
      const src = [
        `import { jvp, vjp, sum, matmul } from 'tsad';`,
        ...bodies.map(
          (body, k) =>
            `/** @differentiable */\nexport function f${k}(m: number[][], c: number): number[][] {\n${body}\n}\n` +
            `export const t${k} = (m: number[][], c: number, dm: number[][], dc: number) => jvp(f${k}, [m, c], [dm, dc]);\n` +
            `export const p${k} = (m: number[][], c: number) => vjp(f${k}, m, c);`,
        ),
      ].join('\n');
      const compiled = compile(src, { throwOnError: false });
      if (compiled.diagnostics.length > 0 || compiled.typeErrors.length > 0) throw new Error(`${compiled.messages.join('\n')}\n${src}`);
      const e = loadOutput(compiled);
      bodies.forEach((body, k) => {
        const f = e[`f${k}`] as (m: number[][], c: number) => number[][];
        SIZES.forEach(([r, n], at) => {
          total++;
          const xs = pts[at];
          const m = matrix(xs, r, n);
          const c = xs[r * n];
          const dm = matrix(xs.slice(r * n + 1), r, n);
          const dc = 0.7;
          const where = `at ${r} × ${n}, m = ${JSON.stringify(m)}, c = ${c}\n${body}`;
          const y = f(m, c);
          // A cotangent of the result's shape, from the rest of the numbers.
          const rest = xs.slice(2 * r * n + 1);
          const ct = mapLeaves(y, (_, idx) => 0.5 - rest[idx]) as number[][];
          let value: number[][];
          let dy: number[][];
          let back: number[][];
          let value2: number[][];
          let gc: number;
          try {
            [value, dy] = e[`t${k}`](m, c, dm, dc);
            const [v2, pullback] = e[`p${k}`](m, c);
            value2 = v2;
            [back, gc] = pullback(ct);
          } catch (err) {
            throw new Error(`${(err as Error).message} ${where}`);
          }
          const shape = (a: number[][]) => a.map((row) => row.length);
          for (const out of [value, dy, value2]) expect(shape(out)).toEqual(shape(y));
          expect(shape(back)).toEqual(shape(m));
          expect(typeof gc).toBe('number');
          expectClose(leaves(value), leaves(y), 1e-12);
          expectClose(leaves(value2), leaves(y), 1e-12);
          // ⟨ȳ, J·ẋ⟩ = ⟨Jᵀ·ȳ, ẋ⟩
          const lhs = inner(leaves(ct), leaves(dy));
          const rhs = inner(leaves(back), leaves(dm)) + gc * dc;
          if (!same(lhs, rhs, 1e-8)) throw new Error(`⟨ȳ, J·ẋ⟩ = ${lhs} vs ⟨Jᵀ·ȳ, ẋ⟩ = ${rhs} ${where}`);
          if (!leaves(y).every((x) => Number.isFinite(x) && Math.abs(x) < 1e4)) return;
          // Leaf by leaf, where no branch flips within the step.
          const smoothLeaves = smoothAlong(f as never, [m, c], [dm, dc]);
          const pick = (xs: number[]) => xs.filter((_, idx) => smoothLeaves[idx]);
          try {
            expectClose(pick(leaves(dy)), pick(directional(f as never, [m, c], [dm, dc])), 1e-4);
          } catch (err) {
            throw new Error(`jvp vs directional differences: ${(err as Error).message} ${where}`);
          }
          if (smoothLeaves.some((ok) => !ok)) return;
          checked++;
        });
      });
    }),
    { numRuns: 3 },
  );
  expect(checked).toBeGreaterThan(total / 2);
});
