// Checkpointing loops for reverse mode: a pre-pass before J that rewrites each construct whose
// record offers `segment` (counted and while loops) so that U saves the state at segment starts instead
// of every iteration's residuals, and recomputes one segment at a time (constructs/loop/segment.ts,
// constructs/remat/). The policies:
//
//   { every: k }   segments of k iterations: n/k snapshots + k residual sets, one more forward sweep
//   'sqrt'         k = ⌈√n⌉ at run time: O(√n) memory, one more forward sweep
//   { levels: L }  L − 1 nested strip-minings, level d of the remaining trip count m cut into
//                  segments of ⌈m^((L−1−d)/(L−d))⌉: O(L·n^(1/L)) memory, L − 1 more forward
//                  sweeps; L = 2 is 'sqrt', and L ≈ log₂ n reaches O(log n) snapshots for
//                  O(n log n) recomputation (the end of the binomial trade-off; not Revolve's
//                  optimal schedule, which needs recursion the IR does not have); L = 1 is 'store'
//
// While loops are strip-mined under `{ every: k }` only (constructs/while/segment.ts: segments
// of at most k steps, stopping where the condition fails); the other policies need the trip
// count in advance and leave them as they are.
//
// The rewrite preserves values exactly: it only regroups iterations (the counter is rebuilt as
// base + i'). Loops already inside a segment's body are checkpointed too, bottom-up.
import { Builder, NameSupply } from '../ir/build';
import { blockE, FnDef, IrError, Program } from '../ir/syntax';
import type { Expr } from '../ir/syntax';
import { namesIn, rewriteBlock } from '../ir/traverse';
import { arityOf, defArity } from '../language/arity';
import { constructRule } from '../constructs/registry';
import type { ConstructExpr, SegmentOps } from '../constructs/types';
import { calleesFirst, defMap } from '../ir/program';

export type LoopCheckpoint = 'store' | 'sqrt' | { readonly every: number } | { readonly levels: number };

/** Throws an IrError for a policy that makes no sense (the front end reports it first, with a position). */
export function validateCheckpoint(c: LoopCheckpoint): void {
  if (c === 'store' || c === 'sqrt') return;
  if (typeof c === 'object' && c !== null && 'every' in c && Number.isInteger(c.every) && c.every >= 1) return;
  if (typeof c === 'object' && c !== null && 'levels' in c && Number.isInteger(c.levels) && c.levels >= 1) return;
  throw new IrError(`checkpoint must be 'store', 'sqrt', { every: k } or { levels: L } with k, L positive integers; got ${JSON.stringify(c)}`);
}

/** The number of nested segment levels a policy asks for (0: the loop as it is). */
const depthOf = (c: LoopCheckpoint): number => (c === 'store' ? 0 : c === 'sqrt' || 'every' in c ? 1 : c.levels - 1);

/** The segment length at `level` (0 outermost) of `depth`, bound in `b` from the trip count. */
function segmentLength(c: LoopCheckpoint, level: number, depth: number, b: Builder, count: string): string {
  if (typeof c === 'object' && 'every' in c) return b.lit(c.every, 'k');
  // ⌈m^f⌉ with f = (L−1−d)/(L−d): each level keeps the same share of the work per snapshot.
  const f = (depth - level) / (depth - level + 1);
  const root = f === 0.5 ? b.prim('sqrt', [count], 'root') : b.prim('pow', [count, b.lit(f, 'f')], 'root');
  return b.prim('ceil', [root], 'k');
}

function checkpointDef(d: FnDef, defs: ReadonlyMap<string, FnDef>, c: LoopCheckpoint): FnDef {
  const depth = depthOf(c);
  const names = new NameSupply(namesIn(d.body, new Set([...d.nlParams, ...d.linParams].map((x) => x.name))));
  const arity = defArity(defs);
  const rewrite = (e: ConstructExpr, level: number): Expr => {
    const rule = constructRule(e, 'checkpoint');
    if (level >= depth || !rule.segment) return e;
    const b = new Builder(names);
    const ops: SegmentOps = {
      b,
      length: (bb, count) => segmentLength(c, level, depth, bb, count),
      arity: (body) => arityOf(body.body.result, arity),
      ...(typeof c === 'object' && 'every' in c ? { every: c.every } : {}),
      inner: (segment) => rewrite(segment, level + 1),
    };
    const out = rule.segment(ops, e);
    return out === undefined ? e : blockE(b.finish(out));
  };
  let changed = false;
  const body = rewriteBlock(d.body, {
    expr: (e) => {
      if (e.tag !== 'construct') return e;
      const out = rewrite(e, 0);
      if (out !== e) changed = true;
      return out;
    },
  });
  return changed ? { ...d, body } : d;
}

/** Checkpoints the loops of `fns` and of every function they call (before J). */
export function checkpointProgram(p: Program, fns: readonly string[], c: LoopCheckpoint): Program {
  validateCheckpoint(c);
  if (depthOf(c) === 0) return p;
  const defs = defMap(p);
  const targets = new Set(calleesFirst(p, fns));
  return { ...p, defs: p.defs.map((d) => (targets.has(d.name) ? checkpointDef(d, defs, c) : d)) };
}
