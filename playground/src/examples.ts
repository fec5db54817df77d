// The programs the playground opens with: one per kind of code tsad differentiates. `fn` is the
// function shown first, `args` the inputs Run starts from (JSON, one entry per parameter).

export interface Example {
  readonly title: string;
  readonly fn: string;
  readonly args: string;
  readonly code: string;
}

export const EXAMPLES: readonly Example[] = [
  {
    title: 'Scalar',
    fn: 'f',
    args: '[1.5]',
    code: `import { grad } from 'tsad';

/** @differentiable */
export function f(x: number): number {
  return x * Math.sin(x) + 0.25 * x * x;
}

export const df = grad(f);
`,
  },
  {
    title: 'Control flow',
    fn: 'smoothStep',
    args: '[0.3, 2]',
    code: `/** A smooth step: branches and a counted loop are differentiated as written. */
/** @differentiable */
export function smoothStep(x: number, k: number): number {
  let y: number;
  if (x < 0) {
    y = Math.exp(k * x) / 2;
  } else {
    y = 1 - Math.exp(-k * x) / 2;
  }
  for (let i = 0; i < 2; i++) {
    y = y * y * (3 - 2 * y);
  }
  return y;
}
`,
  },
  {
    title: 'Arrays',
    fn: 'loss',
    args: '[[0, 0]]',
    code: `// Least squares fit of a line: Run follows the gradient downhill.
const xs = [0, 1, 2, 3, 4, 5];
const ys = [1.1, 2.9, 5.2, 6.8, 9.1, 11];

/** @differentiable */
export function loss(w: number[]): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) {
    const r = w[0] + w[1] * xs[i] - ys[i];
    s += r * r;
  }
  return s / xs.length;
}
`,
  },
  {
    title: 'Matrices',
    fn: 'fit',
    args: '[[[1, 0], [0, 1]]]',
    code: `import { matmul } from 'tsad';

// Find A with A·B close to C: a matrix product, differentiated through matmul.
const B = [[1, 2], [3, 4]];
const C = [[5, 6], [7, 8]];

/** @differentiable */
export function fit(a: number[][]): number {
  const p = matmul(a, B);
  let s = 0;
  for (let i = 0; i < p.length; i++) {
    for (let j = 0; j < p[i].length; j++) {
      const d = p[i][j] - C[i][j];
      s += d * d;
    }
  }
  return s;
}
`,
  },
  {
    title: 'Nested transforms',
    fn: 'slope',
    args: '[0.8]',
    code: `import { grad } from 'tsad';

/** @differentiable */
export function f(x: number): number {
  return x * x * x * Math.sin(x);
}

/** The derivative of f as a function tsad differentiates again: Run shows f'' too. */
/** @differentiable */
export function slope(x: number): number {
  return grad(f)(x);
}
`,
  },
  {
    title: 'Checkpointed loop',
    fn: 'oscillator',
    args: '[1, 0, 4, 0.3]',
    code: `import { differentiable } from 'tsad';

// A damped oscillator integrated for 500 steps; reverse mode stores every 32nd state and
// recomputes the rest instead of keeping all 500.
export const oscillator = differentiable(
  (x0: number, v0: number, k: number, c: number): number => {
    const dt = 0.01;
    let x = x0;
    let v = v0;
    for (let i = 0; i < 500; i++) {
      const a = -k * x - c * v;
      v = v + dt * a;
      x = x + dt * v;
    }
    return x;
  },
  { checkpoint: { every: 32 } },
);
`,
  },
];
