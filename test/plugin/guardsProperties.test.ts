// Property (issue 18, item 1): a `?:` or `if` whose untaken side is NaN or infinite at the point,
// or has NaN or infinite partials there, never leaks NaN into a derivative. Random smooth sides;
// the untaken side reads a singular value s (1/x, √(x²), log(x²), y/x, ... at x = 0), computed
// before the test or inside the side itself. Every derivative of f at (0, y) must equal the same
// derivative of the side taken compiled alone: grad, vjp, jvp, linearize, hessian and hvp. The
// same holds at every order through nested transforms: a function that calls jvp, grad or hvp of
// the guarded one, differentiated again.
import fc from 'fast-check';
import { smoothExpression } from '../gen/source';
import { compile, loadOutput } from './harness';

const smooth = smoothExpression(['x', 'y']);
const SINGULAR = ['1 / x', 'Math.sqrt(x * x)', 'Math.log(x * x)', 'y / x', 'x / Math.sqrt(x * x)', 'Math.sqrt(Math.abs(x)) * y', 'Math.pow(x * x, 0.25)'];

/** The untaken side, reading the singular value `s`. */
const untaken = (s: string) =>
  fc.oneof(
    fc.tuple(smooth, smooth).map(([a, b]) => `(${a}) * ${s} + ${b}`),
    smooth.map((a) => `Math.sin((${a}) * ${s})`),
    fc.tuple(smooth, smooth).map(([a, b]) => `${b} - (${a}) / ${s}`),
    smooth.map((a) => `${s} * ${s} + ${a}`),
  );

interface Case {
  readonly body: string;
  readonly taken: string;
}

const guarded: fc.Arbitrary<Case> = fc
  .tuple(fc.constantFrom(...SINGULAR), fc.boolean(), fc.constantFrom('select', 'swapped', 'if'), fc.constantFrom('x !== 0', 'x * x > 0', 'Math.abs(x) > 0'), smooth)
  .chain(([singular, before, form, test, taken]) =>
    untaken(before ? 's' : `(${singular})`).map((other): Case => {
      const pre = before ? `  const s = ${singular};\n` : '';
      if (form === 'select') return { taken, body: `${pre}  return ${test} ? ${other} : ${taken};` };
      if (form === 'swapped') return { taken, body: `${pre}  return !(${test}) ? ${taken} : ${other};` };
      return { taken, body: `${pre}  let v = ${taken};\n  if (${test}) {\n    v = ${other};\n  }\n  return v;` };
    }),
  );

const PER_FILE = 4;

/** Every transform of one function, exported under a prefix. */
const transforms = (f: string, p: string) => [
  `export const ${p}g = grad(${f}, { wrt: [0, 1] });`,
  `export const ${p}v = (x: number, y: number) => vjp(${f}, x, y)[1](1.5);`,
  `export const ${p}t = (x: number, y: number) => jvp(${f}, [x, y], [0.3, -0.7])[1];`,
  `export const ${p}l = (x: number, y: number) => linearize(${f}, x, y)[1](0.3, -0.7);`,
  `export const ${p}h = hessian(${f}, { wrt: [0, 1] });`,
  `export const ${p}hv = (x: number, y: number) => hvp(${f}, { wrt: [0, 1] })(x, y, [1, 2]);`,
];
const KINDS = ['g', 'v', 't', 'l', 'h', 'hv'];

const leaves = (v: unknown): number[] => (Array.isArray(v) ? v.flatMap(leaves) : [v as number]);

const leavesEqual = (got: number[], want: number[]) =>
  got.length === want.length && got.every((g, i) => (Number.isNaN(want[i]) ? Number.isNaN(g) : Math.abs(g - want[i]) <= 1e-12 * Math.max(1, Math.abs(want[i]))));

test("no NaN from an untaken side: every derivative is the taken side's (property)", () => {
  fc.assert(
    fc.property(fc.array(guarded, { minLength: PER_FILE, maxLength: PER_FILE }), fc.array(fc.double({ min: -2, max: 2, noNaN: true }), { minLength: 2, maxLength: 2 }), (cases, ys) => {
      const src = [
        `import { grad, jvp, vjp, linearize, hessian, hvp } from 'tsad';`,
        ...cases.flatMap((c, k) => [
          `/** @differentiable */\nexport function f${k}(x: number, y: number): number {\n${c.body}\n}`,
          `/** @differentiable */\nexport function r${k}(x: number, y: number): number {\n  return ${c.taken};\n}`,
          ...transforms(`f${k}`, `f${k}`),
          ...transforms(`r${k}`, `r${k}`),
        ]),
      ].join('\n');
      const compiled = compile(src, { throwOnError: false });
      if (compiled.diagnostics.length > 0 || compiled.typeErrors.length > 0) throw new Error(`${compiled.messages.join('\n')}\n${src}`);
      const e = loadOutput(compiled);
      cases.forEach((c, k) => {
        for (const y of ys) {
          for (const kind of KINDS) {
            const got = leaves(e[`f${k}${kind}`](0, y));
            const want = leaves(e[`r${k}${kind}`](0, y));
            if (!leavesEqual(got, want)) throw new Error(`${kind} at (0, ${y}): got ${got}, the side taken gives ${want}\n${c.body}`);
          }
        }
      });
    }),
    { numRuns: 6 },
  );
});

/** A function of (x, y) calling a transform of `g`: its derivatives are second and third order in g. */
const NESTED = {
  jvp: (g: string) => `jvp(${g}, [x, y], [1, 0.5])[1]`,
  grad: (g: string) => `grad(${g}, { wrt: [0, 1] })(x, y)[0]`,
  hvp: (g: string) => `hvp(${g}, { wrt: [0, 1] })(x, y, [1, 2])[1]`,
};

test("no NaN from an untaken side through a nested transform: every derivative is the taken side's (property)", () => {
  const nested = fc.tuple(guarded, fc.constantFrom(...(Object.keys(NESTED) as (keyof typeof NESTED)[])));
  fc.assert(
    fc.property(fc.array(nested, { minLength: PER_FILE, maxLength: PER_FILE }), fc.double({ min: -2, max: 2, noNaN: true }), (cases, y) => {
      const src = [
        `import { grad, jvp, vjp, linearize, hessian, hvp } from 'tsad';`,
        ...cases.flatMap(([c, via], k) => [
          `/** @differentiable */\nexport function f${k}(x: number, y: number): number {\n${c.body}\n}`,
          `/** @differentiable */\nexport function r${k}(x: number, y: number): number {\n  return ${c.taken};\n}`,
          `/** @differentiable */\nexport function nf${k}(x: number, y: number): number { return ${NESTED[via](`f${k}`)}; }`,
          `/** @differentiable */\nexport function nr${k}(x: number, y: number): number { return ${NESTED[via](`r${k}`)}; }`,
          ...transforms(`nf${k}`, `nf${k}`),
          ...transforms(`nr${k}`, `nr${k}`),
        ]),
      ].join('\n');
      const compiled = compile(src, { throwOnError: false });
      if (compiled.diagnostics.length > 0 || compiled.typeErrors.length > 0) throw new Error(`${compiled.messages.join('\n')}\n${src}`);
      const e = loadOutput(compiled);
      cases.forEach(([c, via], k) => {
        for (const kind of KINDS) {
          const got = leaves(e[`nf${k}${kind}`](0, y));
          const want = leaves(e[`nr${k}${kind}`](0, y));
          if (!leavesEqual(got, want)) throw new Error(`${kind} of ${NESTED[via]('f')} at (0, ${y}): got ${got}, the side taken gives ${want}\n${c.body}`);
        }
      });
    }),
    { numRuns: 4 },
  );
});
