// Runs a module of the test suite on a thread with a small stack. A walk that recurses once per
// statement or per level overflows when the program is longer than the deepest recursion the
// stack holds; with a stack a tenth of the main thread's, a program a tenth as long shows the same
// overflow, for a tenth of the work. The module is bundled from the sources (esbuild), so it runs
// the code under test, not dist/.
import { buildSync } from 'esbuild';
import * as path from 'path';
import { Worker } from 'worker_threads';

/** The worker's stack: node's own start-up on a thread takes about 0.21 MB (node 20), and 0.35 MB leaves room for about 1 600 one-frame calls. */
export const SMALL_STACK_MB = 0.35;

/** Runs `entry` (a module that answers on parentPort) with `data` as workerData, on a small stack (`stackMb`); resolves with its one message. */
export function inSmallStack<T>(entry: string, data: unknown, stackMb = SMALL_STACK_MB): Promise<T> {
  const bundle = buildSync({ entryPoints: [path.resolve(entry)], bundle: true, platform: 'node', format: 'cjs', write: false, logLevel: 'silent', external: ['typescript'] });
  const code = bundle.outputFiles[0].text;
  return new Promise<T>((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData: data, resourceLimits: { stackSizeMb: stackMb } });
    let answered = false;
    worker.once('message', (m: T) => {
      answered = true;
      resolve(m);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`the worker exited with ${code} before answering`));
    });
  });
}

/** The deepest recursion of a one-frame function on this thread's stack (a walk with larger frames overflows sooner). */
export function deepestRecursion(): number {
  let deepest = 0;
  const dive = (n: number): number => {
    deepest = n;
    return dive(n + 1) + 1;
  };
  try {
    dive(0);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
  }
  return deepest;
}
