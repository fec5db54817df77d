// Adjacent `let` statements of an emitted function are printed as one (backend/ts/mergeLets.ts):
// a reversed loop's accumulators start at zero in runs of `let x_bar = 0;`. The gradient through
// such loops is checked against central differences, and the merge itself keeps order and kind.
import * as ts from 'typescript';
import { load, expectClose } from './harness';
import { mergeAdjacentLets } from '../../transformer/backend/ts/mergeLets';

const merged = (text: string) => {
  const sf = ts.createSourceFile('f.js', text, ts.ScriptTarget.Latest, true);
  return mergeAdjacentLets(ts, sf.statements)
    .map((s) => ts.createPrinter().printNode(ts.EmitHint.Unspecified, s, sf))
    .join(' ')
    .replace(/\s+/g, ' ');
};

describe('merging adjacent lets', () => {
  test('a run of lets is one statement, in order; a const or another statement ends the run', () => {
    expect(merged('let a = 0; let b = x, c; let d = a + b; const e = 1; let f = e; g(f); let h = 2;')).toBe('let a = 0, b = x, c, d = a + b; const e = 1; let f = e; g(f); let h = 2;');
  });

  test('nested blocks are merged too; consts are never merged', () => {
    expect(merged('for (let i = 0; i < n; i++) { let s = 0; let t = 1; s += t; } if (c) { const a = 1; const b = 2; }')).toBe(
      'for (let i = 0; i < n; i++) { let s = 0, t = 1; s += t; } if (c) { const a = 1; const b = 2; }',
    );
  });

  test('nothing to merge: the same array back', () => {
    const sf = ts.createSourceFile('f.js', 'let a = 0; a++; let b = a;', ts.ScriptTarget.Latest, true);
    expect(mergeAdjacentLets(ts, sf.statements)).toBe(sf.statements);
  });
});

const source = `import { grad } from 'tsad';
/** @differentiable */
export function f(k: number, c: number, x0: number, h: number): number {
  let x = x0;
  let v = 0;
  for (let i = 0; i < 12; i++) {
    const a = -k * x - c * v * v;
    x = x + h * v;
    v = v + h * a;
  }
  return x * v;
}
export const g = grad(f, { wrt: [0, 1, 2, 3] });
`;

const plain = (k: number, c: number, x0: number, h: number) => {
  let x = x0;
  let v = 0;
  for (let i = 0; i < 12; i++) {
    const a = -k * x - c * v * v;
    x = x + h * v;
    v = v + h * a;
  }
  return x * v;
};

test('the gradient of a loop has no two lets in a row and matches central differences', () => {
  const { exports, result } = load(source);
  // The derivatives tsad wrote (the user's own f is printed as written).
  const start = result.outputText.indexOf('function f$');
  expect(start).toBeGreaterThanOrEqual(0);
  const derived = result.outputText.slice(start);
  const lines = derived.split('\n');
  const indent = (l: string) => /^\s*/.exec(l)![0];
  const adjacent = lines.filter((l, i) => i > 0 && /^\s*let /.test(l) && /^\s*let /.test(lines[i - 1]) && indent(l) === indent(lines[i - 1]));
  expect(adjacent).toEqual([]);
  expect(derived).toMatch(/let \w+ = 0, \w+ = 0/);
  const at = [1.1, 0.3, 0.6, 0.1];
  const eps = 1e-6;
  const differences = at.map((_, i) => {
    const up = [...at];
    const down = [...at];
    up[i] += eps;
    down[i] -= eps;
    return (plain(up[0], up[1], up[2], up[3]) - plain(down[0], down[1], down[2], down[3])) / (2 * eps);
  });
  expectClose((exports.g as (...a: number[]) => number[])(...at), differences, 1e-6);
});
