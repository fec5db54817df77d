// The part of gmm's log posterior that no parameter touches, shared by the peers (it changes the
// primal, never the gradient): −n·d/2·log 2π + k(nW·d·log(γ/√2) − log Γ_d(nW/2)), nW = d + m + 1.

/** log Γ(v) for v a positive multiple of ½ (all the Wishart constant needs). */
function logGammaHalf(v) {
  let acc = Number.isInteger(v) ? 0 : 0.5 * Math.log(Math.PI);
  for (let u = Number.isInteger(v) ? 1 : 0.5; u < v; u += 1) acc += Math.log(u);
  return acc;
}

export function gmmConstant({ d, k, n, m, gamma }) {
  const dof = d + m + 1;
  let logMultiGamma = ((d * (d - 1)) / 4) * Math.log(Math.PI);
  for (let j = 1; j <= d; j++) logMultiGamma += logGammaHalf(dof / 2 + (1 - j) / 2);
  return -n * (d / 2) * Math.log(2 * Math.PI) + k * (dof * d * Math.log(gamma / Math.SQRT2) - logMultiGamma);
}
