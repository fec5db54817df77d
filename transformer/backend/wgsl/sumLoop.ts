// When a counted loop is a sum: its iterations are then independent, and the GPU runs it as a
// map over the iteration index and a hierarchical reduction (constructs/sumLoop.ts) instead of
// one invocation walking it (sequential.ts). The test is on the IR alone, whatever the body
// computes: every carried value either passes through unchanged or is updated as
// `carry + term` (either order), where no term reads an updated carry; nothing else in the body
// reads an updated carry. What the body may not do besides (touch the heap: stacks, local
// arrays) the lowering finds when it lowers the body per thread.
import type { Block, Expr, Lambda, Stmt } from '../../ir/syntax';
import { freeVars } from '../../ir/freeVars';

/** Per carried value: `pass` (returned as it came) or the name of the term added to it each iteration. */
export type Accumulation = { readonly kind: 'pass' } | { readonly kind: 'sum'; readonly term: string };

export interface SumLoop {
  readonly carries: readonly Accumulation[];
  /** The body without its accumulating additions, returning the terms (one per `sum` carry, in order). */
  readonly terms: Lambda;
}

const reads = (e: Expr): Set<string> => {
  const f = freeVars(e);
  return new Set([...f.nl, ...f.lin]);
};

/**
 * The loop body `body` (parameters: the index, `invariants` invariant operands, then the
 * carried values) as a sum, or why it is not one.
 */
export function sumLoopOf(body: Lambda, invariants: number): SumLoop | string {
  const result = body.body.result;
  const resultNames = result.tag === 'ret' && result.lin.length === 0 ? result.nl : result.tag === 'var' && !result.linear ? [result.name] : undefined;
  if (body.linParams.length > 0 || resultNames === undefined) return 'a loop body with linear values';
  const carried = body.nlParams.slice(1 + invariants);
  if (carried.length !== resultNames.length) return 'a loop body whose results are not its carried values';
  const passing = new Set(carried.filter((p, k) => resultNames[k] === p.name).map((p) => p.name));
  const updated = new Map(carried.map((p, k) => [p.name, k] as const).filter(([name]) => !passing.has(name)));
  if (updated.size === 0) return 'a loop that carries nothing it adds to';
  for (const [name] of updated) {
    const p = carried.find((c) => c.name === name)!;
    if (p.type !== undefined && p.type.tag !== 'real') return 'a loop carrying something other than numbers';
  }
  /** The additions: binder name → the carry's position. */
  const sums = new Map<string, { carry: number; term: string }>();
  const kept: Stmt[] = [];
  for (const s of body.body.stmts) {
    const names = s.tag === 'let' ? reads(s.rhs) : new Set([s.tuple]);
    const touched = [...names].filter((n) => updated.has(n) || sums.has(n));
    if (touched.length === 0) {
      kept.push(s);
      continue;
    }
    const sum = s.tag === 'let' ? accumulation(s, updated, (n) => updated.has(n) || sums.has(n)) : undefined;
    if (!sum || s.tag !== 'let' || [...sums.values()].some((x) => x.carry === sum.carry)) return 'a loop whose carried values are read other than by one addition each';
    sums.set(s.nl[0].name, sum);
  }
  const carries: Accumulation[] = carried.map((p, k) => {
    if (passing.has(p.name)) return { kind: 'pass' };
    const s = sums.get(resultNames[k]);
    return s?.carry === k ? { kind: 'sum', term: s.term } : { kind: 'pass' };
  });
  if (carries.some((c, k) => c.kind === 'pass' && !passing.has(carried[k].name))) return 'a loop whose carried values are not sums';
  const terms = carries.flatMap((c) => (c.kind === 'sum' ? [c.term] : []));
  const block: Block = { stmts: kept, result: { tag: 'ret', nl: terms, lin: [] } };
  return { carries, terms: { nlParams: body.nlParams, linParams: [], body: block } };
}

/** `let a = add(c, t)` or `add(t, c)` with c an updated carry and t read from neither carries nor their sums: c's position and t. */
function accumulation(s: Extract<Stmt, { tag: 'let' }>, updated: ReadonlyMap<string, number>, tainted: (name: string) => boolean): { carry: number; term: string } | undefined {
  const e = s.rhs;
  if (e.tag !== 'prim' || e.op !== 'add' || e.args.length !== 2 || s.nl.length !== 1 || s.lin.length !== 0) return undefined;
  const [a, b] = e.args;
  if (updated.has(a) && !tainted(b)) return { carry: updated.get(a)!, term: b };
  if (updated.has(b) && !tainted(a)) return { carry: updated.get(b)!, term: a };
  return undefined;
}
