// Linear blend skinning in 2-D: each vertex follows a weighted blend of bone transforms;
// the squared distance of the skinned mesh to target positions.

export interface Bone {
  angle: number;
  translation: [number, number];
}

/** @differentiable */
function transformPoint(bone: Bone, p: [number, number]): [number, number] {
  const c = Math.cos(bone.angle);
  const s = Math.sin(bone.angle);
  return [c * p[0] - s * p[1] + bone.translation[0], s * p[0] + c * p[1] + bone.translation[1]];
}

/** @differentiable */
export function skinningLoss(bones: Bone[], rest: [number, number][], weights: number[][], targets: [number, number][]): number {
  let loss = 0;
  rest.forEach((v, i) => {
    const w = weights[i];
    const total = w.reduce((a, b) => a + b, 0);
    let x = 0;
    let y = 0;
    for (let b = 0; b < bones.length; b++) {
      const [bx, by] = transformPoint(bones[b], v);
      x += (w[b] / total) * bx;
      y += (w[b] / total) * by;
    }
    loss += (x - targets[i][0]) ** 2 + (y - targets[i][1]) ** 2;
  });
  return loss;
}
