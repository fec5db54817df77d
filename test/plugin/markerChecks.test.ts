// The front end's checks of marked functions (issue 18): every transform reports a broken custom
// rule, destructured lets are reassignable, the JSDoc marker takes options, diagnostics name the
// real cause once and point at it, and every marked function is checked even if no transform uses it.
import { compile, load, expectClose } from './harness';
import { TRANSFORM_KINDS } from '../../transformer/plan/transforms';

/** The tsad diagnostics of a build, as "line:col CODE message" with the related call sites. */
function tsadMessages(source: string): string[] {
  return compile(source, { throwOnError: false }).messages.filter((m) => m.includes('TSAD'));
}

describe('a broken custom rule', () => {
  // A rule whose tangent is a tuple: TSAD1105 where the rule returns it.
  const header = `import { derivative, ${TRANSFORM_KINDS.join(', ')} } from 'tsad';
export function sq(x: number): number { return x * x; }
// @ts-ignore: a tangent of the wrong shape, which the plugin must report
derivative(sq, (x, dx) => [sq(x), [2 * x * dx, 0]]);
/** @differentiable */
export function g(x: number): number { return sq(x) + x; }
`;
  const use = (kind: string, fn: string) =>
    kind === 'jvp' ? `() => jvp(${fn}, [1.5], [1])` : kind === 'vjp' || kind === 'linearize' ? `() => ${kind}(${fn}, 1.5)` : `${kind}(${fn})`;
  // Each order matters: the first transform met lowers the function and its rule.
  const orders = [TRANSFORM_KINDS, [...TRANSFORM_KINDS].reverse()];

  test.each(orders.map((o) => [o.join(',')]))('is reported for every transform and every caller (%s)', (order) => {
    const kinds = order.split(',');
    const lines = kinds.flatMap((k, i) => [`export const s${i} = ${use(k, 'sq')};`, `export const c${i} = ${use(k, 'g')};`]);
    const source = header + lines.join('\n') + '\n';
    const r = compile(source, { throwOnError: false });
    const ours = r.messages.filter((m) => m.includes('TSAD'));
    expect(ours).toHaveLength(1);
    expect(ours[0]).toMatch(/:4:27 - error TSAD1105: /);
    expect(ours[0]).toContain('hint: ');
    // Every call site is listed as needing the broken rule.
    const needed = ours[0].split('\n').filter((l) => l.includes('needed by'));
    expect(needed).toHaveLength(2 * kinds.length);
    for (const k of kinds) {
      expect(ours[0]).toContain(`needed by ${k}(sq`);
      expect(ours[0]).toContain(`needed by ${k}(g`);
    }
    // And none of them was compiled from the body instead: each throws when used.
    const { exports: m } = load(source, { throwOnError: false });
    kinds.forEach((k, i) => {
      for (const name of [`s${i}`, `c${i}`]) {
        expect(() => {
          const v = m[name];
          v(1.5, 1);
        }).toThrow(/was not compiled: the build reported TSAD1105/);
      }
    });
  });
});
