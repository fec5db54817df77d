// Constructs run for their effect (constructs/effect/, docs/linear-a.md "Effects"): a raise or a
// log binds nothing, so only the effect facet keeps it. In the interpreter and in emitted
// TypeScript, through the simplifier, reverse mode and checkpointing, a raise inside a loop
// still throws on the iteration the source does, and a log prints once per iteration.
import { parseProgram } from '../../transformer/language/parse';
import { evalFn } from '../../transformer/language/interp';
import { simplifyProgram } from '../../transformer/opt/simplify';
import { hasEffect } from '../../transformer/constructs/registry';
import { gradOf } from '../gen/drivers';
import { emitAndLoad } from './emitted';

const source = `
def grow(x: real, n: real ;) -> (real ;) {
  loop(n, x) [|i: real, y: real ;| {
    let c = 1.5
    let y1 = mul(y, c)
    let limit = 100
    let big = gt(y1, limit)
    let w = cond(big, i, y1) [|j: real, v: real ;| {
      let kind = "RangeError"
      let text = "diverged at step "
      raise(kind, text, j) []
      drop(v)
      let u = 0
      (u ;)
    }, |j2: real, v2: real ;| {
      drop(j2)
      drop(v2)
      let u2 = 0
      (u2 ;)
    }]
    drop(w)
    let method = "log"
    let layout = "v,v"
    log(method, layout, i, y1) []
    y1
  }]
}
`;
const program = () => parseProgram(source, 'effects.lina');

function printed(f: () => unknown): unknown[][] {
  const lines: unknown[][] = [];
  const saved = console.log;
  console.log = (...a: unknown[]) => void lines.push(a);
  try {
    f();
  } finally {
    console.log = saved;
  }
  return lines;
}

test('a statement that binds nothing is kept for its effect; a cond whose result is unread too', () => {
  const p = simplifyProgram(program(), ['grow']);
  const loop = p.defs[0].body.result;
  expect(hasEffect(loop)).toBe(true);
  expect(() => evalFn(p, 'grow', [70, 3])).toThrow(new RangeError('diverged at step 0'));
  expect(printed(() => evalFn(p, 'grow', [1, 3]))).toEqual([
    [0, 1.5],
    [1, 2.25],
    [2, 3.375],
  ]);
});

test("reverse mode: the forward sweep throws and prints, once; the gradient is the loop's", () => {
  const g = gradOf(program(), 'grow');
  expect(() => evalFn(g.program, g.grad, [70, 3])).toThrow(new RangeError('diverged at step 0'));
  let out: unknown;
  expect(printed(() => (out = evalFn(g.program, g.grad, [1, 3]).nl[0]))).toEqual([
    [0, 1.5],
    [1, 2.25],
    [2, 3.375],
  ]);
  expect(out).toBeCloseTo(1.5 ** 3, 12);
});

test('checkpointed reverse mode: the recomputation of a segment neither prints nor throws again', () => {
  const g = gradOf(program(), 'grow', { checkpoint: { every: 2 } });
  expect(printed(() => evalFn(g.program, g.grad, [1, 5]))).toEqual([0, 1, 2, 3, 4].map((i) => [i, 1.5 ** (i + 1)]));
  expect(() => evalFn(g.program, g.grad, [30, 5])).toThrow(new RangeError('diverged at step 2'));
});

test('emitted TypeScript throws the same error and prints the same lines', () => {
  const { fns } = emitAndLoad(program());
  const grow = fns.get('grow')!;
  expect(() => grow(70, 3)).toThrow(new RangeError('diverged at step 0'));
  expect(printed(() => grow(1, 2))).toEqual([
    [0, 1.5],
    [1, 2.25],
  ]);
});
