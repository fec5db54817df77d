// The hand-written derivatives of bench/src/hand are the reference column of the array
// benchmarks, so they are checked here against independent references: every gradient against
// central differences of its primal, every primal against a direct transcription of the
// definition, and (when python3 and a C++ compiler are present) every eval against GradBench's
// `manual` C++ through the runner at small sizes.
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import { lse, lseGradient } from '../../bench/src/hand/lse';
import { llsq, llsqGradient } from '../../bench/src/hand/llsq';
import { gmmObjective, gmmGradient } from '../../bench/src/hand/gmm';
import { kmeansCost, kmeansDir, kmeansGradHessDiag } from '../../bench/src/hand/kmeans';
import { lstmObjective, lstmGradient } from '../../bench/src/hand/lstm';
import { baObjective, baJacobian } from '../../bench/src/hand/ba';
import type { BaInput, GmmData, GmmParams, LstmInput } from '../../bench/src/gradbench/shapes';
import { expectOutcomeSuccess, missingTools, repoRoot, SMALL } from './runner';
import { seeded } from '../gen/seeded';
import { tempDir } from '../temp';

const rng = seeded;

function randomArray(n: number, r: () => number, lo = -1, hi = 1): Float64Array {
  return Float64Array.from({ length: n }, () => lo + (hi - lo) * r());
}

/** Central differences of f at x, one coordinate at a time (x is restored). */
function centralDiff(f: () => number, x: Float64Array, h = 1e-6): Float64Array {
  const g = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) {
    const x0 = x[i];
    x[i] = x0 + h;
    const up = f();
    x[i] = x0 - h;
    const down = f();
    x[i] = x0;
    g[i] = (up - down) / (2 * h);
  }
  return g;
}

function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tol: number): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    const scale = Math.max(1, Math.abs(expected[i]));
    if (!(Math.abs(actual[i] - expected[i]) <= tol * scale)) {
      throw new Error(`entry ${i}: ${actual[i]} vs ${expected[i]} (tolerance ${tol})`);
    }
  }
}

describe('hand-written lse', () => {
  const r = rng(1);
  const x = randomArray(9, r, -3, 3);
  it('primal matches log Σ exp', () => {
    let s = 0;
    for (const v of x) s += Math.exp(v);
    expect(lse(x)).toBeCloseTo(Math.log(s), 12);
  });
  it('stays finite where exp overflows', () => {
    expect(lse(Float64Array.of(1000, 1000))).toBeCloseTo(1000 + Math.LN2, 10);
  });
  it('gradient matches central differences', () => {
    expectClose(
      lseGradient(x),
      centralDiff(() => lse(x), x),
      1e-8,
    );
  });
});

describe('hand-written llsq', () => {
  const r = rng(2);
  const x = randomArray(5, r);
  const n = 11;
  it('primal matches the definition', () => {
    let y = 0;
    for (let i = 0; i < n; i++) {
      const t = -1 + (2 * i) / (n - 1);
      let model = 0;
      for (let j = 0; j < x.length; j++) model += x[j] * t ** j;
      y += 0.5 * (Math.sign(t) - model) ** 2;
    }
    expect(llsq(x, n)).toBeCloseTo(y, 12);
  });
  it('gradient matches central differences', () => {
    expectClose(
      llsqGradient(x, n),
      centralDiff(() => llsq(x, n), x),
      1e-7,
    );
  });
});

describe('hand-written gmm', () => {
  // log Γ_D(n/2) in closed form for the two cases below: Γ_2(3/2) = π/2, Γ_3(5/2) = 3π^{5/2}/8.
  const cases: { d: number; k: number; n: number; m: number; gamma: number; logGammaD: number }[] = [
    { d: 2, k: 3, n: 4, m: 0, gamma: 1, logGammaD: Math.log(Math.PI / 2) },
    { d: 3, k: 2, n: 5, m: 1, gamma: 0.8, logGammaD: Math.log((3 * Math.PI ** 2.5) / 8) },
  ];

  function make(c: (typeof cases)[number], seed: number): { data: GmmData; p: GmmParams } {
    const r = rng(seed);
    const lsz = (c.d * (c.d - 1)) / 2;
    return {
      data: { d: c.d, k: c.k, n: c.n, m: c.m, gamma: c.gamma, x: randomArray(c.n * c.d, r, -2, 2) },
      p: {
        alpha: randomArray(c.k, r),
        mu: randomArray(c.k * c.d, r),
        q: randomArray(c.k * c.d, r, -0.5, 0.5),
        l: randomArray(c.k * lsz, r, -0.5, 0.5),
      },
    };
  }

  /** log(p(X|θ,φ)·p(θ)) straight from the densities: Σ⁻¹ = QᵀQ, Wishart with V = I/γ². */
  function naive(c: (typeof cases)[number], data: GmmData, p: GmmParams): number {
    const { d, k, n } = data;
    const lsz = (d * (d - 1)) / 2;
    const Q = (kk: number) => {
      const M = Array.from({ length: d }, () => new Array<number>(d).fill(0));
      let li = kk * lsz;
      for (let col = 0; col < d; col++) {
        M[col][col] = Math.exp(p.q[kk * d + col]);
        for (let row = col + 1; row < d; row++) M[row][col] = p.l[li++];
      }
      return M;
    };
    const prec = (kk: number) => {
      const M = Q(kk);
      return M.map((_, a) => M.map((__, b) => M.reduce((s, row) => s + row[a] * row[b], 0)));
    };
    const det = (kk: number) => Math.exp(2 * Array.from(p.q.subarray(kk * d, (kk + 1) * d)).reduce((s, v) => s + v, 0));
    const wsum = Array.from(p.alpha).reduce((s, a) => s + Math.exp(a), 0);
    let logLik = 0;
    for (let i = 0; i < n; i++) {
      let pi = 0;
      for (let kk = 0; kk < k; kk++) {
        const P = prec(kk);
        const diff = Array.from({ length: d }, (_, a) => data.x[i * d + a] - p.mu[kk * d + a]);
        let quad = 0;
        for (let a = 0; a < d; a++) for (let b = 0; b < d; b++) quad += diff[a] * P[a][b] * diff[b];
        const density = Math.exp(-0.5 * quad) * Math.sqrt(det(kk) / (2 * Math.PI) ** d);
        pi += (Math.exp(p.alpha[kk]) / wsum) * density;
      }
      logLik += Math.log(pi);
    }
    const dof = d + c.m + 1;
    let logPrior = 0;
    for (let kk = 0; kk < k; kk++) {
      const P = prec(kk);
      let trace = 0;
      for (let a = 0; a < d; a++) trace += c.gamma * c.gamma * P[a][a];
      const logDetV = -2 * d * Math.log(c.gamma);
      logPrior += ((dof - d - 1) / 2) * Math.log(det(kk)) - 0.5 * trace - ((dof * d) / 2) * Math.LN2 - (dof / 2) * logDetV - c.logGammaD;
    }
    return logLik + logPrior;
  }

  cases.forEach((c, ci) => {
    const { data, p } = make(c, 10 + ci);
    it(`objective matches the densities (d=${c.d}, k=${c.k}, m=${c.m})`, () => {
      expect(gmmObjective(data, p)).toBeCloseTo(naive(c, data, p), 9);
    });
    it(`gradient matches central differences (d=${c.d}, k=${c.k}, m=${c.m})`, () => {
      const g = gmmGradient(data, p);
      for (const key of ['alpha', 'mu', 'q', 'l'] as const) {
        expectClose(
          g[key],
          centralDiff(() => gmmObjective(data, p), p[key]),
          1e-6,
        );
      }
    });
  });
});

describe('hand-written kmeans', () => {
  const r = rng(3);
  const d = 3;
  const points = randomArray(40 * d, r);
  const centroids = points.slice(0, 4 * d);
  // Move each centroid off its point, so no distance is zero and the assignment is not degenerate.
  for (let q = 0; q < centroids.length; q++) centroids[q] += 0.01 * (r() - 0.5);
  it('cost matches the brute-force minimum', () => {
    let cost = 0;
    for (let i = 0; i < 40; i++) {
      const dists = [0, 1, 2, 3].map((j) => [0, 1, 2].reduce((s, c) => s + (points[i * d + c] - centroids[j * d + c]) ** 2, 0));
      cost += Math.min(...dists);
    }
    expect(kmeansCost(points, centroids, d)).toBeCloseTo(cost, 12);
  });
  it('gradient matches central differences and the Hessian diagonal matches second differences', () => {
    const { J, H } = kmeansGradHessDiag(points, centroids, d);
    expectClose(
      J,
      centralDiff(() => kmeansCost(points, centroids, d), centroids),
      1e-7,
    );
    const h = 1e-4;
    const H2 = new Float64Array(centroids.length);
    const f0 = kmeansCost(points, centroids, d);
    for (let q = 0; q < centroids.length; q++) {
      const c0 = centroids[q];
      centroids[q] = c0 + h;
      const up = kmeansCost(points, centroids, d);
      centroids[q] = c0 - h;
      const down = kmeansCost(points, centroids, d);
      centroids[q] = c0;
      H2[q] = (up - 2 * f0 + down) / (h * h);
    }
    expectClose(H, H2, 1e-4);
    expect(Math.min(...H)).toBeGreaterThan(0);
  });
  it('dir is J / H', () => {
    const { J, H } = kmeansGradHessDiag(points, centroids, d);
    expectClose(
      kmeansDir(points, centroids, d),
      J.map((v, q) => v / H[q]),
      1e-15,
    );
  });
  it('ties go to the lowest index', () => {
    // One point, two identical centroids: all of J and H lands on centroid 0.
    const { J, H } = kmeansGradHessDiag(Float64Array.of(1, 1), Float64Array.of(0, 0, 0, 0), 2);
    expect(Array.from(J)).toEqual([-2, -2, 0, 0]);
    expect(Array.from(H)).toEqual([2, 2, 0, 0]);
  });
});

describe('hand-written lstm', () => {
  const r = rng(4);
  const l = 2;
  const b = 3;
  const len = 5;
  const input: LstmInput = {
    l,
    b,
    len,
    mainParams: randomArray(l * 8 * b, r),
    extraParams: randomArray(3 * b, r),
    state: randomArray(l * 2 * b, r),
    sequence: Float64Array.from({ length: len * b }, () => (r() < 0.5 ? 0 : 1)),
  };
  it('gradient matches central differences', () => {
    const g = lstmGradient(input);
    const f = () => lstmObjective(input);
    expectClose(g.subarray(0, input.mainParams.length), centralDiff(f, input.mainParams), 1e-7);
    expectClose(g.subarray(input.mainParams.length), centralDiff(f, input.extraParams), 1e-7);
  });
  it('a one-character sequence has a zero gradient', () => {
    // No prediction step, so nothing depends on the parameters: zeros, not NaN from 0/0.
    const one = { ...input, len: 1, sequence: input.sequence.subarray(0, b) };
    expect(Array.from(lstmGradient(one)).every((v) => v === 0)).toBe(true);
  });
});

describe('hand-written ba', () => {
  const r = rng(5);
  const n = 3,
    m = 4,
    p = 7;
  const cams = new Float64Array(11 * n);
  for (let c = 0; c < n; c++) {
    // Camera 0 has no rotation (the reference's θ = 0 branch); the others rotate by up to ~0.5 rad.
    const rot = c === 0 ? [0, 0, 0] : [0.3 * (r() - 0.5), 0.6 * (r() - 0.5), 0.4 * (r() - 0.5)];
    const centre = [r() - 0.5, r() - 0.5, -4 - r()];
    cams.set([...rot, ...centre, 1 + r(), 0.1 * r(), -0.1 * r(), 0.05 * (r() - 0.5), 0.01 * (r() - 0.5)], 11 * c);
  }
  const input: BaInput = {
    n,
    m,
    p,
    cams,
    X: randomArray(3 * m, r),
    w: randomArray(p, r, 0.5, 1.5),
    obs: Int32Array.from({ length: 2 * p }, (_, q) => (q % 2 === 0 ? (q >> 1) % n : ((q >> 1) * 3) % m)),
    feats: randomArray(2 * p, r),
  };
  const errors = () => {
    const { reprojErr, wErr } = baObjective(input);
    return [...reprojErr, ...wErr];
  };
  it('objective matches the projection written out with an explicit rotation matrix', () => {
    const { reprojErr, wErr } = baObjective(input);
    for (let i = 0; i < p; i++) {
      const c = 11 * input.obs[2 * i],
        x = 3 * input.obs[2 * i + 1];
      const rv = [cams[c], cams[c + 1], cams[c + 2]];
      const th = Math.hypot(rv[0], rv[1], rv[2]);
      const k = th === 0 ? [0, 0, 0] : rv.map((v) => v / th);
      const K = [
        [0, -k[2], k[1]],
        [k[2], 0, -k[0]],
        [-k[1], k[0], 0],
      ];
      const K2 = K.map((row, a) => row.map((_, b) => K[a].reduce((s2, v, e) => s2 + v * K[e][b], 0)));
      const R = K.map((row, a) => row.map((_, b) => (a === b ? 1 : 0) + Math.sin(th) * K[a][b] + (1 - Math.cos(th)) * K2[a][b]));
      const P = [0, 1, 2].map((a) => input.X[x + a] - cams[c + 3 + a]);
      const Xc = R.map((row) => row[0] * P[0] + row[1] * P[1] + row[2] * P[2]);
      const uv = [Xc[0] / Xc[2], Xc[1] / Xc[2]];
      const rho = uv[0] ** 2 + uv[1] ** 2;
      const L = 1 + cams[c + 9] * rho + cams[c + 10] * rho ** 2;
      for (let a = 0; a < 2; a++) {
        const expected = input.w[i] * (uv[a] * L * cams[c + 6] + cams[c + 7 + a] - input.feats[2 * i + a]);
        expect(reprojErr[2 * i + a]).toBeCloseTo(expected, 12);
      }
      expect(wErr[i]).toBeCloseTo(1 - input.w[i] ** 2, 14);
    }
  });
  it('the sparse Jacobian equals central differences, zeros included', () => {
    const J = baJacobian(input);
    const nrows = 3 * p,
      ncols = 11 * n + 3 * m + p;
    expect(J.rows.length).toBe(nrows + 1);
    const dense = Array.from({ length: nrows }, () => new Float64Array(ncols));
    for (let row = 0; row < nrows; row++) {
      for (let e = J.rows[row]; e < J.rows[row + 1]; e++) dense[row][J.cols[e]] += J.vals[e];
    }
    const h = 1e-6;
    const columnOf = (arr: Float64Array, q: number, col: number) => {
      const v0 = arr[q];
      arr[q] = v0 + h;
      const up = errors();
      arr[q] = v0 - h;
      const down = errors();
      arr[q] = v0;
      expectClose(
        dense.map((row) => row[col]),
        up.map((u, k) => (u - down[k]) / (2 * h)),
        1e-6,
      );
    };
    for (let q = 0; q < 11 * n; q++) columnOf(input.cams, q, q);
    for (let q = 0; q < 3 * m; q++) columnOf(input.X, q, 11 * n + q);
    for (let q = 0; q < p; q++) columnOf(input.w, q, 11 * n + 3 * m + q);
  });
});

// ---- Against GradBench's `manual` through the runner ----

/** The hand mode of the tool, transpiled into a temporary folder (it needs no tsad plugin). */
function buildHandTool(): string {
  const out = tempDir('tsad-hand-tool-');
  const src = path.join(repoRoot, 'bench/src');
  for (const dir of ['gradbench', 'hand']) {
    fs.mkdirSync(path.join(out, dir));
    for (const file of fs.readdirSync(path.join(src, dir))) {
      if (!file.endsWith('.ts')) continue;
      const text = fs.readFileSync(path.join(src, dir, file), 'utf8');
      const js = ts.transpileModule(text, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } });
      fs.writeFileSync(path.join(out, dir, file.replace(/\.ts$/, '.js')), js.outputText);
    }
  }
  return path.join(out, 'gradbench/tool.js');
}

describe('hand-written tool mode against GradBench manual', () => {
  const missing = missingTools();
  if (missing) {
    console.warn(`SKIPPING the GradBench runner tests of the hand-written derivatives: ${missing}`);
    it.skip('runs every eval through the runner', () => {});
    return;
  }
  let tool = '';
  beforeAll(() => {
    tool = buildHandTool();
  });
  for (const [name, args] of Object.entries(SMALL)) {
    it(`${name}: outcome success`, () => {
      expectOutcomeSuccess(name, `node ${tool} hand`, args);
    }, 300_000);
  }
});
