// A logistic model and its loss, marked for tsad; fit.ts imports them from this file.

export interface Sample {
  readonly x: number;
  readonly y: number;
}

/** @differentiable */
export function loss(w: number, b: number, xs: number[], ys: number[]): number {
  let total = 0;
  for (let i = 0; i < xs.length; i++) {
    const p = 1 / (1 + Math.exp(-(w * xs[i] + b)));
    total -= ys[i] * Math.log(p) + (1 - ys[i]) * Math.log(1 - p);
  }
  return total / xs.length;
}
