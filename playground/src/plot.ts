// The plot, as a small SVG written here (no charting library): the function with its tangent
// line, or a gradient descent's loss per step.
import type { Plot } from './protocol';

const W = 420;
const H = 220;
const PAD = 34;
const SVG = 'http://www.w3.org/2000/svg';

function el(name: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

const fmt = (v: number) => (Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-3 && v !== 0) ? v.toExponential(2) : Number(v.toPrecision(4)).toString());

export function drawPlot(svg: SVGSVGElement, plot: Plot | undefined, caption: HTMLElement): void {
  svg.replaceChildren(el('title', {}, 'Plot of the last run'));
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  if (!plot) {
    caption.textContent = 'No plot: the function has no gradient to follow.';
    return;
  }
  const xs = plot.kind === 'tangent' ? plot.xs : plot.losses.map((_, i) => i);
  // Losses that span decades read better on a log scale.
  const logScale = plot.kind === 'descent' && plot.losses.every((l) => l > 0) && Math.max(...plot.losses) / Math.min(...plot.losses) > 100;
  const ys = plot.kind === 'tangent' ? plot.ys : plot.losses.map((l) => (logScale ? Math.log10(l) : l));
  const finite = ys.filter(Number.isFinite);
  if (finite.length === 0) {
    caption.textContent = 'No plot: the function is not finite here.';
    return;
  }
  let [y0, y1] = [Math.min(...finite), Math.max(...finite)];
  if (y1 - y0 < 1e-12) [y0, y1] = [y0 - 1, y1 + 1];
  const [x0, x1] = [xs[0], xs[xs.length - 1] === xs[0] ? xs[0] + 1 : xs[xs.length - 1]];
  const sx = (x: number) => PAD + ((x - x0) / (x1 - x0)) * (W - 2 * PAD);
  const sy = (y: number) => H - PAD - ((y - y0) / (y1 - y0)) * (H - 2 * PAD);
  svg.append(el('rect', { x: PAD, y: PAD, width: W - 2 * PAD, height: H - 2 * PAD, class: 'frame' }));
  // The tangent leaves the frame where it leaves the curve's range: clip it there.
  const clip = el('clipPath', { id: 'plot-frame' });
  clip.append(el('rect', { x: PAD, y: PAD, width: W - 2 * PAD, height: H - 2 * PAD }));
  svg.append(clip);
  const line = xs
    .map((x, i) => (Number.isFinite(ys[i]) ? `${sx(x).toFixed(1)},${sy(Math.min(y1, Math.max(y0, ys[i]))).toFixed(1)}` : ''))
    .filter(Boolean)
    .join(' ');
  svg.append(el('polyline', { points: line, class: 'curve' }));
  svg.append(el('text', { x: PAD, y: H - 8, class: 'tick' }, fmt(x0)), el('text', { x: W - PAD, y: H - 8, class: 'tick end' }, fmt(x1)));
  const yLabel = (v: number) => fmt(logScale ? 10 ** v : v);
  svg.append(el('text', { x: 4, y: PAD + 4, class: 'tick' }, yLabel(y1)), el('text', { x: 4, y: H - PAD, class: 'tick' }, yLabel(y0)));
  if (plot.kind === 'tangent') {
    const t = (x: number) => plot.y0 + plot.slope * (x - plot.x0);
    svg.append(el('line', { x1: sx(x0), y1: sy(t(x0)), x2: sx(x1), y2: sy(t(x1)), class: 'tangent', 'clip-path': 'url(#plot-frame)' }));
    svg.append(el('circle', { cx: sx(plot.x0), cy: sy(plot.y0), r: 4, class: 'point' }));
    caption.textContent = `f around x = ${fmt(plot.x0)} (blue) and its tangent of slope ${fmt(plot.slope)} (orange).`;
  } else {
    caption.textContent = `Gradient descent: loss per step${logScale ? ' (log scale)' : ''}, ${fmt(plot.losses[0])} → ${fmt(plot.losses[plot.losses.length - 1])} in ${plot.losses.length - 1} steps.`;
  }
}
