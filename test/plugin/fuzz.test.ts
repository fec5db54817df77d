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
  const codes = [...stats.codes.entries()]
    .sort()
    .map(([c, n]) => `${c}×${n}`)
    .join(' ');
  return `${stats.functions} functions: ${stats.refused} refused, ${stats.built} built and run at ${stats.points} points; finite differences checked ${stats.fdChecked}, skipped ${stats.fdSkipped}; NaN under the IEEE rule (an infinite or NaN intermediate) ${stats.ieee}; codes ${codes}`;
}

if (LONG > 0) {
  test(
    `front-end fuzzer, long run: ${LONG} functions from seed ${SEED}`,
    () => {
      const log = process.env.TSAD_FUZZ_LOG;
      const stats = newStats();
      const seen = new Set<string>();
      const started = Date.now();
      let seed = SEED;
      while (stats.functions < LONG) {
        const [batch] = fc.sample(batchArb, { seed: seed++, numRuns: 1 });
        const findings = checkBatch(
          batch.map((xs, k) => ({ fn: fuzzFunction(xs, k, RATE), xs })),
          stats,
        );
        for (const f of findings) {
          const key = `${f.kind}|${f.detail.replace(/-?\d+(\.\d+)?(e-?\d+)?/g, '#').slice(0, 80)}`;
          const fresh = !seen.has(key);
          seen.add(key);
          const small = fresh && !f.known && SHRINK_MS > 0 ? shrink(f.xs, f.kind, RATE, SHRINK_MS) : f.xs.slice(0, f.fn.consumed);
          const entry = {
            seed: seed - 1,
            kind: f.kind,
            known: [...f.fn.known, ...(f.rule ? [f.rule] : [])],
            tags: [...f.fn.tags],
            detail: f.detail,
            xs: small,
            source: fuzzModule([fuzzFunction(small, Number(f.fn.name.slice(1)), RATE)]).source,
          };
          if (log) fs.appendFileSync(log, `${JSON.stringify(entry)}\n`);
        }
        if (log && (seed - SEED) % 5 === 0) {
          fs.appendFileSync(`${log}.progress`, `${new Date().toISOString()} seed ${seed} ${Math.round((Date.now() - started) / 1000)} s ${summary(stats)}\n`);
          fs.writeFileSync(`${log}.refused`, [...stats.supportedRefused].map(([c, ex]) => `== ${c} (a program without deliberately unsupported code)\n${ex.join('\n--\n')}`).join('\n'));
        }
      }
      if (log) fs.appendFileSync(`${log}.progress`, `done ${new Date().toISOString()} ${summary(stats)}\n`);
      if (log) fs.writeFileSync(`${log}.refused`, [...stats.supportedRefused].map(([c, ex]) => `== ${c}\n${ex.join('\n--\n')}`).join('\n'));
    },
    24 * 3600 * 1000,
  );
} else {
  test('random programs in and just outside the subset: a coded diagnostic at a range, or derivatives that agree (property)', () => {
    const stats = newStats();
    const known: string[] = [];
    fc.assert(
      fc.property(batchArb, (batch) => {
        const findings = checkBatch(
          batch.map((xs, k) => ({ fn: fuzzFunction(xs, k, RATE), xs })),
          stats,
        );
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
    return (file as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics.map(
      (d) => `${ts.flattenDiagnosticMessageText(d.messageText, ' ')} at ${source.slice(d.start, (d.start ?? 0) + 40)}`,
    );
  };

  test("a comparison whose right side is (y > (…) ? …) (long run 41001: TypeScript read '< (y >' as type arguments)", () => {
    expect(
      parseErrors(
        [
          46, 62158, 43439, 25733, 12936, 34090, 62237, 23172, 34594, 50900, 53179, 821, 31757, 62951, 23658, 58397, 58818, 9230, 51073, 41968, 39412, 750, 4623, 137, 28604, 482, 46461, 35896, 35705,
          5296, 37769, 11059, 55660, 56899, 2106, 16, 56131, 47589, 20594, 22349, 4630, 57514, 25591, 51632, 21966, 11454, 55839, 4595, 12767, 956, 23586, 36247, 43221, 26297, 6123, 12900, 30018,
          21800, 50315, 32955, 55223, 38639, 35050, 44880, 41423, 31192, 63240, 5579, 16535, 23083, 2998, 36213, 54213, 26075, 27913, 4449, 12127, 35726, 57400, 27926, 60055, 64790, 37269, 11781,
          16829, 54940, 51030, 62964, 4702, 39189, 65263, 38522, 49071, 41500, 47025, 40091, 1005, 40337, 37500, 3298, 33988, 64477, 47985, 20637, 15753, 3028, 37202, 45041, 10643, 18619, 21693,
          41904, 6007, 15111, 28289, 1473, 58167, 51349, 19790, 25708, 60569, 38376, 460, 40995, 3607, 55426, 41716, 16889, 46895, 24734, 18256, 54283, 32993, 16396, 16093, 42531, 50700, 47882, 24913,
          20098, 36038, 44765, 40565, 23741, 40251, 31209, 35823, 22164, 9493, 22054, 14061, 43807, 23281, 50118, 40527, 42602, 63031, 6033, 221, 46610, 19610, 5851, 18994, 40460, 15428, 20959, 18910,
          8308, 13296, 19988, 20844, 51633, 52316, 51118, 40077, 12238, 13031, 61721, 43013, 43354,
        ],
        28,
      ),
    ).toEqual([]);
  });

  test('a call compared with (1 > (…) ? …) (long run 41001)', () => {
    expect(
      parseErrors(
        [
          57314, 63490, 41358, 56992, 30261, 8465, 48820, 39742, 14518, 13495, 28606, 1456, 28294, 45333, 48699, 15363, 20119, 49056, 7717, 16989, 61453, 19571, 18859, 30856, 6131, 16413, 4715, 7541,
          7708, 58480, 26478, 34327, 17641, 49991, 35369, 39627, 9074, 38449, 25682, 22874, 5113, 22146, 47905, 23918, 3330, 1311, 63186, 52235, 43113, 57040, 56809, 14954, 42374, 59180, 21828, 22626,
          23352, 25182, 21996, 59660, 2203, 221, 61379, 54663, 22244, 16981, 60999, 40710, 8529, 15257, 39005, 56442, 60743, 38744, 43718, 30404, 5276, 27749, 6555, 29342, 36285, 5297, 4440, 45783,
          56738, 45251, 64747, 21069, 32025, 46561, 41395, 14244, 13008, 47793, 43613, 61928, 2333, 10885, 65055, 37699, 8251, 44546, 15371, 56294, 61410, 7823, 51475, 25659, 37835, 58862, 15919,
          8183, 45947, 54620, 37167, 41614, 32799, 7899, 60149, 30552, 44908, 56122, 8885, 43936, 4006, 53750, 19185, 58163, 34917, 20419, 23938,
        ],
        18,
      ),
    ).toEqual([]);
  });

  test('random functions (property)', () => {
    fc.assert(
      fc.property(choices, (xs) => parseErrors(xs, 0).length === 0),
      { numRuns: 1000, seed: SEED },
    );
  });
});

describe('the oracle: NaN where the function computes an infinite intermediate is the IEEE rule, counted', () => {
  // Long run 31001: grad(h)(x + Math.min(), …) and Math.hypot(…, y + Math.min(), 1) inside f.
  const ieee: [readonly number[], number][] = [
    [
      [
        33405, 1219, 19742, 472, 43788, 52812, 42070, 44964, 38757, 49330, 33488, 46301, 47206, 51666, 18543, 1829, 60059, 64507, 61775, 48046, 776, 12462, 34956, 60596, 15900, 18468, 24082, 61098,
        52265, 50229, 2078, 32027, 11905, 53403, 51973, 34063, 35658, 54684, 40757, 40386, 41116, 5729, 18852, 21856, 1717, 31024, 500, 52310, 40949, 28497, 5401, 4593, 33171, 8268, 56301, 1134,
        21549, 31393, 11894, 17520, 495,
      ],
      7,
    ],
    [[44478, 33902, 42511, 3254, 39940, 59695, 14950, 54910, 134, 32700, 37894, 52016, 54554, 54287, 61168, 61846, 60571, 25776], 9],
  ];

  test("x + Math.min() inside f: each NaN is classified 'ieee-inf' and counted", () => {
    for (const [xs, k] of ieee) {
      const stats = newStats();
      const findings = checkBatch([{ fn: fuzzFunction(xs, k, RATE), xs }], stats);
      expect(findings.map((f) => [f.kind, f.rule, f.known])).toEqual([['grad-nan', 'ieee-inf', true]]);
      expect(stats.ieee).toBe(1);
    }
  });

  test('an infinite derivative (jvp ±∞, grad NaN) is the IEEE rule: counted, not a finding', () => {
    // Long run 51001 (seed 51347): v0 >= 0.5 ? Math.sqrt(v0 - 0.5) : 0 at v0 = 0.5 exactly, where
    // v0 = (tanh(x) + hypot(x, x, 1)) / 2: forward mode gives ∞, reverse mode meets ∞ · ∂hypot/∂x = ∞ · 0.
    const xs = [
      62177, 14719, 30432, 11503, 6878, 56105, 37192, 61432, 4538, 27106, 51928, 17794, 47364, 829, 60179, 3073, 12630, 58114, 22154, 39851, 7032, 47347, 32839, 46752, 3697, 63016, 32925, 54811,
      40316, 31124, 46091, 10797, 33899, 1300, 49315, 63999, 23585, 54032, 47017, 21578, 62556, 15335, 47699, 55139, 21786, 15597, 50505, 24303, 64545, 25389, 22717, 19564, 44161, 17443, 27548, 30616,
      60703, 8174, 37772, 20822, 20876, 40325, 62825, 1250, 53728, 29507, 11612, 2788, 12118, 6238, 21889, 4806, 52118, 38043, 46305, 8418, 24292, 51725, 25915, 27773, 27695, 18053, 51046, 53388,
      59513, 1492, 24195, 11777, 13360, 35384, 39764, 15721, 44809, 32437, 41536, 44303, 42096, 15523, 3734, 58752, 40741, 43823, 21245, 59900, 34024, 13357, 42807, 41697, 1131, 42376, 29708, 9220,
      42296, 30665, 2855, 27684, 22122, 9820, 48042, 51173, 42272, 55854, 58341, 50138, 25479, 27398, 42142, 29938, 19330, 33184, 56735, 22914, 25483, 33936, 10540, 42106, 32535, 60107, 15944, 40250,
      3080, 14090, 7111, 39093, 19046, 16325, 24088, 18007, 38589, 60853, 5452, 21112, 14514, 24921, 57577, 32659, 8658, 64423, 51342, 32292, 49980, 57419, 3664, 38922, 64294, 26127, 9361, 34295,
      53316, 51291, 53251, 17745, 24156, 20861, 62928, 13620, 18978, 47227, 38534, 62131, 52825, 31334, 47040, 13872, 63220, 36231, 51040, 33655, 40719, 5046, 16092, 35666, 56013, 9697, 17192, 62754,
      479, 61216, 22858, 778, 25430, 13436, 3870, 50045, 2228, 2379, 33486,
    ];
    const stats = newStats();
    const findings = checkBatch([{ fn: fuzzFunction(xs, 5, RATE), xs }], stats);
    expect(findings.map((f) => [f.kind, f.rule, f.known])).toEqual([['jvp-grad-nan', 'ieee-inf', true]]);
    expect(findings[0].detail).toMatch(/^jvp tangent Infinity vs grad·v NaN/);
    expect(stats.ieee).toBe(1);
  });

  test('a guard at its singular point computes no infinite value in plain JavaScript: not the IEEE rule', () => {
    // Long run 31001: jvp(h, …)[1] with h = u * (v === 0 ? 0 : 1 / v), at v = 0 (fixed since).
    const xs = [
      5325, 258, 53213, 36434, 7337, 31041, 56469, 1084, 11767, 32987, 34328, 41441, 51754, 3357, 33581, 57433, 48590, 22107, 33277, 33415, 49466, 5044, 40276, 19470, 18979, 59960, 24959, 61520,
      46791, 49654, 64194, 40593, 48075, 18001, 48337, 2896, 9683, 5886, 3353, 50035, 45900, 38343, 41226, 7903, 44939, 43927, 18892, 11015, 620, 6225, 22821, 30968, 64265, 33895, 18122, 23952, 42315,
      14099, 51113, 51560, 33786, 41846, 65298, 28799, 43561, 45138, 36756, 7636, 59203, 50689, 29633, 61659, 2865, 3346, 7036, 47512, 45224, 60424, 57385, 34235, 57834, 59198, 22839, 6756, 10339,
      36880, 18194, 43584, 63261, 64427, 27739, 62204, 29576, 6730, 55654, 44313, 40251, 1964, 6197, 27513, 50022, 34364, 41815, 47786, 52000, 37485, 48560, 3789, 5038, 16885, 11176, 7440, 42457,
      42236, 36327, 31314, 6535, 39297, 20716, 41074, 60565, 18921, 49354, 3648, 37765, 53435, 58994, 50827, 1822, 4355, 48678, 35070,
    ];
    expect(computesNonFinite(fuzzFunction(xs, 4, RATE), { x: 0, y: 0, a: [0, 1, 0], b: [0, 0, -1], regular: false })).toBe(false);
  });
});

describe('the oracle: a value rounded to float32 inside f', () => {
  // Long run 41001 (seeds 41742, 41825, 42117): differences of the rounded function are a
  // staircase of f32 steps around the straight-through gradient (off by 0.02–0.4 %).
  const f32: [readonly number[], number][] = [
    [[26882, 1113, 10563, 14033, 20453, 15776, 30522, 30775, 25707, 51310, 56702, 25246, 21093, 12021, 22781, 24776, 10772, 7136, 55054, 23907, 49247, 33795, 59381, 64428, 50261], 22],
    [
      [
        40507, 46710, 9517, 58759, 64496, 1508, 19759, 43677, 31917, 28210, 11458, 25141, 33395, 37402, 747, 23763, 39856, 33160, 40644, 33880, 26721, 14752, 49856, 20134, 36762, 61205, 27080, 49709,
        41815, 1084, 25726, 57615, 24739, 569, 54578, 26875, 17897, 21798, 26124, 38978, 43963, 56111, 12952, 60313, 25010, 3056, 16969, 46582, 27941, 1036, 43473, 8013, 11700, 61485, 25442, 59503,
        23891, 8341, 37710, 40455, 46201, 45647, 48708, 59648, 14081, 44027, 44385, 10152, 43499, 50792, 12936, 1542, 26517, 19066, 32111, 18622, 50344, 22595, 44249, 15109, 57110, 41964, 48210,
        16652, 46133, 7524, 59441, 6978, 47803, 27550, 30144, 46351, 19194, 56740, 21916, 8351, 44192, 25653, 61549, 49371, 4185, 44922, 56573, 36424, 41906, 11161, 43103, 51361, 19536, 62342, 16601,
        49214, 27193, 38282, 37226, 11102, 51132, 55873, 13609, 710, 27217, 7409, 26926, 19624, 5741, 4385, 2288, 8974, 12068, 23085, 63678, 47395, 15445, 31807, 24114, 8321, 24731, 39060, 36731,
        62377, 18798, 43954, 36909, 44525, 60278, 20409, 29712, 49116, 41590, 43318, 59523, 35984, 14322, 19792, 50885, 64799, 28569, 58287, 47065, 4311, 26497, 34993, 33416, 11419, 48615, 61734,
        57615, 65481, 49690, 10169, 21226, 9027, 30466, 679, 64338, 30781, 16042, 18941, 55500, 4450, 38663, 20427, 39143, 45331, 56667, 51533, 30287, 28408, 55432, 65429, 37136, 12042, 10747, 38003,
        52847, 28737, 20621, 17390, 43062, 21274, 48018, 22209, 14911, 58774, 13674, 13730, 58726, 57152, 5439, 9627, 20665, 47771, 17144, 63508, 32231, 3958, 20180, 25749, 15148,
      ],
      12,
    ],
    [
      [
        21496, 45559, 5151, 58555, 28196, 36528, 38927, 58734, 63236, 1895, 25110, 61757, 44940, 7590, 24338, 10933, 39870, 64160, 52894, 26599, 53487, 28238, 3932, 23829, 3064, 48889, 24026, 15767,
        46725, 46982, 60094, 27326, 29145, 31608, 28775, 33199, 42661, 56519, 691, 10667, 18612, 46349, 797, 7275, 53054, 15277, 58226, 57164, 41120, 2164, 2034, 28975, 34508, 38120, 7676, 8130,
        60072, 51218, 42357, 54778, 15896, 12210, 27132, 22480, 39286, 44368, 15594, 10410, 49740, 14267, 10228, 27605, 48767, 49996, 57466, 40724, 25258, 24064, 41791, 58670, 52028, 5562, 47880,
        13501, 59102, 54362, 11535, 17604, 14223, 20343, 45354, 10552, 63646, 37159, 29792, 22439, 38758, 25496, 51213, 23574, 64249, 54257, 57064, 46437, 58257, 15449, 1249, 22287, 16207, 32726,
        13913, 1933, 11365, 27056, 4312, 13534, 12695, 39945, 62075, 35248, 3112, 55011, 31777, 37235, 37039, 35056, 8846, 42175, 25211, 58382, 41113, 40289, 17225, 18003, 17473, 15664, 42494, 4039,
        14014, 36197, 53828, 36167, 17677, 42191, 38623, 19830, 5692, 2832, 52630, 4837, 59049, 45426, 39367, 41991, 62375, 1811, 49022, 34883, 53323, 14071, 7322, 22612, 41586, 53352, 19280, 59513,
        40218, 60048, 59711, 28782, 3023, 12899, 29783, 57847, 41738, 46864, 21919, 39264, 7502, 33409, 49230, 20871, 60519, 45461, 42002, 44679, 13284, 11594, 37042, 60499, 15381, 49987, 8135, 37863,
        20209, 9880, 54021,
      ],
      22,
    ],
  ];

  test('finite differences are compared within the f32 staircase: no grad-vs-fd', () => {
    for (const [xs, k] of f32) {
      const findings = checkBatch([{ fn: fuzzFunction(xs, k, RATE), xs }], newStats());
      expect(findings.filter((f) => f.kind === 'grad-vs-fd').map((f) => f.detail)).toEqual([]);
    }
  });
});
