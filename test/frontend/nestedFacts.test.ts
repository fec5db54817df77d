// The front end's questions about a loop's body (what it assigns, how it can leave the loop) cost
// a bounded number of node visits per level however deep the loops nest (issue 20): counted by
// frontend/nodeFacts.ts's factsMeter, never in time. Before, each level walked its whole subtree
// again (assignedSymbols twice per counted loop, loopExits once): visits per level grew with the depth.
import { compile } from '../plugin/harness';
import { factsMeter } from '../../transformer/frontend/nodeFacts';
import { type Kind, nested } from '../plugin/nestedSource';

// (Nested `if`s ask neither question per level.)
test.each<[Kind, number[]]>([['for', [12, 24, 48]]])(
  '%s statements nested %j deep: the front end visits a bounded number of nodes per level',
  (kind, depths) => {
    const visited = depths.map((d) => {
      const before = factsMeter.nodes;
      const r = compile(nested(kind, d, true));
      expect(r.diagnostics).toEqual([]);
      return factsMeter.nodes - before;
    });
    const perLevel = [(visited[1] - visited[0]) / (depths[1] - depths[0]), (visited[2] - visited[1]) / (depths[2] - depths[1])];
    expect(perLevel[1] / perLevel[0]).toBeLessThan(1.1);
    expect(perLevel[1]).toBeLessThan(100);
  },
  300_000,
);

/**
 * `depth` loops nested, alternately counted (writing an array by element) and over an array,
 * each body ending in a `break`: the front end asks how each statement can leave its loop, too.
 */
function nestedWithExits(depth: number): string {
  const lines = ["import { differentiable, grad } from 'tsad';", 'export const f = differentiable((x: number, xs: number[]): number => {', '  let y = x;', '  const a = new Float64Array(2);'];
  for (let k = 0; k < depth; k++) {
    if (k % 2) lines.push('for (const v of xs) {', 'y = 0.9 * y + 0.1 * Math.sin(y + v * x);');
    else lines.push('for (let i = 0; i < 1; i++) {', 'a[i] = a[i] + 0.1 * Math.sin(y);', 'y = y + 0.01 * a[i];');
    lines.push('if (y > 1e9) break;');
  }
  for (let k = 0; k < depth; k++) lines.push('}');
  lines.push('  return y + a[0];', '});', 'export const g = grad(f);');
  return lines.join('\n') + '\n';
}

test('loops with exits and array writes nested 8, 16, 32 deep: the front end visits a bounded number of nodes per level', () => {
  const depths = [8, 16, 32];
  const visited = depths.map((d) => {
    const before = factsMeter.nodes;
    const r = compile(nestedWithExits(d));
    expect(r.diagnostics).toEqual([]);
    return factsMeter.nodes - before;
  });
  const perLevel = [(visited[1] - visited[0]) / (depths[1] - depths[0]), (visited[2] - visited[1]) / (depths[2] - depths[1])];
  expect(perLevel[1] / perLevel[0]).toBeLessThan(1.1);
  expect(perLevel[1]).toBeLessThan(200);
}, 300_000);
