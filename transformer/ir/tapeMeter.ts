// The interpreter's tape meter: the largest number of values held in residual stacks at once,
// so tests can assert what checkpointing saves without a wall clock (docs/linear-a.md, "Cost
// model"). A stack is held from the `let` that first binds it (a `stack<τ>`-typed binder,
// alone or inside a tuple) until the body or function run that bound it returns without
// returning it (through tuples: a tape); one it returns is held by the run it returns to. A
// stack only grows while held (push), so the peak is reached just before a run lets some go,
// or at the end: the meter sums the held stacks' values at those moments only.
//
// Values are counted as scalars (leafCount). A stack pushed onto another (a nested loop's tape
// under the store policy) counts in both until the run that bound it returns.
import type { Type } from './syntax';
import type { Value } from './value';

const sizeOf = (s: Value[]): number => {
  if (s.length === 0) return 0;
  if (!Array.isArray(s[0])) return s.length;
  let n = 0;
  for (const x of s) n += leafCountOf(x);
  return n;
};
function leafCountOf(v: Value): number {
  return Array.isArray(v) ? v.reduce<number>((n, x) => n + leafCountOf(x), 0) : 1;
}

export class TapeMeter {
  peak = 0;
  private readonly held = new Set<Value[]>();
  private readonly frames: Value[][][] = [];

  enter(): void {
    this.frames.push([]);
  }

  /** A value bound at `type`: every stack in it not held yet is held by the current run. */
  note(v: Value, type: Type): void {
    if (type.tag === 'stack') {
      const s = v as Value[];
      if (!this.held.has(s)) {
        this.held.add(s);
        this.frames[this.frames.length - 1].push(s);
      }
    } else if (type.tag === 'tuple' && Array.isArray(v)) {
      type.elems.forEach((t, i) => this.note(v[i], t));
    }
  }

  /** The current run returns `results`: the stacks it bound and does not return are let go. */
  leave(results: readonly Value[][]): void {
    const mine = this.frames.pop()!;
    if (mine.length === 0) return;
    this.measure();
    const returned = new Set<Value[]>();
    const walk = (v: Value) => {
      if (!Array.isArray(v)) return;
      if (this.held.has(v)) returned.add(v);
      else v.forEach(walk);
    };
    results.forEach((vs) => vs.forEach(walk));
    const parent = this.frames[this.frames.length - 1];
    for (const s of mine) {
      if (returned.has(s) && parent) parent.push(s);
      else if (!returned.has(s)) this.held.delete(s);
    }
  }

  /** Records the values held now. */
  measure(): void {
    let n = 0;
    for (const s of this.held) n += sizeOf(s);
    if (n > this.peak) this.peak = n;
  }
}
