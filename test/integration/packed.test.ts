// The acceptance check of the plugin, run as a user would: a fresh app installs the packed
// package (`npm pack`), uses the three marker forms with grad/valueAndGrad/jvp/vjp on scalar,
// tuple and object functions, builds with tspc in both decorator modes, and compares every
// derivative with central finite differences.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { tempDir } from '../temp';

const root = path.resolve(__dirname, '../..');
const nm = path.join(root, 'node_modules');

function run(cmd: string, args: string[], cwd: string) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: 180_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

let tarball: string;

beforeAll(() => {
  // dist/ is already built by `npm test`; packing must not rebuild it (no prepare run here).
  const dest = tempDir('tsad-pack-');
  const r = run('npm', ['pack', '--ignore-scripts', '--pack-destination', dest, '--silent'], root);
  expect(r.code).toBe(0);
  tarball = path.join(dest, r.out.trim().split('\n').pop()!);
  expect(fs.existsSync(tarball)).toBe(true);
}, 120_000);

function app(experimentalDecorators: boolean): string {
  const dir = tempDir('tsad-app-');
  const pkg = path.join(dir, 'node_modules', 'tsad');
  fs.mkdirSync(pkg, { recursive: true });
  // Unpacking the tarball is what `npm install ./tsad-x.y.z.tgz` does for a package without dependencies.
  expect(run('tar', ['xzf', tarball, '-C', pkg, '--strip-components=1'], dir).code).toBe(0);
  for (const l of ['typescript', 'ts-patch']) fs.symlinkSync(path.join(nm, l), path.join(dir, 'node_modules', l), 'dir');
  const files: Record<string, string> = {
    'package.json': JSON.stringify({ name: 'fresh-app', private: true, dependencies: { tsad: `file:${tarball}` } }),
    'tsconfig.json': JSON.stringify({
      // One of the two builds checks the package's declaration files (and TypeScript's lib) as a
      // project without skipLibCheck does; a second check of the same files would find nothing new.
      compilerOptions: {
        target: 'ES2022',
        module: 'commonjs',
        strict: true,
        skipLibCheck: experimentalDecorators,
        outDir: 'dist',
        rootDir: 'src',
        types: [],
        experimentalDecorators,
        plugins: [{ transform: 'tsad/transformer' }],
      },
      include: ['src'],
    }),
    'src/constants.ts': `export const STIFFNESS = 2 * 0.75;\n`,
    'src/model.ts': `import { differentiable } from 'tsad';
import { STIFFNESS } from './constants';
export type Point = { x: number; y: number };

/** @differentiable */
export function scalar(a: number, b: number): number {
  return Math.sin(a) * b ** 2 + Math.log1p(a * a) / (1 + b * b);
}

/** @differentiable */
export function polar(r: number, theta: number): [number, number] {
  return [r * Math.cos(theta), r * Math.sin(theta)];
}

export const stretch = differentiable((p: Point, k: number): Point => ({ x: p.x * Math.exp(k), y: p.y * Math.exp(-k) + p.x * p.y }));

export class Energy {
  @differentiable
  static spring(p: Point, rest: number): number {
    const d = Math.hypot(p.x, p.y) - rest;
    return 0.5 * STIFFNESS * d * d;
  }
  @differentiable({ wrt: ['theta'] })
  static arm(l: number, theta: number): number {
    const [x, y] = polar(l, theta);
    return x * x * y;
  }
}
`,
    'src/main.ts': `import { grad, valueAndGrad, jvp, vjp } from 'tsad';
import { scalar, polar, stretch, Energy } from './model';
const out = {
  scalarGrad: grad(scalar, { wrt: [0, 1] })(0.7, -1.3),
  scalarValueAndGrad: valueAndGrad(scalar)(0.7, -1.3),
  polarJvp: jvp(polar, [1.5, 0.4], [0.3, -0.7]),
  polarVjp: vjp(polar, 1.5, 0.4)[1]([0.2, 0.9]),
  stretchVjp: vjp(stretch, { x: 0.8, y: -0.5 }, 0.3)[1]({ x: 1.1, y: -0.4 }),
  stretchJvp: jvp(stretch, [{ x: 0.8, y: -0.5 }, 0.3], [{ x: 0.2, y: 0.6 }, -0.5]),
  springGrad: grad(Energy.spring)({ x: 1.2, y: -0.7 }, 1),
  armGrad: grad(Energy.arm)(1.3, 0.6),
};
console.log(JSON.stringify(out));
`,
  };
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

// ---- independent references: central differences on plain re-implementations ----
const H = 1e-6;
const fd = (f: (t: number) => number, t: number) => (f(t + H) - f(t - H)) / (2 * H);
const scalar = (a: number, b: number) => Math.sin(a) * b ** 2 + Math.log1p(a * a) / (1 + b * b);
const polar = (r: number, t: number) => [r * Math.cos(t), r * Math.sin(t)];
const stretch = (px: number, py: number, k: number) => [px * Math.exp(k), py * Math.exp(-k) + px * py];
const spring = (x: number, y: number) => 0.5 * 1.5 * (Math.hypot(x, y) - 1) ** 2;
const arm = (l: number, t: number) => {
  const [x, y] = polar(l, t);
  return x * x * y;
};

function close(actual: number, expected: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(expected)));
}

describe.each([false, true])('a fresh app with the packed package (experimentalDecorators: %s)', (experimental) => {
  test('builds with tspc and every derivative agrees with finite differences', () => {
    const dir = app(experimental);
    const build = run(process.execPath, [path.join(nm, 'ts-patch', 'bin', 'tspc.js'), '-p', '.'], dir);
    expect(build.out).toBe('');
    expect(build.code).toBe(0);
    const emitted = fs.readFileSync(path.join(dir, 'dist', 'model.js'), 'utf8');
    expect(emitted).not.toMatch(/__decorate|__esDecorate/);
    const r = run(process.execPath, ['dist/main.js'], dir);
    expect(r.code).toBe(0);
    const o = JSON.parse(r.out.trim());

    close(
      o.scalarGrad[0],
      fd((a) => scalar(a, -1.3), 0.7),
    );
    close(
      o.scalarGrad[1],
      fd((b) => scalar(0.7, b), -1.3),
    );
    close(o.scalarValueAndGrad[0], scalar(0.7, -1.3));
    close(
      o.scalarValueAndGrad[1],
      fd((a) => scalar(a, -1.3), 0.7),
    );

    const [p, pDot] = o.polarJvp;
    polar(1.5, 0.4).forEach((v, i) => close(p[i], v));
    [0, 1].forEach((i) =>
      close(
        pDot[i],
        fd((s) => polar(1.5 + 0.3 * s, 0.4 - 0.7 * s)[i], 0),
      ),
    );
    // vjp against the dot-product identity with finite-difference columns.
    const ct = [0.2, 0.9];
    close(
      o.polarVjp[0],
      fd((s) => ct[0] * polar(1.5 + s, 0.4)[0] + ct[1] * polar(1.5 + s, 0.4)[1], 0),
    );
    close(
      o.polarVjp[1],
      fd((s) => ct[0] * polar(1.5, 0.4 + s)[0] + ct[1] * polar(1.5, 0.4 + s)[1], 0),
    );

    const sct = [1.1, -0.4];
    const sdot = (px: number, py: number, k: number) => stretch(px, py, k).reduce((acc, v, i) => acc + sct[i] * v, 0);
    const [pBar, kBar] = o.stretchVjp;
    close(
      pBar.x,
      fd((s) => sdot(0.8 + s, -0.5, 0.3), 0),
    );
    close(
      pBar.y,
      fd((s) => sdot(0.8, -0.5 + s, 0.3), 0),
    );
    close(
      kBar,
      fd((s) => sdot(0.8, -0.5, 0.3 + s), 0),
    );
    const [sv, sDot] = o.stretchJvp;
    close(sv.x, stretch(0.8, -0.5, 0.3)[0]);
    close(
      sDot.x,
      fd((s) => stretch(0.8 + 0.2 * s, -0.5 + 0.6 * s, 0.3 - 0.5 * s)[0], 0),
    );
    close(
      sDot.y,
      fd((s) => stretch(0.8 + 0.2 * s, -0.5 + 0.6 * s, 0.3 - 0.5 * s)[1], 0),
    );

    close(
      o.springGrad.x,
      fd((s) => spring(1.2 + s, -0.7), 0),
    );
    close(
      o.springGrad.y,
      fd((s) => spring(1.2, -0.7 + s), 0),
    );
    close(
      o.armGrad,
      fd((t) => arm(1.3, t), 0.6),
    );
  }, 180_000);
});
