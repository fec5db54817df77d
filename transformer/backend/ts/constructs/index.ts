// The TypeScript backend's construct table, one module per family of constructs/: every
// construct name maps to the statements that compute it, so a construct added to the registry
// without an entry here fails to compile (a mapped type over ConstructName, as CONSTRUCTS is).
import type { ConstructName } from '../../../constructs/registry';
import type { ConstructTsRule } from '../types';
import { absentTs } from './absent';
import { accumTs } from './array/accum';
import { checksTs } from './array/checks';
import { foldTs } from './array/fold';
import { gatherTs } from './array/gather';
import { histogramTs } from './array/histogram';
import { linearFoldTs } from './array/linearFold';
import { mapTs } from './array/map';
import { matmulTs } from './array/matmul';
import { opsTs } from './array/ops';
import { scatterTs } from './array/scatter';
import { updateTs } from './array/update';
import { condTs } from './cond';
import { effectTs } from './effect';
import { loopTs } from './loop';
import { rematTs } from './remat';
import { stackTs } from './stack';
import { tapedTs } from './taped';
import { whileTs } from './while';

export const TS_CONSTRUCTS: { readonly [K in ConstructName]: ConstructTsRule } = {
  ...condTs,
  ...loopTs,
  ...whileTs,
  ...stackTs,
  ...rematTs,
  ...absentTs,
  ...effectTs,
  ...opsTs,
  ...mapTs,
  ...accumTs,
  ...foldTs,
  ...linearFoldTs,
  ...checksTs,
  ...gatherTs,
  ...scatterTs,
  ...histogramTs,
  ...matmulTs,
  ...updateTs,
  ...tapedTs,
};
