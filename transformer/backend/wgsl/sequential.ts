// Sequential code on the GPU: a construct the backend has no parallel kernel for (a counted or
// while loop, the stacks of a gradient's residuals) runs inside ONE invocation of the open
// single-invocation kernel, with everything its bodies do as WGSL statements (seqLowering.ts
// says how values look there; constructs/seq/ has the lowering of each construct). Its operands
// come from the parallel lowering's slots and arrays, and its results go back there: numbers into
// new slots, arrays into arrays of the program (copied out of the heap; their length must be
// known on the host, or bounded there for a cotangent whose zeros past the end change nothing).
// Correct before fast: one GPU thread runs the whole loop (docs/backends.md).
import { type Binder, type Block, type Expr, InternalError, type Lambda } from '../../ir/syntax';
import type { ConstructName } from '../../constructs/registry';
import { WGSL_LIN_PRIMS, WGSL_PRIMS } from './prims';
import { type Env, type KernelArrays, type LoweringOps, NotOnGpu, type Val } from './lowering';
import { type Cap, type SArr, type SEnv, type SNum, type SVal, type SeqOps, f32Of } from './seqLowering';
import { WGSL_SEQUENTIAL } from './constructs/seq';

/** Why a call rejects when a device stopped one of its sequential loops early. */
const LOOP_CUT = "a loop stopped before its end on this device (the software adapter, llvmpipe, ends a GPU thread's loops after 65535 trips in all); run the function without gpu(...), or on a GPU";

/** The message of the host check that arrays entering a loop on the device have at most 2^24 elements. */
const SEQUENTIAL_LIMIT = 'tsad/webgpu: a loop on the device indexes with f32 numbers, exact up to 2^24: an array it reads has more elements; run the function without gpu(...)';

export const hasSequential = (op: string): boolean => WGSL_SEQUENTIAL[op as ConstructName] !== undefined;

/** Why code run on many threads at once never allocates or stores in the heap (its bump pointer is one for all). */
const ONE_THREAD = 'a stack or a local array in a loop run on many threads';

class Sequential implements SeqOps {
  private out: string[] = [];
  private heapAt: { readonly heap: string; readonly top: string } | undefined;
  /** Arrays leaving the heap: copied into program array `id` (length register `len`) from `from` at the slots' base and length. */
  readonly exports: { id: number; len: number; from: number; base: number; length: number }[] = [];
  /** The program's arrays bound in this kernel, by binding name (an unchanged array leaves as itself). */
  private readonly origins = new Map<string, Val>();

  constructor(
    readonly L: LoweringOps,
    private readonly arrays: KernelArrays,
    private readonly outer: Env,
    private readonly threads: 'one' | 'many' = 'one',
  ) {
    if (threads === 'one') this.heapAt = this.bindHeap();
  }

  private bindHeap() {
    const h = this.L.heap();
    return { heap: this.arrays.bind(h.array), top: `S[${h.top}]` };
  }

  /** Many threads may read the heap (the residual stacks a loop before them left), bound on first use. */
  get heap(): string {
    this.heapAt ??= this.bindHeap();
    return this.heapAt.heap;
  }

  private get top(): string {
    if (this.threads === 'many') throw new NotOnGpu(ONE_THREAD);
    return this.heapAt!.top;
  }

  get lines(): readonly string[] {
    return this.out;
  }

  line(text: string): void {
    this.out.push(text);
  }

  capture<T>(run: () => T): { lines: string[]; value: T } {
    const saved = this.out;
    this.out = [];
    try {
      const value = run();
      return { lines: this.out, value };
    } finally {
      this.out = saved;
    }
  }

  fresh(prefix: string): string {
    return this.L.name(prefix);
  }

  bind(code: string, type: 'f32' | 'bool' = 'f32'): string {
    const n = this.fresh('q');
    this.line(`let ${n}: ${type} = ${code};`);
    return n;
  }

  alloc(size: string): string {
    const b = this.bind(this.top);
    this.line(`${this.top} = ${b} + ceil(max(${size}, 0.0));`);
    return b;
  }

  store(addr: string, value: string): void {
    if (this.threads === 'many') throw new NotOnGpu(ONE_THREAD);
    const a = this.bind(addr);
    this.line(`if (${a} < f32(arrayLength(&${this.heap}))) { ${this.heap}[u32(${a})] = ${value}; }`);
  }

  load(addr: string): string {
    // Past the heap's end (a call that will run again with more), 0: a count read back from a
    // stack is then 0 or right, so no loop runs away.
    return `select(0.0, ${this.heap}[u32(${addr})], ${addr} < f32(arrayLength(&${this.heap})))`;
  }

  elem(a: SArr, index: string): string {
    return `select(0.0, ${a.buf}[u32(${a.base} + ${index})], ${index} >= 0.0 && ${index} < ${a.len})`;
  }

  forRange(n: string, body: (k: string) => void): void {
    const k = this.fresh('k');
    this.line(`var ${k} = 0.0;`);
    this.line(`for (; ${k} < ${n}; ${k} = ${k} + 1.0) {`);
    body(k);
    this.line('}');
    // After a loop that ended by its test, the test is false: true here means it was cut.
    this.line(`if (${k} < ${n}) { ${this.loopCut()} }`);
  }

  loopCut(): string {
    return this.L.failCheck(LOOP_CUT, -1);
  }

  private fillLoop(base: string, len: string, element: (k: string) => string): void {
    this.forRange(len, (k) => this.store(`${base} + ${k}`, element(k)));
  }

  copy(a: SArr, len?: string, cap?: Cap, exact?: boolean): SArr {
    const n = this.bind(len ?? a.len);
    const base = this.alloc(n);
    this.fillLoop(base, n, (k) => this.elem(a, k));
    return { kind: 'arr', buf: this.heap, heap: true, base, len: n, cap: cap ?? a.cap, exact: exact ?? a.exact, sparse: a.sparse };
  }

  zeros(len: string, cap: Cap, exact: boolean, sparse: boolean): SArr {
    const n = this.bind(len);
    const base = this.alloc(n);
    this.fillLoop(base, n, () => '0.0');
    return { kind: 'arr', buf: this.heap, heap: true, base, len: n, cap, exact, sparse };
  }

  joinCaps(...caps: Cap[]): Cap {
    if (caps.some((c) => c === undefined)) return undefined;
    return new Set(caps.flatMap((c) => [...c!]));
  }

  hostNum(reg: number): SNum {
    return { kind: 'num', code: `S[${this.L.slotOfReg(reg)}]`, type: 'f32', reg };
  }

  // ---- values crossing between the parallel lowering and this one ----

  fromVal(v: Val): SVal {
    switch (v.kind) {
      case 'num': {
        const t = this.L.load(v);
        return { kind: 'num', code: t.code, type: t.type, ...(v.reg !== undefined ? { reg: v.reg } : {}) };
      }
      case 'arr': {
        const buf = this.arrays.bind(v.id);
        this.origins.set(buf, v);
        // Sequential code indexes in f32 (its heap's addresses too): exact up to 2^24.
        this.L.reg({ op: 'atmost', a: v.len, b: this.L.lit(2 ** 24), message: SEQUENTIAL_LIMIT });
        return { kind: 'arr', buf, heap: false, base: '0.0', len: `S[${this.L.slotOfReg(v.len)}]`, cap: new Set([v.len]), exact: true, sparse: false };
      }
      case 'str':
        return v;
      case 'tup':
        return { kind: 'tup', elems: v.elems.map((x) => this.fromVal(x)) };
    }
  }

  toVal(v: SVal): Val {
    switch (v.kind) {
      case 'num': {
        if (v.reg !== undefined) return { kind: 'num', reg: v.reg, bool: v.type === 'bool', bound: new Set([v.reg]) };
        const slot = this.L.newSlot();
        this.line(`S[${slot}] = ${f32Of(v)};`);
        return { kind: 'num', slot, bool: v.type === 'bool', bound: undefined };
      }
      case 'arr': {
        const origin = this.origins.get(v.buf);
        if (!v.heap && origin?.kind === 'arr' && v.base === '0.0' && v.exact) return origin;
        let len: number;
        if (v.exact && v.cap?.size === 1) len = [...v.cap][0];
        else if (v.sparse && v.cap !== undefined) len = this.L.reg({ op: 'max', args: [...v.cap] });
        else throw new NotOnGpu('an array whose length is computed on the device, leaving a loop (its length must be known before the kernels run)');
        // Copied out by an elementwise kernel after this one (exports): the heap's base and the
        // length go through slots, and the kernel binds only the heap and its output.
        const id = this.L.newArray(len);
        const base = this.L.newSlot();
        const length = this.L.newSlot();
        this.line(`S[${base}] = ${v.base};`);
        this.line(`S[${length}] = ${v.len};`);
        const from = v.heap ? this.L.heap().array : (origin as Extract<Val, { kind: 'arr' }> | undefined)?.id;
        if (from === undefined) throw new InternalError('wgsl: an array of sequential code outside the heap and the program');
        this.exports.push({ id, len, from, base, length });
        return { kind: 'arr', id, len, elemBound: undefined };
      }
      case 'str':
        return v;
      case 'tup':
        return { kind: 'tup', elems: v.elems.map((x) => this.toVal(x)) };
    }
  }

  // ---- blocks and expressions ----

  private get(env: SEnv, name: string): SVal {
    let v = env.get(name);
    if (v === undefined) {
      const o = this.outer.get(name);
      if (o === undefined) throw new InternalError(`wgsl: unbound '${name}' in sequential code`);
      v = this.fromVal(o);
      env.set(name, v);
    }
    return v;
  }

  block(b: Block, env: SEnv): SVal[] {
    for (const s of b.stmts) {
      if (s.tag === 'unpack') {
        const t = this.get(env, s.tuple);
        if (t.kind !== 'tup' || t.elems.length !== s.names.length) throw new NotOnGpu('a tuple that is not a tuple of numbers and arrays');
        s.names.forEach((bd, i) => env.set(bd.name, t.elems[i]));
        continue;
      }
      const binders = [...s.nl, ...s.lin];
      const vals = this.expr(s.rhs, env, binders);
      binders.forEach((bd, i) => {
        const v = vals[i];
        if (v === undefined) throw new InternalError(`wgsl: '${bd.name}' has no value in sequential code`);
        env.set(bd.name, v);
      });
    }
    return this.expr(b.result, env, []);
  }

  apply(l: Lambda, args: readonly SVal[], env: SEnv): SVal[] {
    const inner: SEnv = new Map(env);
    [...l.nlParams, ...l.linParams].forEach((p, i) => {
      const a = args[i];
      if (a === undefined) throw new InternalError(`wgsl: no value for the parameter '${p.name}'`);
      inner.set(p.name, a);
    });
    return this.block(l.body, inner);
  }

  expr(e: Expr, env: SEnv, binders: readonly Binder[]): SVal[] {
    const get = (n: string) => this.get(env, n);
    switch (e.tag) {
      case 'ret':
        return [...e.nl, ...e.lin].map(get);
      case 'var':
        return [get(e.name)];
      case 'lit':
        if (typeof e.value === 'string') return [{ kind: 'str', text: e.value }];
        if (typeof e.value === 'boolean') return [{ kind: 'num', code: String(e.value), type: 'bool' }];
        return [this.hostNum(this.L.lit(e.value))];
      case 'dup':
        return [get(e.name), get(e.name)];
      case 'drop':
        return [];
      case 'block':
        return this.block(e.block, new Map(env));
      case 'zero':
        if (e.type.tag === 'real') return [this.hostNum(this.L.lit(0))];
        if (e.type.tag === 'array' && e.type.elem.tag === 'real') {
          const zero = this.L.lit(0);
          return [{ kind: 'arr', buf: this.heap, heap: true, base: '0.0', len: '0.0', cap: new Set([zero]), exact: true, sparse: true }];
        }
        // A zero tangent stack: the handle −1, which lpush replaces by a stack of its own.
        if (e.type.tag === 'stack') return [this.hostNum(this.L.lit(-1))];
        throw new NotOnGpu(`a zero of type ${e.type.tag} inside a loop`);
      case 'prim':
      case 'lprim': {
        const args = (e.tag === 'prim' ? e.args : [...e.nl, ...e.lin]).map(get);
        if (args.some((a) => a.kind !== 'num')) throw new NotOnGpu(`the primitive '${e.op}' on arrays`);
        const rule = (e.tag === 'prim' ? WGSL_PRIMS : WGSL_LIN_PRIMS)[e.op];
        if (!rule) throw new NotOnGpu(`the primitive '${e.op}'`);
        const r = rule(args as SNum[]);
        return [{ kind: 'num', code: this.bind(r.code, r.type), type: r.type }];
      }
      case 'construct': {
        const rule = WGSL_SEQUENTIAL[e.op as ConstructName];
        if (!rule) throw new NotOnGpu(`the construct '${e.op}' inside a loop`);
        return rule(this, e, e.nl.map(get), e.lin.map(get), env, binders);
      }
      case 'call':
        throw new NotOnGpu(`a call of '${e.fn}' inside a loop`);
      case 'tuple':
        return [{ kind: 'tup', elems: e.elems.map(get) }];
    }
  }
}

/**
 * A construct with a sequential lowering and no parallel one (a loop, a stack), lowered into the
 * open single-invocation kernel: its operands read from their slots and arrays, its results
 * written back to new slots and arrays.
 */
export function lowerSequentially(L: LoweringOps, e: Extract<Expr, { tag: 'construct' }>, nl: readonly Val[], lin: readonly Val[], env: Env): Val[] {
  const rule = WGSL_SEQUENTIAL[e.op as ConstructName];
  if (!rule) throw new InternalError(`wgsl: no sequential lowering of '${e.op}'`);
  let results: Val[] = [];
  let exports: Sequential['exports'] = [];
  L.scalarLine((arrays) => {
    const S = new Sequential(L, arrays, env);
    const sEnv: SEnv = new Map();
    const out = rule(
      S,
      e,
      nl.map((v) => S.fromVal(v)),
      lin.map((v) => S.fromVal(v)),
      sEnv,
      [],
    );
    results = out.map((v) => S.toVal(v));
    exports = S.exports;
    return ['{', ...S.lines.map((l) => `  ${l}`), '}'].join('\n  ');
  });
  for (const x of exports) {
    L.elementwise(x.len, (k) => [`${k.bind(x.id)}[i] = select(0.0, ${k.bind(x.from)}[u32(S[${x.base}] + f32(i))], f32(i) < S[${x.length}]);`]);
  }
  return results;
}

/**
 * `run`'s sequential code as the body of a kernel that many invocations run at once (a loop
 * whose iterations are independent, constructs/sumLoop.ts): the same lowering, reading the heap
 * but never allocating or storing there (that throws NotOnGpu).
 */
export function lowerPerThread<T>(L: LoweringOps, arrays: KernelArrays, env: Env, run: (S: SeqOps, fromVal: (v: Val) => SVal) => T): { lines: readonly string[]; value: T } {
  const S = new Sequential(L, arrays, env, 'many');
  const value = run(S, (v) => S.fromVal(v));
  return { lines: S.lines, value };
}
