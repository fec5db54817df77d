// When a counted loop is a sum: its iterations are then independent, and the GPU runs it as a
// map over the iteration index and a hierarchical reduction (constructs/sumLoop.ts) instead of
// one invocation walking it (sequential.ts). The test is on the IR alone, whatever the body
// computes: every carried value either passes through unchanged, or is a number updated once as
// `carry + term` (either order), or a stack updated once as `put(carry, value, i)` at the
// iteration index i (a gradient's forward loop leaving its residuals: each iteration its own
// record); no term, value or anything else in the body reads an updated carry. What the body may
// not do besides (allocate or store in the heap: a stack, a local array) the lowering finds when
// it lowers the body per thread.
import type { Block, Expr, Lambda, Stmt } from '../../ir/syntax';
import { freeVars } from '../../ir/freeVars';
import { PRIMS } from '../../prims/registry';

/**
 * Per carried value: `pass` (returned as it came), `sum` (the name of the term added to it each
 * iteration) or `put` (a stack; the name of the value put at record i each iteration).
 */
export type Accumulation = { readonly kind: 'pass' } | { readonly kind: 'sum'; readonly term: string } | { readonly kind: 'put'; readonly value: string };

export interface SumLoop {
  readonly carries: readonly Accumulation[];
  /** The body without its updates of carried values, returning the terms, then the values put (each in the carries' order). */
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
  const typeOf = (k: number) => carried[k].type?.tag;
  /** The updates: binder name → the carry's position and what the iteration adds or puts. */
  const sums = new Map<string, Update>();
  const kept: Stmt[] = [];
  for (const s of body.body.stmts) {
    const names = s.tag === 'let' ? reads(s.rhs) : new Set([s.tuple]);
    const touched = [...names].filter((n) => updated.has(n) || sums.has(n));
    if (touched.length === 0) {
      kept.push(s);
      continue;
    }
    const tainted = (n: string) => updated.has(n) || sums.has(n);
    const update = s.tag === 'let' ? (accumulation(s, updated, tainted) ?? putAt(s, updated, tainted, body.nlParams[0].name)) : undefined;
    if (!update || s.tag !== 'let' || [...sums.values()].some((x) => x.carry === update.carry)) return 'a loop whose carried values are read other than by one addition or put each';
    // An addition of a number, a put on a stack (its type unknown: either, as the operation says).
    const want = update.kind === 'sum' ? 'real' : 'stack';
    if (typeOf(update.carry) !== undefined && typeOf(update.carry) !== want) return 'a loop whose carried values are not sums';
    sums.set(s.nl[0].name, update);
  }
  const carries: Accumulation[] = carried.map((p, k) => {
    if (passing.has(p.name)) return { kind: 'pass' };
    const u = sums.get(resultNames[k]);
    if (u?.carry !== k) return { kind: 'pass' };
    return u.kind === 'sum' ? { kind: 'sum', term: u.operand } : { kind: 'put', value: u.operand };
  });
  if (carries.some((c, k) => c.kind === 'pass' && !passing.has(carried[k].name))) return 'a loop whose carried values are not sums';
  const terms = [...carries.flatMap((c) => (c.kind === 'sum' ? [c.term] : [])), ...carries.flatMap((c) => (c.kind === 'put' ? [c.value] : []))];
  const block: Block = { stmts: kept, result: { tag: 'ret', nl: terms, lin: [] } };
  return { carries, terms: { nlParams: body.nlParams, linParams: [], body: block } };
}

interface Update {
  readonly kind: 'sum' | 'put';
  /** The carry's position among the carried values. */
  readonly carry: number;
  /** The term added, or the value put. */
  readonly operand: string;
}

/** `let a = c + t` or `t + c` (a primitive whose record says it `sums`) with c an updated carry and t read from neither carries nor their updates. */
function accumulation(s: Extract<Stmt, { tag: 'let' }>, updated: ReadonlyMap<string, number>, tainted: (name: string) => boolean): Update | undefined {
  const e = s.rhs;
  if (e.tag !== 'prim' || PRIMS[e.op]?.sums !== true || e.args.length !== 2 || s.nl.length !== 1 || s.lin.length !== 0) return undefined;
  const [a, b] = e.args;
  if (updated.has(a) && !tainted(b)) return { kind: 'sum', carry: updated.get(a)!, operand: b };
  if (updated.has(b) && !tainted(a)) return { kind: 'sum', carry: updated.get(b)!, operand: a };
  return undefined;
}

/** `let d = put(c, v, i)`: record i (the loop's index itself) of the stack c set to v, read from neither carries nor their updates. */
function putAt(s: Extract<Stmt, { tag: 'let' }>, updated: ReadonlyMap<string, number>, tainted: (name: string) => boolean, index: string): Update | undefined {
  const e = s.rhs;
  if (e.tag !== 'construct' || e.op !== 'put' || e.lin.length !== 0 || e.nl.length !== 3 || s.nl.length !== 1 || s.lin.length !== 0) return undefined;
  const [c, v, r] = e.nl;
  if (!updated.has(c) || tainted(v) || r !== index) return undefined;
  return { kind: 'put', carry: updated.get(c)!, operand: v };
}
