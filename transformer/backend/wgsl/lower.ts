// The WGSL backend's lowering: one IR def (a marked function, or the value-and-gradient def of
// grad and valueAndGrad) to a GpuProgram (runtime/webgpu/plan.ts). Lengths are computed on the
// host before any kernel runs; every other number lives in a slot of the device's scalar buffer,
// arrays in buffers of their own. Elementwise maps become one fused kernel each, reductions a
// hierarchical reduce, scalar code between them one single-invocation kernel per run of
// statements, and a cond on a device value runs both branches' kernels, each under a guard on
// its predicate's slot. Anything else is not on the GPU yet: a NotOnGpu error naming it, which the
// compiler turns into a diagnostic at the call site.
import { Block, Expr, FnDef, InternalError, Lambda, Program, Type } from '../../ir/syntax';
import type { ArraySpec, DeviceStep, GpuProgram, HostFn, HostStep, ResultSpec } from '../../../runtime/webgpu/plan';
import { HOST_FNS, HOST_PREDICATES } from '../../../runtime/webgpu/plan';
import { type Combine, Guard, mapKernel, scalarKernel } from './kernels';
import { Typed, WGSL_LIN_PRIMS, WGSL_PRIMS, num, wgslNumber } from './prims';
import { type Arr, type Bound, type Env, type KernelArrays, type Local, type LoweringOps, NotOnGpu, type Num, type Val, union } from './lowering';
import { WGSL_CONSTRUCTS } from './constructs';
import { hasSequential, lowerSequentially } from './sequential';
import { AMBIGUOUS_INDEX, INT_PRIMS, type IntForm, MAX_ELEMENTS, f32IndexAmbiguous, f32IndexIn, intComparison, roundedSource, roundsOf, tainted } from './indices';
import { type OpenReduction, absorb, postFits, reductionKernels } from './fusedReduce';
import { MAX_FUSED_ARRAYS, type OpenMap, fuseBodies, joinMaps, resolveJoined } from './fusedMaps';
import type { ConstructName } from '../../constructs/registry';

export { NotOnGpu, wgslNumber };

/** Primitives whose result is one of their operands: an upper bound of the operands bounds it. */
const SELECTING: Readonly<Record<string, (args: readonly Bound[]) => Bound>> = {
  select: ([, a, b]) => union(a, b),
  min: (args) => union(...args),
  max: (args) => union(...args),
  stop_gradient: ([a]) => a,
  fround: ([a]) => a,
};
/** Host arithmetic on lengths (plan.ts HostStep). */
const HOST_OPS = new Set(['add', 'sub', 'mul', 'max', 'min', 'eq']);
/** Primitives that are their operand's value. */
const HOST_IDENTITY = new Set(['stop_gradient']);

class Lowering implements LoweringOps {
  readonly host: HostStep[] = [];
  registers = 0;
  slots = 0;
  readonly uploads: [number, number][] = [];
  readonly counts: [number, number][] = [];
  private readonly regCounts = new Map<number, number>();
  readonly arrays: { length: number; param?: number }[] = [];
  // (steps and arrays are patched while a cond is lowered: its outputs' lengths come last)
  readonly kernels: string[] = [];
  readonly steps: DeviceStep[] = [];
  private readonly regSlots = new Map<number, number>();
  private readonly lits = new Map<string, number>();
  private guards: Guard[] = [];
  private pending: { lines: string[]; arrays: number[]; guards: Guard[] } | undefined;
  private fresh = 0;

  reg(step: HostStep extends infer S ? (S extends HostStep ? Omit<S, 'out'> : never) : never): number {
    const out = this.registers++;
    this.host.push({ ...step, out } as HostStep);
    return out;
  }

  lit(value: number): number {
    // -0 is a value of its own (Map keys and JSON would make it 0); Infinity and NaN travel as text.
    const text = Object.is(value, -0) ? '-0' : String(value);
    let r = this.lits.get(text);
    if (r === undefined) {
      r = this.reg({ op: 'lit', value: Number.isFinite(value) && text !== '-0' ? value : text });
      this.lits.set(text, r);
    }
    return r;
  }

  newSlot(): number {
    return this.slots++;
  }

  slotOf(v: Num): number {
    if (v.slot !== undefined) return v.slot;
    return this.slotOfReg(v.reg!);
  }

  slotOfReg(reg: number): number {
    let s = this.regSlots.get(reg);
    if (s === undefined) {
      s = this.newSlot();
      this.regSlots.set(reg, s);
      this.uploads.push([reg, s]);
    }
    return s;
  }

  countSlot(reg: number): number {
    let s = this.regCounts.get(reg);
    if (s === undefined) {
      s = this.newCountSlot();
      this.regCounts.set(reg, s);
      this.counts.push([reg, s]);
    }
    return s;
  }

  newCountSlot(): number {
    const s = this.slots;
    this.slots += 2;
    return s;
  }

  newArray(length: number, param?: number): number {
    this.arrays.push(param === undefined ? { length } : { length, param });
    return this.arrays.length - 1;
  }

  load(v: Num): Typed {
    const s = `S[${this.slotOf(v)}]`;
    return v.bool ? { code: `(${s} != 0.0)`, type: 'bool' } : { code: s, type: 'f32' };
  }

  name(prefix: string): string {
    return `${prefix}${this.fresh++}`;
  }

  /** A line of scalar code, in the open single-invocation kernel (a new one when the guards changed). */
  scalarLine(line: (arrays: KernelArrays) => string): void {
    const same = (a: readonly Guard[], b: readonly Guard[]) => a.length === b.length && a.every((g, i) => g.slot === b[i].slot && g.when === b[i].when);
    if (this.pending && !same(this.pending.guards, this.guards)) this.flush();
    if (!this.pending && this.joinReduction(line)) return;
    const p = (this.pending ??= { lines: [], arrays: [], guards: [...this.guards] });
    const bound = p.arrays.length;
    const text = line(bindIn(p.arrays));
    if (p.arrays.length > MAX_FUSED_ARRAYS && p.lines.length > 0) {
      // Past the bindings a kernel may take: this line starts a kernel of its own (lowered again,
      // binding its arrays there; what the first lowering added is unused).
      p.arrays.length = bound;
      this.flush();
      const q: { lines: string[]; arrays: number[]; guards: Guard[] } = { lines: [], arrays: [], guards: [...this.guards] };
      this.pending = q;
      q.lines.push(line(bindIn(q.arrays)));
      return;
    }
    p.lines.push(text);
  }

  flush(): void {
    const p = this.pending;
    if (!p) return;
    this.pending = undefined;
    this.kernels.push(scalarKernel(p.arrays.length, p.guards, p.lines));
    this.steps.push({ op: 'scalar', kernel: this.kernels.length - 1, arrays: p.arrays });
  }

  device(step: (kernel: number) => DeviceStep, ...wgsl: string[]): void {
    this.flush();
    const first = this.kernels.length;
    this.kernels.push(...wgsl);
    this.steps.push(step(first));
  }

  /** An elementwise kernel over `count` (host register): `body` gets the index `i` and the kernel's arrays. */
  elementwise(count: number, body: (arrays: KernelArrays) => string[]): void {
    this.elementwiseOver(this.countSlot(count), body).threads = count;
  }

  /** An elementwise kernel whose count is in `countSlot`; the caller sets its step's `threads` register. */
  elementwiseOver(countSlot: number, body: (arrays: KernelArrays) => string[]): { threads: number } {
    const arrays: number[] = [];
    const lines = body(bindIn(arrays));
    const open = this.openMap;
    if (open && (this.steps[this.steps.length - 1] as object) === open.step && !this.pending) {
      if (open.countSlot === countSlot && sameGuards(open.guards, this.guards)) {
        const merged = fuseBodies(open, arrays, lines);
        if (merged) {
          open.arrays.splice(0, open.arrays.length, ...merged.arrays);
          open.lines = merged.lines;
          this.kernels[open.step.kernel] = mapKernel(open.arrays.length, countSlot, open.guards, open.lines);
          return open.step;
        }
      } else {
        const joined = joinMaps(open, countSlot, this.guards, arrays, lines);
        if (joined) {
          // One kernel over the longest of the counts, each body under its own count and guards.
          this.steps[this.steps.length - 1] = joined.open.step;
          this.kernels[joined.open.step.kernel] = mapKernel(joined.open.arrays.length, undefined, [], joined.open.lines);
          this.openMap = joined.open;
          return joined.part;
        }
      }
    }
    const kernel = mapKernel(arrays.length, countSlot, this.guards, lines);
    const step = { op: 'map' as const, kernel: -1, threads: -1, arrays };
    this.device((k) => Object.assign(step, { kernel: k }), kernel);
    this.openMap = { step, countSlot, guards: [...this.guards], arrays, lines };
    return step;
  }

  reduce(c: Combine, inits: readonly string[], outs: readonly number[], inputs: readonly Arr[], n: number): void {
    this.flush();
    const open = this.openMap;
    const ids = inputs.map((a) => a.id);
    // The elementwise kernel just before, over the same count, runs in the first pass.
    const fused = open && (this.steps[this.steps.length - 1] as object) === open.step && open.step.kernel === this.kernels.length - 1 && open.step.threads === n ? absorb(open, ids, c.k) : undefined;
    if (fused) {
      this.steps.pop();
      this.kernels.pop();
      this.openMap = undefined;
    }
    const r: OpenReduction = {
      step: { op: 'reduce', first: -1, next: -1, firstLast: -1, nextLast: -1, k: c.k, n, inputs: fused?.arrays ?? ids, post: [] },
      c,
      lengthSlots: inputs.map((a) => this.countSlot(a.len)),
      pre: fused?.pre,
      inits,
      outs,
      guards: [...this.guards],
      lines: [],
    };
    this.device((k) => Object.assign(r.step, { first: k, next: k + 1, firstLast: k + 2, nextLast: k + 3 }), ...reductionKernels(r));
    this.openReduce = r;
  }

  /** The reduction lowered last, while scalar code may join its final pass. */
  private openReduce: OpenReduction | undefined;

  /** Appends a scalar line to the open reduction's final pass, if it can take it. */
  private joinReduction(line: (arrays: KernelArrays) => string): boolean {
    const r = this.openReduce;
    // Under the reduction's guards and maybe more (a cond's branch after it): those wrap the line.
    if (!r || (this.steps[this.steps.length - 1] as object) !== r.step || !sameGuards(r.guards, this.guards.slice(0, r.guards.length))) return false;
    const post = [...r.step.post];
    const text = line(bindIn(post)).replace(/\bA(\d+)\b/g, 'B$1');
    if (!postFits(r, post)) return false;
    r.step.post = post;
    const extra = this.guards.slice(r.guards.length).map((g) => `(S[${g.slot}] != 0.0) == ${g.when}`);
    r.lines.push(extra.length > 0 ? `if (${extra.join(' && ')}) { ${text} }` : text);
    const kernels = reductionKernels(r);
    this.kernels[r.step.firstLast] = kernels[2];
    this.kernels[r.step.nextLast] = kernels[3];
    return true;
  }

  /**
   * An elementwise kernel over `count` that updates `target` through atomics (a scatter): its
   * own kernel, never fused (the target's binding is declared atomic).
   */
  atomicElementwise(count: number, target: number, body: (arrays: KernelArrays, atomic: string) => string[]): void {
    const arrays: number[] = [target];
    const lines = body(bindIn(arrays), 'A0');
    const kernel = mapKernel(arrays.length, this.countSlot(count), this.guards, lines, 0);
    this.device((k) => ({ op: 'map', kernel: k, threads: count, arrays }), kernel);
    this.openMap = undefined;
  }

  private heapOf: { array: number; top: number } | undefined;

  heap(): { array: number; top: number } {
    this.heapOf ??= { array: this.newArray(this.reg({ op: 'heap' })), top: this.newSlot() };
    return this.heapOf;
  }

  get heapSlot(): number | undefined {
    return this.heapOf?.top;
  }

  /** The slot kernels flag a failed check in (plan.ts, `checks`), and the checks' messages. */
  checkSlot: number | undefined;
  readonly checkMessages: { text: string; length: number }[] = [];

  /** WGSL that records check `text` (about an array of length register `length`) as failed: k + 1 into the check slot. */
  failCheck(text: string, length: number): string {
    this.checkSlot ??= this.newSlot();
    let k = this.checkMessages.findIndex((c) => c.text === text && c.length === length);
    if (k < 0) k = this.checkMessages.push({ text, length }) - 1;
    return `S[${this.checkSlot}] = ${k + 1}.0;`;
  }

  /** The last elementwise kernel, while the next may join it (fuseBodies). */
  private openMap: OpenMap | undefined;

  get guarded(): readonly Guard[] {
    return this.guards;
  }

  // ---- blocks and expressions ----

  block(b: Block, env: Env): Val[] {
    for (const s of b.stmts) {
      if (s.tag === 'unpack') {
        const t = env.get(s.tuple);
        if (t?.kind !== 'tup' || t.elems.length !== s.names.length) throw new NotOnGpu('a tuple that is not a matrix or a tuple of numbers and arrays');
        s.names.forEach((bd, i) => env.set(bd.name, t.elems[i]));
        continue;
      }
      const vals = this.expr(s.rhs, env);
      const binders = [...s.nl, ...s.lin];
      binders.forEach((bd, i) => {
        const v = vals[i];
        if (v === undefined) throw new InternalError(`wgsl: '${bd.name}' has no value`);
        env.set(bd.name, v);
      });
    }
    return this.expr(b.result, env);
  }

  expr(e: Expr, env: Env): Val[] {
    const get = (n: string): Val => {
      const v = env.get(n);
      if (!v) throw new InternalError(`wgsl: unbound '${n}'`);
      return v;
    };
    switch (e.tag) {
      case 'ret':
        return [...e.nl, ...e.lin].map(get);
      case 'var':
        return [get(e.name)];
      case 'lit':
        if (typeof e.value === 'string') return [{ kind: 'str', text: e.value }];
        if (typeof e.value === 'boolean') {
          const r = this.lit(e.value ? 1 : 0);
          return [{ kind: 'num', reg: r, bool: true, bound: new Set([r]) }];
        }
        return [this.hostNum(this.lit(e.value))];
      case 'dup':
        return [get(e.name), get(e.name)];
      case 'drop':
        return [];
      case 'block':
        return this.block(e.block, new Map(env));
      case 'zero':
        if (e.type.tag === 'real') return [this.hostNum(this.lit(0))];
        if (e.type.tag === 'array' && e.type.elem.tag === 'real') return [{ kind: 'arr', id: this.newArray(this.lit(0)), len: this.lit(0), elemBound: undefined }];
        // A zero tangent stack: the handle −1 (constructs/seq/stack.ts), which lpush replaces by a stack of its own.
        if (e.type.tag === 'stack') return [this.hostNum(this.lit(-1))];
        throw new NotOnGpu(`a zero of type ${e.type.tag}`);
      case 'prim':
      case 'lprim': {
        const argNames = e.tag === 'prim' ? e.args : [...e.nl, ...e.lin];
        const args = argNames.map(get);
        if (args.some((a) => a.kind !== 'num')) throw new NotOnGpu(`the primitive '${e.op}' on arrays`);
        const nums = args as Num[];
        // stop_gradient of a host value (a matrix's dimensions) stays on the host: it is the value.
        if (e.tag === 'prim' && HOST_IDENTITY.has(e.op) && nums.length === 1 && nums[0].reg !== undefined) return [nums[0]];
        if (e.tag === 'prim' && HOST_OPS.has(e.op) && nums.every((a) => a.reg !== undefined)) {
          return [this.hostNum(this.reg({ op: e.op as 'add', args: nums.map((a) => a.reg!) }))];
        }
        if (e.tag === 'prim' && e.op in HOST_FNS && nums.every((a) => a.reg !== undefined)) {
          const reg = this.reg({ op: 'fn', fn: e.op as HostFn, args: nums.map((a) => a.reg!) });
          return [{ ...this.hostNum(reg), bool: HOST_PREDICATES.has(e.op) }];
        }
        const rule = (e.tag === 'prim' ? WGSL_PRIMS : WGSL_LIN_PRIMS)[e.op];
        if (!rule) throw new NotOnGpu(`the primitive '${e.op}'`);
        const r = rule(nums.map((a) => this.load(a)));
        const slot = this.newSlot();
        this.scalarLine(() => `S[${slot}] = ${num(r)};`);
        return [{ kind: 'num', slot, bool: r.type === 'bool', bound: SELECTING[e.op]?.(nums.map((a) => a.bound)) }];
      }
      case 'construct': {
        const rule = WGSL_CONSTRUCTS[e.op as ConstructName];
        // A loop, a stack: one invocation runs it (sequential.ts).
        if (!rule && hasSequential(e.op)) return lowerSequentially(this, e, e.nl.map(get), e.lin.map(get), env);
        if (!rule) throw new NotOnGpu(`the construct '${e.op}'`);
        const mark = [this.steps.length, this.kernels.length, this.pending?.lines.length];
        try {
          return rule(this, e, e.nl.map(get), e.lin.map(get), env);
        } catch (err) {
          // What a parallel kernel cannot do before it emitted anything (a one-hot at an index
          // known only on the device), one invocation may.
          const untouched = mark[0] === this.steps.length && mark[1] === this.kernels.length && mark[2] === this.pending?.lines.length;
          if (!(err instanceof NotOnGpu) || !untouched || !hasSequential(e.op)) throw err;
          return lowerSequentially(this, e, e.nl.map(get), e.lin.map(get), env);
        }
      }
      case 'call':
        throw new NotOnGpu(`a call of '${e.fn}' (a marked function calling another)`);
      case 'tuple':
        return [{ kind: 'tup', elems: e.elems.map(get) }];
    }
  }

  hostNum(reg: number): Num {
    return { kind: 'num', reg, bool: false, bound: new Set([reg]) };
  }

  withGuard<T>(g: Guard, run: () => T): T {
    this.guards.push(g);
    try {
      return run();
    } finally {
      this.guards.pop();
    }
  }

  // ---- kernel bodies ----

  /**
   * The WGSL of a body (a map's element, a reduction's operator) given its parameters: lines
   * binding one `let` per statement, and its results. Inside a body there are scalar primitives,
   * literals and reads of invariant arrays; anything else is not on the GPU.
   */
  body(l: Lambda, params: readonly Local[]): { lines: string[]; results: Local[] } {
    const lines: string[] = [];
    const env = new Map<string, Local>();
    [...l.nlParams, ...l.linParams].forEach((p, i) => env.set(p.name, params[i]));
    const get = (n: string): Local => {
      const v = env.get(n);
      if (!v) throw new InternalError(`wgsl: unbound '${n}' in a body`);
      return v;
    };
    const scalar = (n: string, what: string): Typed & { bound: Bound; int?: IntForm; rounds?: readonly string[] } => {
      const v = get(n);
      if (v.array !== undefined) throw new NotOnGpu(`${what} of an array inside a map or reduction body`);
      return v;
    };
    const bindLet = (t: Typed, bound: Bound, rounds?: readonly string[]): Local => {
      const name = this.name('v');
      lines.push(`let ${name}: ${t.type} = ${t.code};`);
      return { code: name, type: t.type, bound, ...(rounds && rounds.length > 0 ? { rounds } : {}) };
    };
    const bindInt = (int: IntForm, bound: Bound): Local => {
      const name = this.name('v');
      lines.push(`let ${name}i: i32 = ${int.code};`, `let ${name}: f32 = f32(${name}i);`);
      return { code: name, type: 'f32', bound, int: { code: `${name}i`, max: int.max } };
    };
    const read = (arr: Local, index: Typed & { bound: Bound; int?: IntForm; rounds?: readonly string[] }): Typed => {
      if (arr.array === undefined) throw new NotOnGpu('an element read of a number');
      // An exact integer index (the map index and what it computes), or an f32 one (exact below 2^24, checked above).
      if (index.type === 'f32' && index.int) {
        const j = index.int.code;
        return { code: `select(0.0, ${arr.array}[u32(max(${j}, 0))], ${j} >= 0 && u32(${j}) < ${arr.len})`, type: 'f32' };
      }
      const j = num(index);
      lines.push(`if ${f32IndexAmbiguous(j, arr.len)} { ${this.failCheck(AMBIGUOUS_INDEX, -1)} }`);
      // Computed in f32 from an integer that may have rounded on the way (i / 2 at i ≥ 2^24).
      if (index.rounds) lines.push(`if ${roundedSource(index.rounds)} { ${this.failCheck(AMBIGUOUS_INDEX, -1)} }`);
      return { code: `select(0.0, ${arr.array}[u32(max(${j}, 0.0))], ${f32IndexIn(j, arr.len)})`, type: 'f32' };
    };
    const evalExpr = (e: Expr): Local[] => {
      switch (e.tag) {
        case 'ret':
          return [...e.nl, ...e.lin].map(get);
        case 'var':
          return [get(e.name)];
        case 'lit':
          if (typeof e.value === 'string') throw new NotOnGpu('a string inside a map or reduction body');
          if (typeof e.value === 'boolean') return [{ code: String(e.value), type: 'bool', bound: undefined }];
          return [
            {
              code: wgslNumber(e.value),
              type: 'f32',
              bound: new Set([this.lit(e.value)]),
              ...(Number.isInteger(e.value) && Math.abs(e.value) <= MAX_ELEMENTS ? { int: { code: `${e.value}`, max: Math.abs(e.value) } } : {}),
            },
          ];
        case 'drop':
          return [];
        case 'dup':
          return [get(e.name), get(e.name)];
        case 'prim':
        case 'lprim': {
          const args = (e.tag === 'prim' ? e.args : [...e.nl, ...e.lin]).map((a) => scalar(a, `the primitive '${e.op}'`));
          const rule = (e.tag === 'prim' ? WGSL_PRIMS : WGSL_LIN_PRIMS)[e.op];
          if (!rule) throw new NotOnGpu(`the primitive '${e.op}'`);
          const bound = SELECTING[e.op]?.(args.map((a) => a.bound));
          if (e.tag === 'prim') {
            // Index arithmetic stays exact in i32 (indices.ts); its f32 value is the integer's.
            const ints = args.every((a) => a.type === 'f32' && a.int) ? INT_PRIMS[e.op]?.(args.map((a) => a.int!)) : undefined;
            if (ints) return [bindInt(ints, bound)];
            const compared = intComparison(e.op, args, () => this.failCheck(AMBIGUOUS_INDEX, -1));
            if (compared) {
              lines.push(...compared.lines);
              return [bindLet({ code: compared.code, type: 'bool' }, undefined)];
            }
          }
          return [bindLet(rule(args), bound, roundsOf(args))];
        }
        case 'construct': {
          const ops = [...e.nl, ...e.lin];
          if (e.op === 'len' && ops.length === 1) {
            const a = get(ops[0]);
            if (a.array === undefined) throw new NotOnGpu('the length of a number');
            return [bindInt({ code: `i32(${a.len})`, max: MAX_ELEMENTS }, undefined)];
          }
          // index(a, j), lindex(j ; a), lindex(j, w ; a): a read that gives 0 outside a's elements.
          // An element of a tainted array (Arr.taint) carries the taint.
          const taintOf = (a: Local) => (a.array !== undefined && a.taint !== undefined ? [tainted(a.taint)] : undefined);
          if (e.op === 'index' && ops.length === 2) return [bindLet(read(get(ops[0]), scalar(ops[1], 'an index')), get(ops[0]).bound, taintOf(get(ops[0])))];
          if (e.op === 'lindex' && (ops.length === 2 || ops.length === 3)) return [bindLet(read(get(ops[ops.length - 1]), scalar(ops[0], 'an index')), undefined, taintOf(get(ops[ops.length - 1])))];
          throw new NotOnGpu(`the construct '${e.op}' inside a map or reduction body`);
        }
        case 'block':
          throw new NotOnGpu('a nested block inside a map or reduction body');
        default:
          throw new NotOnGpu(`a ${e.tag} inside a map or reduction body`);
      }
    };
    for (const s of l.body.stmts) {
      if (s.tag === 'unpack') throw new NotOnGpu('a tuple inside a map or reduction body');
      const vals = evalExpr(s.rhs);
      [...s.nl, ...s.lin].forEach((bd, i) => env.set(bd.name, vals[i]));
    }
    return { lines, results: evalExpr(l.body.result) };
  }
}

const sameGuards = (a: readonly Guard[], b: readonly Guard[]) => a.length === b.length && a.every((g, i) => g.slot === b[i].slot && g.when === b[i].when);

function bindIn(list: number[]): KernelArrays {
  return {
    bind(id) {
      let k = list.indexOf(id);
      if (k < 0) {
        list.push(id);
        k = list.length - 1;
      }
      return `A${k}`;
    },
  };
}

export interface GpuTarget {
  readonly where: string;
  /** The parameters' names as the user wrote them. */
  readonly paramNames: readonly string[];
  /** Per parameter, its fields' names when it is an object (an IR tuple of numbers and arrays). */
  readonly fields?: readonly (readonly string[] | undefined)[];
  /** For each result, the parameter whose length an array result takes (a gradient's), if any. */
  readonly likes: readonly (number | undefined)[];
  readonly tuple: boolean;
}

/** The device program of `def` (its types annotated). */
export function lowerToGpu(def: FnDef, target: GpuTarget): GpuProgram {
  const L = new Lowering();
  const env: Env = new Map();
  const matrixDims = new Map<number, [number, number]>();
  // An object parameter's fields are parameters of their own to the runtime (objects.ts): `flat` counts them.
  let flat = 0;
  /** Per parameter, the flat index of each field (an object) or of itself. */
  const flatOf: number[][] = [];
  const leaf = (t: Type | undefined): { value: Val; kind: 'number' | 'array' } | undefined => {
    const k = flat++;
    if (t?.tag === 'real') return { value: L.hostNum(L.reg({ op: 'arg', param: k })), kind: 'number' };
    if (t?.tag === 'array' && t.elem.tag === 'real') {
      const len = L.reg({ op: 'len', param: k });
      return { value: { kind: 'arr', id: L.newArray(len, k), len, elemBound: undefined }, kind: 'array' };
    }
    flat--;
    return undefined;
  };
  const params = def.nlParams.map((p, k): GpuProgram['params'][number] => {
    const name = target.paramNames[k] ?? p.name;
    const fields = target.fields?.[k];
    if (fields && p.type?.tag === 'tuple' && p.type.elems.length === fields.length) {
      const first = flat;
      const leaves = p.type.elems.map((t) => leaf(t));
      if (leaves.every((l) => l !== undefined)) {
        flatOf[k] = leaves.map((_, j) => first + j);
        env.set(p.name, { kind: 'tup', elems: leaves.map((l) => l!.value) });
        return { name, kind: 'object', fields: leaves.map((l, j) => ({ name: fields[j], kind: l!.kind })) };
      }
    }
    flatOf[k] = [flat];
    const one = leaf(p.type);
    if (one) {
      env.set(p.name, one.value);
      return { name, kind: one.kind };
    }
    if (isMatrixType(p.type)) {
      const m = flat++;
      const len = L.reg({ op: 'len', param: m });
      const rows = L.reg({ op: 'dim', param: m, axis: 0 });
      const cols = L.reg({ op: 'dim', param: m, axis: 1 });
      const data: Arr = { kind: 'arr', id: L.newArray(len, m), len, elemBound: undefined };
      env.set(p.name, { kind: 'tup', elems: [data, L.hostNum(rows), L.hostNum(cols)] });
      matrixDims.set(m, [rows, cols]);
      return { name, kind: 'matrix' as const };
    }
    throw new NotOnGpu(`the parameter '${name}' (only numbers, arrays of numbers, matrices and objects of numbers and arrays are on the GPU yet)`);
  });
  if (def.linParams.length > 0) throw new NotOnGpu('linear parameters');
  const results = L.block(def.body, env);
  L.flush();
  resolveJoined(L.steps, (args) => L.reg({ op: 'max', args }));
  const specs: ResultSpec[] = results.map((r, j) => {
    const like = target.likes[j];
    if (r.kind === 'num') return { kind: 'scalar', slot: L.slotOf(r) };
    if (r.kind === 'arr') return like === undefined ? { kind: 'array', array: r.id } : { kind: 'array', array: r.id, like: flatOf[like][0] };
    // A gradient with respect to an object: its fields, each as long as the parameter's.
    const fields = like !== undefined ? target.fields?.[like] : undefined;
    if (r.kind === 'tup' && fields && r.elems.length === fields.length) {
      return {
        kind: 'object',
        fields: r.elems.map((x, f): [string, ResultSpec] => {
          if (x.kind === 'num') return [fields[f], { kind: 'scalar', slot: L.slotOf(x) }];
          if (x.kind === 'arr') return [fields[f], { kind: 'array', array: x.id, like: flatOf[like!][f] }];
          throw new NotOnGpu('a gradient field that is not a number or an array of numbers');
        }),
      };
    }
    if (r.kind === 'tup' && r.elems.length === 3) {
      const [data, rows, cols] = r.elems;
      // A gradient is shaped like its matrix parameter (its dimensions' own cotangents are 0).
      const dims = like !== undefined ? matrixDims.get(flatOf[like][0]) : undefined;
      if (data.kind === 'arr' && dims) return { kind: 'matrix', array: data.id, rows: dims[0], cols: dims[1] };
      if (data.kind === 'arr' && rows.kind === 'num' && cols.kind === 'num' && rows.reg !== undefined && cols.reg !== undefined)
        return { kind: 'matrix', array: data.id, rows: rows.reg, cols: cols.reg };
    }
    throw new NotOnGpu('a result that is not a number, an array of numbers or a matrix');
  });
  const arrays: ArraySpec[] = L.arrays;
  return {
    where: target.where,
    params,
    registers: L.registers,
    host: L.host,
    slots: Math.max(L.slots, 1),
    uploads: L.uploads,
    counts: L.counts,
    arrays,
    kernels: L.kernels,
    steps: L.steps,
    results: specs,
    ...(L.heapSlot !== undefined ? { heap: { slot: L.heapSlot } } : {}),
    ...(L.checkSlot !== undefined ? { checks: { slot: L.checkSlot, messages: L.checkMessages } } : {}),
    tuple: target.tuple,
  };
}

/** A matrix in the IR: (data: array<real>, rows: real, cols: real). */
function isMatrixType(t: Type | undefined): boolean {
  return t?.tag === 'tuple' && t.elems.length === 3 && t.elems[0].tag === 'array' && t.elems[0].elem.tag === 'real' && t.elems[1].tag === 'real' && t.elems[2].tag === 'real';
}

/** The def named `entry` of `program`, for lowerToGpu. */
export function gpuDef(program: Program, entry: string): FnDef {
  const def = program.defs.find((d) => d.name === entry);
  if (!def) throw new InternalError(`wgsl: no def '${entry}'`);
  return def;
}
