// Property-based fuzzer of the front end (issue 18): random TypeScript functions in and just
// outside the differentiable subset (test/gen/fuzz.ts: statements, let/const and reassignment,
// if/else, ?:, for/while/do/for…of with break, continue and return, switch, local functions,
// arrays with reads, writes, map and reduce, custom rules, nested transforms, guards at singular
// points, and constructs tsad refuses) go through the plugin, several to a module. Each must be
// refused with coded diagnostics at a range in its own text, or build and agree with itself
// (test/gen/fuzzCheck.ts): primal === f, grad = finite differences, jvp = grad · v. Never an
// internal error.
//
// `npm test` runs a few modules. A long run:
//   TSAD_FUZZ_RUNS=100000 TSAD_FUZZ_SEED=7 TSAD_FUZZ_LOG=/tmp/fuzz.jsonl npx jest test/plugin/fuzz.test.ts
// goes on past failures, shrinks each one and appends it to the log (one JSON object a line).
import * as fs from 'fs';
import fc from 'fast-check';
import * as ts from 'typescript';
import { fuzzFunction, fuzzModule } from '../gen/fuzz';
import { checkBatch, computesNonFinite, Finding, newStats, shrink, Stats } from '../gen/fuzzCheck';

const PER_MODULE = Number(process.env.TSAD_FUZZ_PER_MODULE ?? 8);
const RATE = 12; // about one statement in 12 (and one expression in 72) is unsupported
const LONG = Number(process.env.TSAD_FUZZ_RUNS ?? 0);
const SEED = Number(process.env.TSAD_FUZZ_SEED ?? 18);
const STRICT = process.env.TSAD_FUZZ_STRICT === '1';
const SHRINK_MS = Number(process.env.TSAD_FUZZ_SHRINK_MS ?? 0);

// Uniform choices (fast-check's bias to small numbers would make almost every pick option 0).
const choices = fc.noBias(fc.array(fc.nat(0xffff), { minLength: 300, maxLength: 300 }));
const batchArb = fc.array(choices, { minLength: PER_MODULE, maxLength: PER_MODULE });

function report(f: Finding, xs: readonly number[]): string {
  const fn = fuzzFunction(xs, 0, RATE);
  return `${f.kind}${f.known ? ` (known: ${[...f.fn.known, ...(f.rule ? [f.rule] : [])].join(', ')})` : ''}: ${f.detail}\n--- program (choices ${JSON.stringify(xs)}) ---\n${fuzzModule([fn]).source}`;
}

function summary(stats: Stats): string {
  const codes = [...stats.codes.entries()].sort().map(([c, n]) => `${c}×${n}`).join(' ');
  return `${stats.functions} functions: ${stats.refused} refused, ${stats.built} built and run at ${stats.points} points; finite differences checked ${stats.fdChecked}, skipped ${stats.fdSkipped}; NaN under the IEEE rule (an infinite or NaN intermediate) ${stats.ieee}; codes ${codes}`;
}

if (LONG > 0) {
  test(`front-end fuzzer, long run: ${LONG} functions from seed ${SEED}`, () => {
    const log = process.env.TSAD_FUZZ_LOG;
    const stats = newStats();
    const seen = new Set<string>();
    const started = Date.now();
    let seed = SEED;
    while (stats.functions < LONG) {
      const [batch] = fc.sample(batchArb, { seed: seed++, numRuns: 1 });
      const findings = checkBatch(batch.map((xs, k) => ({ fn: fuzzFunction(xs, k, RATE), xs })), stats);
      for (const f of findings) {
        const key = `${f.kind}|${f.detail.replace(/-?\d+(\.\d+)?(e-?\d+)?/g, '#').slice(0, 80)}`;
        const fresh = !seen.has(key);
        seen.add(key);
        const small = fresh && !f.known && SHRINK_MS > 0 ? shrink(f.xs, f.kind, RATE, SHRINK_MS) : f.xs.slice(0, f.fn.consumed);
        const entry = { seed: seed - 1, kind: f.kind, known: [...f.fn.known, ...(f.rule ? [f.rule] : [])], tags: [...f.fn.tags], detail: f.detail, xs: small, source: fuzzModule([fuzzFunction(small, Number(f.fn.name.slice(1)), RATE)]).source };
        if (log) fs.appendFileSync(log, `${JSON.stringify(entry)}\n`);
      }
      if (log && (seed - SEED) % 5 === 0) {
        fs.appendFileSync(`${log}.progress`, `${new Date().toISOString()} seed ${seed} ${Math.round((Date.now() - started) / 1000)} s ${summary(stats)}\n`);
        fs.writeFileSync(`${log}.refused`, [...stats.supportedRefused].map(([c, ex]) => `== ${c} (a program without deliberately unsupported code)\n${ex.join('\n--\n')}`).join('\n'));
      }
    }
    if (log) fs.appendFileSync(`${log}.progress`, `done ${new Date().toISOString()} ${summary(stats)}\n`);
    if (log) fs.writeFileSync(`${log}.refused`, [...stats.supportedRefused].map(([c, ex]) => `== ${c}\n${ex.join('\n--\n')}`).join('\n'));
  }, 24 * 3600 * 1000);
} else {
  test('random programs in and just outside the subset: a coded diagnostic at a range, or derivatives that agree (property)', () => {
    const stats = newStats();
    const known: string[] = [];
    fc.assert(
      fc.property(batchArb, (batch) => {
        const findings = checkBatch(batch.map((xs, k) => ({ fn: fuzzFunction(xs, k, RATE), xs })), stats);
        for (const f of findings) {
          if (f.known && !STRICT) {
            known.push(f.kind);
            continue;
          }
          throw new Error(report(f, shrink(f.xs, f.kind, RATE, 20_000)));
        }
      }),
      { numRuns: 3, seed: SEED, endOnFailure: true },
    );
    // The generator must reach both outcomes, and the oracle must really compare derivatives.
    expect(stats.refused).toBeGreaterThan(0);
    expect(stats.built).toBeGreaterThan(stats.functions / 3);
    expect(stats.fdChecked).toBeGreaterThan(stats.built);
  }, 120_000);
}

describe('the generator writes what TypeScript parses', () => {
  const parseErrors = (xs: readonly number[], k: number): string[] => {
    const { source } = fuzzModule([fuzzFunction(xs, k, RATE)]);
    const file = ts.createSourceFile('fuzz.ts', source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    return (file as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics.map((d) => `${ts.flattenDiagnosticMessageText(d.messageText, ' ')} at ${source.slice(d.start, (d.start ?? 0) + 40)}`);
  };

  test('a comparison whose right side is (y > (…) ? …) (long run 41001: TypeScript read \'< (y >\' as type arguments)', () => {
    expect(parseErrors([46,62158,43439,25733,12936,34090,62237,23172,34594,50900,53179,821,31757,62951,23658,58397,58818,9230,51073,41968,39412,750,4623,137,28604,482,46461,35896,35705,5296,37769,11059,55660,56899,2106,16,56131,47589,20594,22349,4630,57514,25591,51632,21966,11454,55839,4595,12767,956,23586,36247,43221,26297,6123,12900,30018,21800,50315,32955,55223,38639,35050,44880,41423,31192,63240,5579,16535,23083,2998,36213,54213,26075,27913,4449,12127,35726,57400,27926,60055,64790,37269,11781,16829,54940,51030,62964,4702,39189,65263,38522,49071,41500,47025,40091,1005,40337,37500,3298,33988,64477,47985,20637,15753,3028,37202,45041,10643,18619,21693,41904,6007,15111,28289,1473,58167,51349,19790,25708,60569,38376,460,40995,3607,55426,41716,16889,46895,24734,18256,54283,32993,16396,16093,42531,50700,47882,24913,20098,36038,44765,40565,23741,40251,31209,35823,22164,9493,22054,14061,43807,23281,50118,40527,42602,63031,6033,221,46610,19610,5851,18994,40460,15428,20959,18910,8308,13296,19988,20844,51633,52316,51118,40077,12238,13031,61721,43013,43354], 28)).toEqual([]);
  });

  test('a call compared with (1 > (…) ? …) (long run 41001)', () => {
    expect(parseErrors([57314,63490,41358,56992,30261,8465,48820,39742,14518,13495,28606,1456,28294,45333,48699,15363,20119,49056,7717,16989,61453,19571,18859,30856,6131,16413,4715,7541,7708,58480,26478,34327,17641,49991,35369,39627,9074,38449,25682,22874,5113,22146,47905,23918,3330,1311,63186,52235,43113,57040,56809,14954,42374,59180,21828,22626,23352,25182,21996,59660,2203,221,61379,54663,22244,16981,60999,40710,8529,15257,39005,56442,60743,38744,43718,30404,5276,27749,6555,29342,36285,5297,4440,45783,56738,45251,64747,21069,32025,46561,41395,14244,13008,47793,43613,61928,2333,10885,65055,37699,8251,44546,15371,56294,61410,7823,51475,25659,37835,58862,15919,8183,45947,54620,37167,41614,32799,7899,60149,30552,44908,56122,8885,43936,4006,53750,19185,58163,34917,20419,23938], 18)).toEqual([]);
  });

  test('random functions (property)', () => {
    fc.assert(fc.property(choices, (xs) => parseErrors(xs, 0).length === 0), { numRuns: 1000, seed: SEED });
  });
});

describe('the oracle: NaN where the function computes an infinite intermediate is the IEEE rule, counted', () => {
  // Long run 31001: grad(h)(x + Math.min(), …) and Math.hypot(…, y + Math.min(), 1) inside f.
  const ieee: [readonly number[], number][] = [[[33405,1219,19742,472,43788,52812,42070,44964,38757,49330,33488,46301,47206,51666,18543,1829,60059,64507,61775,48046,776,12462,34956,60596,15900,18468,24082,61098,52265,50229,2078,32027,11905,53403,51973,34063,35658,54684,40757,40386,41116,5729,18852,21856,1717,31024,500,52310,40949,28497,5401,4593,33171,8268,56301,1134,21549,31393,11894,17520,495], 7], [[44478,33902,42511,3254,39940,59695,14950,54910,134,32700,37894,52016,54554,54287,61168,61846,60571,25776], 9]];

  test('x + Math.min() inside f: each NaN is classified \'ieee-inf\' and counted', () => {
    for (const [xs, k] of ieee) {
      const stats = newStats();
      const findings = checkBatch([{ fn: fuzzFunction(xs, k, RATE), xs }], stats);
      expect(findings.map((f) => [f.kind, f.rule, f.known])).toEqual([['grad-nan', 'ieee-inf', true]]);
      expect(stats.ieee).toBe(1);
    }
  });

  test('a guard at its singular point computes no infinite value in plain JavaScript: not the IEEE rule', () => {
    // Long run 31001: jvp(h, …)[1] with h = u * (v === 0 ? 0 : 1 / v), at v = 0 (fixed since).
    const xs = [5325,258,53213,36434,7337,31041,56469,1084,11767,32987,34328,41441,51754,3357,33581,57433,48590,22107,33277,33415,49466,5044,40276,19470,18979,59960,24959,61520,46791,49654,64194,40593,48075,18001,48337,2896,9683,5886,3353,50035,45900,38343,41226,7903,44939,43927,18892,11015,620,6225,22821,30968,64265,33895,18122,23952,42315,14099,51113,51560,33786,41846,65298,28799,43561,45138,36756,7636,59203,50689,29633,61659,2865,3346,7036,47512,45224,60424,57385,34235,57834,59198,22839,6756,10339,36880,18194,43584,63261,64427,27739,62204,29576,6730,55654,44313,40251,1964,6197,27513,50022,34364,41815,47786,52000,37485,48560,3789,5038,16885,11176,7440,42457,42236,36327,31314,6535,39297,20716,41074,60565,18921,49354,3648,37765,53435,58994,50827,1822,4355,48678,35070];
    expect(computesNonFinite(fuzzFunction(xs, 4, RATE), { x: 0, y: 0, a: [0, 1, 0], b: [0, 0, -1], regular: false })).toBe(false);
  });
});
