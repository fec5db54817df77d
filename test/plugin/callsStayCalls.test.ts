// Calls stay calls where inlining would copy code (transformer/opt/inline.ts, InlinePolicy): the
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

test('a function that runs a loop, called from several places, keeps its derivative functions: loops are not copied per call', () => {
  const calls = Array.from({ length: 8 }, (_, k) => `integrate(x * ${k + 1}, y, 20)`).join(' + ');
  const { exports: m, result } = load(`import { grad } from 'tsad';
/** @differentiable */
export function integrate(x: number, y: number, n: number): number {
  let s = x;
  for (let i = 0; i < n; i++) s = s + 0.05 * Math.sin(s * y);
  return s;
}
/** @differentiable */
export function total(x: number, y: number): number { return ${calls}; }
export const d = grad(total, { wrt: [0, 1] });
`);
  // The forward loop (with its residual stacks) and the reversed loop of integrate, once each in
  // their own functions; the gradient of total calls them instead of holding 16 loops.
  const gradient = result.outputText.slice(result.outputText.indexOf('function total$grad('));
  const body = gradient.slice(0, gradient.indexOf('\n}'));
  expect(body).not.toMatch(/for \(/);
  expect(body.match(/integrate\$fwd\(/g)?.length).toBe(8);
  const at = [0.3, 1.7];
  expectClose(m.d(...at), [partial(m.total, at, 0, 0)[0], partial(m.total, at, 1, 0)[0]], 1e-6);
});
