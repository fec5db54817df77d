// The user-level transformations, each a composition of the generic passes:
//   jvp = J          linearize = U ∘ J          vjp = T ∘ U ∘ J
//   grad = E(T(f.lin)) seeded with 1, after f.fwd       hvp = E ∘ J ∘ grad   (forward over reverse)
// The passes type the binders they build; after each, only a def that still has an untyped
// binder goes through the checker to get its types (`typeUntyped`). With `recheck` the whole
// program is re-checked after every pass, with the Linear B restrictions enforced on the
// unzipped and transposed halves: tests turn it on; builds leave it off. Whatever the options, a
// function is proved Linear B before it is transposed.
import { followingNesting } from '../ir/nesting';
import { annotateTypes, checkProgram, typeUntyped } from '../language/check';
import { Builder, NameSupply } from '../ir/build';
import { restoreLinearity } from '../ir/linearity';
import { FnDef, InternalError, IrError, Program, RoleKind, binder, call, construct, ret, REAL, tangentType, tuple, Type } from '../ir/syntax';
import { printType } from '../ir/printType';
import { printDef } from '../ir/print';
import { jvpProgram, maskedJvpName } from './jvp';
import { unzipProgram, CheckpointPolicy } from './unzip';
import { hoistInvariants } from '../opt/licm';
import { tabulateInvariants } from '../opt/tabulate';
import { transposeProgram } from './transpose';
import { eraseProgram } from './erase';
import { simplifyProgram } from '../opt/simplify';
import { dropUnreadResults } from '../opt/unreadResults';
import { takeForwardedBody } from '../opt/forwarders';
import { finishWaiting, isWaiting, markWaiting, mayWait } from '../opt/deferred';
import { bwdName, derivedName, erasedName, fwdName, hvpName, jvpName, linName, role, transposeRole } from '../ir/names';
import { calleesFirst, callSitesOfDef, findDef } from '../ir/program';
import { inlineProgram } from '../opt/inline';
import { flattenSignature, leafTypes } from '../opt/flatten';
import { checkpointProgram, LoopCheckpoint } from './checkpoint';

export interface DriverOptions {
  readonly policy?: CheckpointPolicy;
  readonly simplify?: boolean;
  /** `false` skips every check that is not needed to transpose (default true). */
  readonly check?: boolean;
  /**
   * Re-check the whole program, Linear B included, after every pass (default false; the plugin
   * and the command line turn it on when the environment sets TSAD_RECHECK=1, as the tests do).
   * A debugging net for the passes: costs compile time, never changes the output. The check that
   * proves a function Linear B before it is transposed runs regardless.
   */
  readonly recheck?: boolean;
  /**
   * Inline the calls of the function before differentiating it (default false): every pass then
   * sees one function, and tapes hold plain values. Functions with their own JVP rule stay calls.
   */
  readonly inlinePrimal?: boolean;
  /**
   * How reverse mode treats counted loops (ad/checkpoint.ts): 'store' (default) saves every
   * iteration's residuals; `{ every: k }`, 'sqrt' and `{ levels: L }` save the carried state at
   * segment starts and recompute one segment at a time. Forward mode ignores it.
   */
  readonly checkpoint?: LoopCheckpoint;
  /**
   * Gradients by forward mode (default false): one JVP per scalar of the differentiated
   * parameters instead of one backward pass. For functions reverse mode cannot transpose yet (a
   * derivative whose code runs a loop: T of its tangent stacks); as cheap as reverse mode when
   * there is one scalar, as for grad(grad(f)) of f of one number.
   */
  readonly forwardGrad?: boolean;
  /**
   * Called with the program after each pass, and again after the simplifier when it changed the
   * pass's new defs: how `tsad inspect --stage passes` and the playground show every pass.
   */
  readonly trace?: PassTrace;
  /**
   * The caller fuses what this driver builds (valueAndGradOf inlines the primal and backward
   * halves into one def and simplifies it): the small straight-line defs a pass adds wait for
   * that one simplification instead of getting their own (opt/deferred.ts). valueAndGradOf
   * simplifies whatever still waits where it ends; other drivers hand waiting defs back as they are.
   */
  readonly deferSimplify?: boolean;
}

/** One traced step: the pass, the program after it, and the defs the pass added. */
export type PassTrace = (pass: string, program: Program, added: readonly string[]) => void;

/** The halves a transposition reads as Linear B: unzipped and transposed defs. */
const LINEAR_B_ROLES: ReadonlySet<RoleKind> = new Set(['fwd', 'lin', 'bwd', 'transpose']);

function linearBNames(p: Program): string[] {
  return p.defs.filter((d) => d.role !== undefined && LINEAR_B_ROLES.has(d.role.kind)).map((d) => d.name);
}

function rechecking(o: DriverOptions): boolean {
  return o.check !== false && o.recheck === true;
}

/** Types what is untyped, optionally simplifies the new defs, and (with `recheck`) checks a pass's output. */
function settle(p: Program, o: DriverOptions, fresh: readonly string[] = []): Program {
  let q = typeUntyped(p);
  // The simplifier keeps its typed input's binder types (the copies it adds are typed), so its
  // output is annotated again only when it is also being re-checked. It keeps usage too.
  const now = o.simplify ? fresh.filter((n) => !(o.deferSimplify && waits(q, n))) : [];
  if (now.length > 0) {
    q = simplifyProgram(q, now);
    if (rechecking(o)) q = annotateTypes(assertUsage(q, 'simplify', now));
    o.trace?.('simplify', q, now);
  }
  if (rechecking(o)) checkProgram(q, { linearB: linearBNames(q) });
  return q;
}

/** Marks a def that may wait for the pipeline's last simplification; whether it does. */
function waits(p: Program, name: string): boolean {
  const d = findDef(p, name);
  if (mayWait(d)) markWaiting(d);
  return isWaiting(d);
}

/**
 * Transposition reads a linear function as Linear B (non-linear code never touches a linear
 * value); this proves it for the functions about to be transposed and the linear functions they
 * call, so a Linear A input gets the checker's message instead of a failure inside T.
 */
function proveLinearB(p: Program, fns: readonly string[]): void {
  const linear = calleesFirst(p, fns).filter((n) => {
    const d = findDef(p, n);
    return d.nlResults.length === 0 && (d.linParams.length > 0 || d.linResults.length > 0);
  });
  // Only they are checked here: the other defs' signatures are all the proof reads.
  checkProgram(p, { linearB: linear, typedAsIs: true });
}

function added(before: Program, after: Program): string[] {
  const old = new Set(before.defs.map((d) => d.name));
  return after.defs.map((d) => d.name).filter((n) => !old.has(n));
}

/**
 * One step of a driver: a whole-program pass. After each step the program is settled: annotated,
 * the defs the step added simplified (with `simplify`), and everything re-checked (with
 * `recheck`). Drivers are declared as sequences of steps.
 */
export interface Pass {
  readonly name: string;
  readonly run: (p: Program) => Program;
  /** The simplifier leaves what this step adds as it is (definitions already written tersely). */
  readonly keepsAsWritten?: boolean;
  /**
   * What this step adds or rebuilds is usage-correct as built (every linear variable used once,
   * every variable used): with `recheck`, a def that restoreLinearity would still change is an
   * error. (The simplifier keeps usage too; `settle` asserts it for the defs it simplifies.)
   */
  readonly keepsUsage?: boolean;
}

/** A pass that keeps the usage discipline left a def that needs a dup or a drop; the program. */
function assertUsage(p: Program, pass: string, fresh: readonly string[]): Program {
  for (const n of fresh) {
    const d = findDef(p, n);
    const repaired = restoreLinearity(d);
    if (repaired !== d) throw new InternalError(`${pass}: ${n} needs a dup or a drop that its builders did not write: ${missingLines(d, repaired)}`);
  }
  return p;
}

/** The defs a step added or rebuilt (by identity: a pass returns a def it left alone as it was). */
function touched(before: Program, after: Program): string[] {
  const old = new Map(before.defs.map((d) => [d.name, d]));
  return after.defs.filter((d) => old.get(d.name) !== d).map((d) => d.name);
}

/** The lines the repair would add (the first few): where a builder forgot a dup or a drop. */
function missingLines(d: FnDef, repaired: FnDef): string {
  const had = new Set(printDef(d).split('\n'));
  const added = printDef(repaired)
    .split('\n')
    .filter((l) => !had.has(l))
    .map((l) => l.trim());
  return added.slice(0, 6).join('; ') + (added.length > 6 ? '; …' : '');
}

export function runPasses(p: Program, o: DriverOptions, passes: readonly Pass[]): Program {
  let q = p;
  for (const step of passes) {
    // A pass recurses once per level of construct nesting: too deep is a clear IrError (nesting.ts).
    q = followingNesting(`the ${step.name} pass`, q, () => {
      const next = step.run(q);
      const fresh = added(q, next);
      if (step.keepsUsage && rechecking(o)) assertUsage(next, step.name, touched(q, next));
      o.trace?.(step.name, next, fresh);
      return settle(next, o, step.keepsAsWritten ? [] : fresh);
    });
  }
  return q;
}

// ---- the steps ----

const J = (fn: string, mask?: readonly boolean[]): Pass => ({ name: 'jvp', run: (p) => jvpProgram(p, [fn], mask), keepsUsage: true });

const U = (jvp: string, policy: CheckpointPolicy | undefined): Pass => ({
  name: 'unzip',
  run: (p) => unzipProgram(p, [jvp], { policy }),
  keepsUsage: true,
});

/** T, after proving its input Linear B (the one check that always runs). */
const T = (linear: string): Pass => ({
  name: 'transpose',
  run: (p) => {
    proveLinearB(p, [linear]);
    return transposeProgram(p, [linear]);
  },
  keepsUsage: true,
});

const E = (def: string): Pass => ({ name: 'erase', run: (p) => eraseProgram(p, [def]), keepsUsage: true });

/** Appends a def built from the program so far (the seeded gradient, the Hessian-vector product). */
const Define = (name: string, build: (p: Program) => FnDef): Pass => ({
  name,
  run: (p) => ({ ...p, defs: [...p.defs, build(p)] }),
  keepsAsWritten: true,
});

function prepare(p: Program, fn: string, o: DriverOptions): Program {
  const plain = { ...o, simplify: false };
  let q = settle(p, plain);
  findDef(q, fn);
  if (o.inlinePrimal) {
    const custom = new Set(q.defs.map((d) => d.name));
    q = runPasses(q, plain, [{ name: 'inline', run: (x) => inlineProgram(x, [fn], { keep: (g) => custom.has(jvpName(g)) }) }]);
  }
  // After inlining, so what a callee computes from a loop's invariants leaves the loop too; the
  // tables first, while the inner loops still compute their addresses themselves.
  q = runPasses(q, plain, [
    { name: 'tabulate', run: (x) => typeUntyped(tabulateInvariants(typeUntyped(x))) },
    { name: 'licm', run: (x) => typeUntyped(hoistInvariants(x)) },
  ]);
  const c = o.checkpoint;
  if (c !== undefined && c !== 'store') q = runPasses(q, plain, [{ name: 'checkpoint', run: (x) => checkpointProgram(x, [fn], c) }]);
  return q;
}

function requireNonLinear(p: Program, fn: string): FnDef {
  const d = findDef(p, fn);
  if (d.linParams.length > 0 || d.linResults.length > 0) {
    throw new IrError(`${fn} has linear parameters or results; differentiate a non-linear function (or erase it first)`);
  }
  return d;
}

// ---- the drivers ----

/**
 * With `mask`, J along the flagged parameters only (`f.jvp_0`): the others are constants, so
 * nothing is computed or passed for their tangents. Such a def is never unzipped.
 */
export function jvpOf(p: Program, fn: string, o: DriverOptions & { readonly inline?: boolean } = {}, mask?: readonly boolean[]): { program: Program; jvp: string } {
  return jvpStep(p, fn, { ...o, checkpoint: undefined }, mask);
}

/** J after the preparation; with `checkpoint` when reverse mode follows (linearizeOf). */
function jvpStep(p: Program, fn: string, o: DriverOptions & { readonly inline?: boolean }, mask?: readonly boolean[]): { program: Program; jvp: string } {
  const q = prepare(p, fn, o);
  requireNonLinear(q, fn);
  const jvp = mask ? maskedJvpName(fn, mask) : jvpName(fn);
  if (!o.inline) return { program: runPasses(q, o, [J(fn, mask)]), jvp };
  // Fused, J's straight-line output is simplified once, in the fused def (opt/deferred.ts).
  return { program: finishWaiting(runPasses(q, { ...o, deferSimplify: true }, [J(fn, mask), Fuse(jvp)]), [jvp]), jvp };
}

/**
 * Inlines every call of `def` and simplifies it: one straight-line function. A derivative's halves
 * are called once, so inlining them copies nothing; left a call, a half computes the cotangent of
 * every parameter and passes its tape as an array. GradBench gmm's and lstm's backward halves
 * weigh about 1,800 of the inliner's units (opt/inline.ts), next to its 2,000 for a single call site.
 */
const FUSED_HALVES = 3000;
const Fuse = (def: string): Pass => ({
  name: 'fuse',
  run: (p) => simplifyProgram(typeUntyped(inlineProgram(p, [def], { maxSingleUseSize: FUSED_HALVES })), [def]),
  keepsUsage: true,
});

/**
 * What the fused def still calls (a callee too large to inline) returns only the results it reads
 * (opt/unreadResults.ts): a Hessian-vector product keeps the tangent of the gradient, not the
 * gradient.
 */
const Narrow = (def: string): Pass => ({ name: 'unread results', run: (p) => dropUnreadResults(p, [def]), keepsUsage: true });

/** A fused def left only calling such a callee takes its body (opt/forwarders.ts). */
const Forwarded = (def: string): Pass => ({ name: 'forwarded', run: (p) => takeForwardedBody(p, def), keepsUsage: true });

export function fuse(p: Program, def: string, o: DriverOptions = {}): Program {
  return runPasses(p, { ...o, simplify: false }, [Fuse(def), Narrow(def), Forwarded(def)]);
}

export function linearizeOf(p: Program, fn: string, o: DriverOptions = {}): { program: Program; fwd: string; lin: string } {
  const { program, jvp } = jvpStep(p, fn, o);
  return { program: runPasses(program, o, [U(jvp, o.policy)]), fwd: fwdName(fn), lin: linName(fn) };
}

export function vjpOf(p: Program, fn: string, o: DriverOptions = {}): { program: Program; fwd: string; bwd: string } {
  const { program, fwd, lin } = linearizeOf(p, fn, o);
  return { program: runPasses(program, o, [T(lin)]), fwd, bwd: bwdName(fn) };
}

export function transposeOf(p: Program, fn: string, o: DriverOptions = {}): { program: Program; transposed: string } {
  const q = runPasses(prepare(p, fn, o), o, [T(fn)]);
  return { program: q, transposed: derivedName(transposeRole(findDef(q, fn))) };
}

/**
 * `f.grad(x̄ ;) -> (∂f/∂x̄ ;)` for a function with exactly one real result; with `wrt`, only those
 * parameters' gradients, in a def named after them (`f.grad_0`).
 */
export function gradOf(p: Program, fn: string, o: DriverOptions = {}, wrt?: readonly number[]): { program: Program; grad: string } {
  const { program, def } = seededReverse(p, fn, o, { kind: 'grad', withValue: false, wrt });
  if (!wrt) return { program, grad: def };
  const named = `${def}_${wrt.join('_')}`;
  return { program: { ...program, defs: program.defs.map((d) => (d.name === def ? { ...d, name: named } : d)) }, grad: named };
}

export interface ValueAndGradOptions extends DriverOptions {
  /** Parameters whose gradients are returned (default: all); the others are never computed. */
  readonly wrt?: readonly number[];
  /** Inline every call and flatten (default true): one straight-line function, no tape object. */
  readonly inline?: boolean;
  /** Return the value first (default true); without it the def returns only the gradients. */
  readonly value?: boolean;
  /** Scalar leaves instead of tuples in the signature (default false): see flatten.ts. */
  readonly flatSignature?: boolean;
  /** `vjpOf` of the same program and function with the same options, when the caller has it. */
  readonly vjp?: { readonly program: Program; readonly fwd: string; readonly bwd: string };
}

/**
 * `f.vg(x̄ ;) -> (f(x̄), ∂f/∂x̄_w ;)`: value and selected gradients as one function. With inlining
 * the tape never materialises: the primal's saved values are the backward pass's locals.
 */
export function valueAndGradOf(p: Program, fn: string, o: ValueAndGradOptions = {}): { program: Program; valueAndGrad: string } {
  // Inlined, the halves this builds are simplified once, in the fused def (opt/deferred.ts).
  const { program, def } = seededReverse(p, fn, o.inline !== false ? { ...o, deferSimplify: true } : o, { kind: 'vg', withValue: o.value !== false, wrt: o.wrt });
  const steps: Pass[] = [];
  // Fused first even when flattening inlines again: the unpacked tuples' names (`p_w`, not
  // `p_2`) are what flattening names the scalar parameters after.
  if (o.inline !== false) steps.push(Fuse(def));
  if (o.flatSignature) {
    // Differentiated parameters are flattened; constants (data) keep their structure. Inlining
    // also flattens the block flattenSignature wraps the body in.
    steps.push({ name: 'flatten', run: (q) => ({ ...q, defs: q.defs.map((d) => (d.name === def ? flattenSignature(d, o.wrt) : d)) }) }, Fuse(def));
  }
  // The one simplification of what waited for it and was not fused (a call inlining left as it was).
  return { program: finishWaiting(runPasses(program, { ...o, simplify: false }, steps), [def]), valueAndGrad: def };
}

/**
 * `f.jac_w(x̄ ;) -> (row 0, row 1, … ;)`: reverse mode's Jacobian of a function whose result is
 * numbers, as one def. The primal runs once, then the erased backward pass once per scalar of the
 * result, seeded with that scalar's basis vector; everything is inlined, flattened and simplified
 * together. The tape never materialises (its values are locals), each seed's zeros fold away in
 * its pass, and what the passes recompute from the same tape values is computed once. Row r is
 * the scalars of each `wrt` parameter's cotangent in turn: the results are the flat Jacobian,
 * row-major. Undefined when a scalar of the result is not a real (no basis vector to seed).
 */
export function jacobianRowsOf(p: Program, fn: string, o: ValueAndGradOptions & { readonly wrt: readonly number[] }): { program: Program; jacobian: string } | undefined {
  const opts = { ...o, deferSimplify: true };
  const d = requireNonLinear(settle(p, { ...opts, simplify: false }), fn);
  const leaves = d.nlResults.flatMap(leafTypes);
  if (leaves.length === 0 || leaves.some((t) => t.tag !== 'real')) return undefined;
  const { program, fwd, bwd } = o.vjp ?? vjpOf(p, fn, opts);
  const name = `${derivedName(role('jac', fn))}_${o.wrt.join('_')}`;
  const q = runPasses(program, opts, [E(bwd), Define(name, (x) => jacobianRowsDef(x, d, fwd, bwd, name, o.wrt))]);
  const flat: Pass = { name: 'flatten', run: (x) => ({ ...x, defs: x.defs.map((e) => (e.name === name ? flattenSignature(e, o.wrt) : e)) }) };
  // One copy of the backward pass per row: inlined only while the copies stay within what one
  // function may take (opt/inline.ts' budget for a single call site); else no fused def.
  const rows = leaves.length;
  const fuseAll: Pass = { name: 'fuse', run: (x) => simplifyProgram(typeUntyped(inlineProgram(x, [name], { maxCalleeSize: Math.floor(JACOBIAN_ROWS_BUDGET / rows) })), [name]) };
  const fused = runPasses(q, { ...o, simplify: false }, [fuseAll, flat, Fuse(name)]);
  if (callSitesOfDef(findDef(fused, name)).has(erasedName(bwd))) return undefined;
  return { program: finishWaiting(fused, [name]), jacobian: name };
}

/** Bindings the backward passes of jacobianRowsOf may take in all, inlined side by side. */
const JACOBIAN_ROWS_BUDGET = 2000;

/** The body of jacobianRowsOf: f.fwd once, then f.bwd.E per result scalar along its basis vector. */
function jacobianRowsDef(p: Program, d: FnDef, fwd: string, bwd: string, name: string, wrt: readonly number[]): FnDef {
  const tapeType = findDef(p, fwd).nlResults[d.nlResults.length];
  const names = new NameSupply(d.nlParams.map((x) => x.name));
  const b = new Builder(names);
  const ys = d.nlResults.map((t) => binder(names.fresh('y'), t));
  const tape = binder(names.fresh('tape'), tapeType);
  b.bind(
    [...ys, tape],
    [],
    call(
      fwd,
      d.nlParams.map((x) => x.name),
    ),
  );
  for (const y of ys) b.drop({ tag: 'var', linear: false, name: y.name });
  // The seed of row r: 1 at real leaf r of the results (counted in leaf order), 0 elsewhere.
  const seed = (t: Type, hot: number, counter: { k: number }): string =>
    t.tag === 'tuple'
      ? b.nl(
          'seed',
          tuple(
            false,
            t.elems.map((e) => seed(e, hot, counter)),
          ),
          t,
        )
      : b.lit(counter.k++ === hot ? 1 : 0, 'seed');
  const rows = d.nlResults.flatMap(leafTypes).length;
  const results: string[] = [];
  for (let r = 0; r < rows; r++) {
    const counter = { k: 0 };
    const seeds = d.nlResults.map((t) => seed(tangentType(t), r, counter));
    const bars = d.nlParams.map((x) => binder(names.fresh(`${x.name}_bar`), tangentType(x.type!)));
    b.bind(bars, [], call(erasedName(bwd), [tape.name, ...seeds]));
    bars.forEach((g, i) => {
      if (!wrt.includes(i)) b.drop({ tag: 'var', linear: false, name: g.name });
    });
    results.push(...wrt.map((i) => bars[i].name));
  }
  return {
    name,
    role: role('jac', d.name),
    nlParams: d.nlParams,
    linParams: [],
    nlResults: Array.from({ length: rows }, () => wrt.map((i) => tangentType(d.nlParams[i].type!))).flat(),
    linResults: [],
    body: b.finish(ret(results)),
  };
}

function seededReverse(
  p: Program,
  fn: string,
  o: DriverOptions & { readonly vjp?: ValueAndGradOptions['vjp'] },
  shape: { kind: 'grad' | 'vg'; withValue: boolean; wrt?: readonly number[] },
): { program: Program; def: string } {
  // The signature is the same before and after inlining: annotating is enough to read it.
  const d = requireNonLinear(settle(p, { ...o, simplify: false }), fn);
  if (d.nlResults.length !== 1 || d.nlResults[0].tag !== 'real') {
    throw new IrError(`grad needs a function with one real result; ${fn} returns (${d.nlResults.map((t) => printType(t)).join(', ')})`);
  }
  if (o.forwardGrad) return seededForward(p, fn, d, o, shape);
  const { program, fwd, bwd } = o.vjp ?? vjpOf(p, fn, o);
  const seeded = derivedName(role(shape.kind, fn));
  const q = runPasses(program, o, [E(bwd), Define(seeded, (x) => seedDef(x, d, fwd, bwd, seeded, shape))]);
  return { program: q, def: seeded };
}

/** `f(x̄)` then the erased backward pass seeded with 1: the gradient as one non-linear def. */
function seedDef(p: Program, d: FnDef, fwd: string, bwd: string, name: string, shape: { kind: 'grad' | 'vg'; withValue: boolean; wrt?: readonly number[] }): FnDef {
  const tapeType = findDef(p, fwd).nlResults[1];
  const names = new NameSupply(d.nlParams.map((x) => x.name));
  const b = new Builder(names);
  const args = d.nlParams.map((x) => x.name);
  const y = names.fresh('y');
  const tape = names.fresh('tape');
  b.bind([binder(y, REAL), binder(tape, tapeType)], [], call(fwd, args));
  if (!shape.withValue) b.drop({ tag: 'var', linear: false, name: y });
  const seed = b.lit(1, 'seed');
  const grads = d.nlParams.map((x) => binder(names.fresh(`${x.name}_bar`), tangentType(x.type!)));
  b.bind(grads, [], call(erasedName(bwd), [tape, seed]));
  const wrt = shape.wrt ?? d.nlParams.map((_, i) => i);
  grads.forEach((g, i) => {
    if (!wrt.includes(i)) b.drop({ tag: 'var', linear: false, name: g.name });
  });
  const results = [...(shape.withValue ? [y] : []), ...wrt.map((i) => grads[i].name)];
  return {
    name,
    role: role(shape.kind, d.name),
    nlParams: d.nlParams,
    linParams: [],
    nlResults: [...(shape.withValue ? [REAL] : []), ...wrt.map((i) => tangentType(d.nlParams[i].type!))],
    linResults: [],
    body: b.finish(ret(results)),
  };
}

/**
 * The gradient def of seededReverse computed by forward mode: the erased JVP called once per
 * scalar leaf of the differentiated parameters, along the basis vector of that leaf; each call's
 * tangent is one entry of the gradient.
 */
function seededForward(p: Program, fn: string, d: FnDef, o: DriverOptions, shape: { kind: 'grad' | 'vg'; withValue: boolean; wrt?: readonly number[] }): { program: Program; def: string } {
  const j = jvpOf(p, fn, o);
  const name = derivedName(role(shape.kind, fn));
  const q = runPasses(j.program, o, [E(j.jvp), Define(name, () => forwardGradDef(d, erasedName(j.jvp), name, shape))]);
  return { program: q, def: name };
}

function forwardGradDef(d: FnDef, jvpE: string, name: string, shape: { kind: 'grad' | 'vg'; withValue: boolean; wrt?: readonly number[] }): FnDef {
  const names = new NameSupply(d.nlParams.map((x) => x.name));
  const b = new Builder(names);
  const wrt = shape.wrt ?? d.nlParams.map((_, i) => i);
  const types = d.nlParams.map((x) => tangentType(x.type!));
  // The tangent of parameter i with 1 at real leaf `hot` (counted in leaf order) and 0 elsewhere.
  const tangent = (t: Type, hot: number, counter: { k: number }): string => {
    if (t.tag === 'tuple')
      return b.nl(
        'dir',
        tuple(
          false,
          t.elems.map((e) => tangent(e, hot, counter)),
        ),
        t,
      );
    return b.lit(counter.k++ === hot ? 1 : 0, 'dir');
  };
  // An array parameter outside wrt (the front end refuses one inside, and arrays elsewhere) moves
  // along zeros of its run-time length: it is a constant of every JVP.
  const zerosLike = (i: number, t: Type): string => {
    if (t.tag !== 'array' || t.elem.tag !== 'real' || wrt.includes(i))
      throw new IrError(`forward-mode gradient of ${d.name}: parameter ${d.nlParams[i].name} of type ${printType(t)} is not supported`);
    const n = b.nl('n', construct('len', [d.nlParams[i].name], [], []), REAL);
    return b.nl('dir', construct('fill', [n, b.lit(0, 'zero')], [], []), t);
  };
  const hasArrayType = (t: Type): boolean => t.tag === 'array' || (t.tag === 'tuple' && t.elems.some(hasArrayType));
  let value: string | undefined;
  const run = (w: number, hot: number): string => {
    const dirs = types.map((t, i) => (hasArrayType(t) ? zerosLike(i, t) : tangent(t, i === w ? hot : -1, { k: 0 })));
    const [y, dy] = [binder(names.fresh('y'), REAL), binder(names.fresh(`d_${d.nlParams[w]?.name ?? 'y'}`), REAL)];
    b.bind([y, dy], [], call(jvpE, [...d.nlParams.map((x) => x.name), ...dirs]));
    if (value === undefined && shape.withValue) value = y.name;
    else b.drop({ tag: 'var', linear: false, name: y.name });
    return dy.name;
  };
  // One entry of the gradient per real leaf, assembled into the parameter's tangent type.
  const assemble = (w: number, t: Type, counter: { k: number }): string => {
    if (t.tag === 'tuple')
      return b.nl(
        'grad',
        tuple(
          false,
          t.elems.map((e) => assemble(w, e, counter)),
        ),
        t,
      );
    return run(w, counter.k++);
  };
  const grads = wrt.map((w) => assemble(w, types[w], { k: 0 }));
  if (value === undefined && (shape.withValue || grads.length === 0 || leafless(wrt, types))) {
    // No real leaf to differentiate along: the value comes from the function itself (and reads
    // the parameters, which a def must use).
    const y = binder(names.fresh('y'), REAL);
    b.bind(
      [y],
      [],
      call(
        d.name,
        d.nlParams.map((x) => x.name),
      ),
    );
    if (shape.withValue) value = y.name;
    else b.drop({ tag: 'var', linear: false, name: y.name });
  }
  const results = [...(shape.withValue ? [value!] : []), ...grads];
  return {
    name,
    role: role(shape.kind, d.name),
    nlParams: d.nlParams,
    linParams: [],
    nlResults: [...(shape.withValue ? [REAL] : []), ...wrt.map((i) => types[i])],
    linResults: [],
    body: b.finish(ret(results)),
  };
}

const realLeaves = (t: Type): number => (t.tag === 'tuple' ? t.elems.reduce((n, e) => n + realLeaves(e), 0) : t.tag === 'real' ? 1 : 0);
const leafless = (wrt: readonly number[], types: readonly Type[]): boolean => wrt.every((w) => realLeaves(types[w]) === 0);

/** `f.hvp(x̄, v̄ ;) -> (H·v̄ ;)`: forward mode over the reverse-mode gradient. */
/**
 * With `wrt`, H·v̄ in those parameters only (`f.hvp_0`): the gradient differentiated again is only
 * theirs, so no tangent of another parameter's cotangent (a data array's) is computed; and it is
 * differentiated along them only (a masked J), so the other parameters are constants: no term of
 * their directions is computed, and the def takes none (`f.hvp_0(x̄, v̄_0 ;)`): a caller passed
 * zeros the def dropped unread.
 */
export function hvpOf(p: Program, fn: string, o: DriverOptions = {}, wrt?: readonly number[]): { program: Program; hvp: string } {
  const { program, grad } = gradOf(p, fn, o, wrt);
  const mask = wrt && findDef(program, fn).nlParams.map((_, i) => wrt.includes(i));
  // Fused first, the tape's components keep their symbolic zeros (a data array's tangent), which a
  // call of the backward pass would receive materialised inside the tape's tangent. Where the
  // gradient is constant along wrt every loop's J is then the primal loop, nobody reads it, and
  // only its trip-count checks stay (kept unread, opt/checksAlone.ts; droppedChecks.test).
  const { program: withJvp, jvp } = jvpOf(mask ? fuse(program, grad, o) : program, grad, o, mask);
  const name = wrt ? `${hvpName(fn)}_${wrt.join('_')}` : hvpName(fn);
  const q = runPasses(withJvp, o, [E(jvp), Define(name, (x) => hvpDef(findDef(x, fn), jvp, name, wrt))]);
  return { program: q, hvp: name };
}

function hvpDef(d: FnDef, jvp: string, name: string, wrt?: readonly number[]): FnDef {
  const names = new NameSupply(d.nlParams.map((x) => x.name));
  // Along the wrt parameters only (a masked J): the other parameters have no direction.
  const along = d.nlParams.filter((_, i) => !wrt || wrt.includes(i)).map((x) => binder(names.fresh(`${x.name}_v`), tangentType(x.type!)));
  const b = new Builder(names);
  const differentiated = wrt ? wrt.map((i) => d.nlParams[i]) : d.nlParams;
  const gs = differentiated.map((x) => binder(names.fresh(`${x.name}_bar`), tangentType(x.type!)));
  const hvs = differentiated.map((x) => binder(names.fresh(`${x.name}_hv`), tangentType(x.type!)));
  b.bind([...gs, ...hvs], [], call(erasedName(jvp), [...d.nlParams.map((x) => x.name), ...along.map((x) => x.name)]));
  gs.forEach((g) => b.drop({ tag: 'var', linear: false, name: g.name }));
  // Booleans have a zero-dimensional direction; the erased function still takes it.
  return {
    name,
    role: role('hvp', d.name),
    nlParams: [...d.nlParams, ...along],
    linParams: [],
    nlResults: hvs.map((h) => h.type as Type),
    linResults: [],
    body: b.finish(ret(hvs.map((h) => h.name))),
  };
}
