// Diagnostics in the file that has the problem, once per program, with the call site that needed
// the function as related information; and what the emitted code does after a failed build.
import * as ts from 'typescript';
import { buildProgram } from './program';
import { compile } from './harness';

const helper = `import { stopGradient } from 'tsad';
// A comment long enough that a position measured in another file lands inside it.
/** @differentiable */
export function noisy(x: number): number {
  const y = x * 2;
  return y * Math.random();
}
`;

const bad = `import { grad } from 'tsad';
import { noisy } from './helper';
// grad of a function that calls noisy
/** @differentiable */
export function wrapper(x: number): number { return noisy(x) + x; }
export const d = grad(wrapper);
`;

test('a problem in another file is reported in that file, at the offending call, with the call site that needed it', () => {
  const b = buildProgram({ 'helper.ts': helper, 'bad.ts': bad });
  expect(b.where).toEqual(['helper.ts(6,14): TSAD1103']);
  const [d] = b.diagnostics;
  expect(d.file!.text.slice(d.start!, d.start! + d.length!)).toBe('Math.random()');
  expect(d.relatedInformation).toHaveLength(1);
  const rel = d.relatedInformation![0];
  expect(rel.file!.fileName).toMatch(/bad\.ts$/);
  expect(rel.file!.text.slice(rel.start!, rel.start! + rel.length!)).toBe('grad(wrapper)');
  expect(ts.flattenDiagnosticMessageText(rel.messageText, '\n')).toMatch(/needed by grad\(wrapper\)/);
});

test('one broken function needed by several call sites in several files is one error, with each call site related', () => {
  const other = `import { grad, valueAndGrad } from 'tsad';
import { noisy } from './helper';
export const a = grad(noisy);
export const b = valueAndGrad(noisy);
`;
  const b = buildProgram({ 'helper.ts': helper, 'bad.ts': bad, 'other.ts': other, 'third.ts': bad.replace(/wrapper/g, 'wrapper2') });
  expect(b.where).toEqual(['helper.ts(6,14): TSAD1103']);
  const related = b.diagnostics[0].relatedInformation!.map((r) => r.file!.text.slice(r.start!, r.start! + r.length!));
  expect(related.sort()).toEqual(['grad(noisy)', 'grad(wrapper)', 'grad(wrapper2)', 'valueAndGrad(noisy)']);
});

test('every problem of a function is its own error, each reported once', () => {
  const twice = `import { grad } from 'tsad';
/** @differentiable */
function f(x: number) { const a = Math.random(); const b = nope(x); return a + b + x; }
declare function nope(x: number): number;
export const d1 = grad(f);
export const d2 = grad(f, { wrt: [0] });
`;
  const b = buildProgram({ 'twice.ts': twice });
  expect(b.where).toEqual(['twice.ts(3,35): TSAD1103', 'twice.ts(3,60): TSAD1113']);
});

test("a callee's problems all reach the caller's call site, each once", () => {
  const b = buildProgram({
    'callee.ts': `import { grad } from 'tsad';
/** @differentiable */
export function g(x: number): number { const a = Math.random(); return a * x + Math.sign(x) * Date.now(); }
/** @differentiable */
function f(x: number): number { const u = g(x); const v = g(2 * x); return u + v + Math.random(); }
export const d = grad(f);
`,
  });
  expect(b.where).toEqual(['callee.ts(3,50): TSAD1103', 'callee.ts(3,95): TSAD1113', 'callee.ts(5,84): TSAD1103']);
});

describe('after a failed build', () => {
  const b = buildProgram({
    'helper.ts': helper,
    'bad.ts': bad,
    'forms.ts': `import { grad, jvp, vjp, hessian } from 'tsad';
import { noisy } from './helper';
/** @differentiable */
export function good(x: number): number { return x * x; }
export const g = grad(noisy);
export const h = hessian(noisy);
export const ok = grad(good);
export function runJvp() { return jvp(noisy, [1], [1]); }
export function runVjp() { return vjp(noisy, 1); }
`,
  });

  test('the module still loads, its good transforms work, and a failed one throws naming the diagnostic', () => {
    const m = b.require('forms.ts');
    expect(m.ok(3)).toBe(6);
    const message = /^tsad: grad\(noisy\) was not compiled: the build reported TSAD1103 at helper\.ts:6:14 \(see the build output\)$/;
    expect(() => m.g(1)).toThrow(message);
    expect(() => m.h(1)).toThrow(/^tsad: hessian\(noisy\) was not compiled: the build reported TSAD1103/);
    expect(() => m.runJvp()).toThrow(/^tsad: jvp\(noisy\) was not compiled: the build reported TSAD1103/);
    expect(() => m.runVjp()).toThrow(/^tsad: vjp\(noisy\) was not compiled: the build reported TSAD1103/);
    expect(() => b.require('bad.ts').d(1)).toThrow(/^tsad: grad\(wrapper\) was not compiled: the build reported TSAD1103/);
  });

  test('the emitted code never says the plugin is missing, and uses no eval', () => {
    for (const js of Object.values(b.js)) {
      expect(js).not.toMatch(/compilerOptions\.plugins|\beval\b|new Function/);
      expect(js).not.toMatch(/\b(grad|hessian|jvp|vjp)\)\(noisy/);
    }
  });
});

test('an unknown name: TypeScript reports it, tsad adds nothing, and the call site throws pointing at it', () => {
  const b = buildProgram({
    'typing.ts': `import { grad } from 'tsad';
/** @differentiable */
export function f(x: number): number {
  const y = x * scale;
  return y;
}
export const d = grad(f);
`,
  });
  expect(b.diagnostics).toEqual([]);
  expect(b.typeErrors.map((d) => d.messageText)).toEqual(["Cannot find name 'scale'."]);
  expect(() => b.require('typing.ts').d(1)).toThrow(/^tsad: grad\(f\) was not compiled: TypeScript reported an error at typing\.ts:4:17 \(see the build output\)$/);
});

test('transform() (and ts-jest, which shares the rewrite) reports a problem needed by several call sites of a file once', () => {
  const r = compile(
    `import { grad, valueAndGrad } from 'tsad';\n/** @differentiable */\nfunction f(x: number) { return x * Math.random(); }\nexport const a = grad(f);\nexport const b = valueAndGrad(f);\n`,
    { throwOnError: false },
  );
  expect(r.messages.filter((m) => m.includes('TSAD'))).toHaveLength(1);
  expect(r.messages[0]).toMatch(/:3:36 - error TSAD1103: /);
});
