// GradBench `hello`: f(x) = x² and its gradient, compiled by tsad.
import { grad } from 'tsad';

/** @differentiable */
export function square(x: number): number {
  return x * x;
}

const dsquare = grad(square);

export const hello = {
  square: { prepare: (input: number) => input, run: (x: number) => square(x) },
  double: { prepare: (input: number) => input, run: (x: number) => dsquare(x) },
};
