// Construct bodies nested in construct bodies: how deep a program goes, and what a pass says when
// it cannot follow. The parser, the checker and the visitor (traverse.ts) keep explicit stacks;
// so does the interpreter for cond, loop, while, remat, map and fold (their impl rules are
// generators that yield the bodies to run, as type rules do). The passes whose construct rules
// call back into them for their bodies (J, U, T, E, the simplifier, hoisting, restoreLinearity,
// rewriteBlock's users: licm and checkpointing) walk bodies in stretches of 64 levels (DeepWalk,
// deepWalk.ts): a request past the stretch is unwound to the bottom of the stack, run there, and
// what it interrupted is replayed from a log. What still recurses once per level (the TypeScript
// emitter and its in-place marking, the interpreter inside the other array constructs' bodies) can
// exhaust the JavaScript stack; that is reported as what it is, with the depth, never as a raw RangeError.
//
// Why replay and not a thread with a bigger stack (worker_threads' stackSizeMb, as rustc runs
// on a big-stack thread): a pass would have to be rerun on the worker from printed IR, which
// under ts-jest needs the TypeScript sources compiled again inside the worker, loses the source
// positions the emitter's source maps need unless the printer carries them, and cannot ship the
// emitter's TypeScript nodes back at all; replay keeps every pass in-process and synchronous,
// costs a log entry per body for programs of normal depth (measured: no change in build time),
// and leaves the rules' interface as it was. Its price is the rule it puts on a pass: a
// body's processing may run twice, so it builds into its own Builder and keeps no counts across
// runs (the simplifier's use counts are forgotten at each attempt).
import { IrError, Lambda, Program } from './syntax';
import { visitDef } from './traverse';

/** Levels of construct nesting every pass follows (test/ir/long.test.ts); deeper may work too. */
export const NESTING_FOLLOWED = 300;

/** Levels the interpreter (cond, loop, while, remat, map, fold) and J follow (test/ir/long.test.ts). */
export const NESTING_FOLLOWED_BY_INTERP_AND_J = 5000;

/** The deepest nesting of construct bodies in any def of `p` (a block inside a body adds none). */
export function deepestNesting(p: Program): { readonly fn: string; readonly depth: number } {
  let best = { fn: '', depth: 0 };
  for (const d of p.defs) {
    const bodies = new Set<Lambda>();
    const levels: boolean[] = [];
    let depth = 0;
    visitDef(d, {
      expr: (e) => {
        if (e.tag === 'construct') e.bodies.forEach((l) => bodies.add(l));
      },
      enter: (l) => {
        const counts = bodies.has(l);
        levels.push(counts);
        if (counts && ++depth > best.depth) best = { fn: d.name, depth };
      },
      leave: () => {
        if (levels.pop()) depth--;
      },
    });
  }
  return best;
}

/**
 * A stack overflow: V8's RangeError (other engines throw an InternalError "too much recursion").
 * Known by name, not `instanceof`: the code that overflows (TypeScript's checker, say) may run in
 * another realm than tsad (a vm context, jest's shared TypeScript), whose RangeError is its own.
 */
export function isStackOverflow(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const { name, message } = e as { name?: unknown; message?: unknown };
  return (name === 'RangeError' || name === 'InternalError') && typeof message === 'string' && /call stack|too much recursion/i.test(message);
}

/** Thrown for a program nested deeper than a pass could follow. */
export class NestingTooDeep extends IrError {
  constructor(
    readonly what: string,
    readonly fn: string,
    readonly depth: number,
  ) {
    super(
      `${what} ran out of stack: ${fn || 'the program'} nests construct bodies ${depth} deep (a conditional or loop inside another, ${depth} times). ` +
        `tsad follows ${NESTING_FOLLOWED} levels everywhere, ${NESTING_FOLLOWED_BY_INTERP_AND_J} in the interpreter and J (more where the stack allows): flatten the nesting`,
    );
    this.name = 'NestingTooDeep';
  }
}

/** Runs `f`, a pass over `p`; a stack overflow becomes NestingTooDeep naming the depth. */
export function followingNesting<T>(what: string, p: Program, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (!isStackOverflow(e)) throw e;
    const { fn, depth } = deepestNesting(p);
    throw new NestingTooDeep(what, fn, depth);
  }
}
