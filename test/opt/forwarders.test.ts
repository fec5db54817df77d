// A def that only calls another and returns its results takes the callee's body where that call
// is the callee's only one (opt/forwarders.ts): the demo's simulated Hessian-vector product only
// called the gradient's JVP (too large for the inliner's single-call budget) for its tangent.
import { parseProgram } from '../../transformer/language/parse';
import { annotateTypes } from '../../transformer/language/check';
import { evalFn } from '../../transformer/language/interp';
import { printProgram } from '../../transformer/ir/print';
import { takeForwardedBody } from '../../transformer/opt/forwarders';
import { reachable } from '../../transformer/plan/closure';

const SRC = `
def g(x: real, y: real, n: real ;) -> (real, real ;) {
  let zero = 0
  let (s, t) = loop(n, x, y, zero, zero) [|i: real, u: real, v: real, a: real, b: real ;| {
    let m = mul(u, i)
    let sn = sin(m)
    let a1 = add(a, sn)
    let w = mul(m, v)
    let b1 = add(b, w)
    (a1, b1 ;)
  }]
  (s, t ;)
}

def f(x: real, n: real, y: real ;) -> (real, real ;) {
  let (p, q) = g(y, x, n)
  (p, q ;)
}
`;

const DROPS = `
def h(x: real, n: real ;) -> (real ;) {
  let (p, q) = g(x, x, n)
  drop(q)
  (p ;)
}
`;

test("f takes g's body, its parameters renamed to f's arguments; a caller that does more keeps its call", () => {
  const p = annotateTypes(parseProgram(SRC, 'forwarders.lina'));
  const q = annotateTypes(takeForwardedBody(p, 'f'));
  const text = printProgram(reachable(q, ['f']));
  expect(text).not.toMatch(/def g/);
  expect(text).toMatch(/loop\(n, y, x, zero, zero\)/);
  for (const at of [
    [0.7, 4, 1.3],
    [0.2, 0, -1],
  ])
    expect(evalFn(q, 'f', at, []).nl).toEqual(evalFn(p, 'f', at, []).nl);
  // h drops a result: it does more than forward, and stays a call.
  const dropping = annotateTypes(parseProgram(SRC.replace(/def f[\s\S]*$/, DROPS), 'forwarders4.lina'));
  expect(takeForwardedBody(dropping, 'h')).toBe(dropping);
});

test('a callee another def also calls stays a call (no body is copied)', () => {
  const twice = SRC.replace(
    'def f(x: real, n: real, y: real ;) -> (real, real ;) {',
    'def k(x: real ;) -> (real, real ;) {\n  g(x, x, x)\n}\n\ndef f(x: real, n: real, y: real ;) -> (real, real ;) {\n  let (a, b) = k(x)\n  drop(a)\n  drop(b)',
  );
  const p = annotateTypes(parseProgram(twice, 'forwarders2.lina'));
  expect(takeForwardedBody(p, 'f')).toBe(p);
  // k forwards to g, which f calls too.
  expect(takeForwardedBody(p, 'k')).toBe(p);
  const alone = annotateTypes(parseProgram(twice.replace('let (p, q) = g(y, x, n)\n  (p, q ;)', 'drop(n)\n  drop(y)\n  let (p, q) = k(x)\n  (p, q ;)'), 'forwarders3.lina'));
  expect(printProgram(reachable(takeForwardedBody(alone, 'k'), ['k']))).not.toMatch(/def g/);
});
