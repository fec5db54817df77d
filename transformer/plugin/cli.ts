// The `tsad` command line. `tsad ir ...` works on Linear A text files; `tsad inspect` on
// TypeScript files with marked functions. Errors are one line on stderr and a non-zero exit code.
import * as fs from 'fs';
import { parseProgram } from '../ir/parse';
import { printDef, printProgram } from '../ir/print';
import { checkProgram } from '../ir/check';
import { evalFn, Value } from '../ir/interp';
import { FnDef, InternalError, IrError, Program, Type, tangentType } from '../ir/syntax';
import { jvpOf, linearizeOf, transposeOf, gradOf, vjpOf, DriverOptions } from '../ad/drivers';
import type { CheckpointPolicy } from '../ad/unzip';
import { numberText } from '../ir/print';

export interface Io {
  out(s: string): void;
  err(s: string): void;
}

const USAGE = `usage:
  tsad ir check FILE
  tsad ir eval FILE --fn NAME [--at 2,3] [--dir 1,0] [--work]
  tsad ir jvp FILE --fn NAME [--at 2,3 --dir 1,0] [--work]
  tsad ir linearize FILE --fn NAME [--recompute]
  tsad ir transpose FILE --fn NAME
  tsad ir grad FILE --fn NAME [--at 2,3] [--work] [--recompute] [--simplify]
  tsad inspect FILE.ts [--fn NAME] [--stage linear-a|jvp|linearize|transpose|grad|emit|all]`;

class UsageError extends Error {}

interface Args {
  readonly positional: string[];
  readonly flags: Map<string, string | true>;
}

function parseArgs(argv: readonly string[]): Args {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) {
      positional.push(a);
      continue;
    }
    const key = a.slice(2);
    const next = argv[i + 1];
    if (['fn', 'at', 'dir', 'stage'].includes(key)) {
      if (next === undefined) throw new UsageError(`--${key} needs a value`);
      flags.set(key, next);
      i++;
    } else flags.set(key, true);
  }
  return { positional, flags };
}

function numbers(text: string, what: string): number[] {
  return text.split(',').map((s) => {
    const v = Number(s.trim());
    if (s.trim() === '' || Number.isNaN(v)) throw new UsageError(`${what}: '${s}' is not a number`);
    return v;
  });
}

/** Fills values of the given types from a flat list of scalars, in order. */
function unflatten(types: readonly Type[], flat: readonly number[], what: string): Value[] {
  let i = 0;
  const take = (t: Type): Value => {
    if (t.tag === 'tuple') return t.elems.map(take);
    if (i >= flat.length) throw new UsageError(`${what}: too few values (${flat.length})`);
    const v = flat[i++];
    return t.tag === 'bool' ? v !== 0 : v;
  };
  const vs = types.map(take);
  if (i !== flat.length) throw new UsageError(`${what}: expected ${i} values, got ${flat.length}`);
  return vs;
}

function scalarCount(t: Type): number {
  return t.tag === 'tuple' ? t.elems.reduce((n, e) => n + scalarCount(e), 0) : 1;
}

export function showValue(v: Value): string {
  if (Array.isArray(v)) return `<${v.map(showValue).join(', ')}>`;
  return typeof v === 'number' ? numberText(v) : String(v);
}

const showAll = (vs: readonly Value[]) => vs.map(showValue).join(', ');

function load(file: string): Program {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new UsageError(`cannot read ${file}`);
  }
  return parseProgram(text, file);
}

function def(p: Program, name: string): FnDef {
  const d = p.defs.find((x) => x.name === name);
  if (!d) throw new UsageError(`no function named ${name}; defined: ${p.defs.map((x) => x.name).join(', ')}`);
  return d;
}

function only(p: Program, names: readonly string[]): Program {
  return { defs: p.defs.filter((d) => names.includes(d.name)) };
}

function irCommand(cmd: string, a: Args, io: Io): number {
  const file = a.positional[0];
  if (!file) throw new UsageError(`tsad ir ${cmd} needs a FILE`);
  const p = load(file);
  if (cmd === 'check') {
    checkProgram(p);
    io.out(`ok: ${p.defs.length} definition${p.defs.length === 1 ? '' : 's'}`);
    return 0;
  }
  const fnFlag = a.flags.get('fn');
  if (typeof fnFlag !== 'string') throw new UsageError(`tsad ir ${cmd} needs --fn NAME`);
  const fn = fnFlag;
  const f = def(p, fn);
  const at = a.flags.get('at');
  const dir = a.flags.get('dir');
  const work = a.flags.has('work');
  const policy: CheckpointPolicy = a.flags.has('recompute') ? 'recompute' : 'save';
  const opts: DriverOptions = { policy, simplify: a.flags.has('simplify') };
  const point = () => unflatten(f.nlParams.map((x) => x.type!), numbers(at as string, '--at'), '--at');
  const direction = (types: readonly Type[]) =>
    typeof dir === 'string' ? unflatten(types, numbers(dir, '--dir'), '--dir') : unflatten(types, new Array(types.reduce((n, t) => n + scalarCount(t), 0)).fill(0), '--dir');

  switch (cmd) {
    case 'eval': {
      if (typeof at !== 'string' && f.nlParams.length > 0) throw new UsageError('tsad ir eval needs --at');
      checkProgram(p);
      const r = evalFn(p, fn, typeof at === 'string' ? point() : [], direction(f.linParams.map((x) => x.type!)));
      io.out(`${fn}(${typeof at === 'string' ? at.split(',').join(', ') : ''}) = (${showAll(r.nl)}${r.lin.length ? ` ; ${showAll(r.lin)}` : ''})`);
      if (work) io.out(`work ${fn}: ${r.work}`);
      return 0;
    }
    case 'jvp': {
      const { program, jvp } = jvpOf(p, fn, opts);
      if (typeof at !== 'string') {
        io.out(printProgram(program).trimEnd());
        return 0;
      }
      const x = point();
      const r = evalFn(program, jvp, x, direction(f.nlParams.map((b) => tangentType(b.type!))));
      io.out(`${fn}(${showAll(x)}) = ${showAll(r.nl)}`);
      io.out(`tangent = ${showAll(r.lin)}`);
      if (work) io.out(`work ${fn}: ${evalFn(p, fn, x).work}, ${jvp}: ${r.work}`);
      return 0;
    }
    case 'linearize': {
      const { program, fwd, lin } = linearizeOf(p, fn, opts);
      io.out(printProgram(only(program, [fwd, lin])).trimEnd());
      return 0;
    }
    case 'transpose': {
      const { program, transposed } = transposeOf(p, fn, opts);
      io.out(printDef(def(program, transposed)));
      return 0;
    }
    case 'grad': {
      const { program, grad } = gradOf(p, fn, opts);
      if (typeof at !== 'string') {
        io.out(printProgram(program).trimEnd());
        return 0;
      }
      const x = point();
      const r = evalFn(program, grad, x);
      io.out(`grad ${fn}(${showAll(x)}) = (${showAll(r.nl)})`);
      if (work) {
        const v = vjpOf(p, fn, opts);
        const fw = evalFn(v.program, v.fwd, x);
        const lin = evalFn(v.program, `${v.fwd.replace(/\.fwd$/, '')}.lin`, [fw.nl[1]], f.nlParams.map((b) => zeroOf(tangentType(b.type!))));
        const bwd = evalFn(v.program, v.bwd, [fw.nl[1]], [1]);
        io.out(`work ${fn}: ${evalFn(p, fn, x).work}, ${v.fwd}: ${fw.work}, ${fn}.lin: ${lin.work}, ${v.bwd}: ${bwd.work}, ${grad}: ${r.work}`);
      }
      return 0;
    }
    default:
      throw new UsageError(`unknown command 'ir ${cmd}'`);
  }
}

function zeroOf(t: Type): Value {
  return t.tag === 'tuple' ? t.elems.map(zeroOf) : 0;
}

export function main(argv: readonly string[], io: Io): number {
  try {
    const a = parseArgs(argv);
    const [group, cmd, ...rest] = a.positional;
    if (group === undefined || a.flags.has('help') || group === 'help') {
      io.out(USAGE);
      return group === undefined && !a.flags.has('help') ? 1 : 0;
    }
    if (group === 'ir') {
      if (!cmd) throw new UsageError('tsad ir needs a command: check, eval, jvp, linearize, transpose, grad');
      return irCommand(cmd, { positional: rest, flags: a.flags }, io);
    }
    if (group === 'inspect') {
      let inspect: ((argv: readonly string[], io: Io) => number) | undefined;
      try {
        inspect = require('./inspect').inspectMain;
      } catch {
        inspect = undefined;
      }
      if (!inspect) {
        io.err('tsad: inspect is not available in this build');
        return 2;
      }
      return inspect(argv.slice(1), io);
    }
    throw new UsageError(`unknown command '${group}'`);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`tsad: ${e.message}\n${USAGE}`);
      return 1;
    }
    if (e instanceof IrError) {
      io.err(`tsad: ${e.message}`);
      return 1;
    }
    if (e instanceof InternalError) {
      io.err(`tsad: ${e.message} (this is a bug in tsad)`);
      return 70;
    }
    io.err(`tsad: internal: ${(e as Error).message ?? String(e)} (this is a bug in tsad)`);
    return 70;
  }
}
