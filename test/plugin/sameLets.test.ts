// Code hoisted out of two loops under one trip guard comes out as two variables of one value:
// `let checked = 0, checked_7 = 0; if (runs) { const t = …; checked = t; checked_7 = t; }`.
// backend/ts/sameLets.ts makes them one where that is safe: declared together with the same
// literal, each assigned once, from the same name in one block, nothing reading the second or
// writing that name in between. Checked on the text (where it applies, and the cases it must
// leave) and on the values of a gradient whose inner loops hoist the same checks.
import * as ts from 'typescript';
import { sameLets } from '../../transformer/backend/ts/sameLets';
import { compile, expectClose, loadOutput, partial } from './harness';

function tidied(text: string): string {
  const sf = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true);
  const printer = ts.createPrinter();
  return sameLets(ts, sf.statements)
    .map((s) => printer.printNode(ts.EmitHint.Unspecified, s, sf))
    .join('\n');
}

const shape = (between = '', init = 'false', extra = '') => `
let a = false, b = ${init}, c = false, d = 0;
if (go) {
  const t = x > 0;
  a = t;
  ${between}
  b = t;
  d = 2;
  c = t;
}
${extra}
use(a, b, c, d);`;

describe('two variables of one value are one', () => {
  test('three copies of one name: the first stays, its readers read it', () => {
    const out = tidied(shape());
    expect(out).toContain('let a = false, d = 0;');
    expect(out).toContain('use(a, a, a, d);');
    expect(out.match(/= t;/g)).toHaveLength(1);
  });

  test('left alone: another start, a read or a write in between, a second assignment, a shorthand property', () => {
    const kept = (text: string, name: string) => expect(tidied(text)).toMatch(new RegExp(`\\b${name} = t;`));
    kept(shape('', 'true'), 'b');
    kept(shape('use(b);'), 'b');
    kept(shape('t2 = b;'), 'b');
    kept(shape('', 'false', 'b = y;'), 'b');
    kept(shape('', 'false', '[b, z] = pair;'), 'b');
    kept(shape('', 'false', '({ k: b } = o);'), 'b');
    kept(shape('', 'false', 'o = { b };'), 'b');
    // A continue in between would skip the second copy: the two differ in the next run.
    kept(`while (go) {${shape('if (x) continue;')}}`, 'b');
    // A write of the copied name in between: the first copy holds its old value.
    expect(tidied('let a = 0, b = 0;\nif (go) {\n  a = t;\n  t = 3;\n  b = t;\n}\nuse(a, b);')).toContain('b = t;');
  });

  test('the gradient of two inner loops over the same count in an outer loop: values as central differences', () => {
    const source = `import { grad } from 'tsad';
/** @differentiable */
export function f(x: Float64Array, u: Float64Array, w: Float64Array, b: number, l: number): number {
  let s = 0;
  for (let k = 0; k < l; k++) {
    for (let i = 0; i < b; i++) s += x[i] * w[i] * (k + 1);
    for (let i = 0; i < b; i++) s += Math.sin(u[i] * s);
  }
  return s;
}
export const g = grad(f, { wrt: [0, 1, 2] });
`;
    const m = loadOutput(compile(source));
    const plain = (x: number[], u: number[], w: number[]) => {
      let s = 0;
      for (let k = 0; k < 3; k++) {
        for (let i = 0; i < 2; i++) s += x[i] * w[i] * (k + 1);
        for (let i = 0; i < 2; i++) s += Math.sin(u[i] * s);
      }
      return s;
    };
    const at = [
      [0.3, -0.6],
      [0.5, 0.25],
      [1.1, -0.4],
    ];
    const f64 = (a: number[]) => Float64Array.from(a);
    const got = (m.g(f64(at[0]), f64(at[1]), f64(at[2]), 2, 3) as Float64Array[]).flatMap((a) => [...a]);
    expectClose(
      got,
      [0, 1, 2].flatMap((i) => [0, 1].flatMap((k) => partial(plain, at, i, k))),
      1e-6,
    );
    expect(() => m.g(f64([1]), f64(at[1]), f64(at[2]), 2, 3)).toThrow(RangeError);
  });
});
