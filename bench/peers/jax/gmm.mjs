// GradBench's gmm in jax-js, vectorised over points and components (maths in the eval's README):
//   z_ik = Q_k (x_i − μ_k),  β_ik = α_k − ½|z_ik|² + Σ_j q_kj,
//   F = Σ_i logsumexp_k β_ik − n·logsumexp(α) − γ²/2 Σ_k ‖Q_k‖² + m Σ q + constant,
// differentiated by jit(grad(·)) with respect to the tree {alpha, mu, q, l}. Q_k's strict lower
// part is built column by column from slices of l padded with zeros above the diagonal: gathering
// it with take would be shorter, but jax-js 0.1.25 cannot jit take's derivative (a scatter: "jit:
// routine primitive scatter input is not imm"). logsumexp's shift is held constant
// (stopGradient), as in lse.mjs.
import { jit, grad, lax, np, fromF64 } from './setup.mjs';
import { gmmConstant } from '../gmmConstant.mjs';

function logsumexp(v, axis) {
  const a = lax.stopGradient(np.max(v.ref, axis, { keepdims: true }));
  const s = np.log(np.sum(np.exp(v.sub(a.ref)), axis));
  return s.add(a.reshape(s.shape));
}

/** The k×d×d strictly lower parts of Q from l (k × d(d−1)/2, columns one after the other). */
function lowerParts(l, k, d) {
  const columns = [];
  let offset = 0;
  for (let c = 0; c < d; c++) {
    const len = d - 1 - c;
    columns.push(
      len === 0
        ? np.zeros([k, d], { dtype: np.float64 })
        : np.pad(l.ref.slice([], [offset, offset + len]), [
            [0, 0],
            [c + 1, 0],
          ]),
    );
    offset += len;
  }
  l.dispose();
  return np.stack(columns, 2);
}

function objective(data) {
  const { d, k, n, m, gamma } = data;
  const constant = gmmConstant(data);
  return ({ alpha, mu, q, l }, x) => {
    const lower = lowerParts(l.ref, k, d);
    const eq = np.exp(q.ref);
    const diff = x.reshape([1, n, d]).sub(mu.reshape([k, 1, d]));
    const z = diff.ref.mul(eq.ref.reshape([k, 1, d])).add(np.matmul(diff, np.matrixTranspose(lower)));
    const sumq = np.sum(q, 1);
    const beta = alpha.ref
      .reshape([k, 1])
      .add(sumq.ref.reshape([k, 1]))
      .sub(np.sum(z.ref.mul(z), 2).mul(0.5));
    const frob = np.sum(eq.ref.mul(eq)).add(np.sum(l.ref.mul(l)));
    return np
      .sum(logsumexp(beta, 0))
      .sub(logsumexp(alpha, 0).mul(n))
      .sub(frob.mul(0.5 * gamma * gamma))
      .add(np.sum(sumq).mul(m))
      .add(constant);
  };
}

/**
 * The inputs held as jax-js arrays (the timing leaves out the copies); the gradient comes back
 * as one Float64Array, alpha, mu, q, l one after the other.
 */
export function prepare(data, params) {
  const { d, k, n } = data;
  const f = objective(data);
  const primalJit = jit(f);
  const gradientJit = jit(grad(f));
  const x = fromF64(data.x).reshape([n, d]);
  const p = {
    alpha: fromF64(params.alpha),
    mu: fromF64(params.mu).reshape([k, d]),
    q: fromF64(params.q).reshape([k, d]),
    l: fromF64(params.l).reshape([k, (d * (d - 1)) / 2]),
  };
  const refs = () => ({ alpha: p.alpha.ref, mu: p.mu.ref, q: p.q.ref, l: p.l.ref });
  return {
    primal: () => primalJit(refs(), x.ref).dataSync()[0],
    gradient: () => {
      const g = gradientJit(refs(), x.ref);
      const parts = [g.alpha, g.mu, g.q, g.l].map((a) => a.dataSync());
      const out = new Float64Array(parts.reduce((s, a) => s + a.length, 0));
      let o = 0;
      for (const a of parts) {
        out.set(a, o);
        o += a.length;
      }
      return out;
    },
    dispose: () => {
      for (const a of [x, p.alpha, p.mu, p.q, p.l]) a.dispose();
      primalJit.dispose();
      gradientJit.dispose();
    },
  };
}
