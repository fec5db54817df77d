// Run with `node --import tsad/register examples/script/fit.ts`: no build step, the loss's
// gradient is compiled when this file is loaded.
import { valueAndGrad } from 'tsad';
import { loss } from './model';

const xs = [-2, -1.5, -0.5, 0.3, 1, 1.8, 2.5];
const ys = [0, 0, 1, 0, 1, 1, 1];
const lossAndGrad = valueAndGrad(loss, { wrt: [0, 1] });

let w = 0;
let b = 0;
for (let step = 0; step < 200; step++) {
  const [, [dw, db]] = lossAndGrad(w, b, xs, ys);
  w -= 0.5 * dw;
  b -= 0.5 * db;
}

// The compiled gradient against central differences at the fitted point.
const [value, [dw, db]] = lossAndGrad(w, b, xs, ys);
const h = 1e-6;
const fdW = (loss(w + h, b, xs, ys) - loss(w - h, b, xs, ys)) / (2 * h);
const fdB = (loss(w, b + h, xs, ys) - loss(w, b - h, xs, ys)) / (2 * h);
console.log(`fitted w = ${w.toFixed(4)}, b = ${b.toFixed(4)}, loss = ${value.toFixed(6)}`);
console.log(`gradient ${dw.toExponential(3)}, ${db.toExponential(3)}; central differences ${fdW.toExponential(3)}, ${fdB.toExponential(3)}`);
