// Deep nesting through the plugin (issue 18, item 10): a marked function of `if`s or counted
// `for` loops nested inside each other. TypeScript itself (5.9, at Node's default stack) cannot
// print about 380 such levels (the emitter recurses per level; its checker goes to about 740
// loops and 990 conditionals), so 1,000 is out of reach of any build: shown here. tsad compiles
// what it reaches with the right value and gradient; past what it can follow, the build gets
// TSAD1190 at the function, never an internal error. Measured depths are in docs/benchmarks.md
// ("Deep nesting"). TSAD_DEEP=1 also runs the slow depths near TypeScript's own limit (the
// build is linear in the depth, asserted below, but 300 ifs or 250 loops still take 15–35 s of
// CPU with the runs, minutes of wall time under the suite's load).
import * as path from 'path';
import * as ts from 'typescript';
import { compile, load, workDir } from './harness';
import { walkMeter } from '../../transformer/ir/traverse';
import { runtimeEntry } from '../../transformer/plugin/host';
import { deepestRecursion, inSmallStack } from '../ir/smallStack';
import type { DeepJob, DeepRun } from './deepOnSmallStack';
import { type Kind, nested } from './nestedSource';

/** The same function as plain JavaScript (TypeScript's own output, without tsad): the reference. */
function plain(kind: Kind, depth: number): (x: number) => number {
  const js = ts.transpileModule(nested(kind, depth, false), { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS } }).outputText;
  const exports: { f?: (x: number) => number } = {};
  new Function('exports', js)(exports);
  return exports.f!;
}

function endToEnd(kind: Kind, depth: number): void {
  const { exports } = load(nested(kind, depth, true));
  const reference = plain(kind, depth);
  const x = 0.8;
  const h = 1e-5;
  expect(exports.f(x)).toBe(reference(x));
  const central = (reference(x + h) - reference(x - h)) / (2 * h);
  expect(Math.abs(exports.g(x) - central)).toBeLessThan(1e-7 * Math.max(1, Math.abs(central)));
}

const DEEP = process.env.TSAD_DEEP === '1';

describe.each<[Kind, number, number]>([
  ['if', 30, 300],
  ['for', 10, 250],
])('%s statements nested inside each other', (kind, fast, slow) => {
  test('TypeScript itself cannot compile 1,000 levels: its own stack overflows', () => {
    // TypeScript runs in the jest worker's realm (test/environment.js): its RangeError is that
    // realm's, so the error is known by its name and message, not by this realm's constructor.
    let thrown: unknown;
    try {
      plain(kind, 1000);
    } catch (e) {
      thrown = e;
    }
    expect((thrown as Error | undefined)?.name).toBe('RangeError');
    expect((thrown as Error).message).toMatch(/Maximum call stack size exceeded/);
    expect(plain(kind, 200)(0.8)).toBeGreaterThan(0);
  });

  test(`${fast} deep: the value equals plain JavaScript's, the gradient central differences`, () => {
    endToEnd(kind, fast);
  }, 120_000);

  (DEEP ? test : test.skip)(
    `${slow} deep (TSAD_DEEP=1): the same`,
    () => {
      endToEnd(kind, slow);
    },
    3_600_000,
  );
});

// The compile's work grows linearly with the depth: counted in expressions the IR walks visit
// (ir/traverse.ts walkMeter), never in time. Before, several passes walked every level's whole
// subtree again (the front end closing each branch, unzip choosing residuals, the inliner's size
// budget, the in-place pass's reads): per level 10.1k then 17.2k expressions for ifs at 25 → 50
// → 100, 11k then 15.6k for loops at 12 → 24 → 48; now about 4.5k and 6k at every depth.
test.each<[Kind, number[]]>([
  ['if', [25, 50, 100]],
  ['for', [12, 24, 48]],
])(
  '%s statements nested %j deep: the compile walks a bounded number of expressions per level',
  (kind, depths) => {
    const walked = depths.map((d) => {
      const before = walkMeter.exprs;
      compile(nested(kind, d, true));
      return walkMeter.exprs - before;
    });
    const perLevel = [(walked[1] - walked[0]) / (depths[1] - depths[0]), (walked[2] - walked[1]) / (depths[2] - depths[1])];
    expect(perLevel[1] / perLevel[0]).toBeLessThan(1.2);
    expect(perLevel[1]).toBeLessThan(8000);
  },
  600_000,
);

// On a thread with a small stack (deepOnSmallStack.ts): 400 levels scaled by the deepest recursion
// each stack holds. 0.5 MB holds about 30 % of the main thread's, so about 120 levels: still over
// the 100 levels below which an overflow is tsad's bug (TSAD9000, plugin/tooDeep.ts), and the
// walks per level cost about a tenth of 400's.
test('loops nested past what tsad follows (400 on this stack; TypeScript checks them): TSAD1190 at the function, not an internal error', async () => {
  const job: DeepJob = { fileName: path.join(workDir(), 'deepNesting.ts'), runtime: runtimeEntry(), levels: 400, mainDeepest: deepestRecursion() };
  const r = await inSmallStack<DeepRun>('test/plugin/deepOnSmallStack.ts', job, 0.5);
  expect(r.levels).toBe(Math.round((400 * r.deepest) / job.mainDeepest));
  expect(r.typeScript).toBe(0);
  expect(r.tsad.some((m) => /TSAD9000/.test(m))).toBe(false);
  expect(r.tsad.length).toBeGreaterThan(0);
  for (const m of r.tsad) expect(m).toMatch(new RegExp(`:2:\\d+ - error TSAD1190: .* ran out of stack: the function nests statements ${r.levels} deep`));
}, 120_000);
