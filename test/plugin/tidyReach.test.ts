// The tidy (backend/ts/fold.ts) prints a single-use value at its use up to 48 statements later
// (it was 12): a derivative's temporaries are often read far from where A-normal form binds them
// (the RK4 step's `x_3 = x_2 + …` read after a dozen tape stores). The moves stay those the
// evaluation-order checks allow, so the gradient is checked against central differences too.
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
  return body.map((s) => ts.createPrinter().printNode(ts.EmitHint.Unspecified, s, sf)).join(' ');
};

/** `k` statements that each store into an array (heap writes: a pure value may move past them). */
const stores = (k: number) => Array.from({ length: k }, (_, i) => `a[${i}] = b${i};`).join(' ');

describe('the reach of single-use values', () => {
  test('a pure value used 30 statements later is printed at its use', () => {
    expect(tidied(`const t = x * y; ${stores(30)} return t + 1;`)).toBe(`${stores(30)} return x * y + 1;`);
  });

  test('past 48 statements it keeps its name', () => {
    expect(tidied(`const t = x * y; ${stores(60)} return t + 1;`)).toBe(`const t = x * y; ${stores(60)} return t + 1;`);
  });

  test('a value that reads the heap stays before the stores it would pass, however near', () => {
    expect(tidied(`const t = a[0] * y; ${stores(20)} return t + 1;`)).toBe(`const t = a[0] * y; ${stores(20)} return t + 1;`);
  });

  test('a value never moves past an assignment to what it reads', () => {
    expect(tidied(`const t = x * y; ${stores(20)} x = 2; return t + x;`)).toBe(`const t = x * y; ${stores(20)} x = 2; return t + x;`);
  });
});

const source = `import { grad } from 'tsad';
/** RK4 steps of x' = -k·x - c·x³: each step's temporaries are read after the step's other updates. */
/** @differentiable */
export function f(k: number, c: number, x0: number, h: number): number {
  let x = x0;
  let v = 0;
  for (let i = 0; i < 20; i++) {
    const a1 = -k * x - c * x * x * x;
    const x2 = x + (h / 2) * v;
    const v2 = v + (h / 2) * a1;
    const a2 = -k * x2 - c * x2 * x2 * x2;
    const x3 = x + (h / 2) * v2;
    const v3 = v + (h / 2) * a2;
    const a3 = -k * x3 - c * x3 * x3 * x3;
    const x4 = x + h * v3;
    const v4 = v + h * a3;
    const a4 = -k * x4 - c * x4 * x4 * x4;
    x = x + (h / 6) * (v + 2 * v2 + 2 * v3 + v4);
    v = v + (h / 6) * (a1 + 2 * a2 + 2 * a3 + a4);
  }
  return x * x + v;
}
export const g = grad(f, { wrt: [0, 1, 2, 3] });
`;

const plain = (k: number, c: number, x0: number, h: number) => {
  let x = x0;
  let v = 0;
  for (let i = 0; i < 20; i++) {
    const a1 = -k * x - c * x * x * x;
    const x2 = x + (h / 2) * v;
    const v2 = v + (h / 2) * a1;
    const a2 = -k * x2 - c * x2 * x2 * x2;
    const x3 = x + (h / 2) * v2;
    const v3 = v + (h / 2) * a2;
    const a3 = -k * x3 - c * x3 * x3 * x3;
    const x4 = x + h * v3;
    const v4 = v + h * a3;
    const a4 = -k * x4 - c * x4 * x4 * x4;
    x = x + (h / 6) * (v + 2 * v2 + 2 * v3 + v4);
    v = v + (h / 6) * (a1 + 2 * a2 + 2 * a3 + a4);
  }
  return x * x + v;
};

test('the gradient of an RK4 loop, tidied with the longer reach, against central differences', () => {
  const g = load(source).exports.g as (...a: number[]) => number[];
  const at = [1.3, 0.4, 0.7, 0.05];
  const eps = 1e-6;
  const differences = at.map((_, i) => {
    const up = [...at];
    const down = [...at];
    up[i] += eps;
    down[i] -= eps;
    return (plain(up[0], up[1], up[2], up[3]) - plain(down[0], down[1], down[2], down[3])) / (2 * eps);
  });
  expectClose(g(...at), differences, 1e-6);
});
