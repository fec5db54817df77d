// Counted and while loops in sequential code (constructs/loop, constructs/while): a WGSL `for` or
// `loop` inside the one invocation, the carried values in `var`s. A carried array lives in the
// heap (an operand of the program's own is copied there first), and its length is tracked on
// the host as far as it can be: the body is lowered assuming the carried arrays keep their
// operands' lengths, and again with the assumption widened (the largest of the lengths seen)
// until the body's results fit it.
import type { Lambda } from '../../../../ir/syntax';
import { NotOnGpu } from '../../lowering';
import { type Cap, type SArr, type SeqLowering, type SeqLowerings, type SeqOps, type SEnv, type SVal, boolOf, f32Of, snum } from '../../seqLowering';

interface Shape {
  readonly cap: Cap;
  readonly exact: boolean;
  readonly sparse: boolean;
}

const resultCount = (l: Lambda): number => {
  const r = l.body.result;
  if (r.tag === 'ret') return r.nl.length + r.lin.length;
  if (r.tag === 'var') return 1;
  throw new NotOnGpu('a loop body that does not end in its results');
};

const single = (c: Cap): number | undefined => (c?.size === 1 ? [...c][0] : undefined);
const sameCap = (a: Cap, b: Cap) => (a === undefined ? b === undefined : b !== undefined && a.size === b.size && [...a].every((r) => b.has(r)));
const sameShape = (a: Shape | undefined, b: Shape | undefined) => a === b || (a !== undefined && b !== undefined && sameCap(a.cap, b.cap) && a.exact === b.exact && a.sparse === b.sparse);

function widen(S: SeqOps, s: Shape | undefined, r: SVal): Shape | undefined {
  if (s === undefined || r.kind !== 'arr') return s;
  const cap = S.joinCaps(s.cap, r.cap);
  return { cap, exact: s.exact && r.exact && single(s.cap) !== undefined && single(s.cap) === single(r.cap), sparse: s.sparse || r.sparse };
}

interface Carrier {
  readonly val: SVal;
  /** Emits `let`s of the body's result; the assignments to the carrier's vars, for after all of them. */
  stage(r: SVal): string[];
}

function carrier(S: SeqOps, init: SVal, shape: Shape | undefined): Carrier {
  if (init.kind === 'num') {
    const v = S.fresh('c');
    S.line(`var ${v}: ${init.type} = ${init.code};`);
    return {
      val: { kind: 'num', code: v, type: init.type },
      stage: (r) => {
        const x = snum(r, 'a carried value');
        return [`${v} = ${S.bind(init.type === 'bool' ? boolOf(x) : f32Of(x), init.type)};`];
      },
    };
  }
  if (init.kind === 'arr') {
    const a = init.heap ? init : S.copy(init);
    const b = S.fresh('cb');
    const l = S.fresh('cl');
    S.line(`var ${b}: f32 = ${a.base};`);
    S.line(`var ${l}: f32 = ${a.len};`);
    const val: SArr = { kind: 'arr', buf: S.heap, heap: true, base: b, len: l, cap: shape!.cap, exact: shape!.exact, sparse: shape!.sparse };
    return {
      val,
      stage: (r) => {
        if (r.kind !== 'arr') throw new NotOnGpu('a loop whose carried array becomes something else');
        const h = r.heap ? r : S.copy(r);
        return [`${b} = ${S.bind(h.base)};`, `${l} = ${S.bind(h.len)};`];
      },
    };
  }
  if (init.kind === 'tup') {
    // A tuple of numbers (a reduce with a tuple accumulator, lowered to a loop) is one var per
    // element; its arrays would need a shape per element, which the widening does not track.
    if (init.elems.some((x) => x.kind !== 'num')) throw new NotOnGpu('a loop carrying a tuple of arrays');
    const parts = init.elems.map((x) => carrier(S, x, undefined));
    return {
      val: { kind: 'tup', elems: parts.map((p) => p.val) },
      stage: (r) => {
        if (r.kind !== 'tup' || r.elems.length !== parts.length) throw new NotOnGpu('a loop whose carried tuple changes shape');
        return parts.flatMap((p, j) => p.stage(r.elems[j]));
      },
    };
  }
  throw new NotOnGpu('a loop carrying a string');
}

/**
 * The carried values of a loop: `emit` writes the loop around the body, calling `commit` with
 * the body's results at the end of an iteration. Returns the carried values after the loop.
 */
function carried(S: SeqOps, inits: readonly SVal[], emit: (vals: SVal[], commit: (rs: readonly SVal[]) => void) => void): SVal[] {
  let shapes: (Shape | undefined)[] = inits.map((v) => (v.kind === 'arr' ? { cap: v.cap, exact: v.exact, sparse: v.sparse } : undefined));
  for (let attempt = 0; ; attempt++) {
    const { lines, value } = S.capture(() => {
      const cs = inits.map((v, j) => carrier(S, v, shapes[j]));
      let results: readonly SVal[] = [];
      emit(
        cs.map((c) => c.val),
        (rs) => {
          results = rs;
          const assigns = cs.flatMap((c, j) => c.stage(rs[j]));
          for (const a of assigns) S.line(a);
        },
      );
      return { vals: cs.map((c) => c.val), results };
    });
    let next = shapes.map((s, j) => widen(S, s, value.results[j]));
    if (attempt >= 3) next = next.map((s) => (s === undefined ? s : { cap: undefined, exact: false, sparse: s.sparse }));
    if (next.every((s, j) => sameShape(s, shapes[j]))) {
      for (const l of lines) S.line(l);
      return value.vals;
    }
    shapes = next;
  }
}

const loopSeq: SeqLowering = (S, e, nl, lin, env: SEnv) => {
  if (lin.length > 0) throw new NotOnGpu('a loop with linear operands');
  const body = e.bodies[0];
  const k = resultCount(body);
  const [count, ...rest] = nl;
  const n = S.bind(f32Of(snum(count, 'a trip count')));
  const invariant = rest.slice(0, rest.length - k);
  return carried(S, rest.slice(rest.length - k), (cs, commit) => {
    // n ≤ 0 or NaN runs no iteration, a non-integer n runs ⌈n⌉: the `i < n` of the CPU path.
    S.forRange(n, (i) => commit(S.apply(body, [{ kind: 'num', code: i, type: 'f32' }, ...invariant, ...cs], env)));
  });
};

const whileSeq: SeqLowering = (S, e, nl, lin, env: SEnv) => {
  if (lin.length > 0) throw new NotOnGpu('a while loop with linear operands');
  const [condition, step] = e.bodies;
  const k = resultCount(step);
  const invariant = nl.slice(0, nl.length - k);
  return carried(S, nl.slice(nl.length - k), (cs, commit) => {
    const all = [...invariant, ...cs];
    // `ended` is set only where the condition ends the loop: a loop the device cut short rejects.
    const ended = S.fresh('ended');
    S.line(`var ${ended} = false;`);
    S.line('loop {');
    const [c] = S.apply(condition, all.slice(0, condition.nlParams.length), env);
    S.line(`if (!${boolOf(snum(c, 'a loop condition'))}) { ${ended} = true; break; }`);
    commit(S.apply(step, all, env));
    S.line('}');
    S.line(`if (!${ended}) { ${S.loopCut()} }`);
  });
};

export const loopSeqs = {
  loop: loopSeq,
  while: whileSeq,
} satisfies SeqLowerings;
