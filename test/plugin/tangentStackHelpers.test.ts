// A typed tangent stack (second order through a loop: hessian = J of the gradient, whose forward
// half pushes residuals) is written by tsad$lpush and read by tsad$lat, one runtime call each
// (runtime/emitted.ts; V8 inlines them), instead of the size test, the cover call and the store
// at every push and the bounds test at every read. The Hessian against second central
// differences; the helpers' sparse semantics (holes and reads past the size are zero) directly.
import { load, expectClose } from './harness';
import { tsad$lat, tsad$lpush } from '../../runtime/emitted';

const H = 1e-4;

/** ∂²f/∂xᵢ∂xⱼ by central differences. */
function hessianFd(f: (x: number[]) => number, x: readonly number[]): number[][] {
  const at = (di: number, si: number, dj: number, sj: number) => {
    const y = x.slice();
    y[di] += si * H;
    y[dj] += sj * H;
    return f(y);
  };
  return x.map((_, i) => x.map((_, j) => (at(i, 1, j, 1) - at(i, 1, j, -1) - at(i, -1, j, 1) + at(i, -1, j, -1)) / (4 * H * H)));
}

const source = `import { hessian } from 'tsad';
/** @differentiable */
export function orbit(p: { k: number; c: number }, t: Float64Array, x: Float64Array): number {
  let total = 0;
  for (let i = 0; i < t.length; i++) {
    let y = p.c, v = 0;
    const h = t[i] / 8;
    for (let s = 0; s < 8; s++) {
      const a = -p.k * Math.sin(y);
      v = v + h * a;
      y = y + h * v;
    }
    const r = y - x[i];
    total += r * r;
  }
  return total;
}
export const h = hessian(orbit);
`;

test('a Hessian through nested loops pushes and reads its tangent stacks with the runtime helpers; second central differences agree', () => {
  const { exports: m, result } = load(source);
  const text = result.outputText;
  expect(text).toMatch(/tsad\$lpush\([\w$]+, [^;]+, [\w$]+, \$slab\);/);
  expect(text).toMatch(/tsad\$lat\([\w$]+, [^;]+\)/);
  expect(text).not.toMatch(/tsad\$cover\(/);
  expect(text).not.toMatch(/< [\w$]+\.n \? /);
  const t = new Float64Array([0.5, 1, 1.7]);
  const x = new Float64Array([0.9, 0.6, 0.1]);
  // The record's rows and columns in field-name order: c, then k.
  const plain = ([c, k]: number[]) => {
    let total = 0;
    for (let i = 0; i < t.length; i++) {
      let y = c;
      let v = 0;
      const h = t[i] / 8;
      for (let s = 0; s < 8; s++) {
        v = v + h * (-k * Math.sin(y));
        y = y + h * v;
      }
      total += (y - x[i]) ** 2;
    }
    return total;
  };
  const ref = hessianFd(plain, [0.8, 1.4]);
  const got = m.h({ k: 1.4, c: 0.8 }, t, x) as number[][];
  expectClose(got.flat(), ref.flat(), 1e-5);
});

test('tsad$lpush covers a position past the size, the positions skipped reading zero; tsad$lat reads zero past the size', () => {
  const slab = { chunk: new Float64Array(0), top: 0 };
  const s = { a: slab.chunk, b: 0, c: 0, n: 0 };
  tsad$lpush(s, 3, 2.5, slab);
  expect(s.n).toBe(4);
  expect([0, 1, 2, 3, 4, 100].map((i) => tsad$lat(s, i))).toEqual([0, 0, 0, 2.5, 0, 0]);
  tsad$lpush(s, 1, -1, slab);
  expect(s.n).toBe(4);
  tsad$lpush(s, 40, 7, slab);
  expect(s.n).toBe(41);
  expect([1, 3, 20, 40, 41].map((i) => tsad$lat(s, i))).toEqual([-1, 2.5, 0, 7, 0]);
});

// stackEmit READING_HELPERS: tsad$lat and tsad$empty only read memory, so the tidy (fold.ts) moves
// a single-use call of one to its use like an element read: past other reads, never past a write
// (tsad$reserve moves the slab's top; a store; a call it cannot see into).
import * as ts from 'typescript';
import { tidyBody } from '../../transformer/backend/ts/fold';

function tidied(body: string): string {
  const sf = ts.createSourceFile('f.ts', `function f($slab, s, i, x) {\n${body}\n}`, ts.ScriptTarget.Latest, true);
  const fn = sf.statements[0] as ts.FunctionDeclaration;
  const out = tidyBody(ts, [...fn.body!.statements]);
  const printer = ts.createPrinter();
  // One line per statement (the printer breaks lines where a moved node kept its source position).
  return out.map((s) => printer.printNode(ts.EmitHint.Unspecified, s, sf).replace(/\s+/g, ' ')).join('\n');
}

test('the tidy moves tsad$empty and tsad$lat to their one use past reads, not past a write or an opaque call', () => {
  expect(tidied('const a = tsad$empty($slab);\nconst b = tsad$empty($slab);\nlet p = a, q = b;\nreturn [p, q];')).toBe('const p = tsad$empty($slab), q = tsad$empty($slab);\nreturn [p, q];');
  // Both take room from the slab: the empty stack stays before the reservation (moved into the
  // return together, as they are evaluated in order there).
  expect(tidied('const a = tsad$empty($slab);\nconst r = tsad$reserve($slab, 4);\nlet p = a;\nreturn [p, r];')).toMatch(/tsad\$empty\(\$slab\)[\s\S]*tsad\$reserve\(\$slab, 4\)/);
  expect(tidied('const y = tsad$lat(s, i);\nx.a[0] = 1;\nreturn y;')).toMatch(/^const y = tsad\$lat\(s, i\);/);
  expect(tidied('const y = tsad$lat(s, i);\nconst z = x.a[i];\nreturn y + z;')).toBe('return tsad$lat(s, i) + x.a[i];');
  expect(tidied('const y = tsad$lat(s, i);\ntsad$lpush(s, i, 2, $slab);\nreturn y;')).toMatch(/^const y = tsad\$lat\(s, i\);/);
});
