// fast-check generators of TypeScript source text for the plugin's property tests: smooth
// expressions of given variables (sin, cos, tanh, atan, +, −, ×, small constants), which a suite
// extends with alternatives of its own (calls of local functions, log1p of a square, ...).
import fc from 'fast-check';

const SMOOTH = ['Math.sin', 'Math.cos', 'Math.tanh', 'Math.atan'];

/** A smooth expression of `vars`; `extra` adds alternatives built from a smaller expression. */
export function smoothExpression(vars: readonly string[], extra: readonly ((e: fc.Arbitrary<string>) => fc.Arbitrary<string>)[] = []): fc.Arbitrary<string> {
  const leaf = fc.oneof(fc.constantFrom(...vars), fc.constantFrom('0.5', '1.5', '2'));
  return fc.letrec<{ e: string }>((tie) => ({
    e: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.tuple(fc.constantFrom(...SMOOTH), tie('e')).map(([f, a]) => `${f}(${a})`),
      fc.tuple(tie('e'), fc.constantFrom('+', '-', '*'), tie('e')).map(([a, op, b]) => `(${a} ${op} ${b})`),
      ...extra.map((alt) => alt(tie('e'))),
    ),
  })).e;
}
