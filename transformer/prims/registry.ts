// Every primitive, by IR name. Passes look up here and never branch on a name.
import * as arith from './arith';
import * as math from './math';
import * as compare from './compare';
import * as linear from './linear';
import * as misc from './misc';
import * as bits from './bits';
import type { PrimDef, LinPrimDef } from './types';
import { InternalError } from '../ir/syntax';

/**
 * Every primitive's IR name: a family exports each record under its name (checked below), so
 * tables kept elsewhere (a backend's, backend/ts/prims) map these keys and the compiler lists
 * what one lacks.
 */
export type PrimName = keyof typeof arith | keyof typeof math | keyof typeof compare | keyof typeof misc | keyof typeof bits;
export type LinPrimName = keyof typeof linear;

function byName<T extends { name: string }>(records: Record<string, T>): Readonly<Record<string, T>> {
  for (const [key, p] of Object.entries(records)) if (key !== p.name) throw new InternalError(`primitive ${p.name} is exported as ${key}`);
  return Object.freeze(Object.fromEntries(Object.values(records).map((p) => [p.name, p])));
}

export const PRIMS: Readonly<Record<string, PrimDef>> = byName<PrimDef>({ ...arith, ...math, ...compare, ...misc, ...bits });
export const LIN_PRIMS: Readonly<Record<string, LinPrimDef>> = byName<LinPrimDef>({ ...linear });

const own = (o: object, k: string) => Object.hasOwn(o, k);
export const isPrim = (name: string): boolean => own(PRIMS, name);
export const isLinPrim = (name: string): boolean => own(LIN_PRIMS, name);

/** The `Math` functions that are primitives: `Math.sin(x)` lowers to `sin(x)`. */
export const MATH_FUNCTIONS: ReadonlySet<string> = new Set(Object.keys(PRIMS).filter((name) => typeof (Math as unknown as Record<string, unknown>)[name] === 'function'));

export function primDef(name: string): PrimDef {
  if (!isPrim(name)) throw new InternalError(`unknown primitive '${name}'`);
  return PRIMS[name];
}
