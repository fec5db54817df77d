// A reversed loop (T's) prints as one (backend/ts/fold.ts `reversed`): `for (let k = 0; k < n;
// k++) { const i = count - k - 1; … }` with count = ⌈n⌉ becomes `for (let i = count - 1; i >= 0;
// i--) { … }`. The same values of i in the same order, including a fractional, zero, negative or
// NaN trip count: gradients through loops of such counts are checked against central differences
// and the primal, and the rewrite is checked to stay away from loops it does not fit.
import * as ts from 'typescript';
import { load, expectClose } from './harness';
import { tidyBody } from '../../transformer/backend/ts/fold';

const tidied = (text: string) => {
  const sf = ts.createSourceFile('f.js', text, ts.ScriptTarget.Latest, true);
  const fresh = (n: ts.Node): ts.Node => (ts.isIdentifier(n) ? ts.factory.createIdentifier(n.text) : ts.visitEachChild(n, fresh, undefined));
  const body = tidyBody(
    ts,
    sf.statements.map((s) => fresh(s) as ts.Statement),
  );
  return body
    .map((s) => ts.createPrinter().printNode(ts.EmitHint.Unspecified, s, sf))
    .join(' ')
    .replace(/\s+/g, ' ');
};

describe('the tidy turns a counted loop that reads only count - k - 1 into a reversed loop', () => {
  test('with count = Math.ceil(n), declared before the loop (here in an enclosing block)', () => {
    expect(tidied('const count = Math.ceil(n); if (c) { for (let k = 0; k < n; k++) { const i = count - k - 1; g(i, a[i]); } }')).toBe(
      'const count = Math.ceil(n); if (c) { for (let i = count - 1; i >= 0; i--) { g(i, a[i]); } }',
    );
  });

  test('with an integer literal bound', () => {
    expect(tidied('for (let k = 0; k < 40; k++) { const i = 40 - k - 1; g(i, a[i]); }')).toBe('for (let i = 40 - 1; i >= 0; i--) { g(i, a[i]); }');
  });

  test('not when k is read elsewhere, the count is not the ceiling of the bound, the bound is assigned, or the literal is fractional', () => {
    const kept = [
      'const count = Math.ceil(n); for (let k = 0; k < n; k++) { const i = count - k - 1; g(i, a[i], k); }',
      'const count = Math.floor(n); for (let k = 0; k < n; k++) { const i = count - k - 1; g(i, a[i]); }',
      'const count = Math.ceil(m); for (let k = 0; k < n; k++) { const i = count - k - 1; g(i, a[i]); }',
      'for (let k = 0; k < n; k++) { const i = n - k - 1; g(i, a[i]); }',
      'let n = 3; n = h(); const count = Math.ceil(n); for (let k = 0; k < n; k++) { const i = count - k - 1; g(i, a[i]); }',
      'for (let k = 0; k < 2.5; k++) { const i = 2.5 - k - 1; g(i, a[i]); }',
      'for (let k = 0; k < n; k++) { const i = count - k - 1; g(i, a[i]); } const count = Math.ceil(n);',
    ];
    for (const text of kept) expect(tidied(text)).toMatch(/for \(let k = 0; k < /);
  });
});

const source = `import { grad } from 'tsad';
/** @differentiable */
export function f(a: number, b: number, n: number): number {
  let x = a;
  let s = 0;
  for (let i = 0; i < n; i++) {
    x = Math.sin(x) * b + i * 0.1;
    s += x * x;
  }
  return s + x;
}
export const g = grad(f, { wrt: [0, 1] });
`;

const plain = (a: number, b: number, n: number) => {
  let x = a;
  let s = 0;
  for (let i = 0; i < n; i++) {
    x = Math.sin(x) * b + i * 0.1;
    s += x * x;
  }
  return s + x;
};

test('the gradient through a reversed loop, for whole, fractional, zero, negative and NaN trip counts', () => {
  const { exports, result } = load(source);
  expect(result.outputText).toMatch(/for \(let \w+ = \w+ - 1; \w+ >= 0; \w+--\)/);
  expect(result.outputText).not.toMatch(/= count\w* - k\w* - 1;/);
  const g = exports.g as (a: number, b: number, n: number) => number[];
  const eps = 1e-6;
  for (const n of [5, 2.5, 1, 0.2, 0, -3, Number.NaN]) {
    const at = [0.7, 1.3];
    const differences = at.map((_, i) => {
      const up = [...at];
      const down = [...at];
      up[i] += eps;
      down[i] -= eps;
      return (plain(up[0], up[1], n) - plain(down[0], down[1], n)) / (2 * eps);
    });
    expectClose(g(at[0], at[1], n), differences, 1e-6);
  }
});
