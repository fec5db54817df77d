// The in-place pass (opt/inplace.ts) on loops nested inside each other (issue 18, item 10): it
// analyses each body a bounded number of times. Before, a loop body was analysed once per set of
// carried slots it tried (every carried slot first, then those that came back unique), and every
// try analysed the loops inside it anew: a loop carrying a number (which never comes back an
// array) analysed its body twice, so a nest of d loops 2^d times — the plugin's build of 16
// nested `for` loops took 49 s, of 18 loops 117 s, almost all of it here. Counted in analysed
// blocks, never in time.
import { parseProgram } from '../../transformer/language/parse';
import { evalFn } from '../../transformer/language/interp';
import { printProgram } from '../../transformer/ir/print';
import { defArity } from '../../transformer/language/arity';
import type { Program } from '../../transformer/ir/syntax';
import { markInPlace } from '../../transformer/opt/inplace';
import { gradOf } from '../gen/drivers';
import { nestedLoops } from '../gen/long';

/**
 * Loops nested `depth` deep, each running once and carrying an array o and a number a: each
 * level writes its inner loop's number into o at its index, so every write may run in place.
 */
function nestedWrites(depth: number): string {
  const out = ['def f(x: array<real> ;) -> (real ;) {', 'let n = len(x) []', 'let zero = 0', 'let o0 = fill(n, zero) []', 'let a0 = index(x, zero) []'];
  for (let k = 0; k < depth; k++) {
    out.push(`let one${k} = 1`, `let (o${k}r, a${k}r) = loop(one${k}, o${k}, a${k}) [|i${k + 1}: real, o${k + 1}: array<real>, a${k + 1}: real ;| {`);
  }
  out.push(`let s${depth} = sin(a${depth})`, `(o${depth}, s${depth})`);
  for (let k = depth - 1; k >= 0; k--) {
    // Loop k's results, in the body of loop k - 1 (index i_k) or, for k = 0, in f (index 0).
    out.push('}]', `let w${k} = update(o${k}r, ${k === 0 ? 'zero' : `i${k}`}, a${k}r) []`, k === 0 ? `drop(w${k})` : `(w${k}, a${k}r)`);
  }
  out.push('(a0r ;)', '}');
  return out.join('\n') + '\n';
}

/** The program with its writes in place, and how many blocks the pass analysed. */
function marked(p: Program): { program: Program; blocks: number } {
  const arity = defArity(new Map(p.defs.map((d) => [d.name, d])));
  const meter = { blocks: 0 };
  return { program: { defs: p.defs.map((d) => markInPlace(d, arity, meter)) }, blocks: meter.blocks };
}

/** Blocks analysed per level at depths 6, 12 and 24 (differences, so the program's flat part cancels). */
function perLevel(program: (depth: number) => Program): number[] {
  const [a, b, c] = DEPTHS.map((d) => marked(program(d)).blocks);
  return [(b - a) / (DEPTHS[1] - DEPTHS[0]), (c - b) / (DEPTHS[2] - DEPTHS[1])];
}

const DEPTHS = (process.env.INPLACE_DEPTHS ?? '6,12,24').split(',').map(Number);

describe('the in-place pass on loops nested inside each other', () => {
  test('a nest of loops carrying numbers: each body is analysed a bounded number of times', () => {
    const [first, second] = perLevel((d) => parseProgram(nestedLoops(d).text));
    expect(second).toBeLessThanOrEqual(first);
    expect(second).toBeLessThanOrEqual(4);
  });

  test('their gradient (stacks, packed residuals, transposed loops): the same', () => {
    const [first, second] = perLevel((d) => gradOf(parseProgram(nestedLoops(d).text), 'f', { simplify: true }).program);
    // Seven defs (f, its jvp, fwd, lin, bwd, bwd.E, grad): about 7 per level (6, 6.7, 7, 7 from
    // 6 to 96 deep; 1,344 per level from 6 to 12 before).
    expect(second).toBeLessThan(1.2 * first);
    expect(second).toBeLessThanOrEqual(10);
  });

  test('loops carrying an array and a number: every write still runs in place, the value is unchanged, the work bounded per level', () => {
    const [first, second] = perLevel((d) => parseProgram(nestedWrites(d)));
    expect(second).toBeLessThanOrEqual(first);
    expect(second).toBeLessThanOrEqual(4);
    const p = parseProgram(nestedWrites(8));
    const m = marked(p).program;
    const text = printProgram(m);
    expect(text).not.toMatch(/update\(/);
    expect(text.match(/write\(/g)?.length).toBe(8);
    const x = [0.3, 0.7];
    expect(evalFn(m, 'f', [x]).nl).toEqual(evalFn(p, 'f', [x]).nl);
  });
});
