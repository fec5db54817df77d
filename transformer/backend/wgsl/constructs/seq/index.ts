// The sequential lowerings (seqLowering.ts), one module per family: what one invocation runs
// when a construct has no parallel kernel (a loop and everything inside it). Partial on purpose:
// a construct without an entry is not on the GPU inside a loop, and the lowering says so by name.
import type { SeqLowerings } from '../../seqLowering';
import { arraySeqs } from './array';
import { condSeqs } from './cond';
import { loopSeqs } from './loop';
import { stackSeqs } from './stack';

export const WGSL_SEQUENTIAL: SeqLowerings = { ...loopSeqs, ...stackSeqs, ...condSeqs, ...arraySeqs };
