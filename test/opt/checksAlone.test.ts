// A run-time check survives dead-code removal (constructs/effect `keptAlive`, opt/checksAlone.ts):
// a loop nobody reads a result of still checks what its body checks. Where the check reads only
// the loop's invariants, it runs once in the loop's place under the loop's trip guard (a zero-trip
// loop checks nothing); where it reads the counter, the loop stays, pruned to the check. Before,
// the simplifier removed such a loop with its check, and a gradient that did not need the loop's
// value read past an array's end and returned finite numbers where the function's value threw.
import { parseProgram } from '../../transformer/language/parse';
import { annotateTypes } from '../../transformer/language/check';
import { evalFn } from '../../transformer/language/interp';
import { simplifyDef } from '../../transformer/opt/simplify';
import { findDef } from '../../transformer/ir/program';
import { visitDef } from '../../transformer/ir/traverse';
import type { FnDef, Program } from '../../transformer/ir/syntax';
import { gradOf } from '../gen/drivers';

// `inner`: the outer loop's body checks d (invariant) against len(a), then sums a[r] for r < d,
// c times; the function returns only x·x, so nothing reads the loop. `counted`: the check reads
// the counter c (a triangle: r < c).
const SRC = `
def inner(x: real, a: array<real>, d: real, k: real ;) -> (real ;) {
  let zero = 0
  let s = loop(k, a, d, zero) [|c: real, u: array<real>, dd: real, acc: real ;| {
    let m = len(u) []
    let what = "tsad: inner: reads past the end"
    let n = atmost(dd, m, what) []
    let t = loop(n, u, c, acc) [|r: real, v: array<real>, cc: real, acc2: real ;| {
      let y = index(v, r) []
      let z = mul(y, cc)
      add(acc2, z)
    }]
    (t ;)
  }]
  drop(s)
  mul(x, x)
}

def counted(x: real, a: array<real>, k: real ;) -> (real ;) {
  let zero = 0
  let s = loop(k, a, zero) [|c: real, u: array<real>, acc: real ;| {
    let m = len(u) []
    let what = "tsad: counted: reads past the end"
    let n = atmost(c, m, what) []
    let t = loop(n, u, acc) [|r: real, v: array<real>, acc2: real ;| {
      let y = index(v, r) []
      add(acc2, y)
    }]
    (t ;)
  }]
  drop(s)
  mul(x, x)
}
`;

const program = (): Program => annotateTypes(parseProgram(SRC, 'checksAlone.lina'));

function constructs(d: FnDef): string[] {
  const ops: string[] = [];
  visitDef(d, { expr: (e) => void (e.tag === 'construct' && ops.push(e.op)) });
  return ops;
}

function simplified(fn: string): Program {
  const p = program();
  return { ...p, defs: p.defs.map((d) => (d.name === fn ? simplifyDef(d) : d)) };
}

describe('a loop nobody reads, holding a check', () => {
  test('an invariant check: the loop goes, the check runs once under the trip guard', () => {
    const p = simplified('inner');
    const ops = constructs(findDef(p, 'inner'));
    expect(ops).not.toContain('loop');
    expect(ops.filter((o) => o === 'atmost')).toHaveLength(1);
    expect(ops).toContain('cond');
    expect(evalFn(p, 'inner', [3, [1, 2], 2, 4]).nl).toEqual([9]);
    expect(() => evalFn(p, 'inner', [3, [1, 2], 3, 4])).toThrow('tsad: inner: reads past the end (3 > 2)');
    // k = 0: the loop never ran, so nothing was checked.
    expect(evalFn(p, 'inner', [3, [1, 2], 3, 0]).nl).toEqual([9]);
    expect(evalFn(p, 'inner', [3, [1, 2], 3, -1.5]).nl).toEqual([9]);
  });

  test('a check of the counter: the outer loop stays, pruned to the check; the inner loop goes', () => {
    const p = simplified('counted');
    const ops = constructs(findDef(p, 'counted'));
    expect(ops.filter((o) => o === 'loop')).toHaveLength(1);
    expect(ops).not.toContain('index');
    expect(evalFn(p, 'counted', [3, [1, 2], 3]).nl).toEqual([9]);
    expect(() => evalFn(p, 'counted', [3, [1, 2], 4])).toThrow('tsad: counted: reads past the end (3 > 2)');
    expect(evalFn(p, 'counted', [3, [1, 2], 0]).nl).toEqual([9]);
  });

  test('the gradient in x (which needs neither loop) throws where the function does', () => {
    for (const [fn, ok, past, zeroTrip] of [
      ['inner', [3, [1, 2], 2, 4], [3, [1, 2], 3, 4], [3, [1, 2], 3, 0]],
      ['counted', [3, [1, 2], 3], [3, [1, 2], 4], [3, [1, 2], 0]],
    ] as const) {
      const g = gradOf(program(), fn);
      const gx = (args: readonly unknown[]) => (evalFn(g.program, g.grad, args as never).nl as [number])[0];
      expect(gx(ok)).toBe(6);
      expect(() => evalFn(program(), fn, past as never)).toThrow('reads past the end');
      expect(() => gx(past)).toThrow('reads past the end');
      expect(gx(zeroTrip)).toBe(6);
    }
  });
});
