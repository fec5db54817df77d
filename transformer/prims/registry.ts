// Every primitive, by IR name. Passes look up here; a missing facet is a type error.
import * as arith from './arith';
import * as linear from './linear';
import type { PrimDef, LinPrimDef } from './types';
import { InternalError } from '../ir/syntax';

export const PRIMS: Readonly<Record<string, PrimDef>> = Object.freeze(
  Object.fromEntries(Object.values({ ...arith }).map((p) => [p.name, p])),
);

export const LIN_PRIMS: Readonly<Record<string, LinPrimDef>> = Object.freeze(
  Object.fromEntries(Object.values({ ...linear }).map((p) => [p.name, p])),
);

export function isPrim(name: string): boolean {
  return Object.prototype.hasOwnProperty.call(PRIMS, name);
}

export function isLinPrim(name: string): boolean {
  return Object.prototype.hasOwnProperty.call(LIN_PRIMS, name);
}

export function primDef(name: string): PrimDef {
  if (!isPrim(name)) throw new InternalError(`unknown primitive '${name}'`);
  return PRIMS[name];
}

export function linPrimDef(name: string): LinPrimDef {
  if (!isLinPrim(name)) throw new InternalError(`unknown linear primitive '${name}'`);
  return LIN_PRIMS[name];
}
