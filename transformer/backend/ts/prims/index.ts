// The TypeScript backend's primitive tables, one per family of prims/: every primitive name maps
// to its JavaScript, so a primitive added to the registry without an entry here fails to compile.
import type { LinPrimName, PrimName } from '../../../prims/registry';
import type { LinPrimTsRule, PrimTsRule } from '../types';
import { arithTs } from './arith';
import { bitsTs } from './bits';
import { compareTs } from './compare';
import { linearTs } from './linear';
import { mathTs } from './math';
import { miscTs } from './misc';

export const TS_PRIMS: { readonly [P in PrimName]: PrimTsRule } = { ...arithTs, ...mathTs, ...compareTs, ...miscTs, ...bitsTs };
export const TS_LIN_PRIMS: { readonly [P in LinPrimName]: LinPrimTsRule } = linearTs;

/** The entry for a primitive the registry knows (IR names are checked before emission). */
export const primTs = (name: string): PrimTsRule => TS_PRIMS[name as PrimName];
export const linPrimTs = (name: string): LinPrimTsRule => TS_LIN_PRIMS[name as LinPrimName];
