// The WGSL backend's lowering: one IR def (a marked function, or the value-and-gradient def of
// grad and valueAndGrad) to a GpuProgram (runtime/webgpu/plan.ts). Lengths are computed on the
// host before any kernel runs; every other number lives in a slot of the device's scalar buffer,
// arrays in buffers of their own. Elementwise maps become one fused kernel each, reductions a
// hierarchical reduce, scalar code between them one single-invocation kernel per run of
// statements, and a cond on a device value runs both branches' kernels, each under a guard on
// its predicate's slot. Anything else is not on the GPU yet: a NotOnGpu error naming it, which the
// compiler turns into a diagnostic at the call site.
import { Block, Expr, FnDef, InternalError, Lambda, Program, Type } from '../../ir/syntax';
import type { ArraySpec, DeviceStep, GpuProgram, HostStep, ResultSpec } from '../../../runtime/webgpu/plan';
import { Combine, Guard, atomicUpdate, gemmKernel, mapKernel, reduceFinal, reducePass, scalarKernel, scanPass } from './kernels';
import { Typed, WGSL_LIN_PRIMS, WGSL_PRIMS, WgslType, num } from './prims';

/** What keeps a program off the GPU; the message names it ("the construct 'scan'"). */
export class NotOnGpu extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotOnGpu';
  }
}

/** Host registers whose largest value bounds a number from above (an index, for a one-hot's length); undefined: unknown. */
type Bound = ReadonlySet<number> | undefined;

type Val =
  /** A number (a boolean as 0 or 1): known on the host (`reg`) or only on the device (`slot`). */
  | { readonly kind: 'num'; readonly reg?: number; readonly slot?: number; readonly bool: boolean; readonly bound: Bound }
  | { readonly kind: 'arr'; readonly id: number; readonly len: number; readonly elemBound: Bound }
  | { readonly kind: 'str'; readonly text: string }
  /** A tuple of values (a matrix is (data, rows, cols)). */
  | { readonly kind: 'tup'; readonly elems: readonly Val[] };
type Num = Extract<Val, { kind: 'num' }>;
type Arr = Extract<Val, { kind: 'arr' }>;
type Env = Map<string, Val>;

const union = (...bs: Bound[]): Bound => (bs.every((b) => b !== undefined) ? new Set(bs.flatMap((b) => [...b!])) : undefined);
const within = (b: Bound, of: Bound): boolean => b !== undefined && of !== undefined && [...b].every((r) => of.has(r));
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

export function wgslNumber(v: number): string {
  if (Number.isNaN(v)) return 'tsad_nan()';
  const r = Math.fround(v);
  if (r === Infinity) return 'tsad_inf()';
  if (r === -Infinity) return '(-tsad_inf())';
  const s = String(r);
  return /[.e]/.test(s) ? s : `${s}.0`;
}

/** A value inside a kernel body: WGSL text, or an invariant array bound to the kernel. */
type Local = (Typed & { readonly bound: Bound; readonly array?: undefined }) | { readonly array: string; readonly lenSlot: number; readonly bound: Bound };

interface KernelArrays {
  /** The kernel's binding name of an array of the program. */
  bind(id: number): string;
}

class Lowering {
  readonly host: HostStep[] = [];
  registers = 0;
  slots = 0;
  readonly uploads: [number, number][] = [];
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
    const p = (this.pending ??= { lines: [], arrays: [], guards: [...this.guards] });
    p.lines.push(line(bindIn(p.arrays)));
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
    this.elementwiseOver(this.slotOfReg(count), body).threads = count;
  }

  /** An elementwise kernel whose count is in `countSlot`; the caller sets its step's `threads` register. */
  elementwiseOver(countSlot: number, body: (arrays: KernelArrays) => string[]): { threads: number } {
    const arrays: number[] = [];
    const lines = body(bindIn(arrays));
    const open = this.openMap;
    if (open && (this.steps[this.steps.length - 1] as object) === open.step && !this.pending && open.countSlot === countSlot && sameGuards(open.guards, this.guards)) {
      const merged = fuseBodies(open, arrays, lines);
      if (merged) {
        open.arrays.splice(0, open.arrays.length, ...merged.arrays);
        open.lines = merged.lines;
        this.kernels[open.step.kernel] = mapKernel(open.arrays.length, countSlot, open.guards, open.lines);
        return open.step;
      }
    }
    const kernel = mapKernel(arrays.length, countSlot, this.guards, lines);
    const step = { op: 'map' as const, kernel: -1, threads: -1, arrays };
    this.device((k) => Object.assign(step, { kernel: k }), kernel);
    this.openMap = { step, countSlot, guards: [...this.guards], arrays, lines };
    return step;
  }

  /**
   * An elementwise kernel over `count` that updates `target` through atomics (a scatter): its
   * own kernel, never fused (the target's binding is declared atomic).
   */
  atomicElementwise(count: number, target: number, body: (arrays: KernelArrays, atomic: string) => string[]): void {
    const arrays: number[] = [target];
    const lines = body(bindIn(arrays), 'A0');
    const kernel = mapKernel(arrays.length, this.slotOfReg(count), this.guards, lines, 0);
    this.device((k) => ({ op: 'map', kernel: k, threads: count, arrays }), kernel);
    this.openMap = undefined;
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
        const rule = (e.tag === 'prim' ? WGSL_PRIMS : WGSL_LIN_PRIMS)[e.op];
        if (!rule) throw new NotOnGpu(`the primitive '${e.op}'`);
        const r = rule(nums.map((a) => this.load(a)));
        const slot = this.newSlot();
        this.scalarLine(() => `S[${slot}] = ${num(r)};`);
        return [{ kind: 'num', slot, bool: r.type === 'bool', bound: SELECTING[e.op]?.(nums.map((a) => a.bound)) }];
      }
      case 'construct': {
        const rule = CONSTRUCTS[e.op];
        if (!rule) throw new NotOnGpu(`the construct '${e.op}'`);
        return rule(this, e, e.nl.map(get), e.lin.map(get), env);
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
    const scalar = (n: string, what: string): Typed & { bound: Bound } => {
      const v = get(n);
      if (v.array !== undefined) throw new NotOnGpu(`${what} of an array inside a map or reduction body`);
      return v;
    };
    const bindLet = (t: Typed, bound: Bound): Local => {
      const name = this.name('v');
      lines.push(`let ${name}: ${t.type} = ${t.code};`);
      return { code: name, type: t.type, bound };
    };
    const read = (arr: Local, index: Typed & { bound: Bound }): Typed => {
      if (arr.array === undefined) throw new NotOnGpu('an element read of a number');
      const j = num(index);
      return { code: `select(0.0, ${arr.array}[u32(${j})], ${j} >= 0.0 && ${j} < S[${arr.lenSlot}])`, type: 'f32' };
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
          return [{ code: wgslNumber(e.value), type: 'f32', bound: new Set([this.lit(e.value)]) }];
        case 'drop':
          return [];
        case 'dup':
          return [get(e.name), get(e.name)];
        case 'prim':
        case 'lprim': {
          const args = (e.tag === 'prim' ? e.args : [...e.nl, ...e.lin]).map((a) => scalar(a, `the primitive '${e.op}'`));
          const rule = (e.tag === 'prim' ? WGSL_PRIMS : WGSL_LIN_PRIMS)[e.op];
          if (!rule) throw new NotOnGpu(`the primitive '${e.op}'`);
          return [bindLet(rule(args), SELECTING[e.op]?.(args.map((a) => a.bound)))];
        }
        case 'construct': {
          const ops = [...e.nl, ...e.lin];
          if (e.op === 'len' && ops.length === 1) {
            const a = get(ops[0]);
            if (a.array === undefined) throw new NotOnGpu('the length of a number');
            return [bindLet({ code: `S[${a.lenSlot}]`, type: 'f32' }, undefined)];
          }
          // index(a, j), lindex(j ; a), lindex(j, w ; a): a read that gives 0 outside a's elements.
          if (e.op === 'index' && ops.length === 2) return [bindLet(read(get(ops[0]), scalar(ops[1], 'an index')), get(ops[0]).bound)];
          if (e.op === 'lindex' && (ops.length === 2 || ops.length === 3)) return [bindLet(read(get(ops[ops.length - 1]), scalar(ops[0], 'an index')), undefined)];
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

interface OpenMap {
  readonly step: { op: 'map'; kernel: number; threads: number; arrays: number[] };
  readonly countSlot: number;
  readonly guards: readonly Guard[];
  readonly arrays: number[];
  lines: string[];
}

/** Storage bindings a fused kernel may take: the scalar slots and 7 arrays (WebGPU's default limit is 8). */
const MAX_FUSED_ARRAYS = 7;

/**
 * Consecutive elementwise kernels over the same count and guards as one kernel: the second's
 * lines after the first's, its bindings renamed into the first's list. Sound when the second
 * reads what the first wrote only at its own index `i` (each invocation then reads its own
 * write); any other read of such an array (a gather) keeps two kernels, as does a binding count
 * past the limit.
 */
function fuseBodies(open: OpenMap, arrays: readonly number[], lines: readonly string[]): { arrays: number[]; lines: string[] } | undefined {
  const written = new Set<number>();
  for (const l of open.lines) for (const m of l.matchAll(/^A(\d+)\[i\] = /g)) written.add(open.arrays[Number(m[1])]);
  const merged = [...open.arrays];
  const rename = arrays.map((id) => {
    let k = merged.indexOf(id);
    if (k < 0) {
      merged.push(id);
      k = merged.length - 1;
    }
    return k;
  });
  if (merged.length > MAX_FUSED_ARRAYS) return undefined;
  for (const l of lines) {
    for (const m of l.matchAll(/\bA(\d+)(\[i\])?/g)) {
      if (written.has(arrays[Number(m[1])]) && m[2] === undefined) return undefined;
    }
  }
  const renamed = lines.map((l) => l.replace(/\bA(\d+)\b/g, (_, k) => `A${rename[Number(k)]}`));
  return { arrays: merged, lines: [...open.lines, ...renamed] };
}

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

const wgslType = (t: Type | undefined): WgslType => (t?.tag === 'bool' ? 'bool' : 'f32');

type ConstructLowering = (L: Lowering, e: Extract<Expr, { tag: 'construct' }>, nl: readonly Val[], lin: readonly Val[], env: Env) => Val[];

const asNum = (v: Val | undefined, what: string): Num => {
  if (v?.kind !== 'num') throw new NotOnGpu(`${what} that is not a number`);
  return v;
};
const asArr = (v: Val | undefined, what: string): Arr => {
  if (v?.kind !== 'arr') throw new NotOnGpu(`${what} that is not an array of numbers`);
  return v;
};
const hostLength = (v: Val | undefined, what: string): number => {
  const n = asNum(v, what);
  if (n.reg === undefined) throw new NotOnGpu(`${what} computed from array data (its length must be known before the kernels run)`);
  return n.reg;
};

/** A reduction of `inputs` with `combine` from the neutral elements `inits`, into new slots. */
function reduction(L: Lowering, c: Combine, inits: readonly Num[], inputs: readonly Arr[], n: number, bounds: readonly Bound[]): Val[] {
  const outs = inits.map(() => L.newSlot());
  const first = reducePass(
    c,
    true,
    inputs.map((a) => L.slotOfReg(a.len)),
  );
  const next = reducePass(c, false, []);
  const final = reduceFinal(
    c,
    inits.map((v) => `S[${L.slotOf(v)}]`),
    outs,
    L.guarded,
  );
  L.device((k) => ({ op: 'reduce', first: k, next: k + 1, final: k + 2, k: c.k, n, inputs: inputs.map((a) => a.id) }), first, next, final);
  return outs.map((slot, j) => ({ kind: 'num', slot, bool: false, bound: bounds[j] }));
}

const SUM: Combine = { k: 1, lines: [], results: ['(a0 + b0)'] };

/** An array of `count` elements, each `element(i)` (WGSL, reading the index `i`). */
function filled(L: Lowering, count: number, elemBound: Bound, element: (arrays: KernelArrays) => string): Arr {
  const id = L.newArray(count);
  L.elementwise(count, (arrays) => [`${arrays.bind(id)}[i] = ${element(arrays)};`]);
  return { kind: 'arr', id, len: count, elemBound };
}

function mapLowering(L: Lowering, e: Extract<Expr, { tag: 'construct' }>, nl: readonly Val[], lin: readonly Val[]): Val[] {
  if (lin.length > 0) throw new NotOnGpu(`a linear ${e.op}`);
  const [nVal, ...operands] = nl;
  const count = hostLength(nVal, `a ${e.op} over a length`);
  const body = e.bodies[0];
  const hasIndex = body.nlParams.length === nl.length;
  const params = body.nlParams.slice(hasIndex ? 1 : 0);
  const last = hasIndex ? L.reg({ op: 'sub', args: [count, L.lit(1)] }) : undefined;
  const outs: Arr[] = [];
  L.elementwise(count, (k) => {
    const locals: Local[] = [];
    const loads: string[] = [];
    if (last !== undefined) locals.push({ code: 'f32(i)', type: 'f32', bound: new Set([last]) });
    operands.forEach((o, j) => {
      const pType = params[j]?.type;
      if (o.kind === 'num') locals.push({ ...L.load(o), bound: o.bound });
      else if (o.kind === 'arr' && pType?.tag === 'array') locals.push({ array: k.bind(o.id), lenSlot: L.slotOfReg(o.len), bound: o.elemBound });
      else if (o.kind === 'arr') {
        // A mapped array of reals may be shorter than n (a sparse tangent): past its end, 0.
        // Read once per invocation, however often the body uses it.
        const x = L.name('x');
        loads.push(`let ${x}: f32 = select(0.0, ${k.bind(o.id)}[i], i < u32(S[${L.slotOfReg(o.len)}]));`);
        locals.push(wgslType(pType) === 'bool' ? { code: `(${x} != 0.0)`, type: 'bool', bound: o.elemBound } : { code: x, type: 'f32', bound: o.elemBound });
      } else throw new NotOnGpu(`a string operand of ${e.op}`);
    });
    const { lines, results } = L.body(body, locals);
    const writes = results.map((r) => {
      if (r.array !== undefined) throw new NotOnGpu(`a ${e.op} whose elements are arrays`);
      const id = L.newArray(count);
      outs.push({ kind: 'arr', id, len: count, elemBound: r.bound });
      return `${k.bind(id)}[i] = ${num(r)};`;
    });
    return [...loads, ...lines, ...writes];
  });
  return outs;
}

function reduceLowering(L: Lowering, e: Extract<Expr, { tag: 'construct' }>, nl: readonly Val[], lin: readonly Val[]): Val[] {
  if (lin.length > 0) throw new NotOnGpu(`a linear ${e.op}`);
  const [nVal, ...rest] = nl;
  const n = hostLength(nVal, `a ${e.op} over a length`);
  const body = e.bodies[0];
  const k = rest.length / 2;
  const results = body.body.result;
  const inits = rest.slice(0, k).map((v) => asNum(v, 'a neutral element'));
  const xs = rest.slice(k).map((v) => asArr(v, `an operand of ${e.op}`));
  // Bounds of the accumulators: sound when each result of the operator is bounded by what it got.
  const accBounds = inits.map((v, j) => union(v.bound, xs[j].elemBound));
  const bounded = L.body(body, [...accBounds.map((b) => ({ code: '0.0', type: 'f32' as const, bound: b })), ...xs.map((x) => ({ code: '0.0', type: 'f32' as const, bound: x.elemBound }))]);
  const params = [
    ...Array.from({ length: k }, (_, j) => ({ code: `a${j}`, type: 'f32' as const, bound: undefined })),
    ...Array.from({ length: k }, (_, j) => ({ code: `b${j}`, type: 'f32' as const, bound: undefined })),
  ];
  const { lines, results: rs } = L.body(body, params);
  if (rs.length !== k || results.tag !== 'ret') {
    // Per-element outputs (a general reduction's residuals) read the accumulator before each
    // element: a scan, whose last elements are the reduction.
    const scanned = scanOf(L, inits, xs, n, body);
    const last = L.reg({ op: 'sub', args: [n, L.lit(1)] });
    const totals = scanned.slice(0, k).map((y, j) => {
      const slot = L.newSlot();
      const at = L.slotOfReg(last);
      L.scalarLine((arrays) => `S[${slot}] = select(S[${L.slotOf(inits[j])}], ${arrays.bind(y.id)}[u32(max(S[${at}], 0.0))], S[${at}] >= 0.0);`);
      return { kind: 'num' as const, slot, bool: false, bound: undefined };
    });
    return [...totals, ...scanned.slice(k)];
  }
  const c: Combine = { k, lines, results: rs.map((r) => num(r as Typed)) };
  const bounds = accBounds.map((b, j) => (within(bounded.results[j]?.bound, b) ? b : undefined));
  return reduction(L, c, inits, xs, n, bounds);
}

/** The hierarchical scan of `xs` from `inits` with `body` (k accumulators, then per-element outputs): k scanned arrays, then the outputs. */
function scanOf(L: Lowering, inits: readonly Num[], xs: readonly Arr[], n: number, body: Lambda): Arr[] {
  const k = inits.length;
  const params = [
    ...Array.from({ length: k }, (_, j) => ({ code: `a${j}`, type: 'f32' as const, bound: undefined })),
    ...Array.from({ length: k }, (_, j) => ({ code: `b${j}`, type: 'f32' as const, bound: undefined })),
  ];
  const { lines, results } = L.body(body, params);
  if (results.some((r) => r.array !== undefined || r.type !== 'f32')) throw new NotOnGpu('a scan whose body returns arrays or booleans');
  const codes = results.map((r) => num(r as Typed));
  const c: Combine = { k, lines, results: codes.slice(0, k) };
  return scanWith(
    L,
    c,
    { lines, results: codes },
    inits.map((v) => `S[${L.slotOf(v)}]`),
    xs,
    n,
  );
}

function scanWith(L: Lowering, c: Combine, step: { lines: readonly string[]; results: readonly string[] }, inits: readonly string[], xs: readonly Arr[], n: number): Arr[] {
  const outs: Arr[] = step.results.map(() => ({ kind: 'arr', id: L.newArray(n), len: n, elemBound: undefined }));
  const first = reducePass(
    c,
    true,
    xs.map((a) => L.slotOfReg(a.len)),
  );
  const next = reducePass(c, false, []);
  const level = scanPass(c, true, [], [], undefined);
  const final = scanPass(
    c,
    false,
    xs.map((a) => L.slotOfReg(a.len)),
    inits,
    step,
  );
  L.device((kk) => ({ op: 'scan', first: kk, next: kk + 1, level: kk + 2, final: kk + 3, k: c.k, n, inputs: xs.map((a) => a.id), outputs: outs.map((o) => o.id) }), first, next, level, final);
  return outs;
}

function scanLowering(L: Lowering, e: Extract<Expr, { tag: 'construct' }>, nl: readonly Val[], lin: readonly Val[]): Val[] {
  if (lin.length > 0) throw new NotOnGpu(`a linear ${e.op}`);
  const [nVal, ...rest] = nl;
  const n = hostLength(nVal, `a ${e.op} over a length`);
  const k = rest.length / 2;
  const inits = rest.slice(0, k).map((v) => asNum(v, 'a neutral element'));
  const xs = rest.slice(k).map((v) => asArr(v, `an operand of ${e.op}`));
  return scanOf(L, inits, xs, n, e.bodies[0]);
}

/** The composition of affine maps y ↦ a·y + b, earlier on the left: (a0, a1) then (b0, b1). */
const AFFINE: Combine = { k: 2, lines: [], results: ['(b0 * a0)', '(b0 * a1 + b1)'] };

/**
 * The linear recurrences of scan and reduce (constructs/array/linearFold.ts), erased, on one
 * accumulator: each step y ↦ B_i(y, ẋ_i) is affine in the carried value, so its coefficients
 * (a_i = B_i(1, 0), b_i = B_i(0, ẋ_i)) come from one map kernel, the composition of the steps is a
 * scan of affine maps (the parallel form of the recurrence), and the transposes run the same over
 * the reversed index. More accumulators (k × k coefficients) are not on the GPU yet.
 */
function recurrenceLowering(forward: boolean, collect: boolean): ConstructLowering {
  return (L, e, nl, lin) => {
    if (lin.length > 0) throw new NotOnGpu(`a linear ${e.op} with linear operands`);
    const body = e.bodies[0];
    const results = body.body.result.tag === 'ret' ? body.body.result.nl.length + body.body.result.lin.length : -1;
    const k = forward ? results : results / 2;
    if (k !== 1) throw new NotOnGpu(`the linear recurrence '${e.op}' on ${k} accumulators (one is on the GPU)`);
    const n = hostLength(nl[0], `a ${e.op} over a length`);
    const linear = forward ? 2 : 1;
    const residuals = nl.slice(1, nl.length - linear).map((v) => asArr(v, `a residual of ${e.op}`));
    const lastOps = nl.slice(nl.length - linear);
    // Element `index` (WGSL u32) of an array operand, 0 past its end (sparse tangents).
    const elem = (arrays: KernelArrays, a: Arr, index: string): Typed & { bound: Bound } => ({
      code: `select(0.0, ${arrays.bind(a.id)}[${index}], ${index} < u32(S[${L.slotOfReg(a.len)}]))`,
      type: 'f32',
      bound: undefined,
    });
    const lit = (code: string): Typed & { bound: Bound } => ({ code, type: 'f32', bound: undefined });
    const evalBody = (arrays: KernelArrays, index: string, rest: Local[]) => {
      const sParams = residuals.map((r) => elem(arrays, r, index));
      return L.body(body, [...sParams, ...rest]);
    };
    const a = L.newArray(n);
    const b = L.newArray(n);
    const nSlot = L.slotOfReg(n);
    if (forward) {
      const c0 = asNum(lastOps[0], `the start of ${e.op}`);
      const xdot = asArr(lastOps[1], `the tangents of ${e.op}`);
      L.elementwise(n, (arrays) => {
        const one = evalBody(arrays, 'i', [lit('1.0'), lit('0.0')]);
        const inc = evalBody(arrays, 'i', [lit('0.0'), elem(arrays, xdot, 'i')]);
        return [...one.lines, ...inc.lines, `${arrays.bind(a)}[i] = ${num(one.results[0] as Typed)};`, `${arrays.bind(b)}[i] = ${num(inc.results[0] as Typed)};`];
      });
      const aArr: Arr = { kind: 'arr', id: a, len: n, elemBound: undefined };
      const bArr: Arr = { kind: 'arr', id: b, len: n, elemBound: undefined };
      const [, ys] = scanWith(L, AFFINE, { lines: [], results: AFFINE.results }, ['1.0', `S[${L.slotOf(c0)}]`], [aArr, bArr], n);
      if (collect) return [ys];
      return [lastOf(L, ys, n, c0)];
    }
    // Backward: u_i, the cotangent entering step i, is ȳ_i + a_{i+1}·u_{i+1} (lrscan; u_{n−1} = ȳ_{n−1})
    // or a_{i+1}·u_{i+1} from u_{n−1} = ȳ (lrfold): a forward affine scan over j = n − 1 − i.
    const ybar = lastOps[0];
    const start = collect ? L.hostNum(L.lit(0)) : asNum(ybar, `the cotangent of ${e.op}`);
    L.elementwise(n, (arrays) => {
      const next = `(${`u32(S[${nSlot}])`} - i)`; // i + 1 in the original order
      const one = evalBody(arrays, next, [lit('1.0')]);
      const add = collect ? `${elem(arrays, asArr(ybar, `the cotangents of ${e.op}`), `(u32(S[${nSlot}]) - 1u - i)`).code}` : '0.0';
      return [...one.lines, `${arrays.bind(a)}[i] = select(${num(one.results[0] as Typed)}, 1.0, i == 0u);`, `${arrays.bind(b)}[i] = ${add};`];
    });
    const aArr: Arr = { kind: 'arr', id: a, len: n, elemBound: undefined };
    const bArr: Arr = { kind: 'arr', id: b, len: n, elemBound: undefined };
    const [, us] = scanWith(L, AFFINE, { lines: [], results: AFFINE.results }, ['1.0', `S[${L.slotOf(start)}]`], [aArr, bArr], n);
    // Each step's transposed body at its u_i: the carried cotangent out (ē at i = 0) and x̄_i.
    const carried = L.newArray(n);
    const xbar = L.newArray(n);
    L.elementwise(n, (arrays) => {
      const u = `${arrays.bind(us.id)}[u32(S[${nSlot}]) - 1u - i]`;
      const r = evalBody(arrays, 'i', [lit(u)]);
      return [...r.lines, `${arrays.bind(carried)}[i] = ${num(r.results[0] as Typed)};`, `${arrays.bind(xbar)}[i] = ${num(r.results[1] as Typed)};`];
    });
    const ebar = L.newSlot();
    L.scalarLine((arrays) => `S[${ebar}] = select(S[${L.slotOf(start)}], ${arrays.bind(carried)}[0], S[${nSlot}] > 0.0);`);
    return [
      { kind: 'num', slot: ebar, bool: false, bound: undefined },
      { kind: 'arr', id: xbar, len: n, elemBound: undefined },
    ];
  };
}

/** The last element of `ys` (n long), or `empty` when n = 0. */
function lastOf(L: Lowering, ys: Arr, n: number, empty: Num): Num {
  const slot = L.newSlot();
  const nSlot = L.slotOfReg(n);
  L.scalarLine((arrays) => `S[${slot}] = select(S[${L.slotOf(empty)}], ${arrays.bind(ys.id)}[u32(max(S[${nSlot}] - 1.0, 0.0))], S[${nSlot}] > 0.0);`);
  return { kind: 'num', slot, bool: false, bound: undefined };
}

function condLowering(L: Lowering, e: Extract<Expr, { tag: 'construct' }>, nl: readonly Val[], lin: readonly Val[], env: Env): Val[] {
  if (lin.length > 0 || e.bodies.length !== 2) throw new NotOnGpu('a cond with linear operands or more than two branches');
  const [predVal, ...operands] = nl;
  const pred = asNum(predVal, 'a condition');
  const slot = L.slotOf(pred);
  type Out = { kind: 'num'; slot: number; bounds: Bound[] } | { kind: 'arr'; id: number; lenSlot: number; lens: number[]; bounds: Bound[]; copies: { threads: number }[] };
  let outs: Out[] | undefined;
  // A branch the GPU cannot run yet, under a test known on the host (a length comparison: the
  // CPU path's gather of a longer array's first n elements), is a run-time error where it is
  // taken, checked before any kernel runs; the other branch gives the results.
  const refused: (NotOnGpu | undefined)[] = [];
  e.bodies.forEach((branch, b) => {
    try {
      lowerBranch(branch, b);
    } catch (err) {
      if (!(err instanceof NotOnGpu) || pred.reg === undefined || refused.length > 0) throw err;
      refused[b] = err;
    }
  });
  if (outs === undefined) throw refused.find((r) => r !== undefined) ?? new NotOnGpu('a cond');
  refused.forEach((err, b) => {
    if (!err) return;
    // Branch 0 runs where the test is 1: refuse 1 ≤ test; branch 1 where it is 0: refuse test < 1.
    const [a, limit] = b === 0 ? [pred.reg!, L.lit(0)] : [L.lit(1), pred.reg!];
    L.reg({ op: 'atmost', a, b: limit, message: `tsad/webgpu: ${err.message} is not on the GPU yet; this call needs it` });
  });
  return finish();

  function lowerBranch(branch: (typeof e.bodies)[number], b: number): void {
    L.withGuard({ slot, when: b === 0 }, () => {
      const inner = new Map(env);
      branch.nlParams.forEach((p, i) => inner.set(p.name, operands[i]));
      const rs = L.block(branch.body, inner);
      outs ??= rs.map((r) =>
        r.kind === 'num'
          ? { kind: 'num', slot: L.newSlot(), bounds: [] }
          : r.kind === 'arr'
            ? { kind: 'arr', id: L.newArray(-1), lenSlot: L.newSlot(), lens: [], bounds: [], copies: [] }
            : fail('a cond that returns a string'),
      );
      rs.forEach((r, j) => {
        const o = outs![j];
        if (o.kind === 'num' && r.kind === 'num') {
          o.bounds.push(r.bound);
          L.scalarLine(() => `S[${o.slot}] = ${num(L.load(r))};`);
        } else if (o.kind === 'arr' && r.kind === 'arr') {
          o.lens.push(r.len);
          o.bounds.push(r.elemBound);
          const src = L.slotOfReg(r.len);
          // Over the output's length (known once both branches are lowered): past the branch's
          // result, zeros (a shorter sparse tangent).
          o.copies.push(L.elementwiseOver(o.lenSlot, (k) => [`${k.bind(o.id)}[i] = select(0.0, ${k.bind(r.id)}[i], i < u32(S[${src}]));`]));
        } else fail('a cond whose branches return different kinds of values');
      });
    });
  }

  function finish(): Val[] {
    return outs!.map((o) => {
      if (o.kind === 'num') return { kind: 'num', slot: o.slot, bool: false, bound: union(...o.bounds) };
      const len = L.reg({ op: 'max', args: o.lens });
      L.arrays[o.id].length = len;
      L.uploads.push([len, o.lenSlot]);
      for (const c of o.copies) c.threads = len;
      return { kind: 'arr', id: o.id, len, elemBound: union(...o.bounds) };
    });
  }
}

function fail(what: string): never {
  throw new NotOnGpu(what);
}

const CONSTRUCTS: Readonly<Record<string, ConstructLowering>> = {
  len: (_L, _e, [a]) => {
    const arr = asArr(a, 'the length of a value');
    return [{ kind: 'num', reg: arr.len, bool: false, bound: new Set([arr.len]) }];
  },
  atmost: (L, _e, [n, limit, what]) => {
    const a = hostLength(n, 'a length check');
    const b = hostLength(limit, 'a length check');
    return [L.hostNum(L.reg({ op: 'atmost', a, b, message: what?.kind === 'str' ? what.text : 'tsad: array lengths differ' }))];
  },
  map: mapLowering,
  smap: mapLowering,
  reduce: reduceLowering,
  sreduce: reduceLowering,
  scan: scanLowering,
  sscan: scanLowering,
  lscan: recurrenceLowering(true, true),
  lfold: recurrenceLowering(true, false),
  lrscan: recurrenceLowering(false, true),
  lrfold: recurrenceLowering(false, false),
  sum: (L, _e, [a]) => {
    const arr = asArr(a, 'a sum');
    return reduction(L, SUM, [L.hostNum(L.lit(0))], [arr], arr.len, [undefined]);
  },
  lsum: (L, _e, [, a]) => {
    const arr = asArr(a, 'a sum');
    return reduction(L, SUM, [L.hostNum(L.lit(0))], [arr], arr.len, [undefined]);
  },
  fill: (L, _e, [n, x]) => {
    const v = asNum(x, 'a fill');
    return [filled(L, hostLength(n, 'a fill of a length'), v.bound, () => `S[${L.slotOf(v)}]`)];
  },
  lfill: (L, _e, [n, x]) => {
    const v = asNum(x, 'a fill');
    return [filled(L, hostLength(n, 'a fill of a length'), v.bound, () => `S[${L.slotOf(v)}]`)];
  },
  // e_i·y, i + 1 long: on the GPU as long as the largest i can be (trailing zeros are the same value).
  lonehot: (L, _e, nl) => {
    const i = asNum(nl[0], 'a one-hot index');
    const y = asNum(nl[nl.length - 1], 'a one-hot value');
    if (i.bound === undefined) throw new NotOnGpu('a one-hot at an index whose range is not known before the kernels run');
    const count = L.reg({ op: 'add', args: [L.reg({ op: 'max', args: [...i.bound] }), L.lit(1)] });
    return [filled(L, count, undefined, () => `select(0.0, S[${L.slotOf(y)}], f32(i) == S[${L.slotOf(i)}])`)];
  },
  // gather(w, idx): w at each index. An index outside w or not an integer is the CPU path's
  // RangeError: the kernel flags it (and writes 0), the call rejects after the readback.
  gather: (L, _e, [w, idx]) => {
    const a = asArr(w, 'a gather');
    const at = asArr(idx, 'the indices of a gather');
    const id = L.newArray(at.len);
    const lenSlot = L.slotOfReg(a.len);
    L.elementwise(at.len, (arrays) => {
      const j = `${arrays.bind(at.id)}[i]`;
      const ok = `(${j} >= 0.0 && ${j} < S[${lenSlot}] && ${j} == floor(${j}))`;
      const fail = L.failCheck('gather: an index is not an index of the array', a.len);
      return [`if (!${ok}) { ${fail} }`, `${arrays.bind(id)}[i] = select(0.0, ${arrays.bind(a.id)}[u32(max(${j}, 0.0))], ${ok});`];
    });
    return [{ kind: 'arr', id, len: at.len, elemBound: a.elemBound }];
  },
  matmul: (L, _e, [a, b, n, k, m]) => [gemm(L, 'matmul', asArr(a, 'a matrix product'), false, asArr(b, 'a matrix product'), false, n, k, m, 'nkm')],
  // lmatmul_xy(w, n, k, m ; u): role x's matrix u to role y's, w fixed (constructs/array/matmul.ts).
  lmatmul_ac: (L, _e, [w, n, k, m, u]) => [gemm(L, 'lmatmul_ac', asArr(u, 'a matrix product'), false, asArr(w, 'a matrix product'), false, n, k, m, 'nkm')],
  lmatmul_bc: (L, _e, [w, n, k, m, u]) => [gemm(L, 'lmatmul_bc', asArr(w, 'a matrix product'), false, asArr(u, 'a matrix product'), false, n, k, m, 'nkm')],
  lmatmul_ca: (L, _e, [w, n, k, m, u]) => [gemm(L, 'lmatmul_ca', asArr(u, 'a matrix product'), false, asArr(w, 'a matrix product'), true, n, k, m, 'nmk')],
  lmatmul_ba: (L, _e, [w, n, k, m, u]) => [gemm(L, 'lmatmul_ba', asArr(w, 'a matrix product'), false, asArr(u, 'a matrix product'), true, n, k, m, 'nmk')],
  lmatmul_cb: (L, _e, [w, n, k, m, u]) => [gemm(L, 'lmatmul_cb', asArr(w, 'a matrix product'), true, asArr(u, 'a matrix product'), false, n, k, m, 'knm')],
  lmatmul_ab: (L, _e, [w, n, k, m, u]) => [gemm(L, 'lmatmul_ab', asArr(u, 'a matrix product'), true, asArr(w, 'a matrix product'), false, n, k, m, 'knm')],
  // E of a dup of an array: the same buffer twice (kernels never write their operands).
  share: (_L, _e, [a]) => [asArr(a, 'a share'), a],
  lscatteradd: (L, _e, [n, idx, g]) => [scatterAdd(L, hostLength(n, 'a scatter-add of a length'), asArr(idx, 'the indices of a scatter-add'), asArr(g, 'a scatter-add'))],
  // lgather(n, idx ; ȧ): ȧ at each index, 0 past ȧ's end (a sparse tangent) or outside.
  lgather: (L, _e, [, idx, a]) => {
    const arr = asArr(a, 'a gather');
    const at = asArr(idx, 'the indices of a gather');
    return [
      filled(L, at.len, undefined, (arrays) => {
        const j = `${arrays.bind(at.id)}[i]`;
        return `select(0.0, ${arrays.bind(arr.id)}[u32(max(${j}, 0.0))], ${j} >= 0.0 && ${j} < S[${L.slotOfReg(arr.len)}])`;
      }),
    ];
  },
  reduceByIndex: reduceByIndexLowering,
  index: (L, _e, [a, j]) => elementRead(L, asArr(a, 'an element read'), asNum(j, 'an index')),
  lindex: (L, _e, nl) => elementRead(L, asArr(nl[nl.length - 1], 'an element read'), asNum(nl[0], 'an index')),
  cond: condLowering,
};

/**
 * ā = zeros(n), ā[idx_j] += ḡ_j: a compare-exchange loop on the f32 bits per element (WGSL has
 * integer atomics only). Chosen over sort then segmented reduce: one kernel and O(len idx) work
 * with no extra memory, where a sort is several passes over the indices; the cost is contention
 * on an index many elements share, and an order of the additions that varies run to run (f32
 * roundings: results differ in the last bits, within the sum tolerance). Indices outside 0…n−1
 * add nothing (the CPU path rejects them first).
 */
function scatterAdd(L: Lowering, n: number, idx: Arr, g: Arr): Arr {
  const out = filled(L, n, undefined, () => '0.0');
  const nSlot = L.slotOfReg(n);
  L.atomicElementwise(idx.len, out.id, (arrays, target) => {
    const j = `${arrays.bind(idx.id)}[i]`;
    return [
      `if (${j} >= 0.0 && ${j} < S[${nSlot}] && i < u32(S[${L.slotOfReg(g.len)}])) {`,
      ...atomicUpdate(target, `u32(${j})`, `${arrays.bind(g.id)}[i]`, (old, v) => `${old} + ${v}`).map((l) => `  ${l}`),
      '}',
    ];
  });
  return out;
}

/** The operators a histogram runs with atomics: commutative, so that any order gives the CPU's value. */
const HISTOGRAM_OPS: Readonly<Record<string, (a: string, b: string) => string>> = {
  add: (a, b) => `${a} + ${b}`,
  mul: (a, b) => `${a} * ${b}`,
  min: (a, b) => `min(${a}, ${b})`,
  max: (a, b) => `max(${a}, ${b})`,
};

/** The primitive of a body that is exactly `op(h, v)` or `op(v, h)` on its two parameters, if any. */
function binaryBodyOp(l: Lambda): string | undefined {
  const [h, v] = l.nlParams.map((p) => p.name);
  const [s] = l.body.stmts;
  const r = l.body.result;
  if (l.body.stmts.length !== 1 || s.tag !== 'let' || s.rhs.tag !== 'prim' || l.nlParams.length !== 2) return undefined;
  const args = [...s.rhs.args].sort();
  if (args.join() !== [h, v].sort().join() || r.tag !== 'ret' || r.nl.length !== 1 || r.nl[0] !== s.nl[0]?.name) return undefined;
  return s.rhs.op;
}

function reduceByIndexLowering(L: Lowering, e: Extract<Expr, { tag: 'construct' }>, nl: readonly Val[], lin: readonly Val[]): Val[] {
  const op = binaryBodyOp(e.bodies[0]);
  if (lin.length > 0 || nl.length !== 3 || op === undefined || !HISTOGRAM_OPS[op]) {
    throw new NotOnGpu(`a ${e.op} whose operator is not one of + * min max on one histogram`);
  }
  const dest = asArr(nl[0], 'a histogram');
  const idx = asArr(nl[1], 'the bins of a histogram');
  const vals = asArr(nl[2], 'the values of a histogram');
  const out = filled(L, dest.len, undefined, (arrays) => `${arrays.bind(dest.id)}[i]`);
  const mSlot = L.slotOfReg(dest.len);
  const count = L.reg({ op: 'min', args: [idx.len, vals.len] });
  L.atomicElementwise(count, out.id, (arrays, target) => {
    const j = `${arrays.bind(idx.id)}[i]`;
    return [`if (${j} >= 0.0 && ${j} < S[${mSlot}]) {`, ...atomicUpdate(target, `u32(${j})`, `${arrays.bind(vals.id)}[i]`, HISTOGRAM_OPS[op]).map((l) => `  ${l}`), '}'];
  });
  return [out];
}

/**
 * A product op(X)·op(Y) of the primal's sizes n, k, m: `dims` names the result's rows, the
 * summed size and the columns among them ('nkm': n×m over k; 'nmk': n×k over m; 'knm': k×m
 * over n). One tiled kernel (kernels.ts, gemmKernel).
 */
function gemm(L: Lowering, op: string, x: Arr, tX: boolean, y: Arr, tY: boolean, n: Val, k: Val, m: Val, dims: 'nkm' | 'nmk' | 'knm'): Arr {
  const size = { n: hostLength(n, `the rows of ${op}`), k: hostLength(k, `the inner size of ${op}`), m: hostLength(m, `the columns of ${op}`) };
  const [R, P, Q] = [...dims].map((d) => size[d as 'n' | 'k' | 'm']);
  const len = L.reg({ op: 'mul', args: [R, Q] });
  const out = L.newArray(len);
  const kernel = gemmKernel(tX, tY, { R: L.slotOfReg(R), P: L.slotOfReg(P), Q: L.slotOfReg(Q), lenX: L.slotOfReg(x.len), lenY: L.slotOfReg(y.len) });
  if (L.guarded.length > 0) throw new NotOnGpu(`${op} inside a branch of a test on a device value`);
  L.device((kk) => ({ op: 'tiles', kernel: kk, rows: R, cols: Q, arrays: [x.id, y.id, out] }), kernel);
  return { kind: 'arr', id: out, len, elemBound: undefined };
}

function elementRead(L: Lowering, a: Arr, j: Num): Val[] {
  const slot = L.newSlot();
  const at = L.slotOf(j);
  const len = L.slotOfReg(a.len);
  L.scalarLine((arrays) => `S[${slot}] = select(0.0, ${arrays.bind(a.id)}[u32(S[${at}])], S[${at}] >= 0.0 && S[${at}] < S[${len}]);`);
  return [{ kind: 'num', slot, bool: false, bound: a.elemBound }];
}

export interface GpuTarget {
  readonly where: string;
  /** The parameters' names as the user wrote them. */
  readonly paramNames: readonly string[];
  /** For each result, the parameter whose length an array result takes (a gradient's), if any. */
  readonly likes: readonly (number | undefined)[];
  readonly tuple: boolean;
}

/** The device program of `def` (its types annotated). */
export function lowerToGpu(def: FnDef, target: GpuTarget): GpuProgram {
  const L = new Lowering();
  const env: Env = new Map();
  const matrixDims = new Map<number, [number, number]>();
  const params = def.nlParams.map((p, k) => {
    const name = target.paramNames[k] ?? p.name;
    if (p.type?.tag === 'real') {
      env.set(p.name, L.hostNum(L.reg({ op: 'arg', param: k })));
      return { name, kind: 'number' as const };
    }
    if (p.type?.tag === 'array' && p.type.elem.tag === 'real') {
      const len = L.reg({ op: 'len', param: k });
      env.set(p.name, { kind: 'arr', id: L.newArray(len, k), len, elemBound: undefined });
      return { name, kind: 'array' as const };
    }
    if (isMatrixType(p.type)) {
      const len = L.reg({ op: 'len', param: k });
      const rows = L.reg({ op: 'dim', param: k, axis: 0 });
      const cols = L.reg({ op: 'dim', param: k, axis: 1 });
      const data: Arr = { kind: 'arr', id: L.newArray(len, k), len, elemBound: undefined };
      env.set(p.name, { kind: 'tup', elems: [data, L.hostNum(rows), L.hostNum(cols)] });
      matrixDims.set(k, [rows, cols]);
      return { name, kind: 'matrix' as const };
    }
    throw new NotOnGpu(`the parameter '${name}' (only numbers, arrays of numbers and matrices are on the GPU yet)`);
  });
  if (def.linParams.length > 0) throw new NotOnGpu('linear parameters');
  const results = L.block(def.body, env);
  L.flush();
  const specs: ResultSpec[] = results.map((r, j) => {
    if (r.kind === 'num') return { kind: 'scalar', slot: L.slotOf(r) };
    if (r.kind === 'arr') {
      const like = target.likes[j];
      return like === undefined ? { kind: 'array', array: r.id } : { kind: 'array', array: r.id, like };
    }
    if (r.kind === 'tup' && r.elems.length === 3) {
      const [data, rows, cols] = r.elems;
      // A gradient is shaped like its matrix parameter (its dimensions' own cotangents are 0).
      const like = target.likes[j] !== undefined ? matrixDims.get(target.likes[j]!) : undefined;
      if (data.kind === 'arr' && like) return { kind: 'matrix', array: data.id, rows: like[0], cols: like[1] };
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
    arrays,
    kernels: L.kernels,
    steps: L.steps,
    results: specs,
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
