// `++x` and `x--` used as values (issue 19, rkf45's `if (++steps > 10000) throw …`): where the
// expression runs once and in order, the update is lowered as its statement and the expression
// takes the new (prefix) or old (postfix) value. Elsewhere (a loop condition, the right of &&,
// a side of ?:) it stays TSAD1108. Values are compared with the same source run as plain
// JavaScript, gradients with central differences.
import { compile, load, partial, expectClose, runPlain } from './harness';

const functions = `
/** @differentiable */
export function damped(x: number, n: number): number {
  let y = x;
  let steps = 0;
  while (y > 0.01) {
    y *= 0.5 + 0.1 * Math.sin(x);
    if (++steps > n) throw new Error('damped: too many steps');
  }
  return y + steps;
}

/** @differentiable */
export function counted(x: number): number {
  let k = 1;
  const a = k++ * x;
  const b = x * ++k + k--;
  const c = Math.pow(x, k++) - --k;
  return a + b + c + k;
}
`;

const source = `
import { valueAndGrad } from 'tsad';
${functions}
export const gDamped = valueAndGrad(damped, { wrt: [0] });
export const gCounted = valueAndGrad(counted);
`;

const plainModule = (): Record<string, any> => runPlain(functions);

describe('++ and -- as values', () => {
  const { exports: m, result } = load(source);
  const plain = plainModule();

  test('builds with no diagnostics', () => {
    expect(result.messages).toEqual([]);
  });

  test.each([0.3, 2, 9])('if (++steps > n) throw … at x = %f', (x) => {
    const [value, g] = m.gDamped(x, 100);
    expect(value).toBe(plain.damped(x, 100));
    expectClose(
      [g],
      partial((v: number) => plain.damped(v, 100), [x], 0, 0),
    );
  });

  test('the error the update leads to is thrown as JavaScript throws it', () => {
    expect(() => plain.damped(9, 2)).toThrow('damped: too many steps');
    expect(() => m.gDamped(9, 2)).toThrow('damped: too many steps');
  });

  test.each([-1.5, 0.5, 2])('prefix and postfix values in arithmetic at x = %f', (x) => {
    const [value, g] = m.gCounted(x);
    expect(value).toBe(plain.counted(x));
    expectClose([g], partial(plain.counted, [x], 0, 0));
  });
});

describe('where an update may run more than once, or not at all', () => {
  test.each([
    ['a loop condition', 'let i = 0; let s = 0; while (i++ < 3) s += x; return s;'],
    ['the right of &&', 'let i = 0; const ok = x > 0 && ++i > 0; return ok ? x + i : i;'],
    ['a side of ?:', 'let i = 0; const y = x > 0 ? ++i : 0; return x + y + i;'],
  ])('%s is TSAD1108', (_, body) => {
    const r = compile(`/** @differentiable */\nexport function f(x: number): number { ${body} }`, { throwOnError: false });
    expect(r.messages.join('\n')).toMatch(/TSAD1108: \+\+ and -- of a local variable are values only where they run once/);
  });
});
