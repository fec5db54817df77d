// GradBench `hello`: f(x) = x² and its gradient, compiled by tsad.
import { grad } from 'tsad';

/** @differentiable */
export function square(x: number): number {
  return x * x;
}

export const hello = { square, double: grad(square) };
