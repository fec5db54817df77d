// Guards of cond (ad/guards.ts): a linear operand that one branch reads and the other only drops
// is the tangent of a value only that branch needs; T computes what feeds it inside that branch.
//
//   let (; ė) = A(ū ; ẋ)                                   (only feeds ė)
//   let (; ẏ) = cond(p ; ė)[|; ȧ| { … ȧ … }, |; ȧ'| { drop(ȧ'); … }]
//     ↝ let (; ẏ) = cond(p, ū ; ẋ)[|ū ; ẋ| { A; let ȧ = ė; … ȧ … }, |ū ; ẋ| { drop(ū, ẋ); … }]
//
// so the backward code of A (whose partials may be infinite where the branch is not taken, as
// the derivative of log at 0 in `x > 0 ? Math.sin(l) : 0` with l = Math.log(x)) runs only when
// the branch does.
import { block, lambda, letS, lvar } from '../../ir/syntax';
import { forEachOperand } from '../../ir/traverse';
import type { Lambda, Stmt } from '../../ir/syntax';
import type { ConstructExpr, ConstructRule } from '../types';

/** The statement is `drop(p)` or `drop((; p))`: it consumes p and nothing else. */
const dropOf =
  (p: string) =>
  (s: Stmt): boolean => {
    if (s.tag !== 'let' || s.nl.length > 0 || s.lin.length > 0 || s.rhs.tag !== 'drop') return false;
    const x = s.rhs.expr;
    return (x.tag === 'var' && x.name === p) || (x.tag === 'ret' && x.nl.length === 0 && x.lin.length === 1 && x.lin[0] === p);
  };

const onlyDrops = (l: Lambda, i: number): boolean => l.body.stmts.some(dropOf(l.linParams[i].name));

export const condSoleReader: NonNullable<ConstructRule['soleReader']> = (e) =>
  e.lin.map((_, i) => {
    const readers = e.bodies.flatMap((l, k) => (onlyDrops(l, i) ? [] : [k]));
    if (readers.length === 0) return null;
    return readers.length === 1 && e.bodies.length > 1 ? readers[0] : undefined;
  });

/** Whether a body reads its parameter p other than by dropping it (bodies are closed: operands only). */
function reads(l: Lambda, p: string): boolean {
  let found = false;
  const see = (n: string) => {
    if (n === p) found = true;
  };
  for (const s of l.body.stmts) {
    if (s.tag === 'unpack') see(s.tuple);
    else if (!dropOf(p)(s)) forEachOperand(s.rhs.tag === 'drop' ? s.rhs.expr : s.rhs, see);
  }
  forEachOperand(l.body.result, see);
  return found;
}

// The test is operand 0; operand k + 1 is the bodies' parameter k.
export const condSideOperands: NonNullable<ConstructRule['sideOperands']> = (e) =>
  e.bodies.length < 2 ? [] : e.nl.slice(1).flatMap((_, k) => (e.bodies.filter((l) => reads(l, l.nlParams[k].name)).length === 1 ? [k + 1] : []));

export const condSink: NonNullable<ConstructRule['sink']> = (e: ConstructExpr, s) => {
  const reader = condSoleReader(e);
  const bodies = e.bodies.map((l, k) => {
    const binds: Stmt[] = [];
    const gone = new Set<string>();
    for (const [i, v] of s.computed) {
      if (reader[i] === k) binds.push(letS([], [l.linParams[i]], lvar(v)));
      else gone.add(l.linParams[i].name);
    }
    const own = l.body.stmts.filter((st) => ![...gone].some((p) => dropOf(p)(st)));
    const { params, stmts } = s.bodies[k];
    return lambda([...l.nlParams, ...params.nl], [...l.linParams.filter((_, i) => !s.computed.has(i)), ...params.lin], block([...stmts, ...binds, ...own], l.body.result));
  });
  return { ...e, nl: [...e.nl, ...s.operands.nl], lin: [...e.lin.filter((_, i) => !s.computed.has(i)), ...s.operands.lin], bodies };
};
