// The command line, run in-process.
import { main } from '../../transformer/plugin/cli';
import * as path from 'path';

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
    ['ir', 'grad', ex('matvec.lina'), '--fn', 'specific', '--at', '1'],
    ['ir', 'grad', ex('matvec.lina'), '--fn', 'specific', '--at', '1,x'],
    ['bogus'],
  ]) {
    const r = tsad(...argv);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^tsad: /);
    expect(r.err).not.toMatch(/\n\s+at /);
  }
});

describe('tsad inspect', () => {
  const app = path.join(__dirname, '../../examples/app/src/oscillator.ts');

  test('prints every stage of every marked function', () => {
    const r = tsad('inspect', app);
    expect(r.code).toBe(0);
    for (const fn of ['model', 'residual2', 'Fit_loss']) {
      for (const stage of ['linear-a', 'jvp', 'linearize', 'transpose', 'grad', 'emit']) expect(r.out).toContain(`// ---- ${fn}: ${stage} ----`);
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
    expect(stage('jvp')).toMatch(/^def Fit_loss\.jvp\(p: <real, real, real, real>, d: <<real, real>/m);
    expect(stage('jvp')).not.toMatch(/def (model|residual2)\.jvp/);
    expect(stage('linearize')).toMatch(/^type Fit_loss\.tape = </m);
    expect(stage('linearize')).toMatch(/^def Fit_loss\.lin\(tape: Fit_loss\.tape ;/m);
    expect(stage('transpose')).toMatch(/^def Fit_loss\.bwd\(/m);
    expect(stage('grad')).toMatch(/^def Fit_loss\.vg\(p: <real, real, real, real>, d: /m);
    expect(stage('grad')).not.toMatch(/residual2|model|tape/);
    const emitted = stage('emit');
    expect(emitted).toMatch(/^function Fit_loss\$grad_0\(p_amplitude, p_damping, p_omega, p_phase, d\) \{/m);
    expect(emitted).toMatch(/^function Fit_loss_grad\(p, d\) \{/m);
    expect(emitted).toMatch(/^function Fit_loss_grad\(p, d\) \{/m);
    expect(emitted).toContain('_bar');
  });

  test('diagnostics and usage errors', () => {
    const dir = require('fs').mkdtempSync(path.join(require('os').tmpdir(), 'tsad-inspect-'));
    const file = path.join(dir, 'bad.ts');
    require('fs').writeFileSync(file, `/** @differentiable */\nexport function f(x: number) { return x * Math.random(); }\n`);
    const bad = tsad('inspect', file);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/bad\.ts:2:43 - error TSAD1103: cannot differentiate through a call to 'Math\.random'/);
    expect(tsad('inspect', app, '--fn', 'nope').err).toMatch(/no marked function 'nope' .*\(marked: model, residual2, Fit_loss\)/);
    expect(tsad('inspect', app, '--stage', 'nope').err).toMatch(/unknown stage 'nope'/);
    expect(tsad('inspect', path.join(dir, 'missing.ts')).err).toMatch(/cannot read/);
  });
});
