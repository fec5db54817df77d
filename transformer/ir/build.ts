// Emitting A-normal-form code one binding at a time. Passes and primitive rules describe what to
// compute with a Builder; `finish` nests the recorded bindings around a final expression.
import { forEachOperand } from './operands';
import {
  Binder,
  Expr,
  Type,
  binder,
  drop as dropE,
  dup as dupE,
  letE,
  lit as litE,
  lprim as lprimE,
  prim as primE,
  unpack as unpackE,
  zero as zeroE,
  REAL,
  literalType,
  BOOL,
} from './syntax';

/** Hands out variable names that are unique within one function. */
export class NameSupply {
  private readonly used = new Set<string>();
  private readonly counters = new Map<string, number>();
  /** Called with every name handed out (the front end records where each came from). */
  onFresh?: (name: string) => void;

  constructor(taken: Iterable<string> = []) {
    for (const n of taken) this.used.add(n);
  }

  reserve(name: string): void {
    this.used.add(name);
  }

  has(name: string): boolean {
    return this.used.has(name);
  }

  /** `base` itself when free, else `base_1`, `base_2`, ... */
  fresh(base: string): string {
    const stem = base.length > 0 ? base : 't';
    if (!this.used.has(stem)) {
      this.used.add(stem);
      this.onFresh?.(stem);
      return stem;
    }
    let k = this.counters.get(stem) ?? 1;
    while (this.used.has(`${stem}_${k}`)) k++;
    this.counters.set(stem, k + 1);
    const name = `${stem}_${k}`;
    this.used.add(name);
    this.onFresh?.(name);
    return name;
  }
}

/** Collects every name bound or referenced in a function so a NameSupply never collides. */
export function namesIn(start: Expr, out: Set<string> = new Set()): Set<string> {
  // An explicit stack: bodies can be thousands of statements long or blocks deep.
  const stack: Expr[] = [start];
  const add = (n: string) => out.add(n);
  while (stack.length > 0) {
    const e = stack.pop()!;
    switch (e.tag) {
      case 'let':
        e.nl.forEach((b) => add(b.name));
        e.lin.forEach((b) => add(b.name));
        stack.push(e.body, e.rhs);
        break;
      case 'unpack':
        e.names.forEach((b) => add(b.name));
        add(e.tuple);
        stack.push(e.body);
        break;
      case 'drop':
        stack.push(e.expr);
        break;
      default:
        forEachOperand(e, add);
    }
  }
  return out;
}

type Stmt =
  | { tag: 'let'; nl: Binder[]; lin: Binder[]; rhs: Expr }
  | { tag: 'unpack'; linear: boolean; names: Binder[]; tuple: string };

export class Builder {
  private readonly stmts: Stmt[] = [];

  constructor(readonly names: NameSupply) {}

  fresh(base: string): string {
    return this.names.fresh(base);
  }

  /** `let (nl ; lin) = rhs` with the binder names given. */
  bind(nl: Binder[], lin: Binder[], rhs: Expr): void {
    this.stmts.push({ tag: 'let', nl, lin, rhs });
  }

  /** `let x = rhs` for a (1,0) expression; returns the fresh name. */
  nl(base: string, rhs: Expr, type?: Type): string {
    const name = this.fresh(base);
    this.bind([binder(name, type)], [], rhs);
    return name;
  }

  /** `let (; ẋ) = rhs` for a (0,1) expression; returns the fresh name. */
  lin(base: string, rhs: Expr, type?: Type): string {
    const name = this.fresh(base);
    this.bind([], [binder(name, type)], rhs);
    return name;
  }

  prim(op: string, args: readonly string[], base: string = op, type: Type = REAL): string {
    return this.nl(base, primE(op, args), type);
  }

  test(op: string, args: readonly string[], base: string = op): string {
    return this.nl(base, primE(op, args), BOOL);
  }

  lit(value: number | boolean | string, base = 'c'): string {
    return this.nl(base, litE(value), literalType(value));
  }

  lprim(op: string, nl: readonly string[], lin: readonly string[], base: string, type?: Type): string {
    return this.lin(base, lprimE(op, nl, lin), type);
  }

  zero(type: Type, base = 'zero'): string {
    return this.lin(base, zeroE(type), type);
  }

  dup(name: string, type?: Type): [string, string] {
    const a = this.fresh(`${name}_1`);
    const b = this.fresh(`${name}_2`);
    this.bind([], [binder(a, type), binder(b, type)], dupE(name));
    return [a, b];
  }

  /** `let () = drop(e)`. */
  drop(expr: Expr): void {
    this.bind([], [], dropE(expr));
  }

  unpack(linear: boolean, names: Binder[], tuple: string): void {
    this.stmts.push({ tag: 'unpack', linear, names, tuple });
  }

  get isEmpty(): boolean {
    return this.stmts.length === 0;
  }

  /** Wraps the recorded bindings around `body`; the builder can be reused afterwards. */
  finish(body: Expr): Expr {
    let e = body;
    for (let i = this.stmts.length - 1; i >= 0; i--) {
      const s = this.stmts[i];
      e = s.tag === 'let' ? letE(s.nl, s.lin, s.rhs, e) : unpackE(s.linear, s.names, s.tuple, e);
    }
    this.stmts.length = 0;
    return e;
  }
}
