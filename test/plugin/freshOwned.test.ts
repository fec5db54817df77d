// A cotangent array that starts as the zero array (`new Float64Array(0)`, made by the call) and is
// made owned before the loop that accumulates into it: the zero array is empty and never in the
// owned set, so the ownership test always failed and the copy copied nothing. The emitted code
// allocates the owned array directly (backend/ts/constructs/array/emit.ts, emitOwnedDense), and a
// function where no site asks the owned set keeps none (emitTs.ts, withoutUnreadOwnership); the
// zero array (a zero cotangent in a record's tuple) is printed where it is used (nodeFacts.ts).
// Checked on the text and on the values (central differences, loops that run zero times, a
// caller's arrays left alone, a second call that must not see the first call's arrays).
import * as ts from 'typescript';
import { load, partial, expectClose } from './harness';
import { tidyBody } from '../../transformer/backend/ts/fold';

const source = `import { grad } from 'tsad';
/** @differentiable */
export function f(w: Float64Array, v: Float64Array, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.sin(w[i]) * w[i] * v[i];
  return s;
}
export const g = grad(f, { wrt: [0, 1] });
`;

const plain = (w: Float64Array, v: Float64Array, n: number) => {
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.sin(w[i]) * w[i] * v[i];
  return s;
};

/** The text of the emitted def whose name starts with `name$`. */
function def(text: string, name: string): string {
  const at = text.indexOf(`function ${name}$`);
  expect(at).toBeGreaterThanOrEqual(0);
  return text.slice(at, text.indexOf('\n}', at));
}

describe('owned arrays made from the zero array', () => {
  test('are allocated without an ownership test or a copy, and a function that never asks keeps no owned set', () => {
    const { exports: m, result } = load(source);
    const text = def(result.outputText, 'f');
    expect(text).not.toMatch(/\$own\.has|\.set\(|\$hot/);
    expect(text).not.toMatch(/\$own|\$gen/);
    const w = new Float64Array([0.3, -1.2, 2.0, 0.7]);
    const v = new Float64Array([1.5, 0.4, -0.8, 2.2]);
    const [gw, gv] = m.g(w, v, 4) as [Float64Array, Float64Array];
    const fw = (...x: number[]) => plain(Float64Array.from(x), v, 4);
    const fv = (...x: number[]) => plain(w, Float64Array.from(x), 4);
    expectClose(
      [...gw],
      [0, 1, 2, 3].map((k) => partial(fw, [...w], k, 0)[0]),
    );
    expectClose(
      [...gv],
      [0, 1, 2, 3].map((k) => partial(fv, [...v], k, 0)[0]),
    );
    // Each call has arrays of its own: a second call does not write into the first one's.
    const first = Float64Array.from(gw);
    m.g(w, v, 2);
    expect([...gw]).toEqual([...first]);
    expect([...w]).toEqual([0.3, -1.2, 2.0, 0.7]);
  });

  test('a loop that runs no times gives zero gradients, one that runs over part of the arrays zeros past it', () => {
    const { exports: m } = load(source);
    const w = new Float64Array([0.3, -1.2, 2.0]);
    const v = new Float64Array([1.5, 0.4, -0.8]);
    const [gw0, gv0] = m.g(w, v, 0) as [Float64Array, Float64Array];
    expect([...gw0].every((x) => x === 0)).toBe(true);
    expect([...gv0].every((x) => x === 0)).toBe(true);
    const [gw, gv] = m.g(w, v, 2) as [Float64Array, Float64Array];
    const fw = (...x: number[]) => plain(Float64Array.from(x), v, 2);
    const fv = (...x: number[]) => plain(w, Float64Array.from(x), 2);
    expectClose(
      [...gw, 0, 0, 0].slice(0, 3),
      [0, 1, 2].map((k) => partial(fw, [...w], k, 0)[0]),
    );
    expectClose(
      [...gv, 0, 0, 0].slice(0, 3),
      [0, 1, 2].map((k) => partial(fv, [...v], k, 0)[0]),
    );
  });

  test('a gradient that still asks the owned set keeps it, with the arrays made from the zero array in it', () => {
    // Two loops accumulate into the cotangent of w: the second's accumulations ask (the array
    // came from the first), so the set is kept; values against central differences.
    const { exports: m, result } = load(`import { grad } from 'tsad';
/** @differentiable */
export function two(w: Float64Array, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.sin(w[i]) * w[i];
  let t = 1;
  for (let i = 0; i < w.length; i++) t += w[(i * 3) % w.length] * w[i];
  return s * t;
}
export const g = grad(two, { wrt: [0] });
`);
    const w = new Float64Array([0.3, -1.2, 2.0, 0.7, 0.1]);
    const twoPlain = (x: Float64Array, n: number) => {
      let s = 0;
      for (let i = 0; i < n; i++) s += Math.sin(x[i]) * x[i];
      let t = 1;
      for (let i = 0; i < x.length; i++) t += x[(i * 3) % x.length] * x[i];
      return s * t;
    };
    for (const n of [0, 3, 5]) {
      const gw = m.g(w, n) as Float64Array;
      const ref = [0, 1, 2, 3, 4].map((k) => partial((...x: number[]) => twoPlain(Float64Array.from(x), n), [...w], k, 0)[0]);
      expectClose([...gw, 0, 0, 0, 0, 0].slice(0, 5), ref);
    }
    // The second loop's claim asks the set through the runtime (tsad$claim), the first's array joined it (tsad$fresh).
    expect(def(result.outputText, 'two')).toMatch(/tsad\$claim\(\$own, /);
    expect(def(result.outputText, 'two')).toMatch(/tsad\$fresh\(\$own, /);
  });
});

describe('the zero array moves like a value', () => {
  /** Statements as the emitter makes them, tidied (backend/ts/fold.ts) and printed. */
  const tidied = (text: string) => {
    const sf = ts.createSourceFile('f.js', text, ts.ScriptTarget.Latest, true);
    const fresh = (n: ts.Node): ts.Node => (ts.isIdentifier(n) ? ts.factory.createIdentifier(n.text) : ts.visitEachChild(n, fresh, undefined));
    const body = tidyBody(
      ts,
      sf.statements.map((s) => fresh(s) as ts.Statement),
    );
    return body.map((s) => ts.createPrinter().printNode(ts.EmitHint.Unspecified, s, sf)).join(' ');
  };

  test('`new Float64Array(0)` used once is printed where it is used, past other allocations', () => {
    expect(tidied('const a = new Float64Array(0); const b = new Float64Array(0); const t = [a, x, b]; return g(t);')).toBe('return g([new Float64Array(0), x, new Float64Array(0)]);');
  });

  test('an allocation of a length not written in the code may throw: it stays before the other', () => {
    expect(tidied('const a = new Float64Array(n); const b = new Float64Array(m); return [b, a];')).toBe('const a = new Float64Array(n); return [new Float64Array(m), a];');
    expect(tidied('const a = new Float64Array(0); const b = new Float64Array(0); return [b, a];')).toBe('return [new Float64Array(0), new Float64Array(0)];');
  });
});
