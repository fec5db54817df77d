// Compile time that grows with the size of the source, not its square (issue 18, item 28). Work
// is counted, never timed: structureId (ir/typeIds.ts) looks into each type object once, so the
// number of type objects it looks into measures how many fresh copies of a type the passes made.
import { load } from './harness';
import { structureVisits } from '../../transformer/ir/typeIds';

/** f(x) = the sum of the leaves of x: [number, [number, … number]] nested n deep, destructured level by level. */
function nestedTuples(n: number): string {
  const types = ['type T0 = number;'];
  for (let i = 1; i <= n; i++) types.push(`type T${i} = [number, T${i - 1}];`);
  const lines = [`/** @differentiable */`, `export function f(x: T${n}): number {`];
  let rest = 'x';
  const leaves: string[] = [];
  for (let i = 0; i < n; i++) {
    lines.push(`  const [a${i}, r${i}] = ${rest};`);
    leaves.push(`a${i}`);
    rest = `r${i}`;
  }
  lines.push(`  return ${[...leaves, rest].join(' + ')};`, '}');
  return `import { grad } from 'tsad';\n${types.join('\n')}\n${lines.join('\n')}\nexport const d = grad(f);\n`;
}

test('tuples nested n deep: the types the compiler compares grow linearly with n, and the gradient is all ones', () => {
  const work = (n: number) => {
    const before = structureVisits();
    const { exports: m, result } = load(nestedTuples(n));
    expect(result.diagnostics).toEqual([]);
    let x: unknown = 0.5;
    for (let i = 0; i < n; i++) x = [i, x];
    const g = m.d(x);
    let leaf = g;
    for (let i = 0; i < n; i++) {
      expect(leaf[0]).toBe(1);
      leaf = leaf[1];
    }
    expect(leaf).toBe(1);
    return structureVisits() - before;
  };
  const [small, large] = [work(60), work(240)];
  // Fresh copies of the parameter's type at every level made this quadratic: 16 times the work
  // for 4 times the depth. Linear work is 4 times; allow 6.
  expect(large).toBeLessThan(6 * small);
}, 120_000);
