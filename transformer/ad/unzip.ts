// Unzipping U (notes §4): split a mixed function (typically f.jvp) into
//   f.fwd(x̄ ;) -> (ȳ, tape ;)          everything non-linear, plus the residuals on a tape
//   f.lin(tape ; ẋ̄) -> (; ẏ̄)           everything linear, reading residuals from the tape
// Non-linear code never depends on linear values, so it can always be hoisted above the linear
// code: U(e) = (C, e_N, ė_L) with C a context of non-linear bindings, e_N the non-linear results
// and ė_L the linear results (Linear B). The residuals are the non-linear variables free in ė_L.
//
// Checkpointing is the free choice in ULet: a non-linear binding used by ė_L may be saved on the
// tape (default) or recomputed inside f.lin, in which case its inputs become residuals instead.
//
// A mixed construct is split by its record's `unzip` rule, which receives `unzipBody`: the same
// split applied to a body, whose residuals become extra results of its non-linear half and
// parameters of its linear half (a construct's bodies are closed, so they cannot share a tape).
import {
  Binder,
  Block,
  Expr,
  FnDef,
  InternalError,
  Lambda,
  Program,
  Stmt,
  Type,
  binder,
  block,
  blockE,
  call,
  letS,
  ret,
  tupleType,
  unpackS,
  drop as dropE,
  lambda,
  construct,
  nvar,
  REAL,
} from '../ir/syntax';
import { constructRule } from '../constructs/registry';
import { lengthParams } from './lengths';
import { hasEffect, keptAlive } from '../constructs/registry';
import { PRIMS } from '../prims/registry';
import { visitDef } from '../ir/traverse';
import type { ConstructExpr, Sides, UnzipOps, UnzippedBody } from '../constructs/types';
import { DeepWalk } from '../ir/deepWalk';
import { Builder, NameSupply, namesIn } from '../ir/build';
import { arityOf, defArity } from '../language/arity';
import { derivedName, residualTypeName, role, tapeName, unzipStem } from '../ir/names';
import { calleesFirst, defMap } from '../ir/program';
import { closedFreeNonLinear } from '../ir/freeVars';
import { settledBody } from '../ir/usageBuilder';

/**
 * 'save' stores every residual; 'recompute' recomputes every primitive in the linear half;
 * 'cheap' recomputes, inside construct bodies (a loop's, whose residuals go on stacks), the
 * bindings whose records call them cheap (PrimDef.cheap, ConstructRule.cheap) and stores the
 * rest: what the plugin uses.
 */
export type CheckpointPolicy = 'save' | 'recompute' | 'cheap' | ((site: { fn: string; name: string; rhs: Expr }) => 'save' | 'recompute');

export interface UnzipOptions {
  readonly policy?: CheckpointPolicy;
}

interface Split {
  /** The hoisted context C: non-linear statements only. */
  readonly ctx: Stmt[];
  /** Non-linear results (a `ret` of names or a leaf), evaluated under ctx. */
  readonly nl: Expr;
  /**
   * Linear results, evaluated under ctx (a nested block when linear statements come first); null
   * when the expression has none and does nothing linear.
   */
  readonly lin: Expr | null;
}

const EMPTY_LIN: Expr = ret([], []);

function isMixed(d: FnDef): boolean {
  return d.nlResults.length > 0 && (d.linParams.length > 0 || d.linResults.length > 0);
}

function isLinearLeaf(e: Expr): boolean {
  switch (e.tag) {
    case 'var':
    case 'tuple':
      return e.linear;
    case 'lprim':
    case 'zero':
    case 'dup':
      return true;
    default:
      return false;
  }
}

/** A construct with no linear operand and no linear result is non-linear code like any other. */
const isNonLinearConstruct = (e: ConstructExpr, linResults: number): boolean => e.lin.length === 0 && linResults === 0;

class Unzipper {
  constructor(
    private readonly fn: string,
    private readonly defs: ReadonlyMap<string, FnDef>,
    private readonly names: NameSupply,
    private readonly policy: CheckpointPolicy,
    /** Binder types of the def (names are unique per def), for construct rules that ask. */
    private readonly types: ReadonlyMap<string, Type> = new Map(),
  ) {}

  readonly walk = new DeepWalk();

  /** The bodies settled so far (their constructs' bodies were, when U finished them). */
  private readonly settledBodies = new WeakSet<Block | Lambda>();

  /**
   * A half settled as U finishes it: the drops and copies that splitting leaves it needing (a
   * value only linear code read and not stored, a residual slot one branch does not use, the
   * parts of a recomputed unpack the linear half does not read), from its own reads.
   */
  settled<L extends Lambda>(l: L): L {
    return settledBody(l, this.names, this.settledBodies);
  }

  /** ULet/UUnpack over a whole block, in a loop (generated code can be thousands of statements). */
  splitBlock(b: Block): Split {
    const ctx: Stmt[] = [];
    const linStmts: Stmt[] = [];
    for (const s of b.stmts) {
      if (s.tag === 'let' && s.rhs.tag === 'construct' && !isNonLinearConstruct(s.rhs, s.lin.length)) {
        // The rule binds the non-linear results itself, in the context.
        const { stmts, lin } = this.splitConstruct(s.rhs, { nl: s.nl, lin: s.lin });
        ctx.push(...stmts);
        linStmts.push(letS([], s.lin, lin));
      } else if (s.tag === 'let') {
        const s1 = this.split(s.rhs);
        ctx.push(...s1.ctx);
        if (s.nl.length > 0) ctx.push(letS(s.nl, [], s1.nl));
        else if (s1.nl.tag === 'drop' || keptAlive(s1.nl)) ctx.push(letS([], [], s1.nl));
        if (s1.lin !== null) linStmts.push(letS([], s.lin, s1.lin));
      } else if (s.linear) linStmts.push(s);
      else ctx.push(s);
    }
    const tail = this.split(b.result);
    ctx.push(...tail.ctx);
    const lin = linStmts.length > 0 ? blockE(block(linStmts, tail.lin ?? EMPTY_LIN)) : tail.lin;
    return { ctx, nl: tail.nl, lin };
  }

  split(e: Expr): Split {
    switch (e.tag) {
      case 'ret':
        return { ctx: [], nl: ret(e.nl), lin: e.lin.length ? ret([], e.lin) : null };
      case 'block':
        return this.splitBlock(e.block);
      case 'construct':
        // J binds every mixed construct with a let (splitBlock); one here is non-linear.
        if (e.lin.length > 0 || arityOf(e, defArity(this.defs)).lin > 0) throw new InternalError(`unzip: a mixed ${e.op} must be bound by a let`);
        return { ctx: [], nl: e, lin: null };
      case 'call': {
        const callee = this.defs.get(e.fn)!;
        if (!isMixed(callee)) {
          return callee.nlResults.length > 0 || callee.linParams.length === 0 ? { ctx: [], nl: e, lin: null } : { ctx: [], nl: ret([]), lin: e };
        }
        // UApp: run the callee's non-linear half now; its tape feeds its linear half later.
        const stem = unzipStem(callee);
        const fwdCallee = derivedName(role('fwd', stem));
        const fwd = this.defs.get(fwdCallee)!;
        const outs = callee.nlResults.map((t) => binder(this.names.fresh('w'), t));
        const tapeType = fwd.nlResults[fwd.nlResults.length - 1];
        const tape = binder(this.names.fresh(`${stem}_tape`.replace(/\./g, '_')), tapeType);
        return {
          ctx: [letS([...outs, tape], [], call(fwdCallee, e.nl))],
          nl: ret(outs.map((b) => b.name)),
          lin: call(derivedName(role('lin', stem)), [tape.name], e.lin),
        };
      }
      case 'drop': {
        const s = this.split(e.expr);
        return {
          ctx: s.ctx,
          nl: dropE(s.nl),
          lin: s.lin === null ? null : dropE(s.lin),
        };
      }
      default:
        return isLinearLeaf(e) ? { ctx: [], nl: ret([]), lin: e } : { ctx: [], nl: e, lin: null };
    }
  }

  /** How many construct bodies the statement being split sits in. */
  private depth = 0;
  /** Whether the residuals of the body being split end as numbers of a record (UnzipOps.flagsAsNumbers). */
  private flagsAsNumbers = false;

  /**
   * Arrays of the block being split that an enclosing scope overwrites later (a loop's carried
   * array, read after this run's writes and overwritten by the next run), and, for the bodies of
   * the construct being split, their parameters that receive such an array. A nested body reading
   * one stores what it reads (chooseResiduals) instead of keeping the array for its linear half,
   * which would put each run's version of the array on the enclosing loop's tape and force a
   * copy of it per run before the next one may write in place.
   */
  private overwrittenOutside = new Set<string>();
  private readonly overwrittenParams = new Map<Lambda, Set<string>>();

  /** The parameters of e's bodies that receive an operand in `names`, by body (ConstructRule.invariants and carries). */
  private paramsReceiving(e: ConstructExpr, names: ReadonlySet<string>): void {
    if (names.size === 0) return;
    const rule = constructRule(e, 'unzip');
    const bodyArity = (body: Lambda) => arityOf(body.body.result, defArity(this.defs));
    const mark = (body: number, param: number, operand: number) => {
      const l = e.bodies[body];
      if (!l || !names.has(e.nl[operand]) || param >= l.nlParams.length) return;
      let set = this.overwrittenParams.get(l);
      if (!set) this.overwrittenParams.set(l, (set = new Set()));
      set.add(l.nlParams[param].name);
    };
    // The facets describe the non-linear operands and parameters, which a mixed construct lays
    // out as its non-linear version does: asked of it without its linear operands.
    const nonLinear: ConstructExpr = { ...e, lin: [] };
    const inv = rule.invariants?.(nonLinear, bodyArity);
    if (inv) for (let k = 0; k < inv.count; k++) mark(inv.body, inv.param + k, inv.operand + k);
    for (const c of rule.carries?.(nonLinear, bodyArity) ?? []) mark(c.body, c.param, c.operand);
  }

  /** A mixed construct through its rule: the context's statements and the linear half. */
  private splitConstruct(e: ConstructExpr, results: Sides<Binder>): { stmts: Stmt[]; lin: Expr } {
    this.paramsReceiving(e, this.overwrittenOutside);
    const b = new Builder(this.names);
    const where = constructRule(e, 'unzip').bodyResiduals;
    const inBodies = where === 'numbers' || (where === 'enclosing' && this.flagsAsNumbers);
    const ops: UnzipOps = {
      b,
      nested: this.depth > 0,
      recomputesCheap: this.policy === 'cheap' || this.policy === 'recompute',
      flagsAsNumbers: this.flagsAsNumbers,
      unzipBody: (body) => this.unzipBody(body, inBodies),
      typeOf: (name) => {
        const t = this.types.get(name);
        if (!t) throw new InternalError(`unzip: no type for ${name} (annotate types first)`);
        return t;
      },
      typeName: (hint) => residualTypeName(unzipStem(this.defs.get(this.fn)!), this.names.fresh(hint)),
      lengthParams,
    };
    const lin = constructRule(e, 'unzip').unzip(ops, e, results);
    return { stmts: [...b.finish(ret([])).stmts], lin };
  }

  /** U of a construct's body: (p̄ ;) -> (r̄, residuals ;) and (residuals ; ṗ̄) -> (; ṙ̄). */
  unzipBody(l: Lambda, flagsAsNumbers = false): UnzippedBody {
    // Deep nesting is walked in stretches: the request may run later, at the bottom of the stack.
    const depth = this.depth + 1;
    return this.walk.body(l.body, () => {
      const saved = [this.depth, this.flagsAsNumbers] as const;
      this.depth = depth;
      this.flagsAsNumbers = flagsAsNumbers;
      try {
        return this.unzipBodyHere(l);
      } finally {
        [this.depth, this.flagsAsNumbers] = saved;
      }
    });
  }

  private unzipBodyHere(l: Lambda): UnzippedBody {
    const nlResults = arityOf(l.body.result, defArity(this.defs)).nl;
    const h = this.halves(l.nlParams, l.body, nlResults, true, this.overwrittenParams.get(l));
    return {
      primal: this.settled(lambda(l.nlParams, [], block(h.context, ret([...h.outs.map((o) => o.name), ...h.residuals.map((r) => r.name)])))),
      tangent: this.settled(lambda(h.residuals, l.linParams, h.linBody)),
      residuals: h.residuals.map((r) => r.type!),
    };
  }

  /**
   * The split of a body with these non-linear parameters: the context computing its non-linear
   * results into `outs`, the residuals (typed binders: parameters first, then bindings in
   * program order) and the linear half's block, which starts with the recomputed bindings.
   */
  halves(
    nlParams: readonly Binder[],
    body: Block,
    nlResults: number,
    inBody = false,
    overwrittenParams: ReadonlySet<string> = new Set(),
  ): { context: Stmt[]; outs: Binder[]; residuals: Binder[]; linBody: Block } {
    // What enclosing scopes overwrite, for the constructs of this block (splitConstruct): the
    // parameters that receive such arrays, the arrays this block's own statements overwrite, and
    // a loop body's array results (its next run overwrites them).
    const outside = new Set(overwrittenParams);
    if (inBody) {
      for (const n of this.overwritten(body.stmts)) outside.add(n);
      if (body.result.tag === 'ret') for (const n of body.result.nl) outside.add(n);
    }
    const saved = this.overwrittenOutside;
    this.overwrittenOutside = outside;
    let split: Split;
    try {
      split = this.splitBlock(body);
    } finally {
      this.overwrittenOutside = saved;
    }
    const { ctx, nl, lin } = split;
    const linBody = lin === null ? block([], EMPTY_LIN) : lin.tag === 'block' ? lin.block : block([], lin);
    // 'cheap' pays off where residuals are stored per run of a body (a loop's stacks); a
    // function's own residuals are locals once f.fwd and f.bwd are fused, so they stay.
    const policy = this.policy === 'cheap' && !inBody ? 'save' : this.policy;
    const known = new Map<string, Type | undefined>(nlParams.map((p) => [p.name, p.type]));
    const bound = new Set<string>();
    for (const s of ctx) for (const b of s.tag === 'let' ? s.nl : s.names) known.set(b.name, b.type), bound.add(b.name);
    // Only arrays are overwritten: a number a loop carries is a new value each run.
    const overwritten = new Set([...this.overwritten(ctx), ...overwrittenParams].filter((n) => known.get(n)?.tag === 'array'));
    // A body's array results are carried to its next run (a loop's), which may overwrite them.
    if (inBody && nl.tag === 'ret') for (const n of nl.nl) if (known.get(n)?.tag === 'array') overwritten.add(n);
    const linBodyOwn = this.lengthsForWitnesses(ctx, linBody, (w) => known.get(w)?.tag === 'array' && (overwritten.has(w) || bound.has(w)));
    const { recompute, needed } = chooseResiduals(this.fn, ctx, linBodyOwn, policy, overwritten);
    const types = new Map<string, Type>();
    const order: string[] = [];
    const note = (b: Binder) => {
      types.set(b.name, b.type!);
      order.push(b.name);
    };
    nlParams.forEach(note);
    ctx.forEach((s) => (s.tag === 'let' ? s.nl : s.names).forEach(note));
    const residuals = order.filter((n) => needed.has(n)).map((n) => binder(n, types.get(n)));
    // Typed where the results are variables of the context (a ret): the drivers then need no checker for them.
    const outs = Array.from({ length: nlResults }, (_, i) => binder(this.names.fresh('y'), nl.tag === 'ret' ? known.get(nl.nl[i]) : undefined));
    const context = [
      ...forwardContext(
        ctx,
        new Set(recompute),
        nl,
        residuals.map((r) => r.name),
      ),
      letS(outs, [], nl),
    ];
    return { context, outs, residuals, linBody: block([...recompute, ...linBodyOwn.stmts], linBodyOwn.result) };
  }

  /** The arrays a statement of the context may overwrite (ConstructRule.overwrites: an update's array, a loop's carried ones). */
  private overwritten(ctx: readonly Stmt[]): Set<string> {
    const out = new Set<string>();
    for (const s of ctx) {
      if (s.tag !== 'let' || s.rhs.tag !== 'construct') continue;
      const e = s.rhs;
      const rule = constructRule(e, 'unzip');
      for (const k of rule.overwrites?.(
        e,
        (body) => arityOf(body.body.result, defArity(this.defs)),
        (body) => this.handedOn(body),
      ) ?? [])
        out.add(e.nl[k]);
    }
    return out;
  }

  /**
   * What a body may overwrite or hand on to someone who may (ConstructRule.overwrites' `handsOn`):
   * what its statements overwrite, what it copies or nests in a block or tuple, and its results.
   */
  private handedOn(body: Lambda): Set<string> {
    const out = this.overwritten(body.body.stmts);
    for (const s of body.body.stmts) {
      if (s.tag === 'unpack') continue;
      const e = s.rhs;
      if (e.tag === 'var' || e.tag === 'tuple' || e.tag === 'block' || e.tag === 'ret') closedFreeNonLinear(e).forEach((n) => out.add(n));
    }
    closedFreeNonLinear(body.body.result).forEach((n) => out.add(n));
    return out;
  }

  /**
   * A witness (an operand read only for its length, ConstructRule.lengthOnly) computed in the
   * context, or one the context overwrites, would be a residual holding a version of the array:
   * a reference on the tape that keeps the forward half from writing it in place (opt/inplace.ts).
   * The linear half gets its length instead, bound in the context right after the array. (A
   * parameter's array stays: an invariant of a loop is passed once, not stored per run.)
   */
  private lengthsForWitnesses(ctx: Stmt[], lin: Block, byLength: (w: string) => boolean): Block {
    const lengths = new Map<string, string>();
    const lengthOf = (w: string): string => {
      let n = lengths.get(w);
      if (n !== undefined) return n;
      n = this.names.fresh(`${w}_len`);
      lengths.set(w, n);
      const at = ctx.findIndex((s) => (s.tag === 'let' ? s.nl : s.names).some((b) => b.name === w));
      ctx.splice(at + 1, 0, letS([binder(n, REAL)], [], construct('len', [w], [], [])));
      return n;
    };
    const stmts = lin.stmts.map((s) => {
      if (s.tag !== 'let' || s.rhs.tag !== 'construct') return s;
      const e = s.rhs;
      const positions = constructRule(e, 'unzip').lengthOnly ?? [];
      const swap = (x: string, k: number) => positions.includes(k) && byLength(x);
      if (!e.nl.some(swap)) return s;
      const nl = e.nl.map((x, k) => (swap(x, k) ? lengthOf(x) : x));
      return { ...s, rhs: { ...e, nl } };
    });
    return block(stmts, lin.result);
  }
}

/** A body-less read its record calls cheap (an element by index, a length). */
const cheapRead = (e: Expr): boolean => e.tag === 'construct' && e.bodies.length === 0 && constructRule(e, 'unzip').cheap === true;

function recomputable(s: Stmt): boolean {
  if (s.tag === 'unpack') return true;
  if (s.nl.length !== 1 || s.lin.length !== 0) return false;
  return s.rhs.tag === 'prim' || s.rhs.tag === 'lit' || s.rhs.tag === 'tuple' || s.rhs.tag === 'var' || cheapRead(s.rhs);
}

/** Under 'cheap': one add or multiply, an element read, a copy: cheaper again than a tape slot. */
function cheap(s: Stmt): boolean {
  if (s.tag === 'unpack') return true;
  const e = s.rhs;
  return e.tag === 'var' || e.tag === 'tuple' || cheapRead(e) || (e.tag === 'prim' && PRIMS[e.op]?.cheap === true);
}

/**
 * A construct that runs one of its bodies once (ConstructRule.runsOneBody), non-linear and without
 * effects, whose bodies hold only cheap statements, literals, drops and renamings: under 'cheap', as cheap to
 * run again as those statements (a guarded `i·d + col`), and a stored result costs a tape slot.
 */
function cheapBranch(s: Stmt): boolean {
  if (s.tag !== 'let' || s.lin.length > 0 || s.rhs.tag !== 'construct') return false;
  const e = s.rhs;
  if (e.bodies.length === 0 || e.lin.length > 0 || constructRule(e, 'unzip').runsOneBody !== true || hasEffect(e)) return false;
  const cheapIn = (t: Stmt): boolean =>
    t.tag === 'unpack' || (t.lin.length === 0 && (t.rhs.tag === 'lit' || t.rhs.tag === 'drop' || (t.rhs.tag === 'ret' && t.rhs.lin.length === 0) || cheap(t) || cheapBranch(t)));
  return e.bodies.every((l) => l.linParams.length === 0 && l.body.stmts.every(cheapIn) && l.body.result.tag === 'ret' && l.body.result.lin.length === 0);
}

/** The operand a construct's one result is, unchanged (ConstructRule.passesOn: a check); undefined for anything else. */
function passedOn(s: Stmt): string | undefined {
  if (s.tag !== 'let' || s.nl.length !== 1 || s.lin.length > 0 || s.rhs.tag !== 'construct' || s.rhs.bodies.length > 0) return undefined;
  const k = constructRule(s.rhs, 'unzip').passesOn;
  return k === undefined ? undefined : s.rhs.nl[k];
}

function decide(policy: CheckpointPolicy, fn: string, s: Stmt): 'save' | 'recompute' {
  if (policy === 'cheap' && cheapBranch(s)) return 'recompute';
  if (!recomputable(s)) return 'save';
  // A literal costs nothing to rebuild and a tape slot to keep: never taped, whatever the policy.
  if (s.tag === 'let' && s.rhs.tag === 'lit') return 'recompute';
  if (policy === 'cheap') return cheap(s) ? 'recompute' : 'save';
  if (policy === 'save' || policy === 'recompute') return policy;
  if (s.tag === 'unpack') return 'recompute';
  return policy({ fn, name: s.nl[0].name, rhs: s.rhs });
}

/**
 * Walks C backwards from the variables ė_L needs, moving bindings the policy recomputes into
 * the linear half; what stays needed and is bound in C (or is a parameter) is the tape.
 */
function chooseResiduals(fn: string, ctx: readonly Stmt[], lin: Block, policy: CheckpointPolicy, overwritten: ReadonlySet<string>): { recompute: Stmt[]; needed: Set<string> } {
  const needed = closedFreeNonLinear(lin);
  const recompute: Stmt[] = [];
  for (let i = ctx.length - 1; i >= 0; i--) {
    const s = ctx[i];
    const bound = s.tag === 'let' ? s.nl : s.names;
    if (!bound.some((b) => needed.has(b.name))) continue;
    const passed = policy === 'save' ? undefined : passedOn(s);
    if (passed !== undefined && s.tag === 'let') {
      // The check stays in the forward half (kept there unread: keptAlive); the linear half reads
      // the value it let through.
      recompute.unshift(letS(s.nl, [], nvar(passed)));
      needed.delete(s.nl[0].name);
      needed.add(passed);
      continue;
    }
    if (decide(policy, fn, s) !== 'recompute') continue;
    // A throw (or a check) runs in the forward half, before any linear code, exactly once.
    if (s.tag === 'let' && keptAlive(s.rhs)) continue;
    // A read of an array the context overwrites is stored: recomputing it would keep that version
    // of the array alive for the linear half, and a write could then no longer run in place.
    if (s.tag === 'let' && overwritten.size > 0 && [...closedFreeNonLinear(s.rhs)].some((n) => overwritten.has(n))) continue;
    recompute.unshift(s);
    bound.forEach((b) => needed.delete(b.name));
    if (s.tag === 'let') closedFreeNonLinear(s.rhs).forEach((n) => needed.add(n));
    else needed.add(s.tuple);
  }
  return { recompute, needed };
}

/**
 * The forward half's context: C without the recomputed bindings nothing in f.fwd needs any
 * more. Moved work is then done once, in f.lin, and f.fwd never computes a value only to drop
 * it (a literal partial such as 1, or `cos x` under the recompute policy).
 */
function forwardContext(ctx: readonly Stmt[], moved: ReadonlySet<Stmt>, nl: Expr, residuals: readonly string[]): Stmt[] {
  const live = closedFreeNonLinear(nl);
  residuals.forEach((n) => live.add(n));
  const kept: Stmt[] = [];
  for (let i = ctx.length - 1; i >= 0; i--) {
    const s = ctx[i];
    const bound = s.tag === 'let' ? s.nl : s.names;
    if (moved.has(s) && !bound.some((b) => live.has(b.name))) continue;
    kept.push(s);
    if (s.tag === 'let') closedFreeNonLinear(s.rhs).forEach((n) => live.add(n));
    else live.add(s.tuple);
  }
  return kept.reverse();
}

function unzipDef(d: FnDef, defs: ReadonlyMap<string, FnDef>, policy: CheckpointPolicy): [FnDef, FnDef] {
  const names = new NameSupply(namesIn(d.body, new Set([...d.nlParams, ...d.linParams].map((b) => b.name))));
  const types = new Map<string, Type>();
  visitDef(d, { bind: (b) => b.type && types.set(b.name, b.type) });
  const u = new Unzipper(d.name, defs, names, policy, types);
  const { context, outs, residuals, linBody } = u.walk.run(() => u.halves(d.nlParams, d.body, d.nlResults.length));
  const tapeType = tupleType(
    residuals.map((r) => r.type!),
    tapeName(unzipStem(d)),
  );

  const tape = names.fresh('tape');
  const fwdBody = block([...context, letS([binder(tape, tapeType)], [], { tag: 'tuple', linear: false, elems: residuals.map((r) => r.name) })], ret([...outs.map((b) => b.name), tape]));
  const stem = unzipStem(d);
  const fwd: FnDef = {
    name: derivedName(role('fwd', stem)),
    role: role('fwd', stem),
    nlParams: d.nlParams,
    linParams: [],
    nlResults: [...d.nlResults, tapeType],
    linResults: [],
    body: fwdBody,
  };
  const tapeParam = binder(tape, tapeType);
  const linDef: FnDef = {
    name: derivedName(role('lin', stem)),
    role: role('lin', stem),
    nlParams: [tapeParam],
    linParams: d.linParams,
    nlResults: [],
    linResults: d.linResults,
    body: block([unpackS(false, residuals, tape), ...linBody.stmts], linBody.result),
  };
  return [u.settled(fwd), u.settled(linDef)];
}

/** Appends f.fwd and f.lin for each named mixed function and every mixed function it calls. */
export function unzipProgram(p: Program, fns: readonly string[], opts: UnzipOptions = {}): Program {
  const policy = opts.policy ?? 'save';
  const defs = defMap(p);
  const out = [...p.defs];
  for (const name of calleesFirst(p, fns)) {
    const d = defs.get(name)!;
    if (!isMixed(d) || defs.has(derivedName(role('fwd', unzipStem(d))))) continue;
    for (const half of unzipDef(d, defs, policy)) {
      defs.set(half.name, half);
      out.push(half);
    }
  }
  return { ...p, defs: out };
}
