// Names unique per emitted function (backend/ts/shortNames.ts): the passes' counters stack up
// (`x_1_1_1_dot_8`: inlined, kept as a residual, its tangent), and the printed function only needs
// its names to differ from each other and from what it mentions, so each local gets the first free
// name of its stem. Checked on the names (no counter on a counter, tuple elements keep their
// index) and on the values (central differences: renaming must change nothing computed).
import * as ts from 'typescript';
import { compile, load, expectClose, partial } from './harness';
import { elementPrefixes, shortNames, stemOf } from '../../transformer/backend/ts/shortNames';

/** The names an emitted function declares (parameters, variables), by function. */
function locals(text: string): Map<string, string[]> {
  const sf = ts.createSourceFile('out.js', text, ts.ScriptTarget.Latest, true);
  const out = new Map<string, string[]>();
  for (const s of sf.statements) {
    if (!ts.isFunctionDeclaration(s) || !s.name?.text.includes('$')) continue;
    const names: string[] = [];
    const visit = (n: ts.Node): void => {
      if ((ts.isVariableDeclaration(n) || ts.isParameter(n) || ts.isBindingElement(n)) && ts.isIdentifier(n.name)) names.push(n.name.text);
      ts.forEachChild(n, visit);
    };
    visit(s);
    out.set(s.name.text, names);
  }
  return out;
}

// An RK4 step inlined into a loop, differentiated forward over reverse (a Hessian): the shape of
// the demo, where names went through inlining, unzipping, transposing and a JVP.
const source = `import { grad, hessian, differentiable } from 'tsad';
const step = differentiable((x: number, v: number, k: number, h: number): number => {
  const a1 = -k * x;
  const x2 = x + (h / 2) * v;
  const a2 = -k * x2;
  return x + h * (v + (h / 2) * (a1 + a2));
});
/** @differentiable */
export function energy(k: number, v: number, steps: Float64Array): number {
  let x = 1;
  for (let i = 0; i < steps.length; i++) x = step(x, v, k, steps[i]);
  return x * x;
}
export const g = grad(energy, { wrt: [0, 1] });
export const h = hessian(energy, { wrt: [0, 1] });
`;
const steps = new Float64Array([0.1, 0.2, 0.15, 0.05]);

describe('short names in emitted functions', () => {
  test('no local of an emitted function carries a counter on a counter, and the values are unchanged', () => {
    const { exports: m, result } = load(source);
    const defs = locals(result.outputText);
    expect(defs.size).toBeGreaterThan(0);
    for (const [fn, names] of defs) {
      expect({ fn, stacked: names.filter((n) => /_\d+_\d+(_|$)|_(dot|bar)_\d+_/.test(n)) }).toEqual({ fn, stacked: [] });
      expect(new Set(names).size).toBe(names.length);
    }
    const gAt = (k: number, v: number) => m.g(k, v, steps) as number[];
    const plain = (k: number, v: number) => {
      let x = 1;
      for (const hh of steps) {
        const a1 = -k * x;
        const x2 = x + (hh / 2) * v;
        x = x + hh * (v + (hh / 2) * (a1 + -k * x2));
      }
      return x * x;
    };
    expectClose(
      gAt(0.8, 0.3),
      [0, 1].map((c) => partial(plain, [0.8, 0.3], c, 0)[0]),
    );
    const H = m.h(0.8, 0.3, steps) as number[][];
    const ref = [0, 1].map((r) => [0, 1].map((c) => partial((k: number, v: number) => gAt(k, v)[r], [0.8, 0.3], c, 0)[0]));
    expectClose(H.flat(), ref.flat(), 1e-5);
  });

  test("a tuple's elements keep their indices", () => {
    const r = compile(`import { jacobian } from 'tsad';
/** @differentiable */
export function rot(p: [number, number], theta: number): [number, number] {
  const c = Math.cos(theta), s = Math.sin(theta);
  return [c * p[0] - s * p[1], s * p[0] + c * p[1]];
}
export const j = jacobian(rot);
`);
    const names = [...locals(r.outputText).values()].flat();
    expect(names).toEqual(expect.arrayContaining(['p_0', 'p_1']));
  });
});

describe('stemOf and shortNames', () => {
  test('counters go, element indices stay', () => {
    const none = new Set<string>();
    expect(stemOf('x_1_1_1_dot_8', none)).toBe('x_dot');
    expect(stemOf('neg_1_1_bar_2_dot_11', none)).toBe('neg_bar_dot');
    expect(stemOf('x_dot', none)).toBe('x_dot');
    const elements = elementPrefixes(['p_0', 'p_1', 'q_0_bar_4']);
    expect(stemOf('p_1', elements)).toBe('p_1');
    expect(stemOf('q_1_bar_2', elements)).toBe('q_1_bar');
    expect(stemOf('p_1_3', elements)).toBe('p_1');
  });

  /** Statements as the emitter makes them: every identifier synthesized. */
  const synthesized = (text: string) => {
    const sf = ts.createSourceFile('f.js', text, ts.ScriptTarget.Latest, true);
    const fresh = (n: ts.Node): ts.Node => (ts.isIdentifier(n) ? ts.factory.createIdentifier(n.text) : ts.visitEachChild(n, fresh, undefined));
    return { sf, body: sf.statements.map((s) => fresh(s) as ts.Statement) };
  };
  const print = (sf: ts.SourceFile, body: readonly ts.Statement[]) => body.map((s) => ts.createPrinter().printNode(ts.EmitHint.Unspecified, s, sf)).join(' ');

  test('a local takes no name the function mentions otherwise, no keyword, and keeps a name that is its own stem', () => {
    const { sf, body } = synthesized('const new_1 = x_2 * y; const y_3 = Math.max(new_1, y_1, y_3.length); return [x, y_3, y_1];');
    const params = shortNames(ts, ['x_2', 'y', 'y_1'], body);
    // x is a free name (a global): x_2 may not become x. y keeps its name; new is a keyword.
    expect(params).toEqual(['x_1', 'y', 'y_1']);
    expect(print(sf, body)).toBe('const new_1 = x_1 * y; const y_2 = Math.max(new_1, y_1, y_2.length); return [x, y_2, y_1];');
  });

  test('an identifier the emit did not make keeps its name', () => {
    const sf = ts.createSourceFile('f.js', 'const a_1 = b * 2; return a_1;', ts.ScriptTarget.Latest, true);
    expect(shortNames(ts, ['b'], [...sf.statements])).toEqual(['b']);
    expect(print(sf, sf.statements)).toBe('const a_1 = b * 2; return a_1;');
  });
});
