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
