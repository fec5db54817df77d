// Generated and mutated sources through the transformer: every input must end in emitted code
// or diagnostics with a code, never in an exception or an internal error, and the user's own
// TypeScript diagnostics must be exactly those of a plain compile.
import fc from 'fast-check';
import * as ts from 'typescript';
import * as path from 'path';
import { compile, load, workDir } from './harness';
import { runtimeEntry } from '../../transformer/plugin/transform';

const atoms = ['x', 'y', '1.5', '2', 'Math.PI', 'k', "'s'", 'true', 'undefined', 'this', 'q[0]', 'o.a', 'Math.random()', 'h(x)', 'nope'];
const unary = ['Math.sin', 'Math.exp', 'Math.sqrt', 'Math.abs', 'Math.floor', 'Math.clz32', 'stopGradient', '-', '!', 'typeof '];
const binary = ['+', '-', '*', '/', '**', '%', '<', '===', '&&', '||', ',', '??', '&'];

const expr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...atoms),
    fc.tuple(fc.constantFrom(...unary), tie('e')).map(([u, e]) => (/^[a-zA-Z]/.test(u) && u !== 'typeof ' ? `${u}(${e})` : `${u}(${e})`)),
    fc.tuple(tie('e'), fc.constantFrom(...binary), tie('e')).map(([a, op, b]) => `(${a} ${op} ${b})`),
    fc.tuple(tie('e'), tie('e'), tie('e')).map(([c, a, b]) => `(${c} ? ${a} : ${b})`),
    fc.tuple(tie('e'), tie('e')).map(([a, b]) => `[${a}, ${b}]`),
    fc.tuple(tie('e'), tie('e')).map(([a, b]) => `Math.max(${a}, ${b})`),
  ),
})).e;

const statement = fc.oneof(
  expr.map((e) => `const a${Math.abs(e.length % 7)} = ${e};`),
  expr.map((e) => `k = ${e};`),
  expr.map((e) => `k += ${e};`),
  expr.map((e) => `if (${e}) { k = 1; }`),
  expr.map((e) => `for (let i = 0; i < 3; i++) { k = k + ${e}; }`),
  fc.constant('k++;'),
  expr.map((e) => `return ${e};`),
);

/** Sometimes h gets a custom derivative rule, with a random (often non-linear) tangent. */
const rule = fc.option(
  fc.tuple(expr, fc.boolean()).map(([e, reverse]) => {
    const factor = e.replace(/\bx\b|\by\b/g, 'v');
    return reverse ? `derivative.vjp(h, (v) => [h(v), (ct) => [ct * (${factor})]]);` : `derivative(h, (v, dv) => [h(v), dv * (${factor})]);`;
  }),
  { nil: '' },
);

const program = fc.tuple(fc.array(statement, { maxLength: 5 }), expr, fc.constantFrom('grad', 'valueAndGrad', 'jvp', 'vjp', 'hessian', 'jacobian'), rule).map(
  ([stmts, ret, transform, custom]) => `import { grad, valueAndGrad, jvp, vjp, hessian, jacobian, stopGradient, differentiable, derivative } from 'tsad';
function h(v: number) { return v; }
${custom}
const o = { a: 1 };
/** @differentiable */
export function f(x: number, y: number, q: [number, number]): number {
  let k = 0;
  ${stmts.join('\n  ')}
  return ${ret};
}
export const d = ${transform === 'jvp' ? 'jvp(f, [1, 2, [3, 4]], [1, 0, [0, 0]])' : transform === 'vjp' ? 'vjp(f, 1, 2, [3, 4])' : `${transform}(f)`};
`,
);

/** Half-written code: a random slice deleted or the text cut short. */
const mutated = fc.tuple(program, fc.nat(), fc.nat({ max: 40 }), fc.boolean()).map(([src, at, len, cut]) => {
  const i = at % src.length;
  return cut ? src.slice(0, i) : src.slice(0, i) + src.slice(i + len);
});

const libraries = new Map<string, ts.SourceFile | undefined>();

/** The same file compiled by plain TypeScript, without tsad's transformer. */
function plainDiagnostics(source: string, fileName: string): string[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    strict: true,
    skipLibCheck: true,
    types: [],
    paths: { tsad: [runtimeEntry()] },
  };
  const host = ts.createCompilerHost(options);
  const orig = host.getSourceFile.bind(host);
  host.getSourceFile = (n, v, e, c) => {
    if (n === fileName) return ts.createSourceFile(n, source, v, true);
    if (!libraries.has(n)) libraries.set(n, orig(n, v, e, c));
    return libraries.get(n);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (n) => n === fileName || fileExists(n);
  const program = ts.createProgram([fileName], options, host);
  return ts.getPreEmitDiagnostics(program, program.getSourceFile(fileName)).map(key);
}

function key(d: ts.Diagnostic): string {
  return `${d.start}:${d.code}:${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
}

function check(source: string, complete = true): void {
  const r = compile(source, { throwOnError: false });
  for (const d of r.diagnostics) {
    const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    // A note (TSAD2xxx: a function runs taped) is no error, but coded and placed all the same.
    expect(text).toMatch(d.category === ts.DiagnosticCategory.Message ? /^TSAD2\d\d\d: / : /^TSAD1[01]\d\d: /);
    expect(d.start).toBeGreaterThanOrEqual(0);
  }
  if (complete && r.diagnostics.length === 0 && r.typeErrors.length === 0) expect(r.outputText).toMatch(/function f\(x, y, q\)/);
}

test('generated sources end in code or coded diagnostics', () => {
  fc.assert(
    fc.property(program, (source) => check(source)),
    { numRuns: 120 },
  );
});

test('mutated (half-written) sources never crash the transformer', () => {
  fc.assert(
    fc.property(mutated, (source) => check(source, false)),
    { numRuns: 120 },
  );
});

test("the user's own diagnostics are unchanged by the plugin", () => {
  fc.assert(
    fc.property(mutated, (source) => {
      const name = path.join(workDir(), `same${Math.random().toString(36).slice(2)}.ts`);
      const withPlugin = compile(source, { throwOnError: false, fileName: name });
      expect(withPlugin.typeErrors.map(key)).toEqual(plainDiagnostics(source, name));
      for (const d of withPlugin.diagnostics) expect(d.code).toBeGreaterThan(900000);
    }),
    { numRuns: 40 },
  );
});

test('a huge expression (1500 terms, nested 3000 deep) compiles to straight-line code with the right gradient', () => {
  const k = (i: number) => (i % 7) + 1;
  const terms = Array.from({ length: 1500 }, (_, i) => `Math.sin(x * ${k(i)}) * y`).join(' + ');
  const src = `import { grad } from 'tsad';\n/** @differentiable */\nexport function f(x: number, y: number): number { return ${terms}; }\nexport const d = grad(f, { wrt: [0, 1] });`;
  const { exports, result } = load(src);
  expect(result.diagnostics).toEqual([]);
  expect(result.outputText).toContain('function f_grad_0_1(x, y)');
  const [x, y] = [0.3, -1.7];
  let dx = 0;
  let dy = 0;
  for (let i = 0; i < 1500; i++) {
    dx += Math.cos(x * k(i)) * k(i) * y;
    dy += Math.sin(x * k(i));
  }
  const [gx, gy] = exports.d(x, y);
  expect(gx).toBeCloseTo(dx, 9);
  expect(gy).toBeCloseTo(dy, 9);
});
