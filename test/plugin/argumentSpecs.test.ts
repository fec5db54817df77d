// A wrapper's argument check passes the runtime a description of what it expected, as one JSON
// string constant per check; the messages are built from it only when a check fails. It is now
// compact (`'["x:a","n:n"]'` for what was `'[["x","array"],["n","number"]]'`: a leaf is
// "key:code", a container ["key:tag", item, …]), a few hundred bytes less in the GradBench tool.
// The messages must be the same: the runtime reads both forms (a module built before still runs),
// and every kind of spec gives the message the long form gave.
import { tsad$argumentError } from '../../runtime/emitted';
import { compile } from './harness';

type Long = [string, unknown] | [string, string, unknown];

/** Each argument's long entry and its compact one. */
const cases: { long: Long[]; compact: unknown[]; values: unknown[][] }[] = [
  {
    long: [
      ['x', 'array'],
      ['n', 'number'],
    ],
    compact: ['x:a', 'n:n'],
    values: [
      [[1, 2], 3],
      [[1, 2], 'a'],
      ['no', 1],
      [['a'], 1],
      [new Float64Array(2), null],
    ],
  },
  {
    long: [
      ['p', ['object', 'alpha', 'array', 'a:b', 'number', 'q', ['tuple', 'number', 'matrix']]],
      ['m', 'matrix'],
      ['idx', 'int32array'],
      ['flag', 'boolean'],
      ['name', 'string'],
      ['skip', ''],
    ],
    compact: [['p:o', 'alpha:a', 'a:b:n', ['q:t', ':n', ':m']], 'm:m', 'idx:i', 'flag:b', 'name:s', 'skip:'],
    values: [
      [{ alpha: [1], 'a:b': 2, q: [1, [[1]]] }, [[1]], new Int32Array(1), true, 's', undefined],
      [{ alpha: [1], 'a:b': 'x', q: [1, [[1]]] }, [[1]], new Int32Array(1), true, 's', 0],
      [{ alpha: [1], 'a:b': 2, q: [1, [['x']]] }, [[1]], new Int32Array(1), true, 's', 0],
      [{ alpha: [1], 'a:b': 2, q: [1] }, [[1]], new Int32Array(1), true, 's', 0],
      [{ alpha: [1], 'a:b': 2, q: [1, [[1]]] }, [1], new Int32Array(1), true, 's', 0],
      [{ alpha: [1], 'a:b': 2, q: [1, [[1]]] }, [[1]], new Float64Array(1), true, 's', 0],
      [{ alpha: [1], 'a:b': 2, q: [1, [[1]]] }, [[1]], new Int32Array(1), 1, 's', 0],
      [null, [[1]], new Int32Array(1), true, 's', 0],
    ],
  },
  {
    long: [
      ['primals', ['arguments', 'x', 'array', 'd', 'number']],
      ['tangents', ['arguments', 'x', 'array', 'd', 'number']],
    ],
    compact: [
      ['primals:g', 'x:a', 'd:n'],
      ['tangents:g', 'x:a', 'd:n'],
    ],
    values: [
      [
        [[1], 2],
        [[1], 2],
      ],
      [[[1]], [[1], 2]],
      [
        [[1], 2],
        [['t'], 2],
      ],
      [
        [[1], 'd'],
        [[1], 2],
      ],
    ],
  },
  {
    long: [['first argument', 'v', 'array']],
    compact: [{ label: 'first argument', item: 'v:a' }],
    values: [[3], [[1]]],
  },
];

const message = (expected: unknown[], values: unknown[]) => tsad$argumentError('grad(f)', JSON.stringify(expected), values.length, ...values).message;

describe('the compact argument spec', () => {
  test.each(cases.map((c, k) => [k, c] as const))('case %i: the same message as the long form for every value, and for a wrong count', (_, c) => {
    for (const values of c.values) expect(message(c.compact, values)).toBe(message(c.long, values));
    expect(message(c.compact, [])).toBe(message(c.long, []));
    // Some message names the problem itself (not only `invalid arguments`).
    expect(c.values.some((v) => /must be/.test(message(c.compact, v)))).toBe(true);
  });

  test('the emitted check is compact, and names the parameters', () => {
    const out = compile(`import { grad, jvp } from 'tsad';
/** @differentiable */
export function f(p: { a: number; w: Float64Array }, m: number[][], t: [number, number], idx: Int32Array): number {
  return p.a * p.w[0] * m[0][0] * t[1] + idx.length;
}
export const g = grad(f);
export const j = (a: number, b: number) => jvp(f, [{ a, w: new Float64Array(1) }, [[1]], [a, b], new Int32Array(1)], [{ a: 1, w: new Float64Array(1) }, [[0]], [0, 0], new Int32Array(1)]);
`).outputText;
    expect(out).toContain(`'[["p:o","a:n","w:a"],"m:m",["t:t",":n",":n"],"idx:i"]'`);
    // An Int32Array's tangent is not read: its spec is empty.
    expect(out).toContain(`'[["primals:g",["p:o","a:n","w:a"],"m:m",["t:t",":n",":n"],"idx:i"],["tangents:g",["p:o","a:n","w:a"],"m:m",["t:t",":n",":n"],"idx:"]]'`);
    for (const call of out.match(/tsad\$argumentError\([^\n]*/g) ?? []) expect(call).not.toMatch(/"number"|"array"/);
  });
});
