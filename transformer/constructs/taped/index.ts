// A call from compiled code of a function that must run taped (it recurses, takes functions as
// values, dispatches on a class): an opaque call whose derivatives come from the function's
// copies that taped mode generates (transformer/taped), the way a custom VJP rule stands in for a
// function's code (docs/frontend.md, "Taped mode", "Mixing"). Operand 0 is a str literal naming
// the function and its copies (`calleeNames`); the others are the arguments x̄ (numbers and
// arrays of numbers); the result is a number.
//
//   tapedCall(c, x̄)            -> y              the function's own JavaScript
//   tapedJvp(c, x̄ ; ẋ̄)         -> (; ẏ)          its dual-number copy (J of tapedCall)
//   tapedVjp(c, x̄ ; ȳ)         -> (; x̄̄)         its taped copy and one backward pass (T of tapedJvp)
//   tapedHvp(c, x̄, ȳ ; ẋ̄, ȳ˙)  -> (; x̄̄˙)        its second-order copy (J of the erased tapedVjp)
//
// The linear ones keep x̄ as residuals (U stores the arguments, not a tape): reverse mode runs the
// function once forward and its taped copy once in the backward pass. Erased (E), each takes its
// linear operands after its non-linear ones.
//
// An argument whose cotangent nobody reads (an integer size, a parameter outside wrt) follows a
// repeat of operand 0, the mark `pruneResults` of the erased tapedVjp and tapedHvp leaves (an
// argument is a number or an array, never the str, so the mark cannot be one): tapedVjp passes
// that argument as it is, not lifted onto the tape, so its arithmetic (`(n - 1) * (n - 1)`,
// `r * n + c`) records nothing, and neither returns a cotangent for it. Third order (J of an erased tapedJvp or tapedHvp, T
// of tapedHvp) is an IrError, which compile.ts reports at the call site (the `combinator` facet).
import { IrError, binder, construct, tangentType } from '../../ir/syntax';
import type { Type } from '../../ir/syntax';
import { printType } from '../../ir/printType';
import type { CheckOps, ConstructExpr, ConstructRule, JvpOps, Sides } from '../types';
import { nonLinearOnly } from '../shared/nonLinear';
import { barName, dotName } from '../../ir/names';

const REAL: Type = { tag: 'real' };

/** The namespace import of tsad's runtime in a module with taped code (transformer/taped). */
export const TAPED_RUNTIME = 'tsad$rt';

/** The function's plain name and its copies', as operand 0's literal carries them. */
export interface CalleeNames {
  readonly plain: string;
  readonly taped: string;
  readonly dual: string;
  readonly second: string;
}

export const calleeLiteral = (c: CalleeNames): string => [c.plain, c.taped, c.dual, c.second].join(' ');

export function calleeNames(literal: string): CalleeNames {
  const [plain, taped, dual, second] = literal.split(' ');
  if (!second) throw new IrError(`a taped call names its function and three copies, got '${literal}'`);
  return { plain, taped, dual, second };
}

const isLinear = (e: ConstructExpr): boolean => e.lin.length > 0;

/** The operands of a taped call: the callee, the arguments (each with whether it is marked) and what the op adds. */
interface Parts<T> {
  readonly callee: T;
  readonly args: T[];
  /** Per argument: its cotangent is not read (it follows a mark), so it is not lifted and gets none. */
  readonly marked: boolean[];
  readonly ct: T[];
  readonly dargs: T[];
  readonly dct: T[];
}

/** The operands of each kind, linear or erased: the callee, the arguments, and the rest in order; `isMark` tells a repeat of operand 0. */
function parts<T>(v: Sides<T>, op: TapedOp, isMark: (x: T) => boolean): Parts<T> {
  const all = [...v.nl, ...v.lin];
  const callee = all[0];
  const rest: T[] = [];
  const flags: boolean[] = [];
  let mark = false;
  for (const x of all.slice(1)) {
    if (isMark(x)) mark = true;
    else {
      rest.push(x);
      flags.push(mark);
      mark = false;
    }
  }
  // n arguments, then what each op adds: jvp n tangents, vjp one cotangent, hvp a cotangent, n tangents and its tangent.
  const n = op === 'tapedCall' ? rest.length : op === 'tapedJvp' ? rest.length / 2 : op === 'tapedVjp' ? rest.length - 1 : (rest.length - 2) / 2;
  const args = rest.slice(0, n);
  const marked = flags.slice(0, n);
  if (op === 'tapedJvp') return { callee, args, marked, ct: [], dargs: rest.slice(n), dct: [] };
  if (op === 'tapedVjp') return { callee, args, marked, ct: rest.slice(n), dargs: [], dct: [] };
  if (op === 'tapedHvp') return { callee, args, marked, ct: [rest[n]], dargs: rest.slice(n + 1, 2 * n + 1), dct: [rest[2 * n + 1]] };
  return { callee, args, marked, ct: [], dargs: [], dct: [] };
}

const ofNames = (e: ConstructExpr): Parts<string> => parts(e, e.op as TapedOp, (x) => x === e.nl[0]);
const ofTypes = (t: Sides<Type>, op: TapedOp): Parts<Type> => parts(t, op, (x) => x.tag === 'str');

type TapedOp = 'tapedCall' | 'tapedJvp' | 'tapedVjp' | 'tapedHvp';

/** The arguments whose cotangents a tapedVjp or tapedHvp returns (those not marked). */
const read = <T>(p: Parts<T>): T[] => p.args.filter((_, k) => !p.marked[k]);

/** How many cotangents the call returns (vjp, hvp): one per argument not marked. */
export function argumentCount(e: ConstructExpr): number {
  return read(ofNames(e)).length;
}

/** The operands of a taped call as the backend reads them (names of variables); `lifted` is false for a marked argument. */
export function tapedOperands(e: ConstructExpr): { callee: string; args: string[]; lifted: boolean[]; ct: string[]; dargs: string[]; dct: string[] } {
  const p = ofNames(e);
  return { ...p, lifted: p.marked.map((m) => !m) };
}

/** The callee and the arguments with their marks, as operands: `keep[j]` false marks the j-th argument not yet marked. */
function marking(e: ConstructExpr, keep: readonly boolean[]): string[] {
  const p = ofNames(e);
  const out = [p.callee];
  let j = 0;
  p.args.forEach((x, k) => {
    const mark = p.marked[k] || !keep[j++];
    out.push(...(mark ? [p.callee, x] : [x]));
  });
  return out;
}

/** The erased vjp or hvp without the cotangents nobody reads: their arguments marked. */
const pruneCotangents: ConstructRule['pruneResults'] = (e, keep) => {
  if (isLinear(e) || e.bodies.length > 0) return undefined;
  const p = ofNames(e);
  return construct(e.op, [...marking(e, keep), ...p.ct, ...p.dargs, ...p.dct], [], []) as ConstructExpr;
};

const numbers = (t: Type): boolean => t.tag === 'real' || (t.tag === 'array' && t.elem.tag === 'real');

function checkOperands(ops: CheckOps, e: ConstructExpr, t: Sides<Type>, op: TapedOp): Type[] {
  if (e.bodies.length !== 0) ops.error(`${op} takes no bodies`);
  const p = ofTypes(t, op);
  if ((op === 'tapedCall' || op === 'tapedJvp') && p.marked.some((m) => m)) ops.error(`${op} marks no argument (only a vjp or hvp drops cotangents)`);
  if (p.callee?.tag !== 'str') ops.error(`${op}'s first operand names the function, a str`);
  if (!Number.isInteger(p.args.length) || p.args.length < 1) ops.error(`${op} takes the function and its arguments, got ${t.nl.length} and ${t.lin.length} linear operand(s)`);
  else if (!p.args.every(numbers)) ops.error(`${op}'s arguments are numbers and arrays of numbers, got (${p.args.map((x) => printType(x)).join(', ')})`);
  return read(p);
}

const sides = (e: ConstructExpr, xs: Type[]): Sides<Type> => (isLinear(e) ? { nl: [], lin: xs } : { nl: xs, lin: [] });

const notInterpreted = (op: string) => (): never => {
  throw new IrError(`${op} calls JavaScript that tsad generates (a taped copy): it runs only in emitted code, not in the interpreter`);
};

/** The tangents of `names`, zeros where symbolic; null where all are. */
function tangentsOf(ops: JvpOps, names: readonly string[]): string[] | null {
  const dots = names.map((x) => ops.tangentOf(x));
  if (dots.every((d) => d === null)) return null;
  return dots.map((d, k) => d ?? ops.b.zero(tangentType(ops.typeOf(names[k])), 'zero'));
}

const thirdOrder = (op: string) => (): never => {
  throw new IrError(`${op}: a function that runs taped, called from compiled code, is differentiated up to second order (forward over reverse)`);
};

export const tapedCall: ConstructRule = {
  name: 'tapedCall',
  combinator: true,
  arity: () => ({ nl: 1, lin: 0 }),
  typeRule: (ops, e, t) => {
    checkOperands(ops, e, t, 'tapedCall');
    return { nl: [REAL], lin: [] };
  },
  impl: notInterpreted('tapedCall'),
  jvp: (ops, e, results) => {
    ops.b.bind([...results], [], e);
    const dots = tangentsOf(ops, e.nl.slice(1));
    if (dots === null) return [null];
    const y = ops.b.fresh(dotName(results[0].name));
    ops.b.bind([], [binder(y, REAL)], construct('tapedJvp', e.nl, dots, []));
    return [y];
  },
  ...nonLinearOnly('tapedCall'),
};

export const tapedJvp: ConstructRule = {
  name: 'tapedJvp',
  combinator: true,
  arity: (e) => (isLinear(e) ? { nl: 0, lin: 1 } : { nl: 1, lin: 0 }),
  typeRule: (ops, e, t) => {
    const args = checkOperands(ops, e, t, 'tapedJvp');
    const { dargs } = ofTypes(t, 'tapedJvp');
    if (dargs.some((d, k) => args[k] && printType(d) !== printType(tangentType(args[k])))) ops.error('tapedJvp takes a tangent of each argument');
    return sides(e, [REAL]);
  },
  impl: notInterpreted('tapedJvp'),
  jvp: thirdOrder('tapedJvp'),
  unzip: (_ops, e) => e,
  transpose: (ops, e, cotangents) => {
    if (cotangents[0] === null) return e.lin.map(() => null);
    const bars = e.lin.map((x) => binder(ops.b.fresh(barName(x)), ops.typeOf(x)));
    ops.b.bind([], bars, construct('tapedVjp', e.nl, [cotangents[0]], []));
    return bars.map((x) => x.name);
  },
  pruneResults: () => undefined,
};

export const tapedVjp: ConstructRule = {
  name: 'tapedVjp',
  combinator: true,
  arity: (e) => {
    const n = argumentCount(e);
    return isLinear(e) ? { nl: 0, lin: n } : { nl: n, lin: 0 };
  },
  typeRule: (ops, e, t) => sides(e, checkOperands(ops, e, t, 'tapedVjp').map(tangentType)),
  impl: notInterpreted('tapedVjp'),
  // J of the erased VJP (forward over reverse: hvp, hessian): the second-order copy.
  jvp: (ops, e, results) => {
    ops.b.bind([...results], [], e);
    const p = ofNames(e);
    // Every argument carries its tangent in (a marked one's still moves the others' cotangents).
    const dots = tangentsOf(ops, [...p.args, ...p.ct]);
    if (dots === null) return results.map(() => null);
    const kept = read(p);
    const ys = results.map((r, k) => binder(ops.b.fresh(dotName(r.name)), tangentType(ops.typeOf(kept[k]))));
    ops.b.bind([], ys, construct('tapedHvp', e.nl, dots, []));
    return ys.map((y) => y.name);
  },
  unzip: (_ops, e) => e,
  transpose: (ops, e, cotangents, resultTypes) => {
    if (cotangents.every((c) => c === null)) return [null];
    // A tangent of each argument: zero for a marked one, which has no cotangent here.
    const p = ofNames(e);
    let j = 0;
    const cts = p.args.map((x, k) => {
      if (p.marked[k]) return ops.b.zero(tangentType(ops.typeOf(x)), 'zero');
      const [c, t] = [cotangents[j], resultTypes[j]];
      j++;
      return c ?? ops.b.zero(t, 'zero');
    });
    const y = ops.b.fresh(barName(e.lin[0]));
    ops.b.bind([], [binder(y, REAL)], construct('tapedJvp', [p.callee, ...p.args], cts, []));
    return [y];
  },
  pruneResults: pruneCotangents,
};

export const tapedHvp: ConstructRule = {
  name: 'tapedHvp',
  combinator: true,
  arity: (e) => {
    const n = argumentCount(e);
    return isLinear(e) ? { nl: 0, lin: n } : { nl: n, lin: 0 };
  },
  typeRule: (ops, e, t) => sides(e, checkOperands(ops, e, t, 'tapedHvp').map(tangentType)),
  impl: notInterpreted('tapedHvp'),
  jvp: thirdOrder('tapedHvp'),
  unzip: (_ops, e) => e,
  transpose: thirdOrder('tapedHvp'),
  pruneResults: pruneCotangents,
};

export const TAPED_CONSTRUCTS = { tapedCall, tapedJvp, tapedVjp, tapedHvp } as const;
