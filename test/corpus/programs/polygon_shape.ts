// Shape energy of a closed polygon: perimeter and signed area (shoelace) against targets.

/**
 * Vertices in order; the orientation is normalised to counter-clockwise first.
 * @differentiable
 */
export function shapeEnergy(vertices: [number, number][], targetArea: number, stiffness: number): number {
  if (vertices.length < 3) throw new Error('a polygon needs three vertices');
  let area2 = 0;
  for (let i = 0; i < vertices.length; i++) {
    const [x0, y0] = vertices[i];
    const [x1, y1] = vertices[(i + 1) % vertices.length];
    area2 += x0 * y1 - x1 * y0;
  }
  const ccw = area2 >= 0 ? vertices : vertices.slice().reverse();
  const closed = ccw.concat([ccw[0]]);
  let perimeter = 0;
  let area = 0;
  for (let i = 0; i + 1 < closed.length; i++) {
    const [x0, y0] = closed[i];
    const [x1, y1] = closed[i + 1];
    perimeter += Math.hypot(x1 - x0, y1 - y0);
    area += 0.5 * (x0 * y1 - x1 * y0);
  }
  return perimeter + stiffness * (area - targetArea) ** 2;
}
