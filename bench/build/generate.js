// The generated consumer project of the build-cost benchmark: 20 files, 200 small marked
// functions (some calling others, also across files), 400 grad/valueAndGrad call sites, and
// ordinary code around them. Deterministic, so numbers compare across commits.
'use strict';
const fs = require('fs');
const path = require('path');

const FILES = 20;
const PER_FILE = 10;
const CALLS_PER_FILE = 20;

function marked(i, j) {
  const name = `f${i}_${j}`;
  // Every third function calls the previous one (in this file or the previous file).
  const callee = j > 0 ? `f${i}_${j - 1}` : i > 0 ? `f${i - 1}_${PER_FILE - 1}` : undefined;
  const call = callee && j % 3 === 1 ? ` + 0.5 * ${callee}(y, z, x)` : '';
  return `/** @differentiable */
export function ${name}(x: number, y: number, z: number): number {
  const a = Math.sin(x * ${(j + 1) / 10}) * y + Math.exp(z * 0.1);
  const b = a * a / (1 + y * y) - Math.log(1 + x * x);
  return b * z + Math.sqrt(1 + a * a)${call};
}
`;
}

function ordinary(i) {
  return `
export interface Record${i} { readonly id: number; readonly name: string; readonly tags: readonly string[] }
export class Store${i} {
  private readonly items = new Map<number, Record${i}>();
  add(r: Record${i}): void { this.items.set(r.id, r); }
  byTag(tag: string): Record${i}[] { return [...this.items.values()].filter((r) => r.tags.includes(tag)); }
  summary(): string { return [...this.items.values()].map((r) => \`\${r.id}:\${r.name}\`).join(', '); }
}
export function histogram${i}(xs: readonly number[], bins: number): number[] {
  const lo = Math.min(...xs), hi = Math.max(...xs), out = new Array<number>(bins).fill(0);
  for (const x of xs) out[Math.min(bins - 1, Math.floor(((x - lo) / (hi - lo || 1)) * bins))]++;
  return out;
}
export function format${i}(values: readonly number[]): string {
  return values.map((v, k) => \`#\${k} \${v.toFixed(3)}\`).join('\\n');
}
`;
}

function moduleText(i) {
  const imports = [`import { grad, valueAndGrad } from 'tsad';`];
  if (i > 0) imports.push(`import { f${i - 1}_${PER_FILE - 1} } from './m${i - 1}';`);
  const fns = Array.from({ length: PER_FILE }, (_, j) => marked(i, j)).join('\n');
  const calls = Array.from({ length: CALLS_PER_FILE }, (_, k) => {
    const j = k % PER_FILE;
    const transform = k % 2 === 0 ? `grad(f${i}_${j}, { wrt: [0, 1, 2] })` : `valueAndGrad(f${i}_${j})`;
    return `export const d${i}_${k} = ${transform};`;
  }).join('\n');
  return `${imports.join('\n')}\n\n${fns}\n${calls}\n${ordinary(i)}`;
}

function generate(dir, withPlugin) {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  for (let i = 0; i < FILES; i++) fs.writeFileSync(path.join(dir, 'src', `m${i}.ts`), moduleText(i));
  const main = `${Array.from({ length: FILES }, (_, i) => `import * as m${i} from './m${i}';`).join('\n')}
let total = 0;
${Array.from({ length: FILES }, (_, i) => `total += (m${i}.d${i}_0(0.3, 0.7, 1.1) as number[]).reduce((a, b) => a + b, 0);`).join('\n')}
console.log(total);
`;
  fs.writeFileSync(path.join(dir, 'src', 'main.ts'), main);
  const compilerOptions = { target: 'ES2022', module: 'commonjs', strict: true, outDir: 'dist', rootDir: 'src', types: [], skipLibCheck: true };
  if (withPlugin) compilerOptions.plugins = [{ transform: 'tsad/transformer' }];
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['src'] }, null, 2));
}

module.exports = { generate, FILES, PER_FILE, CALLS_PER_FILE };
