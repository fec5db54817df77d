// `if (c) { …; x = y; } else { …; x = y; }` prints as `if (c) { … } else { … } x = y;`
// (backend/ts/fold.ts `sharedTail`): a cond that hands an array cotangent on unchanged in both
// branches (a k-means winner, a max's index) copies it once after the if. Checked on the tidy
// itself (the cases it must leave alone: a branch's own names, an empty then-branch, no else)
// and end to end: a gradient and a JVP of a gradient through such conds against central
// differences, including rows where no branch wins.
import * as ts from 'typescript';
import { load, expectClose, partial } from './harness';
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

describe('the same copy ending both branches runs once after the if', () => {
  test('copies of one name into another move out; the empty else goes', () => {
    // (the copies then fold away: a and b are other names for x and y)
    expect(tidied('let a, b; if (c) { g(x); a = x; b = y; } else { a = x; b = y; } h(a, b);')).toBe('if (c) { g(x); } h(x, y);');
    expect(tidied('let a; if (c) { g(x); a = x; } else { g(y); a = x; } h(a);')).toBe('if (c) { g(x); } else { g(y); } h(x);');
  });

  test('not a copy of a name a branch declares, nor different copies, nor one that would empty the then-branch', () => {
    const kept = [
      'let a; if (c) { const x = g(1); a = x; } else { const x = g(2); a = x; } h(a);',
      'let a; if (c) { g(x); a = x; } else { a = y; } h(a);',
      'let a; if (c) { g(x); a = f(x); } else { a = f(x); } h(a);',
      'let a; if (c) { a = x; } else { g(y); a = x; } h(a);',
    ];
    for (const text of kept) expect(tidied(text)).toContain('else');
  });
});

const source = `import { grad, jvp } from 'tsad';
/** @differentiable */
export function cost(centroids: Float64Array, points: Float64Array, d: number): number {
  const n = points.length / d;
  const k = centroids.length / d;
  let total = 0;
  for (let i = 0; i < n; i++) {
    let best = Infinity;
    for (let j = 0; j < k; j++) {
      let dist = 0;
      for (let r = 0; r < d; r++) {
        const e = points[i * d + r] - centroids[j * d + r];
        dist += e * e;
      }
      best = Math.min(best, dist);
    }
    if (best < 4) total += best;
  }
  return total;
}
export const g = grad(cost, { wrt: [0, 1] });
export const hv = (c: Float64Array, p: Float64Array, d: number, dc: Float64Array) => jvp(grad(cost), [c, p, d], [dc, new Float64Array(p.length), 0]);
`;

const plain = (c: ArrayLike<number>, p: ArrayLike<number>, d: number) => {
  const n = p.length / d;
  const k = c.length / d;
  let total = 0;
  for (let i = 0; i < n; i++) {
    let best = Infinity;
    for (let j = 0; j < k; j++) {
      let dist = 0;
      for (let r = 0; r < d; r++) {
        const e = p[i * d + r] - c[j * d + r];
        dist += e * e;
      }
      best = Math.min(best, dist);
    }
    if (best < 4) total += best;
  }
  return total;
};

describe('gradients through conds that pass cotangents on unchanged', () => {
  const { exports: m, result } = load(source);
  const c = new Float64Array([0.1, 0.2, 1.5, -0.7, -1.1, 0.9]);
  const p = new Float64Array([0.3, 0.1, 1.2, -0.4, 3.5, 3.1, -1.0, 1.1, 0.0, 0.25]);

  test('central differences in the centroids and the points (one point wins no centroid)', () => {
    const [gc, gp] = m.g(c, p, 2) as [Float64Array, Float64Array];
    expectClose(
      [...gc],
      [...c].map((_, k) => partial((...x: number[]) => plain(x, p, 2), [...c], k, 0)[0]),
    );
    expectClose(
      [...gp],
      [...p].map((_, k) => partial((...x: number[]) => plain(c, x, 2), [...p], k, 0)[0]),
    );
  });

  test('the JVP of the gradient against central differences of the gradient', () => {
    const dc = new Float64Array([0.5, -0.25, 1, 0.75, -1, 0.3]);
    const [, tangent] = m.hv(c, p, 2, dc) as [Float64Array, Float64Array];
    const h = 1e-5;
    const shifted = (s: number) =>
      (
        m.g(
          c.map((x, k) => x + s * h * dc[k]),
          p,
          2,
        ) as Float64Array[]
      )[0];
    const plus = shifted(1);
    const minus = shifted(-1);
    expectClose(
      [...tangent],
      [...plus].map((x, k) => (x - minus[k]) / (2 * h)),
      1e-5,
    );
  });

  test('the emitted gradient copies no branch cotangent: the copies after the ifs go, and the loop carries none', () => {
    const at = result.outputText.indexOf('function cost$grad');
    const text = result.outputText.slice(at, result.outputText.indexOf('\n}', at));
    expect(text).toMatch(/if \(found\) \{/);
    // Moved after the nested ifs, `x_1 = x; … x = x_1;` is `x = x`, which goes (fold.ts, up to six rounds).
    expect(text).not.toMatch(/\b(points|centroids)_bar(_\d+)? = (points|centroids)_bar(_\d+)?;/);
  });
});
