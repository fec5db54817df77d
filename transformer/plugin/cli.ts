// The `tsad` command line. `tsad ir ...` works on Linear A text files; `tsad inspect` on
// TypeScript files with marked functions. Every command, its flags and its help text live in one
// table (COMMANDS), so parsing, `--help` and the usage hints of errors cannot drift apart.
//
// Exit codes: 0 success; 1 the inputs are at fault (unreadable or wrong kind of file, syntax or
// type errors, no such function, a diagnostic); 2 the command line is at fault (unknown command
// or flag, missing argument, a value that is not a number list); 70 a bug in tsad. Errors are
// one line (or a short block of diagnostics) on stderr, never a stack trace.
import * as fs from 'fs';
import * as path from 'path';
import { parseProgram } from '../language/parse';
import { numberText, printProgram } from '../ir/print';
import { annotateTypes, checkProgram } from '../language/check';
import { defArity } from '../language/arity';
import { prepareForBackend } from '../opt/afterAd';
import { DRIVER } from '../plan/request';
import { evalFn, Value, zeroOf } from '../language/interp';
import { FnDef, InternalError, IrError, Program, Type, scalarCount, tangentType } from '../ir/syntax';
import { jvpOf, linearizeOf, transposeOf, gradOf, vjpOf, DriverOptions } from '../ad/drivers';
import { linName } from '../ir/names';
import { calleesFirst } from '../ir/program';
import type { CheckpointPolicy } from '../ad/unzip';
import type { LoopCheckpoint } from '../ad/checkpoint';
import { InputError, Io } from './io';
import { STAGES, Stage } from './stages';
import { recheckRequested } from './host';

/** The command line is at fault: exit 2, with a usage hint (the command's, once it is known). */
class UsageError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

interface Flag {
  /** Placeholder of the value; a flag without one is a switch. */
  readonly arg?: string;
  readonly help: string;
}

type Flags = ReadonlyMap<string, string | true>;

interface Command {
  readonly name: string;
  readonly synopsis: string;
  readonly about: string;
  readonly flags: Readonly<Record<string, Flag>>;
  readonly run: (file: string, flags: Flags, io: Io) => number;
}

const FN: Flag = { arg: 'NAME', help: 'the function (a def in FILE)' };
const AT: Flag = {
  arg: 'X,...',
  help: 'the point: one number per real of the parameters, in order, tuples flattened; NaN, Infinity and -Infinity are numbers too',
};
const WORK: Flag = { help: 'print the work (cost model) of each function evaluated' };
const RECOMPUTE: Flag = { help: 'checkpointing: recompute non-linear values in the linear part instead of saving them on the tape' };
const SIMPLIFY: Flag = { help: 'simplify every generated def (the default; with --raw, simplify all the same)' };
const RAW: Flag = {
  help: "the bare passes: no simplifier, no inlining of the function's calls, every residual saved, and --work evaluated without in-place writes (by default tsad ir runs the plugin's pipeline)",
};
const CHECKPOINT: Flag = {
  arg: 'POLICY',
  help: 'loop checkpointing: store (the default), sqrt, every:K or levels:L; reverse mode saves the loop state at segment starts and recomputes one segment at a time',
};

const IR_COMMANDS: readonly Command[] = [
  {
    name: 'ir check',
    synopsis: 'FILE',
    about: 'Parse and type-check a Linear A program (linearity included).',
    flags: {},
    run: (file, _f, io) => {
      const p = load(file);
      checkProgram(p);
      io.out(`ok: ${p.defs.length} definition${p.defs.length === 1 ? '' : 's'}`);
      return 0;
    },
  },
  {
    name: 'ir eval',
    synopsis: 'FILE --fn NAME [--at X,...] [--dir V,...] [--work] [--raw]',
    about: 'Evaluate a function with the reference interpreter.',
    flags: { fn: FN, at: AT, dir: { arg: 'V,...', help: 'values of the linear parameters (required when NAME has any)' }, work: WORK, raw: RAW },
    run: (file, flags, io) => {
      const p = load(file);
      const f = target(p, flags);
      const x = point(f, flags, { required: f.nlParams.length > 0 });
      const v = linearArgs(
        f.linParams.map((b) => b.type!),
        flags,
        `${f.name} has linear parameters: give their values with --dir`,
      );
      checkProgram(p);
      const r = evalFn(runnable(p, flags), f.name, x, v);
      io.out(`${f.name}(${showAll(x)}) = (${showAll(r.nl)}${r.lin.length ? `${r.nl.length ? ' ' : ''}; ${showAll(r.lin)}` : ''})`);
      if (flags.has('work')) io.out(`work ${f.name}: ${r.work}`);
      return 0;
    },
  },
  {
    name: 'ir jvp',
    synopsis: 'FILE --fn NAME [--at X,... --dir V,...] [--work] [--raw]',
    about: 'Forward mode. Without --at, print the program with NAME.jvp; with --at and --dir, its value and tangent there.',
    flags: { fn: FN, at: AT, dir: { arg: 'V,...', help: 'the tangent direction, one number per real of the parameters (required with --at)' }, work: WORK, raw: RAW, simplify: SIMPLIFY },
    run: (file, flags, io) => {
      const p = load(file);
      const f = target(p, flags);
      if (!flags.has('at')) {
        for (const k of ['dir', 'work']) if (flags.has(k)) throw new UsageError(`--${k} needs --at (a point to evaluate at)`);
      }
      const { program, jvp } = jvpOf(p, f.name, driverOptions(flags));
      if (!flags.has('at')) {
        io.out(printProgram(program).trimEnd());
        return 0;
      }
      const x = point(f, flags, { required: true });
      const dx = linearArgs(
        f.nlParams.map((b) => tangentType(b.type!)),
        flags,
        '--at needs --dir V,... here (the tangent direction: --dir 1,0 for the first partial)',
      );
      const r = evalFn(runnable(program, flags), jvp, x, dx);
      io.out(`${f.name}(${showAll(x)}) = ${showAll(r.nl)}`);
      io.out(`tangent = ${showAll(r.lin)}`);
      if (flags.has('work')) io.out(`work ${f.name}: ${evalFn(runnable(p, flags), f.name, x).work}, ${jvp}: ${r.work}`);
      return 0;
    },
  },
  {
    name: 'ir linearize',
    synopsis: 'FILE --fn NAME [--recompute] [--raw] [--checkpoint POLICY]',
    about: 'Print NAME.fwd (the primal, returning its tape) and NAME.lin (the linear part), with every def they call.',
    flags: { fn: FN, recompute: RECOMPUTE, raw: RAW, simplify: SIMPLIFY, checkpoint: CHECKPOINT },
    run: (file, flags, io) => {
      const p = load(file);
      const f = target(p, flags);
      const { program, fwd, lin } = linearizeOf(p, f.name, driverOptions(flags));
      io.out(printClosure(program, [fwd, lin]));
      return 0;
    },
  },
  {
    name: 'ir transpose',
    synopsis: 'FILE --fn NAME [--raw]',
    about: 'Print NAME.T, the transpose of the linear function NAME, with every def it calls.',
    flags: { fn: FN, raw: RAW, simplify: SIMPLIFY },
    run: (file, flags, io) => {
      const p = load(file);
      const f = target(p, flags);
      const { program, transposed } = transposeOf(p, f.name, driverOptions(flags));
      io.out(printClosure(program, [transposed]));
      return 0;
    },
  },
  {
    name: 'ir grad',
    synopsis: 'FILE --fn NAME [--at X,...] [--work] [--recompute] [--raw] [--checkpoint POLICY]',
    about:
      'Reverse mode, for a function with one real result. Without --at, print the program with NAME.grad; with --at, the gradient there (with --work, also the most values its residual stacks held at once).',
    flags: { fn: FN, at: AT, work: WORK, recompute: RECOMPUTE, raw: RAW, simplify: SIMPLIFY, checkpoint: CHECKPOINT },
    run: (file, flags, io) => {
      const p = load(file);
      const f = target(p, flags);
      if (!flags.has('at') && flags.has('work')) throw new UsageError('--work needs --at (a point to evaluate at)');
      const opts = driverOptions(flags);
      const { program, grad } = gradOf(p, f.name, opts);
      if (!flags.has('at')) {
        io.out(printProgram(program).trimEnd());
        return 0;
      }
      const x = point(f, flags, { required: true });
      const run = runnable(program, flags);
      const r = evalFn(run, grad, x);
      io.out(`grad ${f.name}(${showAll(x)}) = (${showAll(r.nl)})`);
      if (flags.has('work')) {
        const v = vjpOf(p, f.name, opts);
        const vr = runnable(v.program, flags);
        const fw = evalFn(vr, v.fwd, x);
        const lin = evalFn(
          vr,
          linName(f.name),
          [fw.nl[1]],
          f.nlParams.map((b) => zeroOf(tangentType(b.type!))),
        );
        const bwd = evalFn(vr, v.bwd, [fw.nl[1]], [1]);
        io.out(`work ${f.name}: ${evalFn(runnable(p, flags), f.name, x).work}, ${v.fwd}: ${fw.work}, ${f.name}.lin: ${lin.work}, ${v.bwd}: ${bwd.work}, ${grad}: ${r.work}`);
        io.out(`peak tape ${grad}: ${evalFn(run, grad, x, [], { tape: true }).peakTape} values`);
      }
      return 0;
    },
  },
];

const INSPECT: Command = {
  name: 'inspect',
  synopsis: `FILE.ts [--fn NAME] [--stage ${STAGES.join('|')}|all]`,
  about: 'Print every stage between a marked TypeScript function and the code the plugin emits for it.',
  flags: {
    fn: { arg: 'NAME', help: 'only this marked function (a method as Class.method)' },
    stage: { arg: 'STAGE', help: `only this stage: ${STAGES.join(', ')} or all (the default)` },
  },
  run: (file, flags, io) => {
    const stage = (flags.get('stage') as string | undefined) ?? 'all';
    if (stage !== 'all' && !(STAGES as readonly string[]).includes(stage)) {
      throw new UsageError(`unknown stage '${stage}' (stages: ${STAGES.join(', ')}, all)`);
    }
    // Loaded on demand: it pulls in the TypeScript compiler, which `tsad ir` never needs.
    const { inspectFile } = require('./inspect') as typeof import('./inspect');
    return inspectFile({ file, fn: flags.get('fn') as string | undefined, stages: stage === 'all' ? STAGES : [stage as Stage] }, io);
  },
};

const COMMANDS: readonly Command[] = [INSPECT, ...IR_COMMANDS];

const TOP_HELP = `tsad: compile-time automatic differentiation for TypeScript

usage: tsad <command> [options]

commands:
  inspect FILE.ts     print each stage a marked TypeScript function goes through
  ir check FILE       type-check a Linear A program
  ir eval FILE        evaluate a function
  ir jvp FILE         forward mode: the JVP, or its value at a point
  ir linearize FILE   the primal with its tape, and the linear part
  ir transpose FILE   the transpose of a linear function
  ir grad FILE        reverse mode: the gradient, or its value at a point

options:
  -h, --help          show this help
      --version       print the version of tsad

'tsad <command> --help' describes a command and its options.
exit codes: 0 done, 1 bad input file or program, 2 bad command line, 70 a bug in tsad`;

const IR_HELP = `usage:
${IR_COMMANDS.map((c) => `  tsad ${c.name} ${c.synopsis}`).join('\n')}

'tsad ir <command> --help' describes a command and its options.`;

const TOP_HINT = "usage: tsad <command> [options]; run 'tsad --help' for the commands";
const IR_HINT = `${IR_HELP.split('\n\n')[0]}\nrun 'tsad ir <command> --help' for details`;

function usageLine(c: Command): string {
  return `usage: tsad ${c.name} ${c.synopsis}`;
}

function commandHint(c: Command): string {
  return `${usageLine(c)}\nrun 'tsad ${c.name} --help' for details`;
}

/** Greedy word wrap; help text stays readable in an 80-column terminal. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
}

function commandHelp(c: Command): string {
  const rows = [...Object.entries(c.flags).map(([k, f]) => [`--${k}${f.arg ? ` ${f.arg}` : ''}`, f.help]), ['-h, --help', 'show this help']];
  const width = Math.max(...rows.map(([l]) => l.length)) + 2;
  const pad = ' '.repeat(2 + width);
  const row = ([l, h]: string[]) => wrap(h, 80 - pad.length).map((text, i) => (i === 0 ? `  ${l.padEnd(width)}` : pad) + text);
  return [usageLine(c), '', ...wrap(c.about, 80), '', 'options:', ...rows.flatMap(row)].join('\n');
}

function isHelp(a: string): boolean {
  return a === '-h' || a === '--help';
}

/** FILE and the flags of one command; anything the command does not declare is an error. */
function parseCommandArgs(c: Command, argv: readonly string[]): { file: string; flags: Flags } {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  let optionsEnd = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (optionsEnd || !a.startsWith('-') || a === '-') {
      positional.push(a);
      continue;
    }
    if (a === '--') {
      optionsEnd = true;
      continue;
    }
    const eq = a.indexOf('=');
    const name = a.startsWith('--') ? a.slice(2, eq < 0 ? undefined : eq) : a;
    const spec = Object.hasOwn(c.flags, name) ? c.flags[name] : undefined;
    if (!spec) throw new UsageError(`unknown option '${eq < 0 ? a : a.slice(0, eq)}' for tsad ${c.name}`, commandHint(c));
    if (flags.has(name)) throw new UsageError(`--${name} given twice`, commandHint(c));
    if (!spec.arg) {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`, commandHint(c));
      flags.set(name, true);
      continue;
    }
    // The value is taken verbatim even when it starts with '-': `--at -1,2` is a point.
    const value = eq >= 0 ? a.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new UsageError(`--${name} needs a value (${spec.arg})`, commandHint(c));
    flags.set(name, value);
  }
  const [file, extra] = positional;
  if (file === undefined) throw new UsageError(`tsad ${c.name} needs a ${c.synopsis.split(' ')[0]}`, commandHint(c));
  if (extra !== undefined) {
    const hint = /^[-+]?(\d|NaN|Infinity)/.test(extra) ? ' (values are separated by commas: --at 2,3)' : '';
    throw new UsageError(`unexpected argument '${extra}'${hint}`, commandHint(c));
  }
  return { file, flags };
}

/** Comma-separated numbers; NaN and ±Infinity are values a user may well want to try. */
function numbers(text: string, flag: string): number[] {
  if (text.trim() === '') return [];
  return text.split(',').map((s) => {
    const t = s.trim();
    const v = t === 'NaN' ? NaN : Number(t);
    if (t === '' || (Number.isNaN(v) && t !== 'NaN')) {
      throw new UsageError(`--${flag}: '${s}' is not a number (give numbers separated by commas, such as 2,-0.5,NaN,Infinity)`);
    }
    return v;
  });
}

/** Fills values of the given types from a flat list of scalars, in order. */
function unflatten(types: readonly Type[], flat: readonly number[], flag: string): Value[] {
  let i = 0;
  const need = types.reduce((n, t) => n + scalarCount(t), 0);
  const take = (t: Type): Value => {
    if (t.tag === 'tuple') return t.elems.map(take);
    const v = flat[i++];
    return t.tag === 'bool' ? v !== 0 : v;
  };
  if (flat.length !== need) throw new UsageError(`--${flag}: expected ${need} value${need === 1 ? '' : 's'}, got ${flat.length}`);
  return types.map(take);
}

function point(f: FnDef, flags: Flags, o: { required: boolean }): Value[] {
  const at = flags.get('at');
  if (typeof at !== 'string') {
    if (o.required) throw new UsageError(`--at is required: ${f.name} takes ${f.nlParams.length} parameter${f.nlParams.length === 1 ? '' : 's'}`);
    return [];
  }
  return unflatten(
    f.nlParams.map((x) => x.type!),
    numbers(at, 'at'),
    'at',
  );
}

/** Values for linear parameters from --dir; never a silent zero when they matter. */
function linearArgs(types: readonly Type[], flags: Flags, missing: string): Value[] {
  const dir = flags.get('dir');
  if (typeof dir !== 'string') {
    if (types.length > 0) throw new UsageError(missing);
    return [];
  }
  return unflatten(types, numbers(dir, 'dir'), 'dir');
}

/**
 * The plugin's pipeline (plan/request.ts, DRIVER: simplified, the function's calls inlined, cheap
 * residuals recomputed), so that what `tsad ir` prints and measures is what a build emits; `--raw`
 * gives the bare passes.
 */
function driverOptions(flags: Flags): DriverOptions {
  const raw = flags.has('raw');
  const policy: CheckpointPolicy = flags.has('recompute') ? 'recompute' : raw ? 'save' : DRIVER.policy;
  const c = flags.get('checkpoint');
  const base = raw ? { simplify: flags.has('simplify') } : { simplify: DRIVER.simplify, inlinePrimal: DRIVER.inlinePrimal };
  return { ...base, policy, recheck: recheckRequested(), ...(typeof c === 'string' ? { checkpoint: loopCheckpoint(c) } : {}) };
}

/** The program as the backend runs it (writes in place where nobody can tell, opt/inplace.ts); as it is with --raw. */
function runnable(p: Program, flags: Flags): Program {
  if (flags.has('raw')) return p;
  const q = annotateTypes(p);
  const arity = defArity(new Map(q.defs.map((d) => [d.name, d])));
  return { ...q, defs: q.defs.map((d) => prepareForBackend(d, arity)) };
}

/** `--checkpoint sqrt`, `every:32`, `levels:3`. */
function loopCheckpoint(text: string): LoopCheckpoint {
  if (text === 'store' || text === 'sqrt') return text;
  const m = /^(every|levels):(\d+)$/.exec(text);
  const k = m ? Number(m[2]) : 0;
  if (!m || k < 1) throw new UsageError(`--checkpoint takes store, sqrt, every:K or levels:L (K, L positive whole numbers), got '${text}'`);
  return m[1] === 'every' ? { every: k } : { levels: k };
}

export function showValue(v: Value): string {
  if (Array.isArray(v)) return `<${v.map(showValue).join(', ')}>`;
  return typeof v === 'number' ? numberText(v) : String(v);
}

const showAll = (vs: readonly Value[]) => vs.map(showValue).join(', ');

/** Files `tsad ir` knows are not Linear A; their parse error would point at the wrong tool. */
function notLinearA(file: string): string | undefined {
  const ext = path.extname(file).toLowerCase();
  if (['.ts', '.tsx', '.mts', '.cts'].includes(ext)) return `${file} is TypeScript; tsad ir reads Linear A programs (.lina); for a marked TypeScript function use 'tsad inspect ${file}'`;
  if (['.js', '.jsx', '.mjs', '.cjs', '.json'].includes(ext)) return `${file} is not a Linear A program; tsad ir reads Linear A text (.lina, see docs/linear-a.md)`;
  return undefined;
}

function load(file: string): Program {
  const wrongKind = notLinearA(file);
  if (wrongKind) throw new InputError(wrongKind);
  let text: string;
  try {
    if (fs.statSync(file).isDirectory()) throw new InputError(`${file} is a directory; give a Linear A file (.lina)`);
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  return parseProgram(text, file);
}

function target(p: Program, flags: Flags): FnDef {
  const name = flags.get('fn');
  if (typeof name !== 'string') throw new UsageError('--fn NAME is required');
  const d = p.defs.find((x) => x.name === name);
  if (!d) throw new InputError(`no function named ${name}; defined: ${p.defs.map((x) => x.name).join(', ') || 'none'}`);
  return d;
}

/**
 * The named defs with everything they call, callees first, so the text parses and checks on
 * its own: `f.lin` calls `g.lin`, `f.T` calls `g.T`.
 */
function printClosure(p: Program, entries: readonly string[]): string {
  const defs = new Map(p.defs.map((d) => [d.name, d]));
  return printProgram({ defs: calleesFirst(p, entries).map((n) => defs.get(n)!) }).trimEnd();
}

function packageVersion(): string {
  // From source (ts-jest) and from dist/ the package root is a different number of levels up.
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'tsad' && pkg.version) return pkg.version;
    }
    if (path.dirname(dir) === dir) throw new InternalError('cannot find the package.json of tsad');
  }
}

function dispatch(argv: readonly string[], io: Io): number {
  const [first, second] = argv;
  if (first === undefined) throw new UsageError('missing command');
  if (isHelp(first) || first === 'help') {
    io.out(TOP_HELP);
    return 0;
  }
  if (first === '--version') {
    if (argv.length > 1) throw new UsageError(`unexpected argument '${argv[1]}' after --version`);
    io.out(packageVersion());
    return 0;
  }
  if (first.startsWith('-')) throw new UsageError(`unknown option '${first}'`);
  let c: Command | undefined;
  let rest: readonly string[];
  if (first === 'ir') {
    if (second === undefined) throw new UsageError('tsad ir needs a command', IR_HINT);
    if (isHelp(second)) {
      io.out(IR_HELP);
      return 0;
    }
    c = IR_COMMANDS.find((x) => x.name === `ir ${second}`);
    if (!c) throw new UsageError(`unknown command 'ir ${second}'`, IR_HINT);
    rest = argv.slice(2);
  } else {
    c = COMMANDS.find((x) => x.name === first);
    if (!c) throw new UsageError(`unknown command '${first}' (commands: inspect, ir)`);
    rest = argv.slice(1);
  }
  // Help wins over everything else on the line, so `tsad ir grad --at --help` still helps.
  if (rest.some(isHelp)) {
    io.out(commandHelp(c));
    return 0;
  }
  const { file, flags } = parseCommandArgs(c, rest);
  try {
    return c.run(file, flags, io);
  } catch (e) {
    if (e instanceof UsageError && !e.hint) throw new UsageError(e.message, commandHint(c));
    throw e;
  }
}

export function main(argv: readonly string[], io: Io): number {
  try {
    return dispatch(argv, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`tsad: ${e.message}\n${e.hint ?? TOP_HINT}`);
      return 2;
    }
    if (e instanceof InputError || e instanceof IrError) {
      io.err(`tsad: ${e.message}`);
      return 1;
    }
    // Our stack is for bug reports only (TSAD_VERBOSE=1, as for the plugin's TSAD9000; or TSAD_DEBUG=1).
    const debug = (process.env.TSAD_VERBOSE === '1' || process.env.TSAD_DEBUG) && e instanceof Error && e.stack ? `\n${e.stack}` : '';
    const message = e instanceof InternalError ? e.message : `internal: ${e instanceof Error ? e.message : String(e)}`;
    io.err(`tsad: ${message} (this is a bug in tsad)${debug}`);
    return 70;
  }
}
