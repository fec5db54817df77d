// The corpus of issue 19: numerical routines written the way TypeScript developers write them.
// Each program is compiled through tsad with a call site for valueAndGrad over every
// differentiable argument and one for jvp. A program that builds must agree with the same
// source compiled by plain TypeScript (its primal, bit for bit unless specs.ts says otherwise,
// and what it leaves in its arguments), its gradient with central differences and its jvp with
// ⟨gradient, tangent⟩. A program that is refused must get exactly the diagnostics refusals.ts
// lists for it: that table is the burn-down list of issue 19, and this test fails as soon as a
// program builds or is refused differently, so the table is updated with the compiler.
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import { compile, workDir } from '../plugin/harness';
import { TransformResult } from '../../transformer/plugin/transform';
import { Value, checkPartial, closeTo, copy, leaves, mapLeaves, rng, sameBits, seeded } from './numeric';
import { SPECS, Spec } from './specs';
import { REFUSALS } from './refusals';

const programsDir = path.join(__dirname, 'programs');
const programs = fs
  .readdirSync(programsDir)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.slice(0, -3))
  .sort();

type Fn = (...args: Value[]) => any;
let counter = 0;

function requireText(js: string, tag: string): Record<string, any> {
  const file = path.join(workDir(), `corpus-${tag}-${counter++}.js`);
  fs.writeFileSync(file, js);
  return require(file);
}

/** The program as plain TypeScript compiles it: no plugin, the markers are no-ops at run time. */
function plain(source: string, name: string): Record<string, any> {
  const js = ts.transpileModule(source, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, strict: true } }).outputText;
  return requireText(js, `${name}-plain`);
}

function lookup(m: Record<string, any>, fn: string): Fn {
  const [head, ...rest] = fn.split('.');
  let f = m[head];
  for (const k of rest) f = f[k];
  if (typeof f !== 'function') throw new Error(`the program does not export '${fn}'`);
  return f;
}

/** The call sites the harness adds: valueAndGrad over every wrt argument, and jvp. */
function epilogue(spec: Spec, arity: number): string {
  const args = Array.from({ length: arity }, (_, i) => `a${i}: Parameters<typeof ${spec.fn}>[${i}]`);
  const tangents = Array.from({ length: arity }, (_, i) => (spec.wrt.includes(i) ? `t${i}: Parameters<typeof ${spec.fn}>[${i}]` : `t${i}: any`));
  const primals = Array.from({ length: arity }, (_, i) => `a${i}`).join(', ');
  const dirs = Array.from({ length: arity }, (_, i) => `t${i}`).join(', ');
  return `
import { valueAndGrad as corpusValueAndGrad, jvp as corpusJvp } from 'tsad';
export const corpusGradient = corpusValueAndGrad(${spec.fn}, { wrt: [${spec.wrt.join(', ')}] });
export const corpusTangent = (${[...args, ...tangents].join(', ')}) => corpusJvp(${spec.fn}, [${primals}], [${dirs}]);
`;
}

function constantTangent(a: Value): Value {
  if (typeof a === 'number' || a instanceof Float64Array || a instanceof Float32Array || Array.isArray(a)) return mapLeaves(a, () => 0);
  return undefined;
}

function codeOf(d: ts.Diagnostic): string {
  return String(typeof d.messageText === 'string' ? d.messageText : d.messageText.messageText).split(':')[0];
}

interface Outcome {
  ok: boolean;
  value?: any;
  error?: string;
}

/** Runs thunk with console.log captured: programs keep their debugging lines. */
function attempt(thunk: () => any): Outcome & { logs: string[] } {
  const logs: string[] = [];
  const spy = jest.spyOn(console, 'log').mockImplementation((...a: unknown[]) => {
    logs.push(a.map(String).join(' '));
  });
  try {
    return { ok: true, value: thunk(), logs };
  } catch (e) {
    return { ok: false, error: `${(e as Error).name}: ${(e as Error).message}`, logs };
  } finally {
    spy.mockRestore();
  }
}

/** Runs f with console.log silenced (the many calls finite differences make). */
function quietly<T>(f: () => T): T {
  const saved = console.log;
  console.log = () => undefined;
  try {
    return f();
  } finally {
    console.log = saved;
  }
}

/** Inputs of a spec: two seeds per size. */
function inputsOf(spec: Spec): { label: string; args: Value[] }[] {
  return spec.sizes.flatMap((size) => [1, 2].map((seed) => ({ label: `size ${size}, seed ${seed}`, args: spec.inputs(rng(1000 * size + seed + spec.program.length), size) })));
}

test('every program has a spec, and every spec a program', () => {
  expect(Object.keys(SPECS).sort()).toEqual(programs);
  for (const p of programs) expect(SPECS[p].program).toBe(p);
});

test('every entry of the refusal table names a program', () => {
  expect(Object.keys(REFUSALS).filter((p) => !programs.includes(p))).toEqual([]);
});

describe.each(programs)('%s', (name) => {
  const spec = SPECS[name];
  const source = fs.readFileSync(path.join(programsDir, `${name}.ts`), 'utf8');
  let reference: Fn;
  let built: TransformResult | undefined;
  let crash: string | undefined;

  beforeAll(() => {
    reference = lookup(plain(source, name), spec.fn);
    const full = source + epilogue(spec, reference.length);
    try {
      built = compile(full, { throwOnError: false });
    } catch (e) {
      crash = String((e as Error).stack);
    }
  });

  test('plain JavaScript runs on its inputs (the spec is valid for the day it builds)', () => {
    for (const { label, args } of inputsOf(spec)) {
      const r = attempt(() => reference(...args.map(copy)));
      if (r.ok) {
        expect([label, typeof r.value]).toEqual([label, 'number']);
        expect([label, Number.isFinite(r.value)]).toEqual([label, true]);
      } else {
        expect([label, spec.throws ?? []]).toEqual([label, expect.arrayContaining([r.error])]);
      }
    }
  });

  test('builds, or is refused exactly as refusals.ts says', () => {
    expect(crash).toBeUndefined();
    expect(built!.messages.slice(0, built!.typeErrors.length)).toEqual([]);
    const codes = [...new Set(built!.diagnostics.map(codeOf))].sort();
    const expected = REFUSALS[name];
    if (codes.length === 0 && expected) {
      throw new Error(`${name} builds now: remove it from test/corpus/refusals.ts (and update test/corpus/README.md)`);
    }
    if (codes.length > 0) {
      const got = built!.messages.join('\n');
      if (!expected) throw new Error(`${name} is refused with ${codes.join(', ')}: add it to test/corpus/refusals.ts or fix it\n${got}`);
      if (JSON.stringify(codes) !== JSON.stringify([...expected.codes].sort())) {
        throw new Error(`${name} is refused with ${codes.join(', ')}, the table says ${expected.codes.join(', ')}: update test/corpus/refusals.ts\n${got}`);
      }
      // Refusals are the user's diagnostics: coded TSAD1xxx, at a place in the program itself.
      for (const d of built!.diagnostics) {
        expect(codeOf(d)).toMatch(/^TSAD1\d{3}$/);
        expect(d.file).toBeDefined();
        expect(d.start! >= 0 && d.start! + (d.length ?? 0) <= source.length).toBe(true);
      }
    }
  });

  test('a program that builds agrees with plain JavaScript and with finite differences', () => {
    if (crash || !built || built.diagnostics.length > 0 || built.typeErrors.length > 0) return;
    const compiled = requireText(built.outputText, `${name}-tsad`);
    const gradient: Fn = compiled.corpusGradient;
    const tangent: Fn = compiled.corpusTangent;
    for (const { label, args } of inputsOf(spec)) {
      const at = `${name} at ${label}`;
      // (1) the primal, and what the call leaves in its arguments, as plain JavaScript has them.
      const plainArgs = args.map(copy);
      const expected = attempt(() => reference(...plainArgs));
      const ourArgs = args.map(copy);
      const got = attempt(() => gradient(...ourArgs));
      const next = seeded(7 + counter);
      // Arguments not differentiated get a zero tangent (constants such as flags: undefined).
      const dirs = args.map((a, i) => (spec.wrt.includes(i) ? mapLeaves(a, () => 2 * next() - 1) : constantTangent(a)));
      if (!expected.ok) {
        // The derivatives throw what the program throws (issue 19, item 4).
        expect([at, got.error]).toEqual([at, expected.error]);
        expect([at, 'jvp', attempt(() => tangent(...args.map(copy), ...dirs)).error]).toEqual([at, 'jvp', expected.error]);
        continue;
      }
      expect([at, got.error]).toEqual([at, undefined]);
      const [value, grads] = got.value as [number, Value];
      // The marked function itself, as the plugin emits it, is the program unchanged.
      const direct = attempt(() => lookup(compiled, spec.fn)(...args.map(copy)));
      expect([at, 'the function as emitted', direct.ok && sameBits(direct.value, expected.value)]).toEqual([at, 'the function as emitted', undefined]);
      const primalDiff = spec.rounding ? closeTo(value, expected.value, spec.rounding.rel) : sameBits(value, expected.value);
      expect([at, 'primal', primalDiff]).toEqual([at, 'primal', undefined]);
      expect([at, 'arguments after the call', sameBits(ourArgs, plainArgs)]).toEqual([at, 'arguments after the call', undefined]);
      // console.log runs once, in the primal sweep, with the primal values (issue 19, item 4).
      expect([at, 'console.log', got.logs]).toEqual([at, 'console.log', expected.logs]);
      // (2) the gradient, one partial per leaf of every differentiated argument.
      const perArg: Value[] = spec.wrt.length === 1 ? [grads] : (grads as Value[]);
      spec.wrt.forEach((arg, j) => {
        const g = leaves(perArg[j]);
        expect([at, `gradient ${arg} has the argument's leaves`, g.length]).toEqual([at, `gradient ${arg} has the argument's leaves`, leaves(args[arg]).length]);
        g.forEach((gk, k) => {
          const problem = quietly(() => checkPartial(reference, args, arg, k, gk));
          if (problem) throw new Error(`${at}: ${problem}`);
        });
      });
      // (3) jvp along a seeded direction: its primal is the same, its tangent ⟨gradient, v⟩.
      const jvpArgs = args.map(copy);
      const jr = attempt(() => tangent(...jvpArgs, ...dirs));
      expect([at, 'jvp', jr.error]).toEqual([at, 'jvp', undefined]);
      expect([at, 'jvp console.log', jr.logs]).toEqual([at, 'jvp console.log', expected.logs]);
      const [jValue, jTangent] = jr.value as [number, number];
      const jvpPrimal = spec.rounding ? closeTo(jValue, expected.value, spec.rounding.rel) : sameBits(jValue, expected.value);
      expect([at, 'jvp primal', jvpPrimal]).toEqual([at, 'jvp primal', undefined]);
      let dot = 0;
      let size = 0;
      spec.wrt.forEach((arg, j) => {
        const g = leaves(perArg[j]);
        const v = leaves(dirs[arg]);
        g.forEach((gk, k) => {
          dot += gk * v[k];
          size += Math.abs(gk * v[k]);
        });
      });
      expect([at, 'jvp tangent', Math.abs(jTangent - dot) <= 1e-9 * Math.max(size, 1e-300) + 1e-300]).toEqual([at, 'jvp tangent', true]);
    }
  });
});
