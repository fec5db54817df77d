// Construct bodies nested in construct bodies: how deep a program goes, and what a pass says when
// it cannot follow. The parser, the checker and the visitor (traverse.ts) keep explicit stacks
// and follow any depth; the AD passes, the interpreter and the emitter recurse once per level of
// nesting (a construct's rule calls back into the pass for its bodies), so a program with
// thousands of levels (a conditional inside a conditional, 1 000 times) can exhaust the
// JavaScript stack there. That is reported as what it is, with the depth, never as a raw
// RangeError.
import { IrError, Lambda, Program } from './syntax';
import { visitDef } from './traverse';

/** Levels of construct nesting every pass follows (test/ir/long.test.ts); deeper may work too. */
export const NESTING_FOLLOWED = 300;

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

/** A stack overflow: V8's RangeError (other engines throw an InternalError "too much recursion"). */
export function isStackOverflow(e: unknown): boolean {
  return e instanceof Error && (e instanceof RangeError || e.name === 'InternalError') && /call stack|too much recursion/i.test(e.message);
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
        `tsad follows ${NESTING_FOLLOWED} levels everywhere (more where the stack allows): flatten the nesting`,
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

