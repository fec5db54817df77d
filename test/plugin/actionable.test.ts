// Diagnostics a user can act on: every source in test/fixtures/diagnostics gives exactly the
// diagnostics its `// expect:` comments list (so no cascade of follow-up errors), each in the
// right file at the right place, and TypeScript's own errors are the only other ones.
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import { buildProgram } from './program';
import { load } from './harness';

const root = path.join(__dirname, '../fixtures/diagnostics');
const cases = fs.readdirSync(root).filter((n) => n.endsWith('.ts') || fs.statSync(path.join(root, n)).isDirectory());

function sources(name: string): Record<string, string> {
  const at = path.join(root, name);
  if (!fs.statSync(at).isDirectory()) return { [name]: fs.readFileSync(at, 'utf8') };
  return Object.fromEntries(
    fs
      .readdirSync(at)
      .filter((n) => n.endsWith('.ts'))
      .map((n) => [n, fs.readFileSync(path.join(at, n), 'utf8')]),
  );
}

describe.each(cases)('%s', (name) => {
  const files = sources(name);
  const b = buildProgram(files);

  test('gives exactly the expected diagnostics', () => {
    const expected: string[] = [];
    const texts: string[] = [];
    for (const [file, text] of Object.entries(files)) {
      for (const m of text.matchAll(/^\s*\/\/ expect: (\d+):(\d+) (TSAD\d+) (.*)$/gm)) {
        expected.push(`${file}(${m[1]},${m[2]}): ${m[3]}`);
        texts.push(m[4]);
      }
    }
    expect(b.where).toEqual(expected);
    b.diagnostics.forEach((d, i) => expect(ts.flattenDiagnosticMessageText(d.messageText, '\n')).toContain(texts[i]));
  });

  test("TypeScript's own errors are the expected ones", () => {
    const want = Object.values(files).reduce((n, text) => n + Number(/^\/\/ typescript-errors: (\d+)$/m.exec(text)?.[1] ?? 0), 0);
    expect(b.typeErrors.map((d) => ts.flattenDiagnosticMessageText(d.messageText, ' '))).toHaveLength(want);
  });
});

test('a const marked by a JSDoc comment is differentiated, and `let y;` takes its first assignment', () => {
  const m = buildProgram(sources('jsdoc-const.ts')).require('jsdoc-const.ts');
  expect(m.dSquare(3)).toBe(6);
  const [x, k] = [0.5, 2];
  const [dx, dk] = m.dWave(x, k);
  expect(dx).toBeCloseTo(k * Math.cos(k * x) * x * x + Math.sin(k * x) * 2 * x, 12);
  expect(dk).toBeCloseTo(x * Math.cos(k * x) * x * x, 12);
  expect(m.tangent()[1]).toBeCloseTo(dx, 12);
});

test('an instance of a class that only holds data is a plain object (methods are what rule a class out)', () => {
  const { exports, result } = load(`import { grad } from 'tsad';
export class P { constructor(readonly a: number, readonly b: number) {} }
/** @differentiable */
function f(p: P): number { return p.a * p.b; }
export const d = grad(f);`);
  expect(result.diagnostics).toEqual([]);
  expect(exports.d(new exports.P(2, 3))).toEqual({ a: 3, b: 2 });
});
