// Source maps: generated derivative code points at the marked function it came from (callees at
// their own declarations), and each wrapper at its transform call site.
import { compile } from './harness';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Decodes source-map `mappings`: for each generated line, its segments' original lines (0-based). */
function originalLines(mappings: string): number[][] {
  let srcLine = 0;
  return mappings.split(';').map((line) =>
    line
      .split(',')
      .filter(Boolean)
      .map((seg) => {
        const fields: number[] = [];
        let value = 0;
        let shift = 0;
        for (const ch of seg) {
          const d = B64.indexOf(ch);
          value += (d & 31) << shift;
          if (d & 32) shift += 5;
          else {
            fields.push(value & 1 ? -(value >> 1) : value >> 1);
            value = 0;
            shift = 0;
          }
        }
        if (fields.length >= 4) srcLine += fields[2];
        return srcLine;
      }),
  );
}

const source = `import { grad, jvp } from 'tsad';

/** @differentiable */
export function rotate(p: [number, number], theta: number): [number, number] {
  const [x, y] = p;
  return [Math.cos(theta) * x - Math.sin(theta) * y, Math.sin(theta) * x + Math.cos(theta) * y];
}

/** @differentiable */
export function energy(p: [number, number], theta: number): number {
  const q = rotate(p, theta);
  return q[0] * q[0] + 3 * q[1] * q[1];
}

export const d = grad(energy, { wrt: [0, 1] });
export const t = (theta: number) => jvp(rotate, [[1, 2], theta], [[0, 0], 1]);
`;

test('generated functions map to their marked declarations and call sites', () => {
  const r = compile(source);
  expect(r.sourceMapText).toBeDefined();
  const map = JSON.parse(r.sourceMapText!);
  const lines = originalLines(map.mappings);
  const out = r.outputText.split('\n');
  const src = source.split('\n');
  const lineOf = (re: RegExp) => src.findIndex((l) => re.test(l));
  const mappedLine = (re: RegExp) => {
    const i = out.findIndex((l) => re.test(l));
    expect(i).toBeGreaterThanOrEqual(0);
    expect(lines[i].length).toBeGreaterThan(0);
    return lines[i][0];
  };
  const rotateAt = lineOf(/^export function rotate/);
  const energyAt = lineOf(/^export function energy/);
  // The mapping may start at the declaration's leading JSDoc marker.
  expect(mappedLine(/^function rotate\$jvp/)).toBeLessThanOrEqual(rotateAt);
  expect(mappedLine(/^function rotate\$jvp/)).toBeGreaterThanOrEqual(rotateAt - 1);
  expect(mappedLine(/^function energy\$grad/)).toBeGreaterThanOrEqual(energyAt - 1);
  expect(mappedLine(/^function energy\$grad/)).toBeLessThanOrEqual(energyAt);
  expect(mappedLine(/^function energy_grad_0_1/)).toBe(lineOf(/grad\(energy/));
  expect(mappedLine(/^function rotate_jvp/)).toBe(lineOf(/jvp\(rotate/));
});

test('statements map to the expression they compute, backward statements to the forward one', () => {
  const src = `import { grad } from 'tsad';

/** @differentiable */
export function energy(p: [number, number], theta: number): number {
  const c = Math.cos(theta);
  const s = Math.sin(theta);
  const u = c * p[0] - s * p[1];
  return u * u + s;
}
export const d = grad(energy, { wrt: [0, 1] });
`;
  const r = compile(src);
  const lines = originalLines(JSON.parse(r.sourceMapText!).mappings);
  const out = r.outputText.split('\n');
  const srcLines = src.split('\n');
  const inFn = (fn: string, re: RegExp) => {
    const start = out.findIndex((l) => l.startsWith(`function ${fn}(`));
    const i = out.findIndex((l, k) => k > start && re.test(l));
    expect(i).toBeGreaterThan(start);
    return lines[i][0];
  };
  const at = (re: RegExp) => srcLines.findIndex((l) => re.test(l));
  expect(inFn('energy$grad', /= Math\.cos\(theta\)/)).toBe(at(/const c = /));
  // sin(θ) is first needed by the derivative of cos(θ); `s` then reuses it.
  expect(inFn('energy$grad', /= Math\.sin\(theta\)/)).toBe(at(/const c = /));
  expect(inFn('energy$grad', /const u = /)).toBe(at(/const u = /));
  expect(inFn('energy$grad', /const u_bar(_\d+)? = /)).toBe(at(/const u = /));
  // Cotangents used once are printed inside the return (backend/ts/fold.ts): it maps into energy.
  expect(inFn('energy$grad', /return \[c \* u_bar/)).toBeGreaterThan(at(/export function energy/));
  expect(inFn('energy$grad', /return \[c \* u_bar/)).toBeLessThanOrEqual(at(/return u \* u/));
});
