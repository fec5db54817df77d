// Passes that keep their invariants (issue 20 item 1): J, U, T and E type the binders they build
// and keep the usage discipline, so the drivers run the checker only on what is left untyped, and
// restoring linearity costs nothing where nothing is missing.
import { parseProgram } from '../../transformer/language/parse';
import { annotateTypes } from '../../transformer/language/check';
import { jvpProgram } from '../../transformer/ad/jvp';
import { unzipProgram } from '../../transformer/ad/unzip';
import { transposeProgram } from '../../transformer/ad/transpose';
import { eraseProgram } from '../../transformer/ad/erase';
import { restoreLinearity } from '../../transformer/ir/linearity';
import { visitDef } from '../../transformer/ir/traverse';
import { findDef } from '../../transformer/ir/program';
import { FnDef, Program } from '../../transformer/ir/syntax';
import { jvpName, linName, fwdName, bwdName, erasedName } from '../../transformer/ir/names';

// Scalar code: primitives of one and two arguments, a call.
const src = `
def g(x: real, y: real ;) -> (real ;) {
  let a = mul(x, y)
  let b = div(a, y)
  (b ;)
}
def f(x: real, y: real ;) -> (real ;) {
  let s = sin(x)
  let e = exp(y)
  let m = mul(s, e)
  let q = sub(m, x)
  let r = g(q, y)
  let t = add(r, s)
  let u = sqrt(t)
  let w = log(u)
  (w ;)
}`;

function untyped(d: FnDef): string[] {
  const out: string[] = [];
  visitDef(d, {
    bind: (b) => {
      if (b.type === undefined) out.push(b.name);
    },
  });
  return out;
}

const typed = (): Program => annotateTypes(parseProgram(src));

test('J types every binder it builds for scalar code (tangents of primitives and calls)', () => {
  const p = jvpProgram(typed(), ['f']);
  expect(untyped(findDef(p, jvpName('f')))).toEqual([]);
  expect(untyped(findDef(p, jvpName('g')))).toEqual([]);
});

test('U, T and E type every binder they build', () => {
  const j = annotateTypes(jvpProgram(typed(), ['f']));
  const u = unzipProgram(j, [jvpName('f')]);
  for (const n of [fwdName('f'), linName('f')]) expect([n, untyped(findDef(u, n))]).toEqual([n, []]);
  const t = transposeProgram(annotateTypes(u), [linName('f')]);
  expect(untyped(findDef(t, bwdName('f')))).toEqual([]);
  const e = eraseProgram(annotateTypes(t), [bwdName('f')]);
  expect(untyped(findDef(e, erasedName(bwdName('f'))))).toEqual([]);
});

test('restoring linearity returns a def that needs no dup and no drop as it is', () => {
  const d = findDef(typed(), 'f');
  expect(restoreLinearity(d)).toBe(d);
  // …and still repairs one that does: y is read twice below.
  const twice = findDef(parseProgram('def h(; y: real) -> (; real) { let (; z) = ladd(; y, y) in z }'), 'h');
  expect(restoreLinearity(twice)).not.toBe(twice);
});
