// The WGSL backend's construct table, one module per family of constructs/ (the TypeScript
// backend's is backend/ts/constructs). It is partial on purpose: a construct without an entry is
// not on the GPU yet, and the lowering says so by name (NotOnGpu); the keys are checked against
// the registry's names.
import type { ConstructLowerings } from '../lowering';
import { condWgsl } from './cond';
import { foldWgsl } from './fold';
import { gatherWgsl } from './gather';
import { histogramWgsl } from './histogram';
import { linearFoldWgsl } from './linearFold';
import { mapWgsl } from './map';
import { matmulWgsl } from './matmul';
import { opsWgsl } from './ops';
import { scatterWgsl } from './scatter';
import { sumLoopWgslTable } from './sumLoop';

export const WGSL_CONSTRUCTS: ConstructLowerings = {
  ...opsWgsl,
  ...mapWgsl,
  ...foldWgsl,
  ...linearFoldWgsl,
  ...condWgsl,
  ...gatherWgsl,
  ...histogramWgsl,
  ...matmulWgsl,
  ...scatterWgsl,
  ...sumLoopWgslTable,
};
