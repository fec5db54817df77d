// Properties of cond over random branches. A random non-linear program g (test/gen/programs.ts)
// supplies the branches: the then body calls g on the operands, the else body calls it on the
// sines of the real operands, so the two branches have different residuals (g's tape, against
// g's tape and the cosines). Checked in both branches, with the drivers re-checking every pass:
// the dot-product test, unzipping against J (values and exact work, up to the drop of the
// residual slots the taken branch does not use), the gradient against J, both checkpointing policies, inlined
// callees, and the emitted TypeScript against the interpreter.
import fc from 'fast-check';
import { nonLinearProgram, choices, valuesFor, dot, flat } from '../gen/programs';
import { evalFn, Value } from '../../transformer/language/interp';
import { parseProgram } from '../../transformer/language/parse';
import { printProgram, printType } from '../../transformer/ir/print';
import { Expr, FnDef, Program, Type, scalarCount, tangentType } from '../../transformer/ir/syntax';
import { visitDef } from '../../transformer/ir/traverse';
import { emitAndLoad, asReturned } from './emitted';
import { findDef } from '../../transformer/ir/program';
import { linearizeOf, vjpOf } from '../gen/drivers';

const RUNS = { numRuns: 40 };
const close = (a: number, b: number, tol = 1e-9) => a === b || Math.abs(a - b) <= tol * (1 + Math.abs(a) + Math.abs(b));
const T = (t: Type) => printType(t, true);

/** `c(t, q̄) = if t < 0 then g(q̄) else g(sin q̄)` (sines of the real operands only). */
function condProgram(xs: readonly number[]): Program {
  const p = nonLinearProgram(xs);
  const g = p.defs[p.defs.length - 1];
  const params = g.nlParams.map((b, i) => ({ name: `q${i}`, type: b.type! }));
  const typed = (prefix: string) => params.map((q, i) => `${prefix}${i}: ${T(q.type)}`).join(', ');
  const sines = params.map((q, i) => (q.type.tag === 'real' ? `    let s${i} = sin(a${i})\n` : '')).join('');
  const args = params.map((q, i) => (q.type.tag === 'real' ? `s${i}` : `a${i}`)).join(', ');
  const text = `${printProgram(p, { types: true })}
def c(t: real, ${typed('q')} ;) -> (${g.nlResults.map(T).join(', ')} ;) {
  let zero = 0
  let pr = lt(t, zero)
  cond(pr, ${params.map((q) => q.name).join(', ')}) [|${typed('a')} ;| {
    ${g.name}(${params.map((_, i) => `a${i}`).join(', ')})
  }, |${typed('a')} ;| {
${sines}    ${g.name}(${args})
  }]
}
`;
  return parseProgram(text, 'generated.lina');
}

const arb = choices.chain((xs) => {
  const p = condProgram(xs);
  const c = findDef(p, 'c');
  const rest = c.nlParams.slice(1).map((b) => b.type!);
  return fc.tuple(fc.constant(p), valuesFor(rest), valuesFor(rest.map(tangentType)), valuesFor(c.nlResults.map(tangentType)));
});

/** The scalars of the parameters the taken linear body drops: the other branch's residual slots. */
function droppedSlots(lin: FnDef, taken: number): number {
  let out = 0;
  visitDef(lin, {
    expr: (e: Expr) => {
      if (e.tag !== 'construct') return;
      const body = e.bodies[taken];
      const types = new Map(body.nlParams.map((b) => [b.name, b.type!] as const));
      for (const s of body.body.stmts) {
        if (s.tag === 'let' && s.rhs.tag === 'drop' && s.rhs.expr.tag === 'var' && types.has(s.rhs.expr.name)) out += scalarCount(types.get(s.rhs.expr.name)!);
      }
    },
  });
  return out;
}

describe('cond over random branches, in both branches', () => {
  test('unzipping: fwd gives the primal, lin the JVP, and W(fwd) + W(lin) = W(jvp) + the dropped slots', () => {
    fc.assert(
      fc.property(arb, ([p, x, xd]) => {
        const { program, fwd, lin } = linearizeOf(p, 'c');
        const m = findDef(program, 'c').nlResults.length;
        for (const [t, taken] of [
          [-1, 0],
          [1, 1],
        ]) {
          const j = evalFn(program, 'c.jvp', [t, ...x], [0, ...xd]);
          const r = evalFn(program, fwd, [t, ...x]);
          expect(r.nl.slice(0, m)).toEqual(evalFn(program, 'c', [t, ...x]).nl);
          expect(r.nl.slice(0, m)).toEqual(j.nl);
          const l = evalFn(program, lin, [r.nl[m]], [0, ...xd]);
          flat(l.lin).forEach((v, i) => expect(close(v, flat(j.lin)[i])).toBe(true));
          expect(r.work + l.work).toBe(j.work + droppedSlots(findDef(program, lin), taken));
        }
      }),
      RUNS,
    );
  });

  test('dot-product test on c.lin and c.bwd, and the same gradients under both checkpointing policies and with callees inlined', () => {
    fc.assert(
      fc.property(arb, ([p, x, xd, yb]) => {
        const m = findDef(p, 'c').nlResults.length;
        const runs = [vjpOf(p, 'c'), vjpOf(p, 'c', { policy: 'recompute' }), vjpOf(p, 'c', { inlinePrimal: true, simplify: true })];
        for (const t of [-1, 1]) {
          const results = runs.map(({ program, fwd, bwd }) => {
            const tape = evalFn(program, fwd, [t, ...x]).nl[m];
            const lx = evalFn(program, 'c.lin', [tape], [0, ...xd]).lin;
            const ty = evalFn(program, bwd, [tape], yb).lin;
            expect(close(dot(lx, yb), dot(ty, [0, ...xd]), 1e-8)).toBe(true);
            return flat(ty);
          });
          results.slice(1).forEach((r) => r.forEach((v, i) => expect(close(v, results[0][i], 1e-8)).toBe(true)));
          // The predicate's operand t has no derivative.
          expect(results[0][0]).toBe(0);
        }
      }),
      RUNS,
    );
  });

  test('the emitted TypeScript of c and its derived functions agrees with the interpreter', () => {
    fc.assert(
      fc.property(arb, ([p, x, xd, yb]) => {
        const { program } = vjpOf(p, 'c', { simplify: true });
        const { fns } = emitAndLoad(program);
        const m = findDef(program, 'c').nlResults.length;
        const run = (fn: string, nl: Value[], lin: Value[] = []) => {
          const r = evalFn(program, fn, nl, lin);
          expect(fns.get(fn)!(...nl, ...lin)).toEqual(asReturned(r));
          return r;
        };
        for (const t of [-1, 1]) {
          run('c', [t, ...x]);
          run('c.jvp', [t, ...x], [0, ...xd]);
          const tape = run('c.fwd', [t, ...x]).nl[m];
          run('c.lin', [tape], [0, ...xd]);
          run('c.bwd', [tape], yb);
        }
      }),
      { numRuns: 15 },
    );
  });
});

test('the generated programs are conds with different residuals in their branches', () => {
  const p = condProgram([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9]);
  const { program, fwd, lin } = linearizeOf(p, 'c');
  const tape = findDef(program, fwd).nlResults.at(-1) as Extract<Type, { tag: 'tuple' }>;
  expect(tape.elems[0].tag).toBe('bool');
  // The tapes of g in the two branches share a slot; the else branch's cosine has one of its own.
  expect(tape.elems.map((t) => t.tag)).toEqual(['bool', 'tuple', 'real']);
  expect([droppedSlots(findDef(program, lin), 0), droppedSlots(findDef(program, lin), 1)]).toEqual([1, 0]);
});
