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
  let payoff = 0;
  for (let p = 0; p < paths; p++) {
    const z = Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
    const terminal = spot * Math.exp(drift + diffusion * z);
    payoff += Math.max(terminal - strike, 0);
  }
  return paths > 0 ? (Math.exp(-rate * maturity) * payoff) / paths : 0;
});
