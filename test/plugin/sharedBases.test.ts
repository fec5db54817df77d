// A loop's tape record of several values is written and read back field by field at one slab
// address (`s.a[s.b + (off | 0) + k * 8 + j]`, size23c's lstm note): where a run of plain
// statements repeats such a base often enough, the emitted code binds it once (`const at = …`) and
// reads `s.a[at + j]` (backend/ts/sharedBases.ts). Checked on the text (where it applies and where
// a call or a write in between must leave the base alone) and on the values: the gradient of a
// recurrence whose inner loop tapes six values per step, against central differences.
import * as ts from 'typescript';
import { sharedBases } from '../../transformer/backend/ts/sharedBases';
import { compile, expectClose, loadOutput, partial } from './harness';

const source = `import { grad } from 'tsad';
/** @differentiable */
export function cells(x: Float64Array, w: Float64Array, steps: number): number {
  let s = 0;
  for (let t = 0; t < steps; t++) {
    let h = x[t] * 0.5;
    for (let j = 0; j < w.length; j++) {
      const a = Math.exp(-h * w[j]);
      const b = Math.tanh(h + w[j]);
      const c = Math.sin(a * b);
      const d = Math.cos(h * c);
      const e = Math.exp(-d * d);
      h = a * b + c * d + e * h;
    }
    s += h * h;
  }
  return s;
}
export const g = grad(cells, { wrt: [0, 1] });
`;

/** `text`'s statements through the rule, printed (parsed nodes print from the file's text). */
function tidied(text: string, params: string[] = []): string {
  const sf = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true);
  const printer = ts.createPrinter();
  return sharedBases(ts, sf.statements, params)
    .map((s) => printer.printNode(ts.EmitHint.Unspecified, s, sf))
    .join('\n');
}

const record = (between = '') => `
const u = 1;
s.a[s.b + (off | 0) + k * 8] = u;
s.a[s.b + (off | 0) + k * 8 + 1] = u * 2;
s.a[s.b + (off | 0) + k * 8 + 2] = Math.exp(u);
${between}
s.a[s.b + (off | 0) + k * 8 + 3] = u;
s.a[s.b + (off | 0) + k * 8 + 4] = u;
const v = s.a[s.b + (off | 0) + k * 8 + 5];
`;

describe('a repeated slab address bound once', () => {
  test('a record of six fields: one const, each access at it', () => {
    const out = tidied(record());
    expect(out).toContain('const at = s.b + (off | 0) + k * 8;');
    expect(out).toContain('s.a[at + 4] = u;');
    expect(out).toContain('const v = s.a[at + 5];');
    expect(out).not.toContain('s.a[s.b');
    // Its name is free in the function.
    expect(tidied(record(), ['at'])).toContain('const at_1 = s.b');
  });

  test('a call or a write of what the address reads ends the run: the accesses after it get a base of their own', () => {
    for (const between of ['tsad$extend(s, 80, slab);', 'off = 3;', 'k++;', 's.b = 0;', 'if (u > 0) { k = 2; }']) {
      const out = tidied(record(between));
      const barrier = out.indexOf(between.slice(0, 6));
      // The first base serves the three accesses before, none after.
      expect(out.indexOf('const at = ')).toBeLessThan(barrier);
      expect(out).not.toMatch(/s\.a\[at \+ [345]\]/);
      expect(out.indexOf('const at_1 = s.b + (off | 0) + k * 8;')).toBeGreaterThan(barrier);
    }
  });

  test('two accesses do not pay for a const', () => {
    const two = 's.a[s.b + (off_1 | 0) + k_4 * 8] = u;\ns.a[s.b + (off_1 | 0) + k_4 * 8 + 1] = u;';
    expect(tidied(two)).not.toContain('const at');
  });

  test('the emitted gradient of a loop that tapes six values per step: one base, values as central differences', () => {
    const result = compile(source);
    expect(result.outputText).toMatch(/const at\w* = \w+\.b \+ \(off\w* \| 0\) \+ \w+ \* \d+;/);
    const m = loadOutput(result);
    const x = [0.3, -0.7, 1.1];
    const w = [0.5, -0.25, 0.8];
    const f64 = (a: number[]) => Float64Array.from(a);
    const plain = (xs: number[], ws: number[]) => {
      let s = 0;
      for (let t = 0; t < 3; t++) {
        let h = xs[t] * 0.5;
        for (let j = 0; j < ws.length; j++) {
          const a = Math.exp(-h * ws[j]);
          const b = Math.tanh(h + ws[j]);
          const c = Math.sin(a * b);
          const d = Math.cos(h * c);
          const e = Math.exp(-d * d);
          h = a * b + c * d + e * h;
        }
        s += h * h;
      }
      return s;
    };
    const [gx, gw] = m.g(f64(x), f64(w), 3);
    expectClose([...gx, ...gw], [...[0, 1, 2].flatMap((k) => partial(plain, [x, w], 0, k)), ...[0, 1, 2].flatMap((k) => partial(plain, [x, w], 1, k))], 1e-6);
  });
});
