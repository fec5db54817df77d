// Object parameters and results of a device program (GradBench gmm's `p: { alpha, mu, q, l }`):
// the program sees each field as a parameter of its own, in the IR tuple's field order, and a
// gradient with respect to an object comes back as an object of the same fields.
import type { GpuProgram, LeafParam, ResultSpec } from './plan';

/** The program's parameters with each object's fields in place of it, and the arguments to match. */
export function flattenParams(prog: GpuProgram, args: readonly unknown[]): { params: LeafParam[]; args: unknown[] } {
  const params: LeafParam[] = [];
  const flat: unknown[] = [];
  prog.params.forEach((p, k) => {
    if (p.kind !== 'object') {
      params.push(p);
      flat.push(args[k]);
      return;
    }
    const a = args[k];
    if (typeof a !== 'object' || a === null) throw new TypeError(`${prog.where}: argument ${k + 1} ('${p.name}') must be an object with fields ${p.fields.map((f) => f.name).join(', ')}`);
    for (const f of p.fields) {
      params.push({ name: `${p.name}.${f.name}`, kind: f.kind });
      flat.push((a as Record<string, unknown>)[f.name]);
    }
  });
  return { params, args: flat };
}

export type LeafResult = Exclude<ResultSpec, { kind: 'object' }>;

export function leafResults(results: readonly ResultSpec[]): LeafResult[] {
  return results.flatMap((r) => (r.kind === 'object' ? leafResults(r.fields.map(([, f]) => f)) : [r]));
}

/** The results with each object rebuilt from its leaves' values (in leafResults' order). */
export function rebuildResults(results: readonly ResultSpec[], values: readonly unknown[]): unknown[] {
  let k = 0;
  const build = (r: ResultSpec): unknown => (r.kind === 'object' ? Object.fromEntries(r.fields.map(([name, f]) => [name, build(f)])) : values[k++]);
  return results.map(build);
}
