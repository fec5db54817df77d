// Results of a called function that no call site reads are not computed (opt/unreadResults.ts):
// the callers call a narrower def, `g.keep_1`, and the dead-code pass removes what only the
// dropped results needed, a loop's carried value included. The shape is the demo's simulated
// Hessian: the erased JVP of the gradient returns the gradient and its tangent, too large to
// inline, and the Hessian-vector product keeps only the tangent.
import { parseProgram } from '../../transformer/language/parse';
import { annotateTypes } from '../../transformer/language/check';
import { evalFn } from '../../transformer/language/interp';
import { printProgram } from '../../transformer/ir/print';
import { dropUnreadResults } from '../../transformer/opt/unreadResults';
import { reachable } from '../../transformer/plan/closure';

// g returns Σ sin(x·i) (read by no caller) and Σ cos(x·i)·y; f calls it twice, once in a loop body.
const SRC = `
def g(x: real, y: real, n: real ;) -> (real, real ;) {
  let zero = 0
  let (s, t) = loop(n, x, y, zero, zero) [|i: real, u: real, v: real, a: real, b: real ;| {
    let m = mul(u, i)
    let sn = sin(m)
    let a1 = add(a, sn)
    let cs = cos(m)
    let w = mul(cs, v)
    let b1 = add(b, w)
    (a1, b1 ;)
  }]
  (s, t ;)
}

def f(x: real, y: real, n: real ;) -> (real ;) {
  let (p, q) = g(x, y, n)
  drop(p)
  let two = 2
  let r = loop(two, x, y, n, q) [|j: real, u: real, v: real, k: real, acc: real ;| {
    drop(j)
    let (p1, q1) = g(u, v, k)
    drop(p1)
    let z = add(acc, q1)
    (z ;)
  }]
  (r ;)
}
`;

const AT = [
  [0.7, 1.3, 6],
  [0.2, -0.5, 0],
  [1.5, 2, 3.5],
];

test('every caller drops result 0 of g: they call g.keep_1, which computes no sine', () => {
  const p = annotateTypes(parseProgram(SRC, 'unreadResults.lina'));
  const q = annotateTypes(dropUnreadResults(p, ['f']));
  const text = printProgram(reachable(q, ['f']));
  expect(text).toMatch(/def g\.keep_1\(x: real, y: real, n: real ;\) -> \(real ;\)/);
  expect(text).not.toMatch(/= g\(/);
  expect(text).not.toMatch(/sin\(/);
  for (const at of AT) {
    const a = evalFn(p, 'f', at, []);
    const b = evalFn(q, 'f', at, []);
    expect(b.nl).toEqual(a.nl);
    if (at[2] > 0) expect(b.work).toBeLessThan(a.work);
  }
  // g itself stays for whoever else calls it: a name never changes meaning.
  expect(evalFn(q, 'g', AT[0], []).nl).toEqual(evalFn(p, 'g', AT[0], []).nl);
});

test('a caller the entries do not reach keeps calling g, whatever it reads', () => {
  const other = `${SRC}
def other(x: real, y: real, n: real ;) -> (real ;) {
  let (p, q) = g(x, y, n)
  drop(q)
  (p ;)
}
`;
  const p = annotateTypes(parseProgram(other, 'unreadResults6.lina'));
  const q = annotateTypes(dropUnreadResults(p, ['f']));
  expect(printProgram(reachable(q, ['other']))).toMatch(/= g\(x, y, n\)/);
  expect(evalFn(q, 'other', AT[0], []).nl).toEqual(evalFn(p, 'other', AT[0], []).nl);
});

test('a result one call site reads, an entry, and a call in a result position stay', () => {
  const read = SRC.replace('drop(p1)\n    let z = add(acc, q1)', 'let z0 = add(acc, q1)\n    let z = add(z0, p1)');
  const q = dropUnreadResults(annotateTypes(parseProgram(read, 'unreadResults2.lina')), ['f']);
  expect(printProgram(q)).not.toMatch(/keep_/);
  // g as an entry keeps its signature.
  const p = annotateTypes(parseProgram(SRC, 'unreadResults3.lina'));
  expect(printProgram(dropUnreadResults(p, ['f', 'g']))).not.toMatch(/keep_/);
  // A call that is the body's result hands every result on: both h and g are narrowed.
  const tail = `${SRC}
def h(x: real, y: real, n: real ;) -> (real, real ;) {
  g(x, y, n)
}
def k(x: real, y: real, n: real ;) -> (real ;) {
  let (a, b) = h(x, y, n)
  drop(a)
  (b ;)
}
`;
  const r = annotateTypes(dropUnreadResults(annotateTypes(parseProgram(tail, 'unreadResults4.lina')), ['k']));
  const text = printProgram(reachable(r, ['k']));
  expect(text).toMatch(/= h\.keep_1\(x, y, n\)/);
  expect(text).toMatch(/= g\.keep_1\(x, y, n\)/);
  expect(text).not.toMatch(/sin\(/);
  for (const at of AT) expect(evalFn(r, 'k', at, []).nl).toEqual(evalFn(annotateTypes(parseProgram(tail, 'unreadResults5.lina')), 'k', at, []).nl);
});
