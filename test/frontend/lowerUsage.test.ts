// Lowering keeps Linear A's usage discipline as it builds (issue 20 item 1): a variable nothing
// reads gets its drop when the block that binds it is finished (ir/usageBuilder.ts), so no
// whole-def repair (restoreLinearity) runs after lowering. These tests lower real TypeScript
// and take the def as it comes: restoreLinearity returns a def unchanged (the same object)
// exactly when it needs nothing; values are checked against the same source run as JavaScript.
import * as ts from 'typescript';
import * as linearity from '../../transformer/ir/linearity';
import { ModuleCompiler } from '../../transformer/compile';
import { markedFunctions } from '../../transformer/stages';
import { useTypeScript } from '../../transformer/frontend/markers';
import { nodeHost, runtimeEntry } from '../../transformer/plugin/host';
import { annotateTypes, typeErrors } from '../../transformer/language/check';
import { evalFn } from '../../transformer/language/interp';
import { findDef } from '../../transformer/ir/program';
import { printDef } from '../../transformer/ir/print';

function inMemory(text: string) {
  const options: ts.CompilerOptions = { target: ts.ScriptTarget.ES2022, strict: true, skipLibCheck: true, types: [], paths: { tsad: [runtimeEntry()] } };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, onError, create) => (name === '/page/input.ts' ? ts.createSourceFile(name, text, version, true) : read(name, version, onError, create));
  const program = ts.createProgram(['/page/input.ts'], options, host);
  return { checker: program.getTypeChecker(), sf: program.getSourceFile('/page/input.ts')! };
}

/** The lowered def of the file's first marked function, and how often lowering called the repair. */
function lowered(source: string) {
  useTypeScript(ts);
  const { checker, sf } = inMemory(source);
  const [decl] = markedFunctions(ts, sf, checker);
  // Without the re-check, which asks restoreLinearity whether the def needs anything.
  const repair = jest.spyOn(linearity, 'restoreLinearity');
  try {
    const { program, fn } = new ModuleCompiler({ ...nodeHost(ts), recheck: false }, checker, ts.factory).lower(decl);
    return { program: annotateTypes(program), name: fn.name, repairs: repair.mock.calls.length };
  } finally {
    repair.mockRestore();
  }
}

function expectAsBuilt(source: string) {
  const r = lowered(source);
  expect(r.repairs).toBe(0);
  expect(typeErrors(r.program)).toEqual([]);
  const def = findDef(r.program, r.name);
  // Unchanged: every variable is read (a non-linear one may be read many times).
  expect(linearity.restoreLinearity(def) === def ? '' : printDef(linearity.restoreLinearity(def))).toBe('');
  return { ...r, def };
}

test('a parameter nothing reads gets its drop, a value read twice none, without a repair after lowering', () => {
  const { program, name } = expectAsBuilt(`
/** @differentiable */
export function f(x: number, unused: number, flag: boolean): number {
  const s = x * x;
  return Math.sin(s) + s;
}
`);
  const f = (x: number) => Math.sin(x * x) + x * x;
  for (const x of [0.3, -1.7]) expect(evalFn(program, name, [x, 5, true]).nl[0]).toBeCloseTo(f(x), 14);
});

test('a loop counter, an arm that ignores what the other reads and a callback index nothing reads are settled where they are bound', () => {
  const { program, name } = expectAsBuilt(`
/** @differentiable */
export function g(x: number, xs: number[]): number {
  let acc = 0;
  for (let i = 0; i < 3; i++) acc = acc * x + 1;
  const y = x > 0 ? acc * acc : 2;
  const doubled = xs.map((v, i) => 2 * v);
  let t = 0;
  for (const d of doubled) t += d * y;
  return t;
}
`);
  const g = (x: number, xs: number[]) => {
    let acc = 0;
    for (let i = 0; i < 3; i++) acc = acc * x + 1;
    const y = x > 0 ? acc * acc : 2;
    return xs.map((v) => 2 * v).reduce((t, d) => t + d * y, 0);
  };
  for (const x of [0.7, -0.4]) expect(evalFn(program, name, [x, [1, -2, 0.5]]).nl[0]).toBeCloseTo(g(x, [1, -2, 0.5]), 12);
});

test('a loop without effect is discarded, and what only its body read gets its drop (fuzz counterexample)', () => {
  // Before: the discarded bodies' reads of `a`, `b` and `xs` (also from inside a branch, whose body
  // closing renamed them) still counted, so none got its drop.
  const { program, name } = expectAsBuilt(`
import { sum } from 'tsad';
/** @differentiable */
export function f(x: number, a: number[], b: Float64Array, xs: number[]): number {
  for (let i = 0; i < b.length; i += 1) {
    const v = sum(a);
  }
  let k = 0;
  while (k > 1) {
    const w = xs[0] * 2;
  }
  for (const e of xs) {
    const u = e + x;
  }
  for (let i = 0; i < a.length; i += 1) {
    if (x > 0) {
    } else if (b[1] >= 1) {
      let w = 0;
      do {
        w++;
      } while (w < 2);
    }
  }
  return x * 3;
}
`);
  expect(evalFn(program, name, [1.5, [1, 2], [4, 5], [7]]).nl[0]).toBe(4.5);
});
