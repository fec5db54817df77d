// stop_gradient is the identity at run time (prims/misc).
import type { PrimTsRule } from '../types';

export const miscTs = {
  stop_gradient: ([x]) => x,
} as const satisfies Record<string, PrimTsRule>;
