// Calls stay calls where inlining would copy code (transformer/ad/inline.ts, InlinePolicy): the
// emitted code grows linearly with the source, never with the number of call paths.
import { compile, load, partial, expectClose } from './harness';

/** k functions, each calling the previous one twice: 2^k call paths from g_k to g_0. */
function chain(k: number): string {
  const fs = [`/** @differentiable */\nexport function g0(x: number, y: number): number { return Math.sin(x) * y + Math.cos(y) * x; }`];
  for (let j = 1; j <= k; j++) fs.push(`/** @differentiable */\nexport function g${j}(x: number, y: number): number { return g${j - 1}(x, y) * 0.5 + g${j - 1}(y, x * 0.5); }`);
  return `import { grad, jvp } from 'tsad';\n${fs.join('\n')}\nexport const d = grad(g${k}, { wrt: [0, 1] });\nexport const t = (x: number, y: number) => jvp(g${k}, [x, y], [1, 0.5]);\n`;
}

test('k functions each calling the next twice: emitted size stays proportional to the source', () => {
  const ratios = [4, 8, 16, 24, 32].map((k) => {
    const source = chain(k);
    return compile(source).outputText.length / source.length;
  });
  // Inlining every call path would make the k = 32 gradient 2^32 copies of g0.
  for (const r of ratios) expect(r).toBeLessThan(40);
});

test('the derivatives of the deep call chain are right (kept calls, one derivative function per callee)', () => {
  const { exports: m, result } = load(chain(14));
  // The callees deep in the chain are called, not inlined.
  expect(result.outputText).toMatch(/function g\d+\$\w+\(/);
  const at = [0.7, -0.4];
  const g = m.d(...at);
  expectClose(g, [partial(m.g14, at, 0, 0)[0], partial(m.g14, at, 1, 0)[0]], 1e-6);
  const [, tangent] = m.t(...at);
  expectClose([tangent], [g[0] * 1 + g[1] * 0.5], 1e-9);
});
