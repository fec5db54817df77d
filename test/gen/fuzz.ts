// A grammar of TypeScript in and just outside tsad's differentiable subset, for the front-end
// fuzzer (test/plugin/fuzz.test.ts). A function is built from a stream of choices (numbers), so
// a failing one can be shrunk by shortening or zeroing its choices: when the stream runs out
// every pick is 0, and option 0 is always the simplest (a leaf, an empty block), so a shorter
// stream is a smaller program. The generator tracks scope (readable numbers, assignable lets,
// arrays and their lengths, loop counters, local functions), so what it writes is well-typed
// TypeScript; the unsupported constructs it sometimes inserts are well-typed too, and must be
// refused with a coded diagnostic (or compile to correct code).

export class Choices {
  private i = 0;
  constructor(private readonly xs: readonly number[]) {}
  /** How many choices were read (those past the end of the stream count too). */
  get consumed(): number {
    return this.i;
  }
  /** 0 ≤ result < n; 0 once the stream is exhausted. */
  pick(n: number): number {
    const v = this.i < this.xs.length ? this.xs[this.i] : 0;
    this.i++;
    return n <= 1 ? 0 : v % n;
  }
  /** True with probability about 1/n (never once exhausted). */
  chance(n: number): boolean {
    return this.pick(n) === n - 1;
  }
  /** One of the options by weight; option 0 is what an exhausted stream picks. */
  weighted<T>(options: readonly (readonly [number, () => T])[]): T {
    const total = options.reduce((s, [w]) => s + w, 0);
    let r = this.pick(total);
    for (const [w, f] of options) {
      if (r < w) return f();
      r -= w;
    }
    return options[0][1]();
  }
  of<T>(xs: readonly T[]): T {
    return xs[this.pick(xs.length)];
  }
}

/** Which known issue (issue 18, being fixed elsewhere) a construct can hit. */
export type Known = 'guard-nan' | 'min-noargs' | 'destructured-let' | 'float32' | 'undefined';

interface ArrayVar {
  readonly name: string;
  readonly typed: boolean; // Float64Array (else number[])
  /** 'n' when it has the length of the parameters (a.length), else a fixed length. */
  readonly len: 'n' | number;
  readonly writable: boolean;
}

interface Loop {
  readonly counter?: string; // a counter with 0 ≤ counter < n, for indexing length-n arrays
  readonly fixedBound?: number; // or < this fixed bound
}

interface Scope {
  scalars: string[];
  lets: string[];
  arrays: ArrayVar[];
  fns: string[]; // local unary functions
  loops: Loop[];
  inLoop: boolean;
}

export interface FuzzFunction {
  /** The block of module text: helpers, rules, the function f<k>, its transforms. */
  readonly text: string;
  readonly name: string;
  /** Constructs used, for statistics. */
  readonly tags: ReadonlySet<string>;
  readonly known: ReadonlySet<Known>;
  /** A construct that must be refused (running it would not end, or it must not build). */
  readonly mustReject: boolean;
  /** How many choices the generator read. */
  readonly consumed: number;
}

const SMOOTH1 = ['Math.sin', 'Math.cos', 'Math.tanh', 'Math.atan'];

class Gen {
  private fresh = 0;
  readonly tags = new Set<string>();
  readonly known = new Set<Known>();
  mustReject = false;
  readonly helpers = new Set<'h' | 'sp' | 'sn' | 'lse' | 'badrule' | 'loopy'>();
  private exprBudget = 40;

  /** Inside the helper h: no calls (h would call itself), no arrays, nothing unsupported. */
  plain = false;

  constructor(
    private readonly c: Choices,
    readonly k: number,
    readonly unsupportedRate: number,
  ) {}

  name(p: string): string {
    return `${p}${this.fresh++}`;
  }

  tag(t: string): void {
    this.tags.add(t);
  }

  // ---- expressions ----

  leaf(s: Scope): string {
    const c = this.c;
    if (s.scalars.length > 0 && c.pick(4) !== 3) return c.of(s.scalars);
    return c.of(['0.5', '1.5', '2', '0.25', '3', '1']);
  }

  /** A variable (x and y are always in scope). */
  varLeaf(s: Scope): string {
    return this.c.of(s.scalars);
  }

  /** A boolean condition over the scope. */
  cond(s: Scope, d: number): string {
    const c = this.c;
    // TypeScript refuses === between two different literals: the left side of one is a variable.
    const cmp = () =>
      c.weighted<string>([
        [
          2,
          () => {
            const [a, op, b] = [this.expr(s, d + 1), c.of(['>', '<', '>=', '<=']), this.expr(s, d + 1)];
            // TypeScript parses `a < (y > (…) …)` as type arguments `<(y>` and rejects it: the same test mirrored.
            return op === '<' && b.startsWith('(') ? `${b} > ${a}` : `${a} ${op} ${b}`;
          },
        ],
        // (Against a bare literal, TypeScript would narrow the variable to that literal's type.)
        [
          1,
          () => {
            const r = this.expr(s, d + 1);
            return `${this.varLeaf(s)} ${c.of(['!==', '==='])} ${/^[\d.]+$/.test(r) ? `${r} * ${this.varLeaf(s)}` : r}`;
          },
        ],
      ]);
    return c.weighted<string>([
      [4, () => `${this.leaf(s)} > ${this.leaf(s)}`],
      [4, cmp],
      [1, () => `${cmp()} && ${cmp()}`],
      [1, () => `${cmp()} || ${this.leaf(s)} < 0.5`],
      [1, () => `!(${cmp()})`],
      [1, () => `${this.expr(s, d + 1)} > 0 && ${this.callExpr(s, d + 1)} > 0.2`],
    ]);
  }

  /** An expression with a call in it (a cond when it is a side of ?:). */
  callExpr(s: Scope, d: number): string {
    return `${this.c.of(SMOOTH1)}(${this.expr(s, d + 1)})`;
  }

  expr(s: Scope, d = 0): string {
    const c = this.c;
    if (d >= 3 || this.exprBudget-- <= 0) return this.leaf(s);
    const e = () => this.expr(s, d + 1);
    const options: (readonly [number, () => string])[] = [
      [6, () => this.leaf(s)],
      [5, () => `${c.of(SMOOTH1)}(${e()})`],
      [6, () => `(${e()} ${c.of(['+', '-', '*'])} ${e()})`],
      [1, () => `Math.exp(Math.sin(${e()}))`],
      [1, () => `Math.sqrt(1 + (${e()}) ** 2)`],
      [1, () => `Math.log1p((${e()}) ** 2)`],
      [1, () => `Math.log(2 + Math.cos(${e()}))`],
      [1, () => `(${e()}) / (1 + (${e()}) ** 2)`],
      [1, () => `(-(${e()}))`],
      [1, () => `(${e()}) ** ${c.of(['2', '3'])}`],
      [1, () => `Math.pow(${e()}, 2)`],
      [1, () => `Math.cbrt(2 + Math.cos(${e()}))`],
      // Non-smooth: kinks and jumps (the oracle skips points where differences disagree).
      [
        1,
        () => {
          this.tag('nonsmooth');
          return `Math.abs(${e()})`;
        },
      ],
      [
        1,
        () => {
          this.tag('nonsmooth');
          return `Math.max(${e()}, ${e()})`;
        },
      ],
      [
        1,
        () => {
          this.tag('nonsmooth');
          return `Math.min(${e()}, ${e()}, ${e()})`;
        },
      ],
      [
        1,
        () => {
          this.tag('nonsmooth');
          return `Math.${c.of(['floor', 'round', 'trunc', 'ceil', 'sign'])}(${e()})`;
        },
      ],
      [
        1,
        () => {
          this.tag('nonsmooth');
          return `(${e()}) % 1.5`;
        },
      ],
      [1, () => `Math.hypot(${e()}, ${e()}, 1)`],
      // Conditionals: cheap sides (a select) and sides that call (a cond).
      [
        2,
        () => {
          this.tag('ternary');
          return `(${this.cond(s, d)} ? ${this.leaf(s)} * 2 : ${this.leaf(s)} - 1)`;
        },
      ],
      [
        2,
        () => {
          this.tag('ternary');
          return `(${this.cond(s, d)} ? ${this.callExpr(s, d)} : ${e()})`;
        },
      ],
      // Guards at singular points: right derivatives where the guard is taken.
      [2, () => this.guard(s)],
    ];
    if (s.arrays.length > 0) options.push([4, () => this.arrayExpr(s, d)]);
    if (!this.plain) options.push([2, () => this.callOf(s, d)]);
    if (s.fns.length > 0) options.push([2, () => `${c.of(s.fns)}(${e()})`]);
    if (!this.plain && this.unsupportedRate > 0 && c.chance(this.unsupportedRate * 6)) return this.badExpr(s, d);
    return c.weighted(options);
  }

  guard(s: Scope): string {
    const c = this.c;
    this.tag('guard');
    const u = this.varLeaf(s);
    const v = this.varLeaf(s);
    return c.weighted<string>([
      [1, () => `(${u} > 0 ? Math.sqrt(${u}) : 0)`],
      [
        1,
        () => {
          this.known.add('guard-nan');
          return `(${u} * ${u} + ${v} * ${v} === 0 ? 0 : ${u} / Math.sqrt(${u} * ${u} + ${v} * ${v}))`;
        },
      ],
      [1, () => `(${u} > 0 ? Math.log(${u}) : 0)`],
      [1, () => `(${u} !== 0 ? Math.sin(${u}) / ${u} : 1)`],
      [
        1,
        () => {
          this.known.add('guard-nan');
          return `(${u} === 0 ? 0 : 1 / ${u})`;
        },
      ],
      [
        1,
        () => {
          this.known.add('guard-nan');
          return `(${u} > 0 ? ${u} : 0)`;
        },
      ],
      [
        1,
        () => {
          this.known.add('guard-nan');
          return `${v} * (${u} === 0 ? 0 : 1 / ${u})`;
        },
      ],
      [1, () => `(${u} >= 0.5 ? Math.sqrt(${u} - 0.5) : 0)`],
    ]);
  }

  /** Calls: a marked helper, functions with custom rules, nested transforms. */
  callOf(s: Scope, d: number): string {
    const c = this.c;
    const k = this.k;
    const e = () => this.expr(s, d + 1);
    return c.weighted<string>([
      [
        3,
        () => {
          this.helpers.add('h');
          this.tag('call');
          return `h${k}(${e()}, ${e()})`;
        },
      ],
      [
        2,
        () => {
          this.helpers.add('sp');
          this.tag('rule');
          return `sp${k}(${e()})`;
        },
      ],
      [
        2,
        () => {
          this.helpers.add('sn');
          this.tag('rule');
          this.known.add('guard-nan');
          return `sn${k}(${e()}, ${e()})`;
        },
      ],
      [
        2,
        () => {
          this.helpers.add('lse');
          this.tag('rule');
          return `lse${k}(${e()}, ${e()})`;
        },
      ],
      [
        2,
        () => {
          this.helpers.add('h');
          this.tag('nested');
          return `grad(h${k})(${e()}, ${e()})`;
        },
      ],
      [
        1,
        () => {
          this.helpers.add('h');
          this.tag('nested');
          return `grad(h${k}, { wrt: [0, 1] })(${e()}, ${e()})[${c.pick(2)}]`;
        },
      ],
      [
        1,
        () => {
          this.helpers.add('h');
          this.tag('nested');
          return `valueAndGrad(h${k})(${e()}, ${e()})[${c.pick(2)}]`;
        },
      ],
      [
        1,
        () => {
          this.helpers.add('h');
          this.tag('nested');
          return `jvp(h${k}, [${e()}, ${e()}], [1, 0.5])[${c.pick(2)}]`;
        },
      ],
      [
        1,
        () => {
          this.helpers.add('h');
          this.tag('nested');
          return `hvp(h${k})(${e()}, ${e()}, 1)`;
        },
      ],
      [
        1,
        () => {
          this.tag('nested-arrow');
          return `grad((t: number) => t * ${this.expr(s, d + 2)} + Math.sin(t))(${e()})`;
        },
      ],
      [
        1,
        () => {
          this.helpers.add('loopy');
          this.tag('nested-loop');
          return `grad(loopy${k})(${e()})`;
        },
      ],
    ]);
  }

  arrayExpr(s: Scope, d: number): string {
    const c = this.c;
    const A = c.of(s.arrays);
    this.tag('array');
    const same = s.arrays.filter((b) => b.len === A.len);
    const B = c.of(same);
    const inner = (vars: string[]) => this.expr({ ...s, scalars: [...s.scalars, ...vars], loops: s.loops }, d + 1);
    const counter = s.loops.find((l) => l.counter !== undefined && A.len === 'n')?.counter;
    const options: (readonly [number, () => string])[] = [
      [2, () => `sum(${A.name})`],
      [1, () => `${A.name}.length`],
      [2, () => `dot(${A.name}, ${B.name})`],
      [
        2,
        () => {
          const p = this.name('p');
          const t = this.name('t');
          return `${A.name}.reduce((${p}, ${t}) => ${p} + ${inner([p, t])}, ${this.leaf(s)})`;
        },
      ],
      [
        2,
        () => {
          const t = this.name('t');
          return `sum(${A.name}.map((${t}) => ${inner([t])}))`;
        },
      ],
      [
        1,
        () => {
          const t = this.name('t');
          const i = this.name('i');
          return `sum(${A.name}.map((${t}, ${i}) => ${inner([t])} * ${B.name}[${i}]))`;
        },
      ],
      [
        1,
        () => {
          const t = this.name('t');
          return `prod(${A.name}.map((${t}) => Math.tanh(${inner([t])})))`;
        },
      ],
      [1, () => `(${A.name}.length > 0 ? ${A.name}[0] : 0)`],
      [1, () => `(${A.name}.length > 2 ? ${A.name}[${A.name}.length - 1] * ${A.name}[1] : 1)`],
      [
        1,
        () => {
          this.tag('nonsmooth');
          return `${A.name}.reduce((p, t) => Math.max(p, t), -1)`;
        },
      ],
    ];
    if (counter) options.push([6, () => `${A.name}[${counter}]`]);
    return c.weighted(options);
  }

  /** Expressions tsad refuses (or must get right). */
  badExpr(s: Scope, d: number): string {
    const c = this.c;
    const e = () => this.expr(s, d + 1);
    this.tag('unsupported');
    return c.weighted<string>([
      [
        1,
        () => {
          this.tag('bad:random');
          return `${e()} * Math.random()`;
        },
      ],
      [
        1,
        () => {
          this.tag('bad:unmarked');
          return `plain(${e()})`;
        },
      ],
      [
        1,
        () => {
          this.tag('bad:module-let');
          return `(${e()} + moduleLet)`;
        },
      ],
      [
        1,
        () => {
          this.tag('bad:parseFloat');
          return `(${e()} + Number.parseFloat('1.5'))`;
        },
      ],
      [
        1,
        () => {
          this.tag('bad:min-noargs');
          this.known.add('min-noargs');
          return `(${e()} + Math.${c.of(['min', 'max', 'hypot'])}())`;
        },
      ],
      [
        1,
        () => {
          this.tag('bad:tuple-length');
          return `[${e()}].length`;
        },
      ],
      [
        1,
        () => {
          this.tag('bad:string');
          return `(${e()}).toFixed(2).length`;
        },
      ],
      [
        1,
        () => {
          this.tag('bad:nullish');
          return `((${this.leaf(s)} > 0 ? undefined : ${e()}) ?? 1)`;
        },
      ],
      [
        1,
        () => {
          this.tag('bad:filter');
          return s.arrays.length > 0 ? `sum(${c.of(s.arrays).name}.filter((t) => t > 0))` : `${e()} * Date.now()`;
        },
      ],
      [
        1,
        () => {
          this.tag('bad:f32');
          this.known.add('float32');
          return s.arrays.length > 0 ? `sum(Float32Array.from(${c.of(s.arrays).name}).map((t) => t * ${this.leaf(s)}))` : `Math.fround(${e()})`;
        },
      ],
      [
        1,
        () => {
          this.tag('bad:object-spread');
          return `({ ...{ u: ${e()} } }).u`;
        },
      ],
      [
        1,
        () => {
          this.tag('bad:assign-expr');
          const l = s.lets.length > 0 ? c.of(s.lets) : undefined;
          return l ? `(${l} = ${e()})` : `${e()}`;
        },
      ],
      [
        1,
        () => {
          this.tag('bad:increment-expr');
          const l = s.lets.length > 0 ? c.of(s.lets) : undefined;
          return l ? `${l}++` : `${e()}`;
        },
      ],
      [
        1,
        () => {
          this.tag('bad:typeof');
          return `(typeof ${this.leaf(s)} === 'number' ? ${e()} : 0)`;
        },
      ],
      [
        1,
        () => {
          this.tag('bad:in-call');
          return `[${e()}, ${e()}].indexOf(${this.leaf(s)})`;
        },
      ],
      [
        1,
        () => {
          this.tag('bad:array-ctor');
          return `Array.of(${e()}, ${e()})[0]`;
        },
      ],
      [
        1,
        () => {
          this.tag('bad:bigint');
          return `Number(BigInt(2)) * ${e()}`;
        },
      ],
      [
        1,
        () => {
          this.tag('bad:iife');
          return `((t: number) => t * ${e()})(${e()})`;
        },
      ],
    ]);
  }

  // ---- statements ----

  child(s: Scope, extra: Partial<Scope> = {}): Scope {
    return { scalars: [...s.scalars], lets: [...s.lets], arrays: [...s.arrays], fns: [...s.fns], loops: [...s.loops], inLoop: s.inLoop, ...extra };
  }

  block(s: Scope, d: number, max: number): string[] {
    const n = this.c.pick(max + 1);
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(...this.stmt(s, d));
    return out;
  }

  indent(lines: string[]): string[] {
    return lines.map((l) => `  ${l}`);
  }

  /** An update of a let that keeps values bounded over a few iterations. */
  assign(s: Scope, d: number): string[] {
    const c = this.c;
    const v = c.of(s.lets);
    this.tag('assign');
    return c.weighted<string[]>([
      [3, () => [`${v} = ${this.expr(s, d + 1)};`]],
      [2, () => [`${v} += ${this.expr(s, d + 1)};`]],
      [1, () => [`${v} -= ${this.expr(s, d + 1)};`]],
      [1, () => [`${v} *= Math.tanh(${this.expr(s, d + 1)});`]],
      [1, () => [`${v} /= 1 + (${this.expr(s, d + 1)}) ** 2;`]],
      [1, () => [`${v} = 0.5 * ${v} + ${this.expr(s, d + 1)};`]],
      [1, () => [`${c.of(['++', '--'])}${v};`]],
      [1, () => [`${v} **= 2;`]],
    ]);
  }

  stmt(s: Scope, d: number): string[] {
    const c = this.c;
    const deep = d >= 3;
    const options: (readonly [number, () => string[]])[] = [
      // (A literal gets the type number: TypeScript refuses === between two different literal types.)
      [
        4,
        () => {
          const v = this.name('v');
          const e = this.expr(s, d);
          const l = [`const ${v}${/^[\d.]+$/.test(e) ? ': number' : ''} = ${e};`];
          s.scalars.push(v);
          return l;
        },
      ],
      [
        4,
        () => {
          const v = this.name('v');
          const l = [`let ${v} = ${this.expr(s, d)};`];
          s.scalars.push(v);
          s.lets.push(v);
          return l;
        },
      ],
      [
        2,
        () => {
          const p = this.name('v');
          const q = this.name('v');
          this.tag('destructure');
          const l = [`const [${p}, ${q}] = [${this.expr(s, d)}, ${this.expr(s, d)}];`];
          s.scalars.push(p, q);
          return l;
        },
      ],
      [
        1,
        () => {
          const p = this.name('v');
          const q = this.name('v');
          this.tag('destructure');
          const l = [`const { u: ${p}, w: ${q} } = { u: ${this.expr(s, d)}, w: ${this.expr(s, d)} };`];
          s.scalars.push(p, q);
          return l;
        },
      ],
      [
        1,
        () => {
          const f = this.name('sq');
          this.tag('local-fn');
          const t = this.name('t');
          const l = [`const ${f} = (${t}: number) => ${this.expr(this.child(s, { scalars: [...s.scalars, t] }), d + 1)};`];
          s.fns.push(f);
          return l;
        },
      ],
      [1, () => this.localFunctionDecl(s, d)],
    ];
    if (s.lets.length > 0) options.push([6, () => this.assign(s, d)]);
    if (!deep) {
      options.push(
        [3, () => this.ifStmt(s, d)],
        [2, () => this.forStmt(s, d)],
        [1, () => this.whileStmt(s, d)],
        [1, () => this.forOf(s, d)],
        [1, () => this.switchStmt(s, d)],
        [2, () => this.arrayLocal(s, d)],
      );
    }
    if (s.inLoop) {
      options.push([
        2,
        () => {
          this.tag('exit');
          return [`if (${this.cond(s, d)}) ${c.of(['break', 'continue'])};`];
        },
      ]);
    }
    options.push([
      1,
      () => {
        this.tag('early-return');
        return [`if (${this.cond(s, d)}) return ${this.expr(s, d)};`];
      },
    ]);
    const written = s.arrays.filter((a) => a.writable);
    if (written.length > 0) options.push([2, () => this.arrayWrite(s, d, written)]);
    if (this.unsupportedRate > 0 && c.chance(this.unsupportedRate)) return this.badStmt(s, d);
    return c.weighted(options);
  }

  localFunctionDecl(s: Scope, d: number): string[] {
    const f = this.name('lf');
    const t = this.name('t');
    this.tag('local-fn');
    const inner = this.child(s, { scalars: [...s.scalars, t], lets: [], loops: [], inLoop: false });
    const w = this.name('w');
    const init = `let ${w} = ${this.expr(inner, d + 1)};`;
    inner.scalars.push(w);
    inner.lets.push(w);
    // A local function nobody calls is never lowered, so what it holds need not be refused.
    const mustReject = this.mustReject;
    const body = [init, ...this.block(inner, d + 2, 2), `return ${this.expr(inner, d + 1)};`];
    this.mustReject = mustReject;
    s.fns.push(f);
    return [`function ${f}(${t}: number): number {`, ...this.indent(body), '}'];
  }

  ifStmt(s: Scope, d: number): string[] {
    const c = this.c;
    this.tag('if');
    const then = this.block(this.child(s), d + 1, 3);
    const kind = c.pick(3);
    if (kind === 0) return [`if (${this.cond(s, d)}) {`, ...this.indent(then), '}'];
    const els = this.block(this.child(s), d + 1, 3);
    if (kind === 1) return [`if (${this.cond(s, d)}) {`, ...this.indent(then), '} else {', ...this.indent(els), '}'];
    const mid = this.block(this.child(s), d + 1, 2);
    return [`if (${this.cond(s, d)}) {`, ...this.indent(then), `} else if (${this.cond(s, d)}) {`, ...this.indent(mid), '} else {', ...this.indent(els), '}'];
  }

  forStmt(s: Scope, d: number): string[] {
    const c = this.c;
    const i = this.name('i');
    this.tag('for');
    const lenArrays = s.arrays.filter((a) => a.len === 'n');
    const overN = lenArrays.length > 0 && c.pick(3) !== 0;
    const bound = overN ? `${c.of(lenArrays).name}.length` : c.of(['3', '2', '4']);
    const form = c.of(['i++', '++i', 'i += 1']).replace('i', i);
    const cmp = overN ? '<' : c.of(['<', '<=']);
    const inner = this.child(s, { scalars: [...s.scalars, i], inLoop: true, loops: [...s.loops, overN ? { counter: i } : {}] });
    const body = this.block(inner, d + 1, 4);
    return [`for (let ${i} = 0; ${i} ${cmp} ${bound}; ${form}) {`, ...this.indent(body), '}'];
  }

  whileStmt(s: Scope, d: number): string[] {
    const c = this.c;
    const w = this.name('w');
    this.tag('while');
    const inner = this.child(s, { scalars: [...s.scalars, w], inLoop: true });
    // The counter steps first, so continue cannot skip it: every loop ends.
    if (c.pick(2) === 0) {
      const extra = c.pick(2) === 0 ? '' : ` && (${this.cond(s, d)})`;
      const body = this.block(inner, d + 1, 4);
      return [`let ${w} = 0;`, `while (${w} < ${c.of(['3', '2', '5'])}${extra}) {`, `  ${w}++;`, ...this.indent(body), '}'];
    }
    this.tag('do');
    const body = this.block(inner, d + 1, 3);
    return [`let ${w} = 0;`, 'do {', `  ${w}++;`, ...this.indent(body), `} while (${w} < ${c.of(['3', '2'])});`];
  }

  forOf(s: Scope, d: number): string[] {
    if (s.arrays.length === 0) return this.forStmt(s, d);
    const A = this.c.of(s.arrays);
    const t = this.name('t');
    this.tag('for-of');
    const inner = this.child(s, { scalars: [...s.scalars, t], inLoop: true });
    const body = this.block(inner, d + 1, 3);
    return [`for (const ${t} of ${A.name}) {`, ...this.indent(body), '}'];
  }

  switchStmt(s: Scope, d: number): string[] {
    if (s.lets.length === 0) return this.ifStmt(s, d);
    const c = this.c;
    const v = c.of(s.lets);
    this.tag('switch');
    const caseBody = () => [`${v} = ${this.expr(s, d + 1)};`];
    return [
      `switch (Math.sign(${this.expr(s, d + 1)})) {`,
      '  case 1:',
      ...this.indent(this.indent(caseBody())),
      '    break;',
      '  case -1:',
      '  case 0:',
      ...this.indent(this.indent(caseBody())),
      '    break;',
      '  default:',
      ...this.indent(this.indent(caseBody())),
      '}',
    ];
  }

  /** A new local array, of length n (from a parameter's length) or fixed. */
  arrayLocal(s: Scope, d: number): string[] {
    const c = this.c;
    const v = this.name('c');
    const nArrays = s.arrays.filter((a) => a.len === 'n');
    this.tag('array-local');
    const src = nArrays.length > 0 ? c.of(nArrays) : undefined;
    const add = (typed: boolean, len: 'n' | number) => s.arrays.push({ name: v, typed, len, writable: true });
    const i = this.name('i');
    const t = this.name('t');
    const elem = (vars: string[]) => this.expr(this.child(s, { scalars: [...s.scalars, ...vars] }), d + 1);
    return c.weighted<string[]>([
      [
        2,
        () => {
          const l = [`const ${v} = [${elem([])}, ${elem([])}, ${elem([])}];`];
          add(false, 3);
          return l;
        },
      ],
      ...(src
        ? ([
            [
              2,
              () => {
                const l = [`const ${v} = new Float64Array(${src.name}.length);`, `for (let ${i} = 0; ${i} < ${v}.length; ${i}++) ${v}[${i}] = ${elem([i])} * ${src.name}[${i}];`];
                add(true, 'n');
                return l;
              },
            ],
            [
              2,
              () => {
                const l = [`const ${v} = ${src.name}.slice();`];
                add(src.typed, 'n');
                return l;
              },
            ],
            [
              2,
              () => {
                const l = [`const ${v} = ${src.name}.map((${t}) => ${elem([t])});`];
                add(src.typed, 'n');
                return l;
              },
            ],
            [
              1,
              () => {
                const l = [`const ${v}: number[] = [];`, `for (let ${i} = 0; ${i} < ${src.name}.length; ${i}++) ${v}.push(${elem([i])} + ${src.name}[${i}]);`];
                add(false, 'n');
                return l;
              },
            ],
            [
              1,
              () => {
                const l = [`const ${v} = Float64Array.from({ length: ${src.name}.length }, (_, ${i}) => ${elem([i])} * ${src.name}[${i}]);`];
                add(true, 'n');
                return l;
              },
            ],
            [
              1,
              () => {
                const l = [`const ${v}: number[] = new Array(${src.name}.length).fill(${elem([])});`];
                add(false, 'n');
                return l;
              },
            ],
            [
              1,
              () => {
                this.tag('scan');
                const l = [`const ${v} = scan(${src.name}, '+');`];
                add(true, 'n');
                return l;
              },
            ],
          ] as const)
        : []),
    ]);
  }

  arrayWrite(s: Scope, d: number, written: ArrayVar[]): string[] {
    const c = this.c;
    const A = c.of(written);
    this.tag('array-write');
    const counter = s.loops.find((l) => l.counter !== undefined)?.counter;
    if (A.len === 'n' && counter) return [`${A.name}[${counter}] ${c.of(['=', '+=', '*='])} ${this.expr(s, d + 1)};`];
    if (A.len === 'n') return [`if (${A.name}.length > 0) ${A.name}[0] = ${this.expr(s, d + 1)};`];
    return [`${A.name}[${c.pick(A.len)}] ${c.of(['=', '+='])} ${this.expr(s, d + 1)};`];
  }

  /** Statements tsad refuses (or must get right). */
  badStmt(s: Scope, d: number): string[] {
    const c = this.c;
    this.tag('unsupported');
    return c.weighted<string[]>([
      [
        1,
        () => {
          this.tag('bad:param-assign');
          return [`x = ${this.expr(s, d + 1)};`];
        },
      ],
      [
        1,
        () => {
          this.tag('bad:param-write');
          return [`if (a.length > 0) a[0] = ${this.expr(s, d + 1)};`];
        },
      ],
      [
        1,
        () => {
          this.tag('bad:no-effect');
          return [`${this.leaf(s)} > 0 && ${this.leaf(s)} > 0;`];
        },
      ],
      [
        1,
        () => {
          this.tag('bad:call-stmt');
          this.helpers.add('h');
          return [`h${this.k}(${this.leaf(s)}, 1);`];
        },
      ],
      [
        1,
        () => {
          this.tag('bad:number-cond');
          return [`if (${this.varLeaf(s)}) {`, ...this.indent(this.block(this.child(s), d + 1, 2)), '}'];
        },
      ],
      [
        1,
        () => {
          this.tag('bad:labeled');
          const i = this.name('i');
          const j = this.name('j');
          const inner = this.child(s, { scalars: [...s.scalars, i, j], inLoop: true });
          return [
            `outer${i}: for (let ${i} = 0; ${i} < 3; ${i}++) {`,
            `  for (let ${j} = 0; ${j} < 3; ${j}++) {`,
            ...this.indent(this.indent(this.block(inner, d + 2, 2))),
            `    if (${this.cond(inner, d)}) ${c.of(['break', 'continue'])} outer${i};`,
            '  }',
            '}',
          ];
        },
      ],
      [
        1,
        () => {
          this.tag('bad:infinite');
          this.mustReject = true;
          return ['for (;;) {', `  const ${this.name('v')} = ${this.expr(s, d + 1)};`, '}'];
        },
      ],
      [
        1,
        () => {
          this.tag('bad:local-fn-value');
          const f = this.name('sq');
          const g = this.name('sq');
          return [`const ${f} = (t: number) => t * t;`, `const ${g} = ${f};`];
        },
      ],
      [
        1,
        () => {
          this.tag('bad:recursion');
          const f = this.name('r');
          s.fns.push(f);
          return [`const ${f} = (t: number): number => (t > 1 ? ${f}(t / 2) : t);`];
        },
      ],
      [
        1,
        () => {
          this.tag('bad:sort');
          return s.arrays.some((a) => a.writable) ? [`${c.of(s.arrays.filter((a) => a.writable)).name}.sort();`] : ['a.slice().sort();'];
        },
      ],
      [
        1,
        () => {
          this.tag('bad:try');
          const v = this.name('v');
          s.scalars.push(v);
          s.lets.push(v);
          return [`let ${v} = 0;`, `try { ${v} = ${this.expr(s, d + 1)}; } catch { ${v} = 1; }`];
        },
      ],
      [
        1,
        () => {
          this.tag('bad:throw');
          return [`if (${this.leaf(s)} > 100) throw new Error('big');`];
        },
      ],
      [
        1,
        () => {
          this.tag('bad:destructured-let');
          this.known.add('destructured-let');
          const p = this.name('v');
          const q = this.name('v');
          const l = [`let [${p}, ${q}] = [${this.expr(s, d + 1)}, 2 * ${this.leaf(s)}];`, `${p} = ${p} * ${q};`];
          s.scalars.push(p, q);
          return l;
        },
      ],
      [
        1,
        () => {
          this.tag('bad:undefined');
          this.known.add('undefined');
          const v = this.name('v');
          const u = this.name('u');
          const l = [`const ${u}: number | undefined = ${this.leaf(s)} > 0 ? ${this.expr(s, d + 1)} : undefined;`, `const ${v} = ${u} ?? 0;`];
          s.scalars.push(v);
          return l;
        },
      ],
      [
        1,
        () => {
          this.tag('bad:new-array');
          const v = this.name('c');
          return [`const ${v}: number[] = new Array(3);`, `${v}[0] = ${this.expr(s, d + 1)};`];
        },
      ],
      [
        1,
        () => {
          this.tag('bad:let-unassigned');
          const v = this.name('v');
          const l = [`let ${v}: number;`, `if (${this.cond(s, d)}) ${v} = 1; else ${v} = ${this.expr(s, d + 1)};`];
          s.scalars.push(v);
          return l;
        },
      ],
      [
        1,
        () => {
          this.tag('bad:var');
          const v = this.name('v');
          const l = [`var ${v} = ${this.expr(s, d + 1)};`];
          s.scalars.push(v);
          return l;
        },
      ],
      [
        1,
        () => {
          this.tag('bad:object-mutation');
          const v = this.name('o');
          const w = this.name('v');
          const l = [`const ${v} = { u: ${this.expr(s, d + 1)} };`, `${v}.u = ${this.leaf(s)};`, `const ${w} = ${v}.u;`];
          s.scalars.push(w);
          return l;
        },
      ],
      [
        1,
        () => {
          this.tag('bad:length-write');
          const v = this.name('c');
          return [`const ${v} = [1, 2];`, `${v}.length = 1;`];
        },
      ],
      [
        1,
        () => {
          this.tag('bad:broken-rule');
          this.helpers.add('badrule');
          const v = this.name('v');
          const l = [`const ${v} = bad${this.k}(${this.expr(s, d + 1)});`];
          s.scalars.push(v);
          return l;
        },
      ],
    ]);
  }
}

/** A marked helper h(u, v) of plain expressions, so nested transforms of it are checked too. */
function helperBody(g: Gen): string {
  g.plain = true;
  const e = g.expr({ scalars: ['u', 'v'], lets: [], arrays: [], fns: [], loops: [], inLoop: false }, 1);
  g.plain = false;
  return e;
}

/** One function f<k>(x, y, a, b) and what it needs, with its transforms exported. */
export function fuzzFunction(xs: readonly number[], k: number, unsupportedRate = 12): FuzzFunction {
  const c = new Choices(xs);
  const g = new Gen(c, k, unsupportedRate);
  const scope: Scope = {
    scalars: ['x', 'y'],
    lets: [],
    arrays: [
      { name: 'a', typed: false, len: 'n', writable: false },
      { name: 'b', typed: true, len: 'n', writable: false },
    ],
    fns: [],
    loops: [],
    inLoop: false,
  };
  const body = [...g.block(scope, 0, 5), `return ${g.expr(scope)};`];
  const out: string[] = [];
  if (g.helpers.has('h')) {
    const hb = helperBody(g);
    out.push(`/** @differentiable */`, `export function h${k}(u: number, v: number): number { return ${hb}; }`);
  }
  if (g.helpers.has('sp')) {
    out.push(`export function sp${k}(t: number): number { return Math.log1p(Math.exp(t)); }`, `derivative(sp${k}, (t, dt) => [sp${k}(t), dt / (1 + Math.exp(-t))]);`);
  }
  if (g.helpers.has('sn')) {
    out.push(
      `export function sn${k}(u: number, v: number): number { return Math.sqrt(u * u + v * v); }`,
      `derivative(sn${k}, (u, v, du, dv) => {`,
      '  const r = Math.sqrt(u * u + v * v);',
      '  return [r, r === 0 ? 0 : (u * du + v * dv) / r];',
      '});',
    );
  }
  if (g.helpers.has('lse')) {
    out.push(
      `export function lse${k}(p: number, q: number): number { return Math.log(Math.exp(p) + Math.exp(q)); }`,
      `derivative.vjp(lse${k}, (p, q) => {`,
      '  const m = Math.max(p, q);',
      '  const ep = Math.exp(p - m), eq = Math.exp(q - m), s = ep + eq;',
      '  return [m + Math.log(s), (ct) => [(ct * ep) / s, (ct * eq) / s]];',
      '});',
    );
  }
  if (g.helpers.has('badrule')) {
    out.push(`export function bad${k}(t: number): number { return t * t; }`, `derivative(bad${k}, (t, dt) => [bad${k}(t), ${['dt * dt', 'Math.sin(dt)', 'dt + 1', 'dt * t * dt'][k % 4]}]);`);
  }
  if (g.helpers.has('loopy')) {
    out.push(`/** @differentiable */`, `export function loopy${k}(u: number): number {`, '  let s = u;', '  for (let i = 0; i < 3; i++) s = Math.sin(s) + u;', '  return s;', '}');
  }
  out.push(
    `/** @differentiable */`,
    `export function f${k}(x: number, y: number, a: number[], b: Float64Array): number {`,
    ...g.indent(body),
    '}',
    `export const vg${k} = valueAndGrad(f${k}, { wrt: [0, 1, 2, 3] });`,
    `export const j${k} = (x: number, y: number, a: number[], b: Float64Array, dx: number, dy: number, da: number[], db: Float64Array) => jvp(f${k}, [x, y, a, b], [dx, dy, da, db]);`,
  );
  return { text: out.join('\n'), name: `f${k}`, tags: g.tags, known: g.known, mustReject: g.mustReject, consumed: c.consumed };
}

export const PREAMBLE = [
  `import { grad, valueAndGrad, jvp, hvp, derivative, sum, dot, prod, scan } from 'tsad';`,
  'let moduleLet = 2;',
  'moduleLet += 1;',
  'export function plain(t: number): number { return 2 * t; }',
].join('\n');

/** A module of several functions; `ranges[k]` is where function k's block lies in the text. */
export function fuzzModule(fns: readonly FuzzFunction[]): { source: string; ranges: { start: number; end: number }[] } {
  let source = `${PREAMBLE}\n`;
  const ranges: { start: number; end: number }[] = [];
  for (const f of fns) {
    const start = source.length;
    source += `${f.text}\n`;
    ranges.push({ start, end: source.length });
  }
  return { source, ranges };
}
