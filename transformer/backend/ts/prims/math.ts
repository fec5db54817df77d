// The Math library in JavaScript (prims/math): each primitive is the `Math` function of its name.
import { mathCall } from './emit';
import type { PrimTsRule } from '../types';

const NAMES = [
  'sqrt',
  'cbrt',
  'exp',
  'expm1',
  'log',
  'log1p',
  'log2',
  'log10',
  'sin',
  'cos',
  'tan',
  'asin',
  'acos',
  'atan',
  'sinh',
  'cosh',
  'tanh',
  'asinh',
  'acosh',
  'atanh',
  'abs',
  'sign',
  'floor',
  'ceil',
  'round',
  'trunc',
  'fround',
  'atan2',
  'hypot',
  'min',
  'max',
] as const;

export const mathTs = Object.fromEntries(NAMES.map((name) => [name, mathCall(name)])) as { readonly [N in (typeof NAMES)[number]]: PrimTsRule };
