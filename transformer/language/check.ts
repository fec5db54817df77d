// The linear type checker (notes §2.3) and the Linear B restrictions (§2.7).
//
// Usage is counted in one pass: every binder gets a record, every variable reference increments
// the record its name resolves to, and when a scope closes its binders are judged: linear ones
// must have been used exactly once, non-linear ones at least once. The same walk infers types,
// so `annotateTypes` is the checker returning the annotated copy it builds anyway.
//
// The walk is traverse's foldBlock (no recursion per statement, nested block or construct body:
// a construct's type rule asks for its bodies through the fold), and messages start with the
// `file:line:col` the parser recorded for the statement or binder they are about.
import { Binder, Block, Expr, ExprOf, FnDef, InternalError, IrError, Lambda, Program, Stmt, Type, typeEquals, tupleType, REAL, literalType } from '../ir/syntax';
import { PRIMS, LIN_PRIMS } from '../prims/registry';
import { printType } from '../ir/printType';
import { ScopeStack } from '../ir/scopeStack';
import { calleesOfDef } from '../ir/program';
import { bindsTyped, foldBlock } from '../ir/traverse';
import { CONSTRUCTS, isConstruct } from '../constructs/registry';
import type { BodyToType, CheckOps, ConstructExpr, Sides, TypeRun } from '../constructs/types';
import { namedTypeId } from '../ir/typeIds';
import { SourcePos, posOf, posText, samePos } from '../ir/positions';

export interface CheckOptions {
  /** Functions that must also satisfy the two Linear B restrictions. */
  readonly linearB?: readonly string[];
  /**
   * Take a def whose binders all carry types as it is, unchecked (`typeUntyped`): the passes
   * type what they build, and TSAD_RECHECK's re-check and the Linear B proof still check it.
   */
  readonly typedAsIs?: boolean;
}

interface Signature {
  readonly nl: readonly Type[];
  readonly lin: readonly Type[];
  readonly nlResults: readonly Type[];
  readonly linResults: readonly Type[];
}

interface VarInfo {
  readonly name: string;
  readonly type: Type;
  readonly linear: boolean;
  /** For messages about its uses: the binder, or else the statement binding it. */
  readonly binder: Binder;
  readonly at: object;
  uses: number;
}

type LetStmt = Extract<Stmt, { tag: 'let' }>;
type UnpackStmt = Extract<Stmt, { tag: 'unpack' }>;

/** A construct whose type rule waits for the types of the body being checked. */
interface ConstructFrame {
  readonly k: 'construct';
  readonly e: ConstructExpr;
  readonly run: TypeRun;
  readonly annotated: Map<Lambda, Lambda>;
  readonly readsLinear: boolean;
}

/** A construct's body being checked: what to restore when it ends. */
interface BodyFrame {
  readonly k: 'body';
  readonly e: ConstructExpr;
  readonly body: Lambda;
  readonly nlParams: Binder[];
  readonly linParams: Binder[];
  readonly stmt: object;
  readonly leaf: object | undefined;
}

/** A block being checked: its scope's start, its checked statements, whether they read a linear variable. */
interface OpenBlock {
  /** Scope size on entry: everything above it is the block's. */
  readonly depth: number;
  readonly out: Stmt[];
  readsLinear: boolean;
}

const isRun = (x: Sides<Type> | TypeRun): x is TypeRun => typeof (x as TypeRun).next === 'function';

interface Result {
  readonly nl: readonly Type[];
  readonly lin: readonly Type[];
  /** Does the expression read any linear variable (Linear B restriction 2)? */
  readonly readsLinear: boolean;
  readonly expr: Expr;
  /** Its results are unknown (an error was reported): binders take their annotations. */
  readonly failed?: boolean;
  /** The checked block, for a def's or a construct's body. */
  readonly block?: Block;
}

/** An expression under its drops (outermost first). */
function peel(e: Expr): { x: Expr; drops: ExprOf<'drop'>[] } {
  const drops: ExprOf<'drop'>[] = [];
  while (e.tag === 'drop') {
    drops.push(e);
    e = e.expr;
  }
  return { x: e, drops };
}

/**
 * A vector-space type: reals, tuples of them and stacks and arrays of them (sequences added elementwise;
 * booleans have no linear counterpart). An array held as 32-bit integers is none (a tangent held
 * so would be truncated): tangents are arrays of reals (tangentType).
 */
export function isVectorType(t: Type): boolean {
  if (t.tag === 'real' || t.tag === 'bool' || t.tag === 'str') return t.tag === 'real';
  // Asked once per linear binder: a tuple nested N deep is walked once, not once per binder.
  let known = vectorTypes.get(t);
  if (known === undefined) vectorTypes.set(t, (known = t.tag === 'tuple' ? t.elems.every(isVectorType) : t.tag === 'array' && t.store !== undefined ? false : isVectorType(t.elem)));
  return known;
}

const vectorTypes = new WeakMap<Type, boolean>();

const posOfVar = (v: VarInfo): SourcePos | undefined => posOf(v.binder) ?? posOf(v.at);

class DefChecker {
  private scope = new ScopeStack<VarInfo>();
  /** The scopes outside the construct bodies being checked (a body sees none of them). */
  private readonly outer: { readonly scope: ScopeStack<VarInfo>; readonly op: string }[] = [];
  constructor(
    private readonly def: FnDef,
    private readonly sigs: ReadonlyMap<string, Signature>,
    private readonly linearB: boolean,
    private readonly errors: string[],
  ) {
    this.stmt = def;
  }

  /** The statement and leaf being checked: where an error points (positions are looked up only then). */
  private stmt: object;
  private leafNode: object | undefined;

  private error(msg: string, at: SourcePos | undefined = this.here()): void {
    this.errors.push(`${at ? `${posText(at)}: ` : ''}in ${this.def.name}: ${msg}`);
  }

  private here(): SourcePos | undefined {
    return (this.leafNode && posOf(this.leafNode)) ?? posOf(this.stmt) ?? posOf(this.def);
  }

  private lookup(name: string): VarInfo | undefined {
    return this.scope.find(name);
  }

  /** Resolves a reference in a position of the given sort and counts the use. */
  private use(name: string, linear: boolean, where: string): Type {
    const v = this.lookup(name);
    if (!v) {
      const body = this.outer.find((o) => o.scope.find(name) !== undefined);
      if (body) this.error(`a body of ${body.op} reads ${name}, which is bound outside it; bodies are closed: pass ${name} as an operand`);
      else this.error(`unbound variable ${name} in ${where}`);
      return REAL;
    }
    v.uses++;
    if (v.linear !== linear) {
      this.error(v.linear ? `linear variable ${name} cannot be used in ${where}, which takes non-linear values` : `non-linear variable ${name} cannot be used in ${where}, which takes linear values`);
    }
    return v.type;
  }

  private push(b: Binder, type: Type, linear: boolean): VarInfo {
    const v: VarInfo = { name: b.name, type, linear, binder: b, at: this.stmt, uses: 0 };
    if (b.type && !typeEquals(b.type, type)) {
      this.error(`${b.name} is annotated ${printType(b.type)} but bound to a value of type ${printType(type)}`, posOfVar(v));
    }
    if (linear && !isVectorType(type)) this.error(`linear variable ${b.name} has type ${printType(type)}, which is not a vector space`, posOfVar(v));
    this.scope.push(v);
    return v;
  }

  /** Closes the innermost `count` binders and judges their usage. */
  private pop(count: number): void {
    for (let i = 0; i < count; i++) {
      const v = this.scope.pop();
      if (v.linear && v.uses === 0) this.error(`linear variable ${v.name} is never used; consume it or discard it with drop(${v.name})`, posOfVar(v));
      if (v.linear && v.uses > 1) this.error(`linear variable ${v.name} is used ${v.uses} times; insert dup to use it more than once`, posOfVar(v));
      if (!v.linear && v.uses === 0) this.error(`non-linear variable ${v.name} is never used; discard it with drop(${v.name})`, posOfVar(v));
    }
  }

  private readsLinearAt(names: readonly string[]): boolean {
    return names.some((n) => this.lookup(n)?.linear === true);
  }

  checkDef(): FnDef {
    const d = this.def;
    const nlParams = d.nlParams.map((b) => this.bindParam(b, false));
    const linParams = d.linParams.map((b) => this.bindParam(b, true));
    const { result: r, block: body } = this.block(d.body);
    if (!r.failed) {
      this.expectTypes('results', r.nl, d.nlResults, 'non-linear');
      this.expectTypes('results', r.lin, d.linResults, 'linear');
    }
    if (this.linearB && d.nlResults.length > 0 && d.linResults.length > 0) {
      this.error(`(Linear B) the function returns both non-linear and linear results; unzip it first`);
    }
    this.stmt = d;
    this.leafNode = undefined;
    this.pop(nlParams.length + linParams.length);
    return samePos(d, { ...d, nlParams, linParams, body });
  }

  private bindParam(b: Binder, linear: boolean): Binder {
    if (!b.type) {
      this.error(`parameter ${b.name} needs a type`);
      this.push(b, REAL, linear);
      return { name: b.name, type: REAL };
    }
    this.push(b, b.type, linear);
    return b;
  }

  private expectTypes(what: string, got: readonly Type[], want: readonly Type[], sort: string): void {
    if (got.length !== want.length) {
      this.error(`${what}: expected ${want.length} ${sort} value(s), got ${got.length}`);
      return;
    }
    got.forEach((t, i) => {
      if (!typeEquals(t, want[i])) this.error(`${what}: ${sort} value ${i + 1} has type ${printType(t)}, expected ${printType(want[i])}`);
    });
  }

  private linearBCheck(r: Result, what: string | (() => string)): void {
    if (!this.linearB) return;
    const text = () => (typeof what === 'string' ? what : what());
    if (r.nl.length > 0 && r.lin.length > 0) this.error(`(Linear B) ${text()} returns both non-linear and linear results; unzip first`);
    else if (r.nl.length > 0 && r.readsLinear) this.error(`(Linear B) ${text()} computes non-linear results but reads a linear variable`);
  }

  /**
   * Checks a block, the blocks nested in it and the construct bodies in it with foldBlock (no
   * recursion per nested block or body). A block's binders are judged when it ends, last bound
   * first; it reads a linear variable when any of its statements or its result does.
   */
  private block(root: Block): { result: Result; block: Block } {
    const open: OpenBlock[] = [];
    let checked: Block = root;
    const result = foldBlock<Result>(root, {
      enter: (_b, site) => {
        if (site.k === 'let') this.at(site.s);
        open.push({ depth: this.scope.size, out: [], readsLinear: false });
      },
      unpack: (s) => {
        this.at(s);
        const o = open[open.length - 1];
        o.out.push(samePos(s, { ...s, names: this.unpackBinders(s) }));
        o.readsLinear ||= s.linear;
      },
      run: (e, s) => {
        const { x, drops } = peel(e);
        return x.tag === 'construct' ? this.construct(x, drops, s) : undefined;
      },
      leaf: (e, s) => {
        if (s) this.at(s);
        const { x, drops } = peel(e);
        this.leafNode = x;
        return this.dropped(drops, this.leaf(x));
      },
      let: (s, r) => {
        this.at(s);
        const binders = this.letBinders(s, r);
        const o = open[open.length - 1];
        o.out.push(samePos(s, { ...s, nl: binders.slice(0, s.nl.length), lin: binders.slice(s.nl.length), rhs: r.expr }));
        o.readsLinear ||= r.readsLinear;
      },
      leave: (b, site, r) => {
        const o = open.pop()!;
        this.pop(this.scope.size - o.depth);
        // Messages about what follows point at the block's first statement, as its scope did.
        if (b.stmts.length > 0) this.at(b.stmts[0]);
        const block: Block = { stmts: o.out, result: r.expr };
        const result: Result = { nl: r.nl, lin: r.lin, readsLinear: o.readsLinear || r.readsLinear, expr: r.expr, failed: r.failed };
        if (site.k === 'root') checked = block;
        if (site.k === 'root' || site.k === 'body') return { ...result, block };
        return this.dropped(site.drops, { ...result, expr: samePos(site.node, { tag: 'block', block }) });
      },
    });
    return { result, block: checked };
  }

  /** Messages point at this statement until a leaf is reached. */
  private at(s: object): void {
    this.stmt = s;
    this.leafNode = undefined;
  }

  /** The value under drops (outermost first) dropped: each drop checked where it stands. */
  private dropped(drops: readonly ExprOf<'drop'>[], r: Result): Result {
    for (let j = drops.length - 1; j >= 0; j--) {
      const d = drops[j];
      this.at(d);
      this.linearBCheck(r, 'the argument of drop');
      r = { nl: [], lin: [], readsLinear: r.readsLinear, expr: samePos(d, { ...d, expr: r.expr }) };
    }
    return r;
  }

  /**
   * A construct under drops: its type rule runs until it asks for a body's types (the body's
   * block is yielded to foldBlock, checked in a scope of its own) or returns the construct's.
   */
  private *construct(e: ConstructExpr, drops: readonly ExprOf<'drop'>[], s: LetStmt | null): Generator<Block, Result, Result> {
    if (s) this.at(s);
    this.leafNode = e;
    const started = this.startConstruct(e);
    if (!('run' in started)) return this.dropped(drops, started);
    let types: Sides<Type> | undefined;
    for (;;) {
      const step = types === undefined ? started.run.next() : started.run.next(types);
      if (step.done) return this.dropped(drops, this.constructResult(e, started.annotated, started.readsLinear, step.value));
      const body = this.openBody(e, step.value);
      const r = yield step.value.body.body;
      if (!r.block) throw new InternalError('check: a body came back without its block');
      started.annotated.set(body.body, this.closeBody(body, r.block));
      types = { nl: r.nl, lin: r.lin };
    }
  }

  /** The let's binders, typed from its right-hand side's result and brought into scope. */
  private letBinders(e: LetStmt, rhs: Result): Binder[] {
    const desc = () => (e.nl.length + e.lin.length === 0 ? 'an expression statement' : `the right-hand side of let ${[...e.nl, ...e.lin].map((b) => b.name).join(', ')}`);
    this.linearBCheck(rhs, desc);
    if (!rhs.failed && (rhs.nl.length !== e.nl.length || rhs.lin.length !== e.lin.length)) {
      this.error(
        `let ${[...e.nl.map((b) => b.name), ';', ...e.lin.map((b) => b.name)].join(' ')} binds ${e.nl.length} non-linear and ${e.lin.length} linear names, but the right-hand side returns ${rhs.nl.length} and ${rhs.lin.length}`,
      );
    }
    const out: Binder[] = [];
    for (let i = 0; i < e.nl.length; i++) out.push(this.bindLocal(e.nl[i], rhs.nl[i], false));
    for (let i = 0; i < e.lin.length; i++) out.push(this.bindLocal(e.lin[i], rhs.lin[i], true));
    return out;
  }

  private unpackBinders(e: UnpackStmt): Binder[] {
    const t = this.use(e.tuple, e.linear, e.linear ? 'a linear unpack' : 'a non-linear unpack');
    if (t.tag !== 'tuple' || t.elems.length !== e.names.length) {
      this.error(`cannot unpack ${e.tuple} of type ${printType(t)} into ${e.names.length} names`);
    }
    const elems = t.tag === 'tuple' ? t.elems : [];
    return e.names.map((b, i) => this.bindLocal(b, elems[i] ?? REAL, e.linear));
  }

  /** A leaf: everything but blocks and drop. */
  private leaf(e: Expr): Result {
    switch (e.tag) {
      case 'ret': {
        const nl = e.nl.map((n) => this.use(n, false, 'the non-linear part of a return'));
        const lin = e.lin.map((n) => this.use(n, true, 'the linear part of a return'));
        return { nl, lin, readsLinear: e.lin.length > 0 || this.readsLinearAt(e.nl), expr: e };
      }
      case 'call': {
        const sig = this.sigs.get(e.fn);
        const nlTypes = e.nl.map((n) => this.use(n, false, `a non-linear argument of ${e.fn}`));
        const linTypes = e.lin.map((n) => this.use(n, true, `a linear argument of ${e.fn}`));
        const seen = new Set<string>();
        for (const n of e.lin) {
          if (seen.has(n)) this.error(`linear variable ${n} is passed twice to ${e.fn}; dup it first`);
          seen.add(n);
        }
        if (!sig) {
          this.error(e.fn === this.def.name ? `${e.fn} calls itself; recursion is not allowed` : `call of unknown or later function ${e.fn}`);
          return { nl: [], lin: [], readsLinear: e.lin.length > 0, expr: e };
        }
        this.expectTypes(`arguments of ${e.fn}`, nlTypes, sig.nl, 'non-linear');
        this.expectTypes(`arguments of ${e.fn}`, linTypes, sig.lin, 'linear');
        if (this.linearB && sig.nlResults.length > 0 && sig.linResults.length > 0) {
          this.error(`(Linear B) call of ${e.fn}, which returns both non-linear and linear results`);
        }
        return { nl: sig.nlResults, lin: sig.linResults, readsLinear: e.lin.length > 0, expr: e };
      }
      case 'var': {
        const t = this.use(e.name, e.linear, e.linear ? 'a linear variable expression' : 'a non-linear variable expression');
        return e.linear ? { nl: [], lin: [t], readsLinear: true, expr: e } : { nl: [t], lin: [], readsLinear: false, expr: e };
      }
      case 'lit':
        return { nl: [literalType(e.value)], lin: [], readsLinear: false, expr: e };
      case 'tuple': {
        const ts = e.elems.map((n) => this.use(n, e.linear, e.linear ? 'a linear tuple' : 'a non-linear tuple'));
        const t = tupleType(ts);
        return e.linear ? { nl: [], lin: [t], readsLinear: true, expr: e } : { nl: [t], lin: [], readsLinear: this.readsLinearAt(e.elems), expr: e };
      }
      case 'prim': {
        const def = PRIMS[e.op];
        const ts = e.args.map((n) => this.use(n, false, `the non-linear primitive ${e.op}`));
        if (!def) {
          this.error(`unknown primitive ${e.op}`);
          return { nl: [REAL], lin: [], readsLinear: false, expr: e };
        }
        if (e.args.length < def.arity.min || e.args.length > def.arity.max) {
          this.error(`${e.op} takes ${arityText(def.arity)} argument(s), got ${e.args.length}`);
          return { nl: [REAL], lin: [], readsLinear: false, expr: e };
        }
        const t = def.typeRule(ts);
        if (typeof t === 'string') this.error(t);
        return { nl: [typeof t === 'string' ? REAL : t], lin: [], readsLinear: this.readsLinearAt(e.args), expr: e };
      }
      case 'lprim': {
        const def = LIN_PRIMS[e.op];
        const nts = e.nl.map((n) => this.use(n, false, `a coefficient of the linear primitive ${e.op}`));
        const lts = e.lin.map((n) => this.use(n, true, `a linear argument of ${e.op}`));
        if (!def) {
          this.error(`unknown linear primitive ${e.op}`);
          return { nl: [], lin: [lts[0] ?? REAL], readsLinear: true, expr: e };
        }
        if (e.nl.length !== def.nlArity || e.lin.length !== def.linArity) {
          this.error(`${e.op} takes ${def.nlArity} coefficient(s) and ${def.linArity} linear argument(s), got ${e.nl.length} and ${e.lin.length}`);
        }
        nts.forEach((t, i) => {
          if (def.nlTypes[i] && !typeEquals(t, def.nlTypes[i])) this.error(`coefficient ${i + 1} of ${e.op} must be ${printType(def.nlTypes[i])}, got ${printType(t)}`);
        });
        const t = lts[0] ?? REAL;
        lts.forEach((u, i) => {
          if (!typeEquals(u, t)) this.error(`linear arguments of ${e.op} must share one type; argument ${i + 1} is ${printType(u)}, not ${printType(t)}`);
        });
        return { nl: [], lin: [t], readsLinear: true, expr: e };
      }
      case 'zero':
        if (!isVectorType(e.type)) this.error(`zero(${printType(e.type)}): only vector-space types have a linear zero`);
        return { nl: [], lin: [e.type], readsLinear: false, expr: e };
      case 'dup': {
        const t = this.use(e.name, true, 'dup');
        return { nl: [], lin: [t, t], readsLinear: true, expr: e };
      }
      default:
        throw new InternalError(`check: ${e.tag} is not a leaf`);
    }
  }

  /** The result types of a construct whose operands have the given types (see `constructResultTypes`). */
  typeConstruct(e: ConstructExpr, typeOf: (name: string) => Type): Sides<Type> {
    [...e.nl, ...e.lin].forEach((n, i) => {
      if (!this.lookup(n)) this.push({ name: n }, typeOf(n), i >= e.nl.length);
    });
    const { result } = this.block({ stmts: [], result: e });
    return { nl: result.nl, lin: result.lin };
  }

  /**
   * A construct: operands are uses in this scope; the rule types the bodies it yields, each
   * checked as a closed scope (openBody, closeBody). Its result, or the rule's run to resume.
   */
  private startConstruct(e: ConstructExpr): Result | ConstructFrame {
    const nl = e.nl.map((n) => this.use(n, false, `a non-linear operand of ${e.op}`));
    const lin = e.lin.map((n) => this.use(n, true, `a linear operand of ${e.op}`));
    const readsLinear = e.lin.length > 0 || this.readsLinearAt(e.nl);
    if (!isConstruct(e.op)) {
      this.error(`unknown construct ${e.op}`);
      return { nl: [], lin: [], readsLinear, expr: e, failed: true };
    }
    const ops: CheckOps = {
      typeBody: (body, params) => ({ body, params }),
      error: (message) => this.error(message, posOf(e) ?? this.here()),
    };
    const types = CONSTRUCTS[e.op].typeRule(ops, e, { nl, lin });
    const annotated = new Map<Lambda, Lambda>();
    return isRun(types) ? { k: 'construct', e, run: types, annotated, readsLinear } : this.constructResult(e, annotated, readsLinear, types);
  }

  /** The annotated copy carries the annotated bodies. */
  private constructResult(e: ConstructExpr, annotated: ReadonlyMap<Lambda, Lambda>, readsLinear: boolean, types: Sides<Type>): Result {
    const expr = samePos(e, { ...e, bodies: e.bodies.map((l) => annotated.get(l) ?? l) });
    return { nl: types.nl, lin: types.lin, readsLinear, expr };
  }

  /** Enters a body: a scope of its own where only its parameters are visible. */
  private openBody(e: ConstructExpr, { body: l, params }: BodyToType): BodyFrame {
    const at = { stmt: this.stmt, leaf: this.leafNode };
    if (l.nlParams.length !== params.nl.length || l.linParams.length !== params.lin.length) {
      this.error(
        `a body of ${e.op} takes ${l.nlParams.length} non-linear and ${l.linParams.length} linear parameter(s), but is given ${params.nl.length} and ${params.lin.length}`,
        posOf(e) ?? this.here(),
      );
    }
    this.outer.push({ scope: this.scope, op: e.op });
    this.scope = new ScopeStack<VarInfo>();
    // Messages about a parameter without a position of its own point at the construct.
    this.stmt = e;
    this.leafNode = undefined;
    const nlParams = l.nlParams.map((b, i) => this.bindLocal(b, params.nl[i] ?? b.type, false));
    const linParams = l.linParams.map((b, i) => this.bindLocal(b, params.lin[i] ?? b.type, true));
    return { k: 'body', e, body: l, nlParams, linParams, stmt: at.stmt, leaf: at.leaf };
  }

  /** Leaves a body whose block has been checked: judges its parameters; the annotated body. */
  private closeBody(f: BodyFrame, block: Block): Lambda {
    this.stmt = f.e;
    this.leafNode = undefined;
    this.pop(this.scope.size);
    this.scope = this.outer.pop()!.scope;
    this.stmt = f.stmt;
    this.leafNode = f.leaf;
    return { nlParams: f.nlParams, linParams: f.linParams, body: block };
  }

  private bindLocal(b: Binder, type: Type | undefined, linear: boolean): Binder {
    // An annotation equal to the type derived is kept: it may carry an alias (a tape, packed
    // residuals) that the types derived from this variable then print by, one word long.
    const t = type !== undefined && b.type !== undefined && typeEquals(b.type, type) ? b.type : (type ?? b.type ?? REAL);
    this.push(b, t, linear);
    return b.type === t ? b : { name: b.name, type: t };
  }
}

function arityText(a: { min: number; max: number }): string {
  if (a.min === a.max) return String(a.min);
  return a.max === Infinity ? `at least ${a.min}` : `${a.min} to ${a.max}`;
}

export function signatureOf(d: FnDef): Signature {
  return {
    nl: d.nlParams.map((b) => b.type ?? REAL),
    lin: d.linParams.map((b) => b.type ?? REAL),
    nlResults: d.nlResults,
    linResults: d.linResults,
  };
}

const verified = new WeakMap<FnDef, { readonly linearB: boolean; readonly calleeKey: string; readonly result: FnDef }>();

// Cache keys name types by interned ids (typeIds.ts), never by their full text.
export function signatureText(s: Signature): string {
  const list = (ts: readonly Type[]) => ts.map(namedTypeId).join(',');
  return `${list(s.nl)};${list(s.lin)}->${list(s.nlResults)};${list(s.linResults)}`;
}

function run(p: Program, opts: CheckOptions): { errors: string[]; program: Program } {
  const errors: string[] = [];
  const sigs = new Map<string, Signature>();
  const linearB = new Set(opts.linearB ?? []);
  const defs: FnDef[] = [];
  for (const d of p.defs) {
    if (sigs.has(d.name)) errors.push(`${d.name} is defined twice`);
    const lb = linearB.has(d.name);
    if (opts.typedAsIs && !lb && fullyTyped(d)) {
      defs.push(d);
      sigs.set(d.name, signatureOf(d));
      continue;
    }
    // A def object already verified against the same callee signatures needs no second look:
    // the drivers re-check whole programs after each pass, and most defs are unchanged.
    const calleeKey = calleesOfDef(d)
      .map((c) => `${c}:${sigs.has(c) ? signatureText(sigs.get(c)!) : '?'}`)
      .join('|');
    const known = verified.get(d);
    if (known && (known.linearB || !lb) && known.calleeKey === calleeKey) {
      defs.push(known.result);
    } else {
      const before = errors.length;
      const result = new DefChecker(d, sigs, lb, errors).checkDef();
      defs.push(result);
      if (errors.length === before) {
        const entry = { linearB: lb, calleeKey, result };
        verified.set(d, entry);
        verified.set(result, entry);
      }
    }
    sigs.set(d.name, signatureOf(d));
  }
  for (const n of linearB) if (!sigs.has(n)) errors.push(`Linear B check requested for unknown function ${n}`);
  return { errors, program: { ...p, defs } };
}

/**
 * The result types of a construct in a well-typed def, from its operands' types and the
 * callees' signatures alone: its bodies are closed, so nothing else can matter. For passes that
 * meet a construct whose results no binder names (in a block's result position).
 */
export function constructResultTypes(e: ConstructExpr, typeOf: (name: string) => Type, defs: ReadonlyMap<string, FnDef>): Sides<Type> {
  const sigs = new Map([...defs].map(([n, d]) => [n, signatureOf(d)] as const));
  const errors: string[] = [];
  const host: FnDef = { name: `${e.op} (a construct)`, nlParams: [], linParams: [], nlResults: [], linResults: [], body: { stmts: [], result: e } };
  const types = new DefChecker(host, sigs, false, errors).typeConstruct(e, typeOf);
  if (errors.length > 0) throw new InternalError(`constructResultTypes: ${errors.join('; ')}`);
  return types;
}

/** Every problem in the program, one message each (empty when well-typed). */
export function typeErrors(p: Program, opts: CheckOptions = {}): string[] {
  return run(p, opts).errors;
}

export function checkProgram(p: Program, opts: CheckOptions = {}): void {
  const errors = typeErrors(p, opts);
  if (errors.length > 0) throw new IrError(errors.join('\n'));
}

/** Does every binder of the def, parameters included, carry its type? */
function fullyTyped(d: FnDef): boolean {
  return d.nlParams.every((b) => b.type !== undefined) && d.linParams.every((b) => b.type !== undefined) && bindsTyped(d.body);
}

/**
 * The program with every binder's type filled in, for the output of passes that type what they
 * build: a def already fully typed is taken as it is (nothing checks it here: the re-check under
 * TSAD_RECHECK=1 and the Linear B proof before transposition do), the others are annotated.
 */
export function typeUntyped(p: Program): Program {
  return annotateTypes(p, { typedAsIs: true });
}

/** A copy of a well-typed program with every binder's type filled in. */
export function annotateTypes(p: Program, opts: CheckOptions = {}): Program {
  const { errors, program } = run(p, opts);
  if (errors.length > 0) throw new IrError(errors.join('\n'));
  return program;
}
