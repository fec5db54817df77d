// A def whose body only calls another and returns what it returns, where that call is the
// callee's only one, takes the callee's body: the call moves no code and copies none, it only
// costs a function. The inliner keeps such a call where the callee is larger than a single call
// site may bring in (opt/inline.ts); a Hessian-vector product that calls the gradient's JVP for
// its tangent (opt/unreadResults.ts) is left forwarding to it.
//
//   def f.hvp(x̄, v̄ ;) -> (h ;) { let h = g(x̄, v̄) in (h ;) }     g called nowhere else
//   ⇒ def f.hvp(x̄, v̄ ;) -> (h ;) { g's body, its parameters x̄, v̄ }
import type { Expr, FnDef, Program } from '../ir/syntax';
import { callSitesOfDef, calleesFirst, defMap } from '../ir/program';
import { inlineProgram } from './inline';
import { keptCalls } from './keptCalls';
import { simplifyDef } from './simplify';

/** The function `d` only forwards to: its body is that call (bound and returned as it is). */
function forwardsTo(d: FnDef): string | undefined {
  const { stmts, result } = d.body;
  const isCall = (e: Expr): e is Extract<Expr, { tag: 'call' }> => e.tag === 'call';
  if (stmts.length === 0) return isCall(result) ? result.fn : undefined;
  if (stmts.length !== 1) return undefined;
  const s = stmts[0];
  if (s.tag !== 'let' || !isCall(s.rhs) || result.tag !== 'ret') return undefined;
  const same = (bound: readonly { name: string }[], returned: readonly string[]) => bound.length === returned.length && bound.every((b, k) => b.name === returned[k]);
  return same(s.nl, result.nl) && same(s.lin, result.lin) ? s.rhs.fn : undefined;
}

/**
 * `p` with `entry` in place of the callee it only forwards to, where that call is the callee's
 * only one in the program (another caller would get a copy of the body).
 */
export function takeForwardedBody(p: Program, entry: string): Program {
  const byName = defMap(p);
  const d = byName.get(entry);
  const g = d && forwardsTo(d);
  if (g === undefined) return p;
  let calls = 0;
  for (const x of p.defs) calls += callSitesOfDef(x).get(g) ?? 0;
  if (calls !== 1) return p;
  const reach = calleesFirst(p, [entry]);
  const inlined = inlineProgram({ defs: reach.map((n) => byName.get(n)!) }, [entry], { maxSingleUseSize: Number.POSITIVE_INFINITY, maxCalleeSize: 0, keep: (fn) => fn !== g });
  // The callee's results, bound where the call bound them, become renamings.
  const taken = simplifyDef(inlined.defs.find((x) => x.name === entry)!, keptCalls(p));
  return { ...p, defs: p.defs.map((x) => (x.name === entry ? taken : x)) };
}
