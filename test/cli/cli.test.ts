// The command line, run in-process.
import { main } from '../../transformer/plugin/cli';
import * as path from 'path';
import { tempDir } from '../temp';
import { parseProgram } from '../../transformer/language/parse';
import { checkProgram } from '../../transformer/language/check';
import { evalFn } from '../../transformer/language/interp';

function tsad(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
const ex = (f: string) => path.join(__dirname, '../../examples/ir', f);

test('tsad ir grad prints the matvec gradient 77 and 382', () => {
  const r = tsad('ir', 'grad', ex('matvec.lina'), '--fn', 'specific', '--at', '2,3');
  expect(r).toEqual({ code: 0, out: 'grad specific(2, 3) = (77, 382)', err: '' });
});

test('--work reports the cost of each part', () => {
  const r = tsad('ir', 'grad', ex('prodsin.lina'), '--fn', 'f', '--at', '1,2', '--work');
  expect(r.out).toContain('grad f(1, 2) = (2.5403023058681398, 1)');
  expect(r.out).toMatch(/work f: 3, f\.fwd: \d+, f\.lin: \d+, f\.bwd: 4/);
});

test("by default the plugin's pipeline: array reads accumulate in place, W(grad)/W(f) flat from m = 8 to 64 (with --raw it grows)", () => {
  const ratio = (m: number, ...extra: string[]) => {
    const r = tsad('ir', 'grad', path.join(__dirname, 'fixtures', 'reads.lina'), '--fn', 'f', '--at', `0.3,${m}`, '--work', ...extra);
    const w = /work f: (\d+),.* f\.grad: (\d+)/.exec(r.out)!;
    return Number(w[2]) / Number(w[1]);
  };
  const [small, large] = [ratio(8), ratio(64)];
  expect(large).toBeLessThan(3);
  expect(large).toBeLessThan(small * 1.05);
  // The bare passes: one ladd of a one-hot per read, O(m) each.
  expect(ratio(64, '--raw')).toBeGreaterThan(2 * ratio(8, '--raw'));
});

test('--checkpoint: the same gradient, a smaller peak tape with --work; a bad policy is a usage error', () => {
  const at = ['--fn', 'sq', '--at', '1,64', '--work'];
  const store = tsad('ir', 'grad', ex('loop.lina'), ...at);
  const sqrt = tsad('ir', 'grad', ex('loop.lina'), ...at, '--checkpoint', 'sqrt');
  expect(store.out).toContain('grad sq(1, 64) = (');
  expect(sqrt.out.split('\n')[0]).toBe(store.out.split('\n')[0]);
  expect(store.out).toContain('peak tape sq.grad: 64 values');
  // 8 snapshots of the value and one segment of 8.
  expect(sqrt.out).toContain('peak tape sq.grad: 16 values');
  expect(tsad('ir', 'linearize', ex('loop.lina'), '--fn', 'sq', '--checkpoint', 'every:4').out).toContain('remat(');
  const bad = tsad('ir', 'grad', ex('loop.lina'), '--fn', 'sq', '--checkpoint', 'every:0');
  expect(bad.code).toBe(2);
  expect(bad.err).toMatch(/--checkpoint takes store, sqrt, every:K or levels:L/);
});

test('check, eval, jvp, linearize, transpose', () => {
  expect(tsad('ir', 'check', ex('matvec.lina'))).toEqual({ code: 0, out: 'ok: 2 definitions', err: '' });
  expect(tsad('ir', 'eval', ex('matvec.lina'), '--fn', 'specific', '--at', '2,3', '--work').out).toBe('specific(2, 3) = (650)\nwork specific: 7');
  expect(tsad('ir', 'jvp', ex('prodsin.lina'), '--fn', 'f', '--at', '1,2', '--dir', '0,1').out).toContain('tangent = 1');
  expect(tsad('ir', 'linearize', ex('squaring.lina'), '--fn', 'f', '--recompute').out).toMatch(/type f\.tape = <real>/);
  expect(tsad('ir', 'transpose', ex('transpose.lina'), '--fn', 'rot').out).toMatch(/^def rot\.T/);
});

test('bad input: one line of error, exit code 1, no stack trace', () => {
  for (const argv of [
    ['ir', 'grad', 'missing.lina', '--fn', 'f'],
    ['ir', 'grad', ex('matvec.lina'), '--fn', 'nope', '--at', '1,2'],
    ['ir', 'check', path.dirname(ex('matvec.lina'))],
    ['ir', 'check', path.join(__dirname, '../../package.json')],
    ['ir', 'check', path.join(__dirname, '../../examples/app/src/oscillator.ts')],
  ]) {
    const r = tsad(...argv);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^tsad: [^\n]+$/);
  }
  expect(tsad('ir', 'check', 'missing.lina').err).toBe('tsad: cannot read missing.lina: no such file');
  expect(tsad('ir', 'check', 'a.ts').err).toMatch(/a\.ts is TypeScript; tsad ir reads Linear A programs \(\.lina\); for a marked TypeScript function use 'tsad inspect a\.ts'/);
});

test('a bad command line exits 2 with a usage hint, never a stack trace', () => {
  for (const argv of [
    [],
    ['bogus'],
    ['--bogus'],
    ['ir'],
    ['ir', 'bogus', ex('matvec.lina')],
    ['ir', 'grad', ex('matvec.lina'), '--fn', 'specific', '--bogus'],
    ['ir', 'grad', ex('matvec.lina'), '--fn', 'specific', '--at=2,3', '--dir', '1,0'],
    ['ir', 'check', ex('matvec.lina'), '--fn', 'specific'],
    ['ir', 'grad', ex('matvec.lina'), '--fn'],
    ['ir', 'grad', ex('matvec.lina'), '--fn', 'specific', '--fn', 'specific'],
    ['ir', 'grad', ex('matvec.lina'), '--fn', 'specific', '--work=1', '--at', '2,3'],
    ['ir', 'grad', ex('matvec.lina')],
    ['ir', 'grad', '--fn', 'specific'],
    ['ir', 'grad', ex('matvec.lina'), ex('matvec.lina'), '--fn', 'specific'],
    ['ir', 'grad', ex('matvec.lina'), '--fn', 'specific', '--at', '1'],
    ['ir', 'grad', ex('matvec.lina'), '--fn', 'specific', '--at', '1,x'],
    ['inspect'],
    ['inspect', 'a.ts', '--wrt', 'x'],
    ['inspect', 'a.ts', '--stage', 'nope'],
    ['--version', 'extra'],
  ]) {
    const r = tsad(...argv);
    expect({ argv, code: r.code }).toEqual({ argv, code: 2 });
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^tsad: .*\n(usage:|  tsad)/);
    expect(r.err).toMatch(/--help/);
    expect(r.err).not.toMatch(/\n\s+at |internal/);
  }
  expect(tsad('bogus').err).toMatch(/unknown command 'bogus'/);
  expect(tsad('ir', 'bogus').err).toMatch(/unknown command 'ir bogus'\nusage:\n  tsad ir check FILE/);
  const flag = tsad('ir', 'grad', ex('matvec.lina'), '--fn', 'specific', '--bogus');
  expect(flag.err).toBe(
    "tsad: unknown option '--bogus' for tsad ir grad\n" +
      'usage: tsad ir grad FILE --fn NAME [--at X,...] [--work] [--recompute] [--raw] [--checkpoint POLICY]\n' +
      "run 'tsad ir grad --help' for details",
  );
  // Values go in one comma-separated argument; a second number is the likely mistake.
  expect(tsad('ir', 'grad', ex('matvec.lina'), '--fn', 'specific', '--at', '2', '3').err).toMatch(/unexpected argument '3' \(values are separated by commas/);
});

test('--at takes NaN, Infinity and -Infinity; anything else that is not a number names --at', () => {
  expect(tsad('ir', 'grad', ex('prodsin.lina'), '--fn', 'f', '--at', 'NaN,Infinity')).toEqual({ code: 0, out: 'grad f(NaN, Infinity) = (NaN, NaN)', err: '' });
  expect(tsad('ir', 'eval', ex('prodsin.lina'), '--fn', 'f', '--at', '-Infinity,2').out).toMatch(/^f\(-Infinity, 2\) = \(/);
  expect(tsad('ir', 'jvp', ex('prodsin.lina'), '--fn', 'f', '--at', '0,Infinity', '--dir', '1,NaN').code).toBe(0);
  // A leading minus is a value, not a flag; `--at=` works too.
  expect(tsad('ir', 'grad', ex('matvec.lina'), '--fn', 'specific', '--at', '-2,-3').out).toBe('grad specific(-2, -3) = (-77, -382)');
  expect(tsad('ir', 'grad', ex('matvec.lina'), '--fn', 'specific', '--at=2,3').out).toBe('grad specific(2, 3) = (77, 382)');
  for (const bad of ['1,nan', '1,inf', '1,', 'x,2', '1;2']) {
    const r = tsad('ir', 'grad', ex('matvec.lina'), '--fn', 'specific', '--at', bad);
    expect(r.code).toBe(2);
    expect(r.err.split('\n')[0]).toMatch(/^tsad: --at: '.*' is not a number/);
  }
  expect(tsad('ir', 'grad', ex('matvec.lina'), '--fn', 'specific', '--at', '1,2,3').err).toMatch(/^tsad: --at: expected 2 values, got 3/);
});

test('ir jvp at a point needs --dir: no silent zero tangent', () => {
  const jvp = (...extra: string[]) => tsad('ir', 'jvp', ex('prodsin.lina'), '--fn', 'f', ...extra);
  const noDir = jvp('--at', '1,2');
  expect(noDir.code).toBe(2);
  expect(noDir.out).toBe('');
  expect(noDir.err).toMatch(/^tsad: --at needs --dir/);
  expect(jvp('--dir', '1,0').err).toMatch(/^tsad: --dir needs --at/);
  expect(jvp('--work').err).toMatch(/^tsad: --work needs --at/);
  expect(tsad('ir', 'grad', ex('prodsin.lina'), '--fn', 'f', '--work').err).toMatch(/^tsad: --work needs --at/);
  expect(jvp().out).toMatch(/^def f\.jvp/m);
  // eval of a function with linear parameters: their values are not made up either.
  expect(tsad('ir', 'eval', ex('transpose.lina'), '--fn', 'rot', '--at', '0,1').err).toMatch(/^tsad: rot has linear parameters: give their values with --dir/);
  expect(tsad('ir', 'eval', ex('transpose.lina'), '--fn', 'rot', '--at', '0,1', '--dir', '2,3').out).toBe('rot(0, 1) = (; <-3, 2>)');
});

describe('help and version', () => {
  const irCommands = ['check', 'eval', 'jvp', 'linearize', 'transpose', 'grad'];

  test('tsad --version prints the version in package.json', () => {
    const { version } = require('../../package.json');
    expect(tsad('--version')).toEqual({ code: 0, out: version, err: '' });
  });

  test('tsad -h, --help and help list every command', () => {
    for (const h of ['-h', '--help', 'help']) {
      const r = tsad(h);
      expect(r.code).toBe(0);
      expect(r.err).toBe('');
      expect(r.out).toMatch(/^usage: tsad <command>/m);
      for (const c of ['inspect', ...irCommands.map((c) => `ir ${c}`)]) expect(r.out).toMatch(new RegExp(`^  ${c} `, 'm'));
      expect(r.out).toMatch(/--version/);
    }
  });

  test('each command has its own help, with every option it accepts', () => {
    for (const h of ['-h', '--help']) {
      const ir = tsad('ir', h);
      expect(ir.code).toBe(0);
      for (const c of irCommands) expect(ir.out).toMatch(new RegExp(`^  tsad ir ${c} FILE`, 'm'));
      for (const c of irCommands) {
        const r = tsad('ir', c, h);
        expect(r).toEqual({ code: 0, out: expect.stringMatching(new RegExp(`^usage: tsad ir ${c} FILE`)), err: '' });
        expect(r.out).toMatch(/^options:$/m);
        expect(r.out).toMatch(/^  -h, --help +show this help$/m);
        expect(
          r.out
            .split('\n')
            .slice(1)
            .every((l) => l.length <= 80),
        ).toBe(true);
      }
      const inspect = tsad('inspect', h);
      expect(inspect.code).toBe(0);
      expect(inspect.out).toMatch(/^usage: tsad inspect FILE\.ts \[--fn NAME\] \[--stage linear-a\|passes\|jvp\|linearize\|transpose\|grad\|emit\|wgsl\|all\]/);
    }
    // Help wins over the rest of the line, even over a flag it would reject.
    expect(tsad('ir', 'grad', ex('matvec.lina'), '--bogus', '--help').code).toBe(0);
    expect(tsad('ir', 'jvp', '-h').out).toMatch(/^  --dir V,\.\.\. /m);
    expect(tsad('ir', 'grad', '-h').out).toMatch(/^  --recompute /m);
    expect(tsad('ir', 'grad', '-h').out).not.toMatch(/--dir/);
    expect(tsad('ir', 'check', '-h').out).not.toMatch(/--fn/);
  });
});

test('internal errors are one line that says so, never a stack trace', () => {
  const err: string[] = [];
  const code = main(['--version'], {
    out: () => {
      throw new TypeError("Cannot read properties of undefined (reading 'kind')");
    },
    err: (s) => err.push(s),
  });
  expect(code).toBe(70);
  expect(err).toEqual(["tsad: internal: Cannot read properties of undefined (reading 'kind') (this is a bug in tsad)"]);
});

describe('ir linearize and ir transpose print every def their output calls', () => {
  const fixture = (f: string) => path.join(__dirname, 'fixtures', f);
  const reparse = (text: string) => {
    const p = parseProgram(text, 'printed.lina');
    checkProgram(p);
    return p;
  };

  // --raw: the plugin's pipeline (the default) inlines g into f.
  test.each([[['--raw']], [['--raw', '--recompute']], [['--raw', '--simplify']]])('linearize %j: g.fwd and g.lin come along, and the text re-parses and checks', (extra) => {
    const r = tsad('ir', 'linearize', fixture('calls.lina'), '--fn', 'f', ...extra);
    expect(r.code).toBe(0);
    const p = reparse(r.out);
    expect(p.defs.map((d) => d.name).sort()).toEqual(['f.fwd', 'f.lin', 'g.fwd', 'g.lin']);
    // The printed pieces still compute the JVP: f(x, y) = sin(x)·y, df = cos(x)·y·dx + sin(x)·dy.
    const [x, y, dx, dy] = [0.7, 1.3, 0.2, -0.5];
    const fwd = evalFn(p, 'f.fwd', [x, y]);
    expect(fwd.nl[0]).toBeCloseTo(Math.sin(x) * y, 12);
    expect(evalFn(p, 'f.lin', [fwd.nl[1]], [dx, dy]).lin[0]).toBeCloseTo(Math.cos(x) * y * dx + Math.sin(x) * dy, 12);
  });

  test('transpose: h.T comes along, and the text re-parses, checks and is the adjoint', () => {
    const r = tsad('ir', 'transpose', fixture('lincalls.lina'), '--fn', 'k', '--raw');
    expect(r.code).toBe(0);
    const p = reparse(r.out);
    expect(p.defs.map((d) => d.name)).toEqual(['h.T', 'k.T']);
    // Dot-product test: <k(c; v, w), b> = <(v, w), k.T(c; b)>.
    const [c, v, w, b] = [3, 2, 5, -1.5];
    const kt = evalFn(p, 'k.T', [c], [b]).lin as number[];
    expect(kt[0] * v + kt[1] * w).toBeCloseTo((c * v + w) * b, 12);
  });

  test('the examples print self-contained programs too', () => {
    reparse(tsad('ir', 'linearize', ex('squaring.lina'), '--fn', 'f', '--recompute').out);
    reparse(tsad('ir', 'linearize', ex('matvec.lina'), '--fn', 'specific').out);
    reparse(tsad('ir', 'transpose', ex('transpose.lina'), '--fn', 'rot').out);
  });
});

describe('tsad inspect', () => {
  const app = path.join(__dirname, '../../examples/app/src/oscillator.ts');

  test('prints every stage of every marked function', () => {
    const r = tsad('inspect', app);
    expect(r.code).toBe(0);
    for (const fn of ['model', 'residual2', 'Fit_loss']) {
      for (const stage of ['linear-a', 'passes', 'jvp', 'linearize', 'transpose', 'grad', 'emit']) expect(r.out).toContain(`// ---- ${fn}: ${stage} ----`);
    }
  });

  test('one function, one stage: the Linear A it lowers to', () => {
    const r = tsad('inspect', app, '--fn', 'model', '--stage', 'linear-a');
    expect(r.err).toBe('');
    expect(r.out).toBe(`def model(p: <real, real, real, real>, t: real ;) -> (real ;) {
  let <p_amplitude, p_damping, p_omega, p_phase> = p
  let neg = neg(p_damping)
  let mul = mul(neg, t)
  let exp = exp(mul)
  let mul_1 = mul(p_amplitude, exp)
  let mul_2 = mul(p_omega, t)
  let add = add(mul_2, p_phase)
  let cos = cos(add)
  let mul_3 = mul(mul_1, cos)
  (mul_3 ;)
}`);
  });

  test('the stages are the passes: jvp, linearize (tape), transpose (bars), emit (TypeScript)', () => {
    const stage = (s: string) => tsad('inspect', app, '--fn', 'Fit.loss', '--stage', s).out;
    // Calls are inlined before differentiation: one JVP, with no model.jvp or residual2.jvp.
    expect(stage('jvp')).toMatch(/^def Fit_loss\.jvp\(p: <real, real, real, real>, t: array<real>, x: array<real>/m);
    expect(stage('jvp')).not.toMatch(/def (model|residual2)\.jvp/);
    expect(stage('linearize')).toMatch(/^type Fit_loss\.tape = </m);
    expect(stage('linearize')).toMatch(/^def Fit_loss\.lin\(tape: Fit_loss\.tape ;/m);
    expect(stage('transpose')).toMatch(/^def Fit_loss\.bwd\(/m);
    expect(stage('grad')).toMatch(/^def Fit_loss\.vg\(p: <real, real, real, real>, t: array<real>, x: /m);
    expect(stage('grad')).not.toMatch(/residual2|model|tape/);
    const emitted = stage('emit');
    expect(emitted).toMatch(/^function Fit_loss\$grad_0\(p_amplitude, p_damping, p_omega, p_phase, t, x\) \{/m);
    expect(emitted).toMatch(/^function Fit_loss_grad\(p, t, x\) \{/m);
    expect(emitted).toContain('_bar');
  });

  test('a function that runs taped: the note TSAD2001 says so and why, and inspect succeeds', () => {
    const dir = tempDir('tsad-inspect-');
    const file = path.join(dir, 'rec.ts');
    require('fs').writeFileSync(
      file,
      "import { grad } from 'tsad';\n/** @differentiable */\nexport function f(x: number, n: number): number {\n  return n === 0 ? x : Math.sin(f(x, n - 1));\n}\nexport const df = grad(f);\n",
    );
    const r = tsad('inspect', file);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(r.out).toMatch(/rec\.ts:3:17 - note TSAD2001: 'f' runs taped: 'f' \(line 3\) calls itself directly/);
  });

  test('wgsl: the device program of gpu(grad(f)), or why it is not on the GPU', () => {
    const dir = tempDir('tsad-inspect-');
    const file = path.join(dir, 'sq.ts');
    require('fs').writeFileSync(file, "import { sum } from 'tsad';\n/** @differentiable */\nexport function sq(x: Float32Array): number {\n  return sum(x.map((v) => v * v));\n}\n");
    const r = tsad('inspect', file, '--stage', 'wgsl');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^\/\/ gpu\(grad\(sq\)\): \d+ kernels/);
    expect(r.out).toContain('@compute @workgroup_size(64)');
    expect(r.out).toMatch(/^\/\/   0: kernel 0 over h0 elements/m);
    // An object parameter of numbers is on the GPU; a string parameter is not.
    expect(tsad('inspect', app, '--fn', 'model', '--stage', 'wgsl').out).toMatch(/^\/\/ gpu\(grad\(model\)\): \d+ kernels/);
    const unit = path.join(dir, 'unit.ts');
    require('fs').writeFileSync(unit, "/** @differentiable */\nexport function scaled(x: Float64Array, unit: string): number {\n  return unit === 'cm' ? x[0] / 100 : x[0];\n}\n");
    expect(tsad('inspect', unit, '--stage', 'wgsl').out).toMatch(/^\/\/ TSAD1011: gpu\(grad\(scaled\)\) is not on the GPU yet: .*parameter 'unit'/);
  });

  test('diagnostics and usage errors', () => {
    const dir = tempDir('tsad-inspect-');
    const file = path.join(dir, 'bad.ts');
    require('fs').writeFileSync(file, `/** @differentiable */\nexport function f(x: number) { return x * Math.random(); }\n`);
    const bad = tsad('inspect', file);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/bad\.ts:2:43 - error TSAD1103: cannot differentiate through a call to 'Math\.random'/);
    expect(tsad('inspect', app, '--fn', 'nope').err).toMatch(/no marked function 'nope' .*\(marked: model, residual2, Fit_loss\)/);
    expect(tsad('inspect', app, '--stage', 'nope').err).toMatch(/unknown stage 'nope'/);
    expect(tsad('inspect', path.join(dir, 'missing.ts')).err).toMatch(/cannot read/);
  });

  test('files it cannot inspect: one clean message each, exit code 1', () => {
    const fs = require('fs');
    const dir = tempDir('tsad-inspect-');
    const put = (name: string, text: string) => {
      fs.writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    };
    const cases: [string, RegExp][] = [
      [put('a.js', 'function f(x) { return x * x; }\n'), /a\.js is JavaScript; tsad inspect reads the TypeScript source/],
      [put('a.json', '{ "a": 1 }\n'), /a\.json is not a TypeScript file; tsad inspect reads \.ts, \.tsx, \.mts, \.cts$/],
      [ex('matvec.lina'), /matvec\.lina is a Linear A program; use 'tsad ir check .*matvec\.lina'/],
      [put('a.d.ts', 'export declare function f(x: number): number;\n'), /a\.d\.ts is a declaration file/],
      [dir, /is a directory; tsad inspect takes one TypeScript file/],
      [path.join(dir, 'missing.ts'), /cannot read .*missing\.ts: no such file$/],
      [put('none.ts', 'export const a = 1;\n'), /no marked functions in .*none\.ts \(mark one with \/\*\* @differentiable \*\/\)/],
    ];
    for (const [file, message] of cases) {
      const r = tsad('inspect', file);
      expect({ file, code: r.code, out: r.out }).toEqual({ file, code: 1, out: '' });
      expect(r.err).toMatch(/^tsad: [^\n]+$/);
      expect(r.err).toMatch(message);
      expect(r.err).not.toMatch(/internal/);
    }
  });

  test('a file with syntax errors: the TypeScript errors, then one line; nothing lowered', () => {
    const fs = require('fs');
    const dir = tempDir('tsad-inspect-');
    const file = path.join(dir, 'syntax.ts');
    fs.writeFileSync(file, `/** @differentiable */\nexport function f(x: number) { return x * ; }\n`);
    const r = tsad('inspect', file);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toBe(`${file}:2:43 - error TS1109: Expression expected.\ntsad: ${file} has syntax errors; fix them first`);
    // Many errors: the first few, and a count of the rest.
    fs.writeFileSync(file, 'export const a = (;\n'.repeat(20));
    const many = tsad('inspect', file).err.split('\n');
    expect(many.length).toBe(6);
    expect(many[5]).toMatch(/has syntax errors \(\d+ more not shown\); fix them first$/);
  });
});

describe('the installed command (bin/tsad.js, built dist/)', () => {
  const { spawnSync } = require('child_process');
  const bin = path.join(__dirname, '../../bin/tsad.js');
  const run = (...argv: string[]) => {
    const r = spawnSync(process.execPath, [bin, ...argv], { encoding: 'utf8' });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };

  test('--version, and exit codes 2 and 1 reach the shell', () => {
    expect(run('--version')).toEqual({ code: 0, out: `${require('../../package.json').version}\n`, err: '' });
    const usage = run('ir', 'grad', ex('matvec.lina'), '--fn', 'specific', '--bogus');
    expect(usage.code).toBe(2);
    expect(usage.err).toMatch(/^tsad: unknown option '--bogus'/);
    const input = run('inspect', ex('matvec.lina'));
    expect(input.code).toBe(1);
    expect(input.err).toMatch(/^tsad: .*is a Linear A program/);
    for (const r of [usage, input]) expect(r.err).not.toMatch(/\n\s+at /);
  });
});
