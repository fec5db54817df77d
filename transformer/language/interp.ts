// Reference interpreter for Linear A, counting work with the paper's cost model (notes §2.5):
// a non-linear primitive costs 1, a linear primitive 1 per scalar of its result, drop(e) costs
// W(e) plus 1 per scalar it discards, a call costs its body, everything else is free.
import { followingNesting } from '../ir/nesting';
import { conforms } from '../ir/conforms';
import { Block, Expr, FnDef, IrError, Lambda, Program, Stmt, Type, InternalError } from '../ir/syntax';
import { constructRule } from '../constructs/registry';
import { arityOf, defArity } from './arity';
import type { BodyToRun, ImplRun, InterpOps, Sides } from '../constructs/types';
import { PRIMS, LIN_PRIMS } from '../prims/registry';
import type { Scalar } from '../prims/types';
import { printType } from '../ir/printType';
import { TapeMeter } from '../ir/tapeMeter';
import type { Value } from '../ir/value';

export type { Value } from '../ir/value';

export interface EvalResult {
  readonly nl: Value[];
  readonly lin: Value[];
  readonly work: number;
  /** With `{ tape: true }`: the most values held in residual stacks at once (ir/tapeMeter.ts). */
  readonly peakTape?: number;
}

export interface EvalOptions {
  /** Meter the residual stacks (slower: for tests and benchmarks of checkpointing). */
  readonly tape?: boolean;
  /** Counts each non-linear primitive's applications by name (a test's breakdown of the work). */
  readonly prims?: Map<string, number>;
}

/**
 * The variables of one call: a map with an undo log, so that a binding is O(1), a lookup is
 * O(1) however long the function, and leaving a nested block restores what it shadowed.
 */
class Env {
  private readonly vars = new Map<string, Value>();
  private readonly undo: { name: string; old: Value | undefined }[] = [];

  bind(name: string, value: Value): void {
    this.undo.push({ name, old: this.vars.get(name) });
    this.vars.set(name, value);
  }

  lookup(name: string): Value {
    const v = this.vars.get(name);
    if (v === undefined) throw new InternalError(`unbound variable ${name} at run time (was the program type-checked?)`);
    return v;
  }

  get mark(): number {
    return this.undo.length;
  }

  restore(mark: number): void {
    while (this.undo.length > mark) {
      const { name, old } = this.undo.pop()!;
      if (old === undefined) this.vars.delete(name);
      else this.vars.set(name, old);
    }
  }
}

/**
 * A block still running (its next statement is `i`), or what to do with a value once the
 * expression under evaluation has produced it.
 */
type Kont =
  | { readonly k: 'block'; readonly block: Block; i: number }
  | { readonly k: 'let'; readonly stmt: Extract<Stmt, { tag: 'let' }> }
  | { readonly k: 'drop' }
  | { readonly k: 'scope'; readonly mark: number }
  | { readonly k: 'return'; readonly env: Env; readonly run: object }
  /** A construct body's run ends: as a return, and its arrays are handed out (InterpOps.owns). */
  | { readonly k: 'body'; readonly env: Env; readonly run: object }
  /** A construct's rule waiting for the results of the body it asked to run. */
  | { readonly k: 'construct'; readonly run: ImplRun };

const isRun = (x: Sides<Value> | ImplRun): x is ImplRun => typeof (x as ImplRun).next === 'function';

/** The owner of an array a finished run returned: the run that binds it next takes it over. */
const RETURNED: object = Object.freeze({});

export function leafCount(v: Value): number {
  return Array.isArray(v) ? v.reduce<number>((n, x) => n + leafCount(x), 0) : 1;
}

/**
 * The zero of a vector-space type; a stack's or an array's is the empty one (its missing elements
 * read as zeros, whatever the length of the values it is added to).
 */
export function zeroOf(t: Type): Value {
  return t.tag === 'tuple' ? t.elems.map(zeroOf) : t.tag === 'stack' || t.tag === 'array' ? [] : 0;
}

/**
 * Applies a leaf function across tuple and array structure. Sequences of different lengths (a
 * zero array, empty, added to a full one) run to the longest; a missing element is a zero, whose
 * leaves are 0.
 */
function leafwise(f: (lin: number[]) => number, args: (Value | undefined)[]): Value {
  const seq = args.find((a) => Array.isArray(a)) as Value[] | undefined;
  if (seq !== undefined) {
    const n = args.reduce<number>((m, a) => (Array.isArray(a) ? Math.max(m, a.length) : m), 0);
    return Array.from({ length: n }, (_, i) =>
      leafwise(
        f,
        args.map((a) => (Array.isArray(a) ? a[i] : a)),
      ),
    );
  }
  return f(args.map((a) => (a === undefined ? 0 : a)) as number[]);
}

/**
 * The reference interpreter as a loop over an explicit continuation stack: a block runs its
 * statements in a loop, and nested blocks and calls push continuations instead of recursing, so
 * neither a long function, deep nesting nor a deep call chain can overflow the JavaScript stack.
 */
class Machine {
  work = 0;
  prims?: Map<string, number>;
  private readonly defs = new Map<string, FnDef>();
  /**
   * In-place updates (InterpOps.owns): the run (a function call or one run of a body, identified
   * by a fresh object) that may update each array in place; RETURNED for an array a finished run
   * returned, which the run binding it takes over.
   */
  private readonly owner = new WeakMap<object, object>();
  /** The running function call or body run. */
  private current: object = {};
  constructor(
    p: Program,
    readonly meter?: TapeMeter,
  ) {
    for (const d of p.defs) this.defs.set(d.name, d);
  }

  private def(name: string): FnDef {
    const d = this.defs.get(name);
    if (!d) throw new IrError(`no function named ${name}`);
    return d;
  }

  private enter(d: Lambda, nl: Value[], lin: Value[], borrows = false): Env {
    const env = new Env();
    const bind = (x: Value) => (borrows ? x : this.adopt(x));
    d.nlParams.forEach((b, i) => env.bind(b.name, bind(nl[i])));
    d.linParams.forEach((b, i) => env.bind(b.name, bind(lin[i])));
    return env;
  }

  /** Returns [non-linear results, linear results]. */
  callFn(name: string, nl: Value[], lin: Value[]): Value[][] {
    return this.run(this.def(name), nl, lin);
  }

  /** What a construct's rule may ask: running one of its bodies (one JavaScript frame per nesting level). */
  private readonly ops: InterpOps = {
    bodyRun: (body, args, options) => ({ body, args, borrows: options?.borrows === true }),
    runBody: (body, args, options) => {
      const [nl, lin] = this.run(body, [...args.nl], [...args.lin], options?.borrows === true);
      return { nl, lin };
    },
    arity: (body) => arityOf(body.body.result, defArity(this.defs)),
    charge: (units) => {
      this.work += units;
    },
    owns: (v) => Array.isArray(v) && this.owner.get(v) === this.current,
    claim: (v) => {
      if (!Array.isArray(v)) return;
      this.claimed = true;
      this.owner.set(v, this.current);
    },
    release: (v) => this.release(v),
    handOver: (v) => this.handOut([[v]]),
  };

  /** Whether any array was ever claimed: until then a release has nothing to look for. */
  private claimed = false;

  private release(v: Value): void {
    // An accumulator is an array of reals: nothing inside it to release. Anything else may be a
    // tuple holding one.
    if (!this.claimed || !Array.isArray(v) || this.owner.delete(v)) return;
    for (const x of v) if (Array.isArray(x)) this.release(x);
  }

  /** A value bound in the current run: an array a finished run returned becomes the current run's. */
  private adopt(v: Value): Value {
    if (Array.isArray(v) && this.owner.get(v) === RETURNED) this.owner.set(v, this.current);
    return v;
  }

  /** The current run hands its results out: its own arrays among them may be taken over. */
  private handOut(values: Value[][]): void {
    for (const side of values) for (const v of side) if (Array.isArray(v) && this.owner.get(v) === this.current) this.owner.set(v, RETURNED);
  }

  /** Runs a def's or a construct body's block with its parameters bound. */
  private run(d: Lambda, nl: Value[], lin: Value[], borrows = false): Value[][] {
    this.meter?.enter();
    const outer = this.current;
    this.current = {};
    let env = this.enter(d, nl, lin, borrows);
    if (this.meter) d.nlParams.forEach((b, i) => b.type && this.meter!.note(nl[i], b.type));
    const konts: Kont[] = [{ k: 'block', block: d.body, i: 0 }];
    // A rule that is a generator (ImplRun) asks for its bodies to run one at a time: each runs
    // here, on this stack of continuations, and the rule resumes with its results.
    const advance = (rule: ImplRun, step: IteratorResult<BodyToRun, Sides<Value>>): Value[][] | undefined => {
      if (step.done) return [[...step.value.nl], [...step.value.lin]];
      const { body, args, borrows } = step.value;
      konts.push({ k: 'construct', run: rule });
      this.meter?.enter();
      konts.push({ k: 'body', env, run: this.current }, { k: 'block', block: body.body, i: 0 });
      this.current = {};
      env = this.enter(body, [...args.nl], [...args.lin], borrows);
      if (this.meter) body.nlParams.forEach((b, i) => b.type && this.meter!.note(args.nl[i], b.type));
      return undefined;
    };
    for (;;) {
      // Run the statements of the innermost block until one needs a value computed.
      const top = konts[konts.length - 1];
      if (top.k !== 'block') throw new InternalError('interp: a value is owed to a waiting expression');
      let e: Expr;
      if (top.i < top.block.stmts.length) {
        const s = top.block.stmts[top.i++];
        if (s.tag === 'unpack') {
          const t = env.lookup(s.tuple) as Value[];
          s.names.forEach((b, i) => env.bind(b.name, this.adopt(t[i])));
          continue;
        }
        konts.push({ k: 'let', stmt: s });
        e = s.rhs;
      } else {
        konts.pop();
        e = top.block.result;
      }
      // Descend to a leaf, recording what to do with its value, or enter a block.
      let value: Value[][] | undefined;
      while (value === undefined) {
        if (e.tag === 'drop') {
          konts.push({ k: 'drop' });
          e = e.expr;
        } else if (e.tag === 'block') {
          konts.push({ k: 'scope', mark: env.mark }, { k: 'block', block: e.block, i: 0 });
          break;
        } else if (e.tag === 'call') {
          const callee = this.def(e.fn);
          const args = e.nl.map((n) => env.lookup(n));
          const linArgs = e.lin.map((n) => env.lookup(n));
          konts.push({ k: 'return', env, run: this.current }, { k: 'block', block: callee.body, i: 0 });
          this.current = {};
          env = this.enter(callee, args, linArgs);
          break;
        } else if (e.tag === 'construct') {
          const operands = { nl: e.nl.map((n) => env.lookup(n)), lin: e.lin.map((n) => env.lookup(n)) };
          const r = constructRule(e, 'interp').impl(this.ops, e, operands);
          if (!isRun(r)) value = [[...r.nl], [...r.lin]];
          else if ((value = advance(r, r.next())) === undefined) break;
        } else {
          value = this.leaf(e, env);
        }
      }
      // Hand the value outwards until a let binds it and its block goes on.
      while (value !== undefined) {
        const k = konts.pop();
        if (k === undefined) {
          this.meter?.leave(value);
          this.handOut(value);
          this.current = outer;
          return value;
        }
        if (k.k === 'scope') env.restore(k.mark);
        else if (k.k === 'body') {
          this.meter?.leave(value);
          this.handOut(value);
          this.current = k.run;
          env = k.env;
        } else if (k.k === 'construct') {
          value = advance(k.run, k.run.next({ nl: value[0], lin: value[1] }));
        } else if (k.k === 'return') {
          this.handOut(value);
          this.current = k.run;
          env = k.env;
        } else if (k.k === 'drop') {
          for (const v of value[0]) this.work += leafCount(v);
          for (const v of value[1]) this.work += leafCount(v);
          value = [[], []];
        } else if (k.k === 'let') {
          const [vnl, vlin] = value;
          k.stmt.nl.forEach((b, i) => env.bind(b.name, this.adopt(vnl[i])));
          if (this.meter) k.stmt.nl.forEach((b, i) => b.type && this.meter!.note(vnl[i], b.type));
          k.stmt.lin.forEach((b, i) => env.bind(b.name, this.adopt(vlin[i])));
          value = undefined;
        } else {
          throw new InternalError('interp: a value reached a block that was still running');
        }
      }
    }
  }

  private leaf(e: Expr, env: Env): Value[][] {
    switch (e.tag) {
      case 'ret':
        return [e.nl.map((n) => env.lookup(n)), e.lin.map((n) => env.lookup(n))];
      case 'var':
        return e.linear ? [[], [env.lookup(e.name)]] : [[env.lookup(e.name)], []];
      case 'lit':
        return [[e.value], []];
      case 'tuple': {
        const v = e.elems.map((n) => env.lookup(n));
        return e.linear ? [[], [v]] : [[v], []];
      }
      case 'prim': {
        const def = PRIMS[e.op];
        this.work += def.cost ? def.cost(e.args.length) : 1;
        if (this.prims) this.prims.set(e.op, (this.prims.get(e.op) ?? 0) + 1);
        const args = e.args.map((n) => env.lookup(n) as Scalar);
        return [[def.impl(...args)], []];
      }
      case 'lprim': {
        const def = LIN_PRIMS[e.op];
        const coeffs = e.nl.map((n) => env.lookup(n) as Scalar);
        const v = leafwise(
          (leaves) => def.impl(coeffs, leaves),
          e.lin.map((n) => env.lookup(n)),
        );
        this.work += leafCount(v);
        return [[], [v]];
      }
      case 'zero':
        return [[], [zeroOf(e.type)]];
      case 'dup': {
        // Two holders now: neither may update the value in place.
        const v = env.lookup(e.name);
        this.release(v);
        return [[], [v, v]];
      }
      default:
        throw new InternalError(`interp: ${e.tag} is not a leaf`);
    }
  }
}

/** Runs `fn`; values are checked against the signature (IrError naming the parameter). */
export function evalFn(p: Program, fn: string, nl: Value[], lin: Value[] = [], opts: EvalOptions = {}): EvalResult {
  const d = p.defs.find((x) => x.name === fn);
  if (!d) throw new IrError(`no function named ${fn}`);
  if (nl.length !== d.nlParams.length) throw new IrError(`${fn} takes ${d.nlParams.length} non-linear argument(s), got ${nl.length}`);
  if (lin.length !== d.linParams.length) throw new IrError(`${fn} takes ${d.linParams.length} linear argument(s), got ${lin.length}`);
  const params = [...d.nlParams, ...d.linParams];
  [...nl, ...lin].forEach((v, i) => {
    const t = params[i].type;
    if (t && !conforms(v, t)) throw new IrError(`argument ${params[i].name} of ${fn} must be ${printType(t)}, got ${JSON.stringify(v)}`);
  });
  const meter = opts.tape ? new TapeMeter() : undefined;
  const m = new Machine(p, meter);
  m.prims = opts.prims;
  meter?.enter();
  const [rn, rl] = followingNesting('the interpreter', p, () => m.callFn(fn, nl, lin));
  meter?.measure();
  return meter ? { nl: rn, lin: rl, work: m.work, peakTape: meter.peak } : { nl: rn, lin: rl, work: m.work };
}
