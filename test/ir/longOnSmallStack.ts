// The long programs of long.test.ts, run on a thread with a small stack (smallStack.ts). The size
// of each program is a multiple of the deepest recursion this thread's stack holds, measured here,
// so that a walk recursing once per statement (or per few statements, or per level) overflows
// whatever node does with its stack; the numbers go back to the test, which compares them with
// plain JavaScript dual numbers.
import { parentPort, workerData } from 'worker_threads';
import { gradOf, jvpOf } from '../../transformer/ad/drivers';
import { checkProgram } from '../../transformer/language/check';
import { evalFn } from '../../transformer/language/interp';
import { parseProgram } from '../../transformer/language/parse';
import { printProgram } from '../../transformer/ir/print';
import type { Block } from '../../transformer/ir/syntax';
import { deepestRecursion } from './smallStack';
import { type LongProgram, nestedBlocks, straightLine } from '../gen/long';

export interface LongRun {
  /** The deepest one-frame recursion on the worker's stack. */
  readonly deepest: number;
  /** Lets in the straight line, or levels of nesting. */
  readonly size: number;
  readonly x: number;
  readonly reference: { value: number; derivative: number };
  readonly value: number;
  readonly jvp: number;
  readonly grad: number;
  readonly reprintSame: boolean;
  readonly gradLonger: boolean;
  /** Whether a walk recursing once per statement of the outermost block (or per level) overflowed here, as the test wants. */
  readonly recursionOverflows: boolean;
}

export interface LongJob {
  readonly kind: 'straight' | 'nested';
  /** The program's size over the deepest recursion. */
  readonly times: number;
  readonly x: number;
}

/** One call per statement, and one per nested block: what the passes must not do. */
function recursePerLevel(b: Block, i = 0): number {
  if (i === b.stmts.length) return 0;
  const s = b.stmts[i];
  const inner = s.tag === 'let' && s.rhs.tag === 'block' ? recursePerLevel(s.rhs.block) : 0;
  return recursePerLevel(b, i + 1) + inner + 1;
}

function overflows(f: () => unknown): boolean {
  try {
    f();
    return false;
  } catch (e) {
    if (e instanceof RangeError) return true;
    throw e;
  }
}

function run(job: LongJob): LongRun {
  const deepest = deepestRecursion();
  // straightLine(n) writes 3n lets.
  const g: LongProgram = job.kind === 'straight' ? straightLine(Math.ceil((job.times * deepest) / 3)) : nestedBlocks(job.times * deepest);
  const size = job.kind === 'straight' ? g.text.split('\n').filter((l) => l.trimStart().startsWith('let')).length : job.times * deepest;
  const p = parseProgram(g.text, 'long.lina');
  checkProgram(p);
  const value = evalFn(p, g.fn, [job.x]).nl[0] as number;
  const text = printProgram(p);
  const reprintSame = printProgram(parseProgram(text)) === text;
  // recheck: false, as builds do: the other suites re-check every pass.
  const j = jvpOf(p, g.fn, { recheck: false });
  const jvp = evalFn(j.program, j.jvp, [job.x], [1]).lin[0] as number;
  const r = gradOf(p, g.fn, { simplify: true, recheck: false });
  const grad = evalFn(r.program, r.grad, [job.x]).nl[0] as number;
  const gradLonger = printProgram(r.program).length > text.length;
  return { deepest, size, recursionOverflows: overflows(() => recursePerLevel(p.defs[0].body)), x: job.x, reference: g.reference(job.x), value, jvp, grad, reprintSame, gradLonger };
}

parentPort?.postMessage(run(workerData as LongJob));
