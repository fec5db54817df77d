// The drivers as the IR tests use them: with `recheck`, so that every pass's output is
// re-checked as a whole, Linear B included (builds leave it off for compile time).
import * as drivers from '../../transformer/ad/drivers';

export type { DriverOptions, ValueAndGradOptions } from '../../transformer/ad/drivers';

const on = <O extends drivers.DriverOptions>(o: O | undefined): O => ({ recheck: true, ...(o ?? {}) }) as O;

export const jvpOf: typeof drivers.jvpOf = (p, fn, o, mask) => drivers.jvpOf(p, fn, on(o), mask);
export const linearizeOf: typeof drivers.linearizeOf = (p, fn, o) => drivers.linearizeOf(p, fn, on(o));
export const vjpOf: typeof drivers.vjpOf = (p, fn, o) => drivers.vjpOf(p, fn, on(o));
export const transposeOf: typeof drivers.transposeOf = (p, fn, o) => drivers.transposeOf(p, fn, on(o));
export const gradOf: typeof drivers.gradOf = (p, fn, o) => drivers.gradOf(p, fn, on(o));
export const valueAndGradOf: typeof drivers.valueAndGradOf = (p, fn, o) => drivers.valueAndGradOf(p, fn, on(o));
export const hvpOf: typeof drivers.hvpOf = (p, fn, o, wrt) => drivers.hvpOf(p, fn, on(o), wrt);
export const fuse: typeof drivers.fuse = (p, def, o) => drivers.fuse(p, def, on(o));
