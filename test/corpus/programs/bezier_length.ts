// Arc length of a Bézier curve by de Casteljau evaluation at sample points, plus an end-point
// tangent penalty.

/**
 * The point at parameter t, by repeated linear interpolation of the control polygon.
 * @differentiable
 */
export function deCasteljau(ctrl: [number, number][], t: number): [number, number] {
  let pts = ctrl.map((p) => [p[0], p[1]] as [number, number]);
  while (pts.length > 1) {
    const next: [number, number][] = [];
    for (let i = 0; i + 1 < pts.length; i++) {
      next.push([(1 - t) * pts[i][0] + t * pts[i + 1][0], (1 - t) * pts[i][1] + t * pts[i + 1][1]]);
    }
    pts = next;
  }
  return pts[0];
}

/** @differentiable */
export function curveCost(ctrl: [number, number][], samples: number): number {
  if (ctrl.length < 2) throw new Error('a curve needs two control points');
  let length = 0;
  let prev = deCasteljau(ctrl, 0);
  for (let s = 1; s <= samples; s++) {
    const p = deCasteljau(ctrl, s / samples);
    length += Math.hypot(p[0] - prev[0], p[1] - prev[1]);
    prev = p;
  }
  const last = ctrl.at(-1)!;
  const beforeLast = ctrl.at(-2)!;
  return length + 0.1 * Math.hypot(last[0] - beforeLast[0], last[1] - beforeLast[1]);
}
