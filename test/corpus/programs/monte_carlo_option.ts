// Price of a European call by Monte Carlo under geometric Brownian motion, with a seeded
// generator so the estimate (and its pathwise derivative) is reproducible.
import { differentiable } from 'tsad';

export const callPrice = differentiable((spot: number, strike: number, rate: number, vol: number, maturity: number, paths: number, seed: number): number => {
  let state = seed >>> 0;
  const uniform = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state + 0.5) / 4294967296;
  };
  const drift = (rate - 0.5 * vol * vol) * maturity;
  const diffusion = vol * Math.sqrt(maturity);
  // Draw the normals once; each is used with its antithetic partner −z.
  const normals = new Array<number>(paths);
  for (let p = 0; p < paths; p++) {
    normals[p] = Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  }
  let payoff = 0;
  for (const z of normals) {
    const up = spot * Math.exp(drift + diffusion * z);
    const down = spot * Math.exp(drift - diffusion * z);
    payoff += 0.5 * (Math.max(up - strike, 0) + Math.max(down - strike, 0));
  }
  return paths > 0 ? (Math.exp(-rate * maturity) * payoff) / paths : 0;
});
