// The front end's questions about a loop's body (what it assigns, how it can leave the loop) cost
// a bounded number of node visits per level however deep the loops nest (issue 20): counted by
// frontend/nodeFacts.ts's factsMeter, never in time. Before, each level walked its whole subtree
// again (assignedSymbols twice per counted loop, loopExits once): visits per level grew with the depth.
import { compile } from '../plugin/harness';
import { factsMeter } from '../../transformer/frontend/nodeFacts';
import { type Kind, nested } from '../plugin/nestedSource';

// (Nested `if`s ask neither question per level.)
test.each<[Kind, number[]]>([['for', [25, 50, 100]]])(
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
