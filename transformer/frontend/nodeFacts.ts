// What the front end asks about a statement's whole subtree (what it assigns, how it can leave a
// loop), remembered per node: each loop level asks about its body, so without a memo loops nested
// n deep walk the innermost statements n times (issue 20).
import type * as ts from 'typescript';

/** Nodes whose facts were computed: the tests' work counter (never a clock). */
export const factsMeter = { nodes: 0 };

/**
 * A memo of one fact per node, filled bottom-up by `compute`, which asks for its children's
 * facts through the memo. Per `owner` (the checker, when the fact needs symbols).
 */
export function nodeMemo<T>(compute: (n: ts.Node, owner: object) => T): (n: ts.Node, owner: object) => T {
  const memos = new WeakMap<object, WeakMap<ts.Node, T>>();
  return (n, owner) => {
    let memo = memos.get(owner);
    if (!memo) memos.set(owner, (memo = new WeakMap()));
    const known = memo.get(n);
    if (known !== undefined) return known;
    factsMeter.nodes++;
    const fact = compute(n, owner);
    memo.set(n, fact);
    return fact;
  };
}
