// The WGSL text of the three kernel shapes the device program runs (runtime/webgpu/plan.ts):
// an elementwise kernel (a fused map body, a fill, a one-hot, a copy), one invocation of scalar
// code, and the three passes of a hierarchical reduction. Bodies come from lower.ts as lines of
// WGSL; this module only wraps them.
import { MAP_WORKGROUP, REDUCE_CHUNK, REDUCE_WORKGROUP, TILE } from '../../../runtime/webgpu/plan';
import { WGSL_HELPERS } from './prims';
import { INDEX_HELPERS, countAt } from './indices';

/** The helper functions every kernel but the matrix product starts with (inspect leaves them out). */
export const KERNEL_HELPERS = WGSL_HELPERS + INDEX_HELPERS;

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
 * An elementwise kernel over `count` (the slot pair of its length, indices.ts countAt): `arrays[k]` is bound as `A{k}`;
 * `body` reads the index `i` (u32) and writes its outputs.
 */
export function mapKernel(arrays: number, countSlot: number | undefined, guards: readonly Guard[], body: readonly string[], atomic?: number): string {
  // `atomic`: the array read and written through atomics on its f32 bits (a scatter).
  const decls = Array.from({ length: arrays }, (_, k) => (k === atomic ? `@group(0) @binding(${k + 1}) var<storage, read_write> A${k}: array<atomic<u32>>;` : arrayDecl(k + 1, `A${k}`)));
  return [
    KERNEL_HELPERS,
    scalars,
    ...decls,
    `@compute @workgroup_size(${MAP_WORKGROUP})`,
    'fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {',
    `  let i = ${flatIndex(MAP_WORKGROUP)};`,
    // Without a count, each body tests its own (a joined kernel, fusedMaps.ts).
    ...(countSlot === undefined ? [] : [`  if (i >= ${countAt(countSlot)}) { return; }`]),
    ...guardLines(guards),
    ...body.map((l) => `  ${l}`),
    '}',
  ].join('\n');
}

/** One invocation of scalar code. */
export function scalarKernel(arrays: number, guards: readonly Guard[], body: readonly string[]): string {
  const decls = Array.from({ length: arrays }, (_, k) => arrayDecl(k + 1, `A${k}`));
  return [KERNEL_HELPERS, scalars, ...decls, '@compute @workgroup_size(1)', 'fn main() {', ...guardLines(guards), ...body.map((l) => `  ${l}`), '}'].join('\n');
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
 * The opening a reduce pass and a scan pass share: the helpers, the scalar buffer, the pass's
 * length (a uniform) and arrays, the combine function and any after it, the workgroup's k
 * accumulators and their validity, and main up to each invocation's own accumulators (`n` the
 * pass's length, `t` the lane, `g` the workgroup).
 */
function passPrelude(c: Combine, uniform: string, decls: readonly string[], functions: readonly string[]): string[] {
  const W = REDUCE_WORKGROUP;
  return [
    KERNEL_HELPERS,
    scalars,
    `@group(0) @binding(1) var<uniform> ${uniform}: vec4<u32>;`,
    ...decls,
    combineFn(c),
    ...functions,
    ...ks(c.k, (j) => `var<workgroup> W${j}: array<f32, ${W}>;`),
    `var<workgroup> WV: array<u32, ${W}>;`,
    `@compute @workgroup_size(${W})`,
    'fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {',
    `  let n = ${uniform}.x;`,
    '  let t = lid.x;',
    '  let g = wid.x + wid.y * nwg.x;',
    '  var valid = false;',
    ...ks(c.k, (j) => `  var acc${j} = 0.0;`),
  ];
}

/**
 * What a reduction pass may run besides folding (backend/wgsl/fusedReduce.ts). `pre`, in a first
 * pass: an elementwise body (lines over the index `i`, arrays `A0…`) run for each element before
 * it is read; the inputs are then read from those arrays (`inputs[j]`: the index of input j
 * among them). `last`, in the pass that leaves one partial: the final fold of the neutral
 * elements (`inits`, WGSL) with it into the slots `outs`, under `guards`, then scalar lines
 * (arrays `B0…`), all on invocation 0, so no finishing kernel runs.
 */
export interface PassFusion {
  readonly pre?: { readonly arrays: number; readonly lines: readonly string[]; readonly inputs: readonly number[] };
  readonly last?: { readonly inits: readonly string[]; readonly outs: readonly number[]; readonly guards: readonly Guard[]; readonly arrays: number; readonly lines: readonly string[] };
}

/**
 * A pass of the reduction: each workgroup folds its `REDUCE_WORKGROUP · REDUCE_CHUNK` elements in
 * index order (each invocation its run of neighbours, then a tree over the invocations, neighbours first, so that a non-commutative operator, or a tie that the lower index wins, is
 * right) and writes one partial and its validity flag. `first` reads the k input arrays (`P{j}`)
 * with `len{j}` slots, elements past an array's end reading 0 (sparse tangents); later passes read
 * k partials and their flags. Bindings: S, the pass length (uniform), inputs (or `pre`'s arrays),
 * outputs (or `last`'s arrays). Passes run unguarded (a branch not taken reduces what it was
 * given); the final fold is guarded.
 */
export function reducePass(c: Combine, first: boolean, lengthSlots: readonly number[], fusion: PassFusion = {}): string {
  const { k } = c;
  const W = REDUCE_WORKGROUP;
  const { pre, last } = first ? fusion : { pre: undefined, last: fusion.last };
  let binding = 2;
  const decls: string[] = [];
  const ins = pre ? pre.inputs.map((a) => `A${a}`) : ks(k, (j) => `P${j}`);
  if (pre) for (let a = 0; a < pre.arrays; a++) decls.push(arrayDecl(binding++, `A${a}`));
  else for (const name of ins) decls.push(arrayDecl(binding++, name));
  if (!first) decls.push(arrayDecl(binding++, 'PV'));
  if (last) for (let a = 0; a < last.arrays; a++) decls.push(arrayDecl(binding++, `B${a}`));
  else {
    for (const j of ks(k, String)) decls.push(arrayDecl(binding++, `Q${j}`));
    decls.push(arrayDecl(binding++, 'QV'));
  }
  const load = first ? ks(k, (j) => `        let x${j} = select(0.0, ${ins[j]}[i], i < ${countAt(lengthSlots[j])});`) : ks(k, (j) => `        let x${j} = P${j}[i];`);
  const C = REDUCE_CHUNK;
  const finish = last
    ? [
        ...guardLines(last.guards).map((l) => `  ${l}`),
        ...ks(k, (j) => `    let e${j} = ${last.inits[j]};`),
        '    if (WV[0] != 0u) {',
        `      let r = combine(${[...ks(k, (j) => `e${j}`), ...ks(k, (j) => `W${j}[0]`)].join(', ')});`,
        ...ks(k, (j) => `      S[${last.outs[j]}] = r.v${j};`),
        '    } else {',
        ...ks(k, (j) => `      S[${last.outs[j]}] = e${j};`),
        '    }',
        ...last.lines.map((l) => `    ${l}`),
      ]
    : [...ks(k, (j) => `    Q${j}[g] = W${j}[0];`), '    QV[g] = f32(WV[0]);'];
  return [
    ...passPrelude(c, 'pass_len', decls, []),
    // Each invocation folds its run of C neighbours first, left to right.
    `  for (var c = 0u; c < ${C}u; c = c + 1u) {`,
    `    let i = (g * ${W}u + t) * ${C}u + c;`,
    '    if (i < n) {',
    // The fused elementwise body in a block of its own (its names cannot meet the pass's).
    ...(pre ? ['      {', ...pre.lines.map((l) => `        ${l}`), '      }'] : []),
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
    ...finish,
    '  }',
    '}',
  ].join('\n');
}

/**
 * A pass of a hierarchical inclusive scan over blocks of `REDUCE_WORKGROUP · REDUCE_CHUNK`
 * elements: each invocation folds its run of neighbours, the workgroup scans those totals
 * (Hillis–Steele, lower indices on the left), and each invocation walks its run again from the
 * prefix before it: `offset ⊙ (earlier runs) ⊙ x_first ⊙ …`, where `offset` is the inclusive scan
 * of the earlier blocks' totals (`O{j}[g − 1]`, when `pass.y` is 1: the totals come from a
 * reducePass and are scanned by this kernel recursively, so every length works).
 *
 * `level`: a scan of block totals (all valid), writing their inclusive prefix to `Y{j}`.
 * Otherwise the user's scan: the inputs read 0 past their lengths (sparse tangents), the
 * accumulators start at the neutral elements `inits` (folded first), and `step` (the whole body,
 * k accumulators then m per-element outputs) writes `Y{j}` and the outputs `R{j}`.
 * Bindings: S, scan_len (uniform: n, has offsets), P (k), O (k), Y (k), R (m). Unguarded, as
 * reduction passes are (a guard's early return before a barrier is not uniform control flow):
 * a branch not taken scans what it was given into arrays nobody reads.
 */
export function scanPass(c: Combine, level: boolean, lengthSlots: readonly number[], inits: readonly string[], step: { lines: readonly string[]; results: readonly string[] } | undefined): string {
  const { k } = c;
  const W = REDUCE_WORKGROUP;
  const C = REDUCE_CHUNK;
  const m = step ? step.results.length - k : 0;
  let binding = 2;
  const decls: string[] = [];
  for (const j of ks(k, String)) decls.push(arrayDecl(binding++, `P${j}`));
  for (const j of ks(k, String)) decls.push(arrayDecl(binding++, `O${j}`));
  for (const j of ks(k, String)) decls.push(arrayDecl(binding++, `Y${j}`));
  for (let j = 0; j < m; j++) decls.push(arrayDecl(binding++, `R${j}`));
  const load = level ? ks(k, (j) => `let x${j} = P${j}[i];`) : ks(k, (j) => `let x${j} = select(0.0, P${j}[i], i < ${countAt(lengthSlots[j])});`);
  const accs = ks(k, (j) => `acc${j}`);
  const xs = ks(k, (j) => `x${j}`);
  // Fold `args` (WGSL values) into the running accumulators, or take them when none is valid yet.
  const fold = (args: readonly string[], indent: string) => [
    `${indent}if (valid) {`,
    `${indent}  let r = combine(${[...accs, ...args].join(', ')});`,
    ...ks(k, (j) => `${indent}  acc${j} = r.v${j};`),
    `${indent}} else {`,
    ...ks(k, (j) => `${indent}  acc${j} = ${args[j]};`),
    `${indent}  valid = true;`,
    `${indent}}`,
  ];
  const stepFn = step
    ? [
        `struct Step { ${[...ks(k, (j) => `v${j}: f32`), ...Array.from({ length: m }, (_, j) => `o${j}: f32`)].join(', ')} }`,
        `fn step(${[...ks(k, (j) => `a${j}: f32`), ...ks(k, (j) => `b${j}: f32`)].join(', ')}) -> Step {`,
        ...step.lines.map((l) => `  ${l}`),
        `  return Step(${step.results.join(', ')});`,
        '}',
      ]
    : [];
  // The walk: each element after the prefix, its inclusive value (and outputs) written.
  const walk = step
    ? [
        // The neutral elements always precede: the accumulators are valid from the start.
        `      let r = step(${[...accs, ...xs].join(', ')});`,
        ...ks(k, (j) => `      acc${j} = r.v${j};`),
        ...ks(k, (j) => `      Y${j}[i] = r.v${j};`),
        ...Array.from({ length: m }, (_, j) => `      R${j}[i] = r.o${j};`),
      ]
    : [...fold(xs, '      '), ...ks(k, (j) => `      Y${j}[i] = acc${j};`)];
  return [
    ...passPrelude(c, 'scan_len', decls, stepFn),
    `  for (var c = 0u; c < ${C}u; c = c + 1u) {`,
    `    let i = (g * ${W}u + t) * ${C}u + c;`,
    '    if (i < n) {',
    ...load.map((l) => `      ${l}`),
    ...fold(xs, '      '),
    '    }',
    '  }',
    ...ks(k, (j) => `  W${j}[t] = acc${j};`),
    '  WV[t] = select(0u, 1u, valid);',
    '  workgroupBarrier();',
    // Inclusive scan of the runs' totals: only trailing runs (past n) are invalid.
    `  for (var s = 1u; s < ${W}u; s = s * 2u) {`,
    ...ks(k, (j) => `    var l${j} = 0.0;`),
    '    var lv = 0u;',
    '    if (t >= s) {',
    ...ks(k, (j) => `      l${j} = W${j}[t - s];`),
    '      lv = WV[t - s];',
    '    }',
    '    workgroupBarrier();',
    '    if (lv != 0u && WV[t] != 0u) {',
    `      let r = combine(${[...ks(k, (j) => `l${j}`), ...ks(k, (j) => `W${j}[t]`)].join(', ')});`,
    ...ks(k, (j) => `      W${j}[t] = r.v${j};`),
    '    }',
    '    workgroupBarrier();',
    '  }',
    // The prefix before this run: neutral elements, earlier blocks, earlier runs of this block.
    '  valid = false;',
    ...(level ? [] : [...ks(k, (j) => `  acc${j} = ${inits[j]};`), '  valid = true;']),
    '  if (scan_len.y != 0u && g > 0u) {',
    ...fold(
      ks(k, (j) => `O${j}[g - 1u]`),
      '    ',
    ),
    '  }',
    '  if (t > 0u && WV[t - 1u] != 0u) {',
    ...fold(
      ks(k, (j) => `W${j}[t - 1u]`),
      '    ',
    ),
    '  }',
    `  for (var c = 0u; c < ${C}u; c = c + 1u) {`,
    `    let i = (g * ${W}u + t) * ${C}u + c;`,
    '    if (i < n) {',
    ...load.map((l) => `      ${l}`),
    ...walk,
    '    }',
    '  }',
    '}',
  ].join('\n');
}

/**
 * `A[p] = op(A[p], v)` for an `A` bound as atomic u32 (the f32's bits), from any number of
 * invocations at once: a compare-exchange loop, retried while another invocation changed the
 * element in between. `op` (WGSL over `old` and `v`) must be commutative and associative: the
 * invocations' order is the device's. Statements for a map body (index `i`).
 */
export function atomicUpdate(array: string, index: string, value: string, op: (old: string, v: string) => string): string[] {
  return [
    `let p = ${index};`,
    `let v = ${value};`,
    `var old = atomicLoad(&${array}[p]);`,
    'loop {',
    `  let r = atomicCompareExchangeWeak(&${array}[p], old, bitcast<u32>(${op('bitcast<f32>(old)', 'v')}));`,
    '  if (r.exchanged) { break; }',
    '  old = r.old_value;',
    '}',
  ];
}

/** The count slots (indices.ts countAt) a matrix product reads: its sizes (Z is R×Q, the sum over P) and its operands' lengths. */
export interface GemmSlots {
  readonly R: number;
  readonly P: number;
  readonly Q: number;
  readonly lenX: number;
  readonly lenY: number;
}

/**
 * Z = op(X)·op(Y), tiled: each workgroup computes a TILE×TILE block of Z, staging TILE×TILE
 * blocks of both operands in workgroup memory per step along P. op(X)(r, p) is X[r·P + p], or
 * X[p·R + r] when `tX` (X stored transposed); op(Y)(p, q) is Y[p·Q + q], or Y[q·P + p] when
 * `tY`. Reads past an operand's length are 0 (a short, sparse linear operand). The sizes come
 * through workgroupUniformLoad, so the loop around the barriers is uniform.
 * Bindings: S, X, Y, Z.
 */
export function gemmKernel(tX: boolean, tY: boolean, s: GemmSlots): string {
  const T = TILE;
  const x = tX ? 'p * R + r' : 'r * P + p';
  const y = tY ? 'q * P + p' : 'p * Q + q';
  return [
    scalars,
    arrayDecl(1, 'X'),
    arrayDecl(2, 'Y'),
    arrayDecl(3, 'Z'),
    `var<workgroup> TX: array<f32, ${T * T}>;`,
    `var<workgroup> TY: array<f32, ${T * T}>;`,
    'var<workgroup> DIMS: vec3<u32>;',
    `fn xAt(r: u32, p: u32, R: u32, P: u32) -> f32 {`,
    `  let k = ${x};`,
    `  return select(0.0, X[min(k, arrayLength(&X) - 1u)], r < R && p < P && k < ${countAt(s.lenX)});`,
    '}',
    `fn yAt(p: u32, q: u32, P: u32, Q: u32) -> f32 {`,
    `  let k = ${y};`,
    `  return select(0.0, Y[min(k, arrayLength(&Y) - 1u)], p < P && q < Q && k < ${countAt(s.lenY)});`,
    '}',
    `@compute @workgroup_size(${T * T})`,
    'fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {',
    `  if (lid.x == 0u) { DIMS = vec3<u32>(${countAt(s.R)}, ${countAt(s.P)}, ${countAt(s.Q)}); }`,
    '  let d = workgroupUniformLoad(&DIMS);',
    '  let R = d.x;',
    '  let P = d.y;',
    '  let Q = d.z;',
    `  let tilesQ = max((Q + ${T - 1}u) / ${T}u, 1u);`,
    '  let g = wid.x + wid.y * nwg.x;',
    `  let ly = lid.x / ${T}u;`,
    `  let lx = lid.x % ${T}u;`,
    `  let row = (g / tilesQ) * ${T}u + ly;`,
    `  let col = (g % tilesQ) * ${T}u + lx;`,
    '  var acc = 0.0;',
    `  let steps = (P + ${T - 1}u) / ${T}u;`,
    '  for (var s = 0u; s < steps; s = s + 1u) {',
    `    TX[ly * ${T}u + lx] = xAt(row, s * ${T}u + lx, R, P);`,
    `    TY[ly * ${T}u + lx] = yAt(s * ${T}u + ly, col, P, Q);`,
    '    workgroupBarrier();',
    `    for (var l = 0u; l < ${T}u; l = l + 1u) {`,
    `      acc = acc + TX[ly * ${T}u + l] * TY[l * ${T}u + lx];`,
    '    }',
    '    workgroupBarrier();',
    '  }',
    '  if (row < R && col < Q) { Z[row * Q + col] = acc; }',
    '}',
  ].join('\n');
}
