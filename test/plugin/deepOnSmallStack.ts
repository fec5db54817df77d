// deepNesting.test.ts's loops nested past what tsad follows, built on a thread with a small stack
// (test/ir/smallStack.ts). tsad's front end recurses per level, so it runs out of stack at a depth
// proportional to the stack; the depth here is the main thread's 400 scaled by the deepest
// recursion each stack holds. The walks per level make the build grow faster than the depth: on
// the main thread's stack the case took about 15 s of CPU.
import * as ts from 'typescript';
import { parentPort, workerData } from 'worker_threads';
import { deepestRecursion } from '../ir/smallStack';
import { diagnosticsWithoutPrinting, nested } from './nestedSource';

export interface DeepJob {
  readonly fileName: string;
  /** host.ts's runtimeEntry(), from the test (the bundle has no __dirname of its own). */
  readonly runtime: string;
  /** Levels on the main thread, and the deepest one-frame recursion there. */
  readonly levels: number;
  readonly mainDeepest: number;
}

export interface DeepRun {
  readonly deepest: number;
  readonly levels: number;
  /** TypeScript's own diagnostics of the file (its checker goes deeper than tsad's front end). */
  readonly typeScript: number;
  readonly tsad: string[];
}

function run(job: DeepJob): DeepRun {
  const deepest = deepestRecursion();
  const levels = Math.round((job.levels * deepest) / job.mainDeepest);
  return { deepest, levels, ...diagnosticsWithoutPrinting(ts, job.fileName, job.runtime, nested('for', levels, true)) };
}

parentPort?.postMessage(run(workerData as DeepJob));
