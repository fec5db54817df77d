// Emitting A-normal-form code one binding at a time. Passes and primitive rules describe what to
// compute with a Builder; `finish` closes the recorded statements into a block with a result.
import { namesIn } from './traverse';
import { Binder, Block, Expr, Stmt, Type, binder, drop as dropE, dup as dupE, lit as litE, lprim as lprimE, prim as primE, zero as zeroE, REAL, literalType, BOOL } from './syntax';

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

export { namesIn };

export class Builder {
  protected readonly stmts: Stmt[] = [];

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

  /** How many statements are recorded: a mark for `typeLinearSince`. */
  get length(): number {
    return this.stmts.length;
  }

  /**
   * Gives `type` to the untyped linear binders of the statements recorded since `mark`: for code
   * whose linear values all have one type (a scalar primitive's JVP rule), so that no checker
   * has to infer them afterwards.
   */
  typeLinearSince(mark: number, type: Type): void {
    for (let i = mark; i < this.stmts.length; i++) {
      const s = this.stmts[i];
      if (s.tag === 'let' && s.lin.some((x) => x.type === undefined)) this.stmts[i] = { ...s, lin: s.lin.map((x) => (x.type === undefined ? binder(x.name, type) : x)) };
    }
  }

  /** The statements recorded since `mark` (a `length`). */
  since(mark: number): readonly Stmt[] {
    return this.stmts.slice(mark);
  }

  /** The statement among this builder's last `reach` that binds `name`, if any (a literal just made). */
  recentDef(name: string, reach = 4): Stmt | undefined {
    for (let i = this.stmts.length - 1; i >= Math.max(0, this.stmts.length - reach); i--) {
      const s = this.stmts[i];
      if (s.tag === 'let' && s.nl.some((x) => x.name === name)) return s;
    }
    return undefined;
  }

  get isEmpty(): boolean {
    return this.stmts.length === 0;
  }

  /** Appends a statement built elsewhere. */
  stmt(s: Stmt): void {
    this.stmts.push(s);
  }

  /** The recorded statements with `result` as a block; the builder starts empty again. */
  finish(result: Expr): Block {
    const stmts = this.stmts.splice(0, this.stmts.length);
    return { stmts, result };
  }

  /** The recorded statements as a body with these parameters (a SettlingBuilder settles them too). */
  finishBody(_nlParams: readonly Binder[], _linParams: readonly Binder[], result: Expr): Block {
    return this.finish(result);
  }

  /** A builder for a block or body nested in this one's (a SettlingBuilder's shares its count of uses). */
  inner(): Builder {
    return new Builder(this.names);
  }

  /** A finished block that will not be recorded after all (a loop without effect): what it read no longer counts. */
  discard(_block: Block): void {}
}
