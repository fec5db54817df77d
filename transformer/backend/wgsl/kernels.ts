// The WGSL text of the three kernel shapes the device program runs (runtime/webgpu/plan.ts):
// an elementwise kernel (a fused map body, a fill, a one-hot, a copy), one invocation of scalar
// code, and the three passes of a hierarchical reduction. Bodies come from lower.ts as lines of
// WGSL; this module only wraps them.
import { MAP_WORKGROUP, REDUCE_CHUNK, REDUCE_WORKGROUP } from '../../../runtime/webgpu/plan';
import { WGSL_HELPERS } from './prims';

/** A predicate slot a kernel runs under (a branch of a cond on a device value). */
export interface Guard {
  readonly slot: number;
  readonly when: boolean;
}

const scalars = '@group(0) @binding(0) var<storage, read_write> S: array<f32>;';
const arrayDecl = (binding: number, name: string) => `@group(0) @binding(${binding}) var<storage, read_write> ${name}: array<f32>;`;

export function guardLines(guards: readonly Guard[]): string[] {
  return guards.map((g) => `  if ((S[${g.slot}] != 0.0) != ${g.when}) { return; }`);
}

/** The flat invocation index of a grid that may be 2-D (more workgroups than one dimension takes). */
const flatIndex = (size: number) => `gid.x + gid.y * nwg.x * ${size}u`;

/**
 * An elementwise kernel over `count` (the slot of its length): `arrays[k]` is bound as `A{k}`;
 * `body` reads the index `i` (u32) and writes its outputs.
 */
export function mapKernel(arrays: number, countSlot: number, guards: readonly Guard[], body: readonly string[]): string {
  const decls = Array.from({ length: arrays }, (_, k) => arrayDecl(k + 1, `A${k}`));
  return [
    WGSL_HELPERS,
    scalars,
    ...decls,
    `@compute @workgroup_size(${MAP_WORKGROUP})`,
    'fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {',
    `  let i = ${flatIndex(MAP_WORKGROUP)};`,
    `  if (i >= u32(S[${countSlot}])) { return; }`,
    ...guardLines(guards),
    ...body.map((l) => `  ${l}`),
    '}',
  ].join('\n');
}

/** One invocation of scalar code. */
export function scalarKernel(arrays: number, guards: readonly Guard[], body: readonly string[]): string {
  const decls = Array.from({ length: arrays }, (_, k) => arrayDecl(k + 1, `A${k}`));
  return [WGSL_HELPERS, scalars, ...decls, '@compute @workgroup_size(1)', 'fn main() {', ...guardLines(guards), ...body.map((l) => `  ${l}`), '}'].join('\n');
}

/**
 * The associative operator of a reduction on k f32 accumulators: `lines` compute `results`
 * from the parameters `a0…a{k-1}` (the left operand, lower indices) and `b0…b{k-1}`.
 */
export interface Combine {
  readonly k: number;
  readonly lines: readonly string[];
  readonly results: readonly string[];
}

function combineFn(c: Combine): string {
  const fields = Array.from({ length: c.k }, (_, j) => `v${j}: f32`).join(', ');
  const params = [...Array.from({ length: c.k }, (_, j) => `a${j}: f32`), ...Array.from({ length: c.k }, (_, j) => `b${j}: f32`)].join(', ');
  return [`struct Acc { ${fields} }`, `fn combine(${params}) -> Acc {`, ...c.lines.map((l) => `  ${l}`), `  return Acc(${c.results.join(', ')});`, '}'].join('\n');
}

const ks = (k: number, fn: (j: number) => string) => Array.from({ length: k }, (_, j) => fn(j));

/**
 * A pass of the reduction: each workgroup folds its `REDUCE_WORKGROUP · REDUCE_CHUNK` elements in
 * index order (each invocation its run of neighbours, then a tree over the invocations, neighbours first, so that a non-commutative operator, or a tie that the lower index wins, is
 * right) and writes one partial and its validity flag. `first` reads the k input arrays (`P{j}`)
 * with `len{j}` slots, elements past an array's end reading 0 (sparse tangents); later passes read
 * k partials and their flags. Bindings: S, the pass length (uniform), inputs, outputs. Passes
 * run unguarded (a branch not taken reduces what it was given); the final step is guarded.
 */
export function reducePass(c: Combine, first: boolean, lengthSlots: readonly number[]): string {
  const { k } = c;
  const W = REDUCE_WORKGROUP;
  let binding = 2;
  const decls: string[] = [];
  const ins = ks(k, (j) => `P${j}`);
  for (const name of ins) decls.push(arrayDecl(binding++, name));
  if (!first) decls.push(arrayDecl(binding++, 'PV'));
  for (const j of ks(k, String)) decls.push(arrayDecl(binding++, `Q${j}`));
  decls.push(arrayDecl(binding++, 'QV'));
  const load = first ? ks(k, (j) => `        let x${j} = select(0.0, P${j}[i], i < u32(S[${lengthSlots[j]}]));`) : ks(k, (j) => `        let x${j} = P${j}[i];`);
  const C = REDUCE_CHUNK;
  return [
    WGSL_HELPERS,
    scalars,
    '@group(0) @binding(1) var<uniform> pass_len: vec4<u32>;',
    ...decls,
    combineFn(c),
    ...ks(k, (j) => `var<workgroup> W${j}: array<f32, ${W}>;`),
    `var<workgroup> WV: array<u32, ${W}>;`,
    `@compute @workgroup_size(${W})`,
    'fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {',
    '  let n = pass_len.x;',
    '  let t = lid.x;',
    '  let g = wid.x + wid.y * nwg.x;',
    // Each invocation folds its run of C neighbours first, left to right.
    '  var valid = false;',
    ...ks(k, (j) => `  var acc${j} = 0.0;`),
    `  for (var c = 0u; c < ${C}u; c = c + 1u) {`,
    `    let i = (g * ${W}u + t) * ${C}u + c;`,
    '    if (i < n) {',
    `      if (${first ? 'true' : 'PV[i] != 0.0'}) {`,
    ...load,
    '        if (valid) {',
    `          let r = combine(${[...ks(k, (j) => `acc${j}`), ...ks(k, (j) => `x${j}`)].join(', ')});`,
    ...ks(k, (j) => `          acc${j} = r.v${j};`),
    '        } else {',
    ...ks(k, (j) => `          acc${j} = x${j};`),
    '          valid = true;',
    '        }',
    '      }',
    '    }',
    '  }',
    ...ks(k, (j) => `  W${j}[t] = acc${j};`),
    '  WV[t] = select(0u, 1u, valid);',
    '  workgroupBarrier();',
    `  for (var s = 1u; s < ${W}u; s = s * 2u) {`,
    '    if (t % (2u * s) == 0u && WV[t + s] != 0u) {',
    '      if (WV[t] != 0u) {',
    `        let r = combine(${[...ks(k, (j) => `W${j}[t]`), ...ks(k, (j) => `W${j}[t + s]`)].join(', ')});`,
    ...ks(k, (j) => `        W${j}[t] = r.v${j};`),
    '      } else {',
    ...ks(k, (j) => `        W${j}[t] = W${j}[t + s];`),
    '        WV[t] = 1u;',
    '      }',
    '    }',
    '    workgroupBarrier();',
    '  }',
    '  if (t == 0u) {',
    ...ks(k, (j) => `    Q${j}[g] = W${j}[0];`),
    '    QV[g] = f32(WV[0]);',
    '  }',
    '}',
  ].join('\n');
}

/** The last step: the neutral elements (slots) folded with the one partial left, into the result slots. */
export function reduceFinal(c: Combine, inits: readonly string[], outs: readonly number[], guards: readonly Guard[]): string {
  const { k } = c;
  return [
    WGSL_HELPERS,
    scalars,
    ...ks(k, (j) => arrayDecl(j + 1, `P${j}`)),
    arrayDecl(k + 1, 'PV'),
    combineFn(c),
    '@compute @workgroup_size(1)',
    'fn main() {',
    ...guardLines(guards),
    ...ks(k, (j) => `  let e${j} = ${inits[j]};`),
    '  if (PV[0] != 0.0) {',
    `    let r = combine(${[...ks(k, (j) => `e${j}`), ...ks(k, (j) => `P${j}[0]`)].join(', ')});`,
    ...ks(k, (j) => `    S[${outs[j]}] = r.v${j};`),
    '  } else {',
    ...ks(k, (j) => `    S[${outs[j]}] = e${j};`),
    '  }',
    '}',
  ].join('\n');
}
