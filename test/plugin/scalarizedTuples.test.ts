// A branch with more than 8 residuals hands them to the backward pass packed in one tuple
// (constructs/cond/unzip.ts, MAX_FLAT_SLOTS). In a fused derivative the tuple is only built
// (in each branch) and unpacked (in each backward branch): the emitted code keeps its elements in
// locals instead of allocating an array per call (backend/ts/scalarize.ts). Checked against
// central differences on both sides of the branch, on the emitted text, and on the rewrite's
// refusals (a tuple read whole, built at two lengths, unpacked longer than built, under a try).
import * as ts from 'typescript';
import * as vm from 'vm';
import { load, expectClose, partial } from './harness';
import { scalarizeTuples } from '../../transformer/backend/ts/scalarize';

const source = `
import { grad, jacrev } from 'tsad';

/** @differentiable */
export function project(r0: number, r1: number, r2: number, X0: number, X1: number, X2: number): number {
  const sq = r0 * r0 + r1 * r1 + r2 * r2;
  let x0 = 0;
  let x1 = 0;
  let x2 = 0;
  if (sq !== 0) {
    const th = Math.sqrt(sq);
    const c = Math.cos(th);
    const s = Math.sin(th);
    const w0 = r0 / th;
    const w1 = r1 / th;
    const w2 = r2 / th;
    const t = (w0 * X0 + w1 * X1 + w2 * X2) * (1 - c);
    x0 = X0 * c + (w1 * X2 - w2 * X1) * s + w0 * t;
    x1 = X1 * c + (w2 * X0 - w0 * X2) * s + w1 * t;
    x2 = X2 * c + (w0 * X1 - w1 * X0) * s + w2 * t;
  } else {
    x0 = X0 + (r1 * X2 - r2 * X1);
    x1 = X1 + (r2 * X0 - r0 * X2);
    x2 = X2 + (r0 * X1 - r1 * X0);
  }
  return (x0 * x0 + x1 * x1) / (x2 + 10);
}

/** @differentiable */
export function pair(r0: number, r1: number, r2: number, X0: number, X1: number, X2: number): [number, number] {
  const e = project(r0, r1, r2, X0, X1, X2);
  return [e * X0, e + r1];
}

export const g = grad(project, { wrt: [0, 1, 2, 3, 4, 5] });
export const J = jacrev(pair, { wrt: [0, 1, 2, 3, 4, 5], flat: true });
`;

const { exports: m, result } = load(source);
function project(r0: number, r1: number, r2: number, X0: number, X1: number, X2: number): number {
  const sq = r0 * r0 + r1 * r1 + r2 * r2;
  let [x0, x1, x2] = [X0 + (r1 * X2 - r2 * X1), X1 + (r2 * X0 - r0 * X2), X2 + (r0 * X1 - r1 * X0)];
  if (sq !== 0) {
    const th = Math.sqrt(sq);
    const [c, s] = [Math.cos(th), Math.sin(th)];
    const [w0, w1, w2] = [r0 / th, r1 / th, r2 / th];
    const t = (w0 * X0 + w1 * X1 + w2 * X2) * (1 - c);
    x0 = X0 * c + (w1 * X2 - w2 * X1) * s + w0 * t;
    x1 = X1 * c + (w2 * X0 - w0 * X2) * s + w1 * t;
    x2 = X2 * c + (w0 * X1 - w1 * X0) * s + w2 * t;
  }
  return (x0 * x0 + x1 * x1) / (x2 + 10);
}
const pair = (...a: [number, number, number, number, number, number]): number[] => {
  const e = project(...a);
  return [e * a[3], e + a[1]];
};

const fnText = (name: string): string => {
  const text = result.outputText;
  const start = text.indexOf(`function ${name}(`);
  expect(start).toBeGreaterThanOrEqual(0);
  return text.slice(start, text.indexOf('\n}\n', start));
};

describe('a tuple only built and unpacked is its elements in the emitted code', () => {
  test('gradient and flat Jacobian equal central differences, on both sides of the branch', () => {
    for (const at of [
      [0.3, -0.5, 0.8, 1.2, -0.7, 2.5],
      [0, 0, 0, 1.2, -0.7, 2.5],
    ]) {
      // At r = 0 the other branch: r is differentiated there by the first-order rotation, which
      // central differences straddling 0 see as well (both branches agree to first order).
      const fd = [0, 1, 2, 3, 4, 5].map((j) => partial(project, at, j, 0)[0]);
      expectClose(m.g(...at), fd, 1e-6);
      const cols = [0, 1, 2, 3, 4, 5].map((j) => partial(pair, at, j, 0));
      expectClose(
        [...m.J(...at).data],
        [0, 1].flatMap((r) => cols.map((c) => c[r])),
        1e-6,
      );
    }
  });

  test('the fused defs allocate no array for the branch residuals', () => {
    // Residuals of a branch went through `slots = [r0, …, sin]` and `const [...] = slots`.
    for (const def of ['project$grad', 'pair$jac_0_1_2_3_4_5$into']) {
      const body = fnText(def);
      expect(body).toMatch(/if \(/);
      expect(body).not.toMatch(/= \[|const \[/);
    }
  });

  const rewrite = (code: string): string => {
    const file = ts.createSourceFile('t.ts', code, ts.ScriptTarget.ES2022, true);
    const out = scalarizeTuples(ts, file.statements);
    const printer = ts.createPrinter();
    return out.map((s) => printer.printNode(ts.EmitHint.Unspecified, s, file)).join('\n');
  };

  test('the rewrite names the elements as the first unpacking does and keeps the rest as they were', () => {
    const out = rewrite('let a, s;\nif (c) { s = [x, y, z]; } else { s = [1, 2, 3]; }\nconst [p, q, unused] = s;\nconst [p2, q2] = s;\nuse(p + q + p2 + q2);');
    expect(out).toMatch(/let a, p, q, s\$2;/);
    expect(out).toMatch(/p = x;\s*q = y;\s*s\$2 = z;/);
    expect(out).toMatch(/const unused = s\$2;/);
    expect(out).toMatch(/const p2 = p;\s*const q2 = q;/);
    expect(out).not.toMatch(/\[/);
  });

  test('a tuple built again after an unpacking (or in a loop): each unpacking keeps the values it read', () => {
    const run = (code: string) => vm.runInNewContext(`(() => { ${code} })()`, { a: 1, b: 2, c: 3, d: 4 });
    const again = 'let s;\ns = [a, b];\nconst [p, q] = s;\ns = [c, d];\nconst [p2, q2] = s;\nreturn [p, q, p2, q2];';
    expect(rewrite(again)).not.toMatch(/\[a, b\]|const \[/);
    expect(run(rewrite(again))).toEqual([1, 2, 3, 4]);
    const loop = 'let s; const out = [];\nfor (let i = 0; i < 2; i++) {\n  const [p] = i > 0 ? [0] : [9];\n  s = [a + i, b];\n  const [x, y] = s;\n  out.push(x, y);\n}\nreturn out;';
    expect(run(rewrite(loop))).toEqual([1, 2, 2, 2]);
    expect(rewrite(loop)).toMatch(/const x = s\$0/);
  });

  test('a tuple read whole, built at two lengths, unpacked past its length, or under a try stays an array', () => {
    for (const code of [
      'let s;\ns = [x, y];\nconst [p, q] = s;\nuse(s);',
      'let s;\nif (c) { s = [x, y]; } else { s = [x, y, z]; }\nconst [p, q] = s;',
      'let s;\ns = [x, y];\nconst [p, q, r] = s;',
      'let s;\ntry { s = [x, y]; } catch (e) {}\nconst [p, q] = s;',
      'let s = [x, y];\nconst [p, q] = s;',
      'let s;\ns = [x, y];\nconst [p, ...q] = s;',
    ]) {
      expect(rewrite(code)).toMatch(/s = \[x, y/);
    }
  });
});
