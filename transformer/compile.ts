// The bridge from a transform call site to generated code: lower the marked function, check
// that the transform applies to it, let the transform's planner run the drivers and describe
// the wrapper (plan/), and let the backend write the code, each def once per module.
import type * as ts from 'typescript';
import { IrError, Program } from './ir/syntax';
import { visitBlock } from './ir/traverse';
import type { CallSitePlan } from './plan/syntax';
import { Lowerer } from './frontend/lower';
import { ModuleNames } from './frontend/moduleNames';
import type { LoweredFunction, ModuleState } from './frontend/values';
import { SIZED_FORWARD_HINT } from './frontend/nested';
import type { ShapeOf, Target } from './frontend/nested';
import { Shape, componentShapes, describeShape, hasArray, isNumberArray } from './plan/shapes';
import { fail } from './frontend/diagnostics';
import { DriverOptions, vjpOf } from './ad/drivers';
import type { LoopCheckpoint } from './ad/checkpoint';
import { closureOf } from './plan/closure';
import { PLANNERS } from './plan/planners';
import { DRIVER, Reverse } from './plan/request';
import { TRANSFORMS, TransformKind } from './plan/transforms';
import { RUNTIME_HELPERS, TypeScriptBackend } from './backend/typescript';
import { TAPED_RUNTIME } from './constructs/taped';
import { runtimeSpecifier } from './frontend/markers';
import { GpuRequest, NotOnGpu, gpuProgramOf } from './backend/wgsl';
import type { GpuProgram } from '../runtime/webgpu/plan';
import type { Host } from './host';
import { accessorsOf, moduleValueReader, moduleValues, relativeSpecifier, stateReader } from './frontend/moduleState';
import { classOf, isInstanceMethod } from './frontend/methods';
import type { PlanStatement } from './plan/syntax';
import type { SharedDef, Signature } from './plan/request';
import { CONSTRUCTS, isConstruct } from './constructs/registry';

/** The wrapper's binding of its checked `this` (an instance method's object). */
const RECEIVER = 'tsad$receiver';

// Hints of the cases whose code's generic hint would not fit (docs/diagnostics.md).
const PASS_LIMIT_HINT = "tsad's passes cannot compile this transform of this function yet (the message names the construct); another transform of the same function may work: grad, vjp, jvp or hvp";
const MATRIX_RESULT_HINT =
  'jacobian, jacfwd, jacrev and hessian build number[][] results from parameters that are numbers or arrays of numbers (a Hessian: one of them); for others use vjp (rows), jvp (columns) or hvp (Hessian-vector products), which take every shape';

export interface CompileRequest {
  /** The marked function; for a transform of a transform, the innermost one. */
  readonly target: ts.SignatureDeclaration;
  /** A transform of a transform: what it differentiates (`grad(f)` in `grad(grad(f))`). */
  readonly of?: Target;
  /** For a transform of a local arrow: the shapes of the variables it may capture. */
  readonly captured?: ShapeOf;
  readonly transform: TransformKind;
  readonly wrt: readonly number[];
  readonly callSite: ts.Node;
  /** The marker's checkpoint policy for the function's loops (reverse mode). */
  readonly checkpoint?: LoopCheckpoint;
  /** jacobian, jacfwd, jacrev: `{ flat: true }`, one Float64Array per call. */
  readonly flat?: boolean;
}

export interface CompiledTransform {
  readonly name: string;
  /** 'reference': `T(f, opts?)` becomes `name`; 'call': `T(f, ...rest)` becomes `name(...rest)`. */
  readonly replaces: 'reference' | 'call';
}

export class ModuleCompiler {
  private readonly lowerer: Lowerer;
  private readonly backend: TypeScriptBackend;
  private readonly driver: DriverOptions;
  /**
   * The wrappers and defs in call-site order, emitted when the module's call sites are all known
   * (a grad's calls a valueAndGrad's def): each call site's plan, made then, and how to emit it.
   */
  private readonly out: (ts.Statement[] | { readonly fn: string; readonly plan: () => CallSitePlan; readonly emit: (p: CallSitePlan) => ts.Statement[] })[] = [];
  private readonly wrappers = new Map<string, CompiledTransform>();
  /** The valueAndGrad def of each (function, wrt, checkpoint), which a grad of the same calls. */
  private readonly valueAndGrads = new Map<string, SharedDef>();
  private readonly reverses = new Map<string, Reverse>();
  /** The other modules whose variables the wrappers read, by the name of their namespace import. */
  private readonly imports = new Map<ts.SourceFile, string>();
  /** The module's names: the functions it adds take none of them (frontend/moduleNames.ts). */
  private names?: ModuleNames;

  constructor(
    private readonly host: Host,
    private readonly checker: ts.TypeChecker,
    private readonly factory: ts.NodeFactory,
  ) {
    this.lowerer = new Lowerer(host.ts, checker, host.recheck);
    this.driver = { ...DRIVER, recheck: host.recheck };
    this.lowerer.nested.configure(this.driver);
    this.backend = new TypeScriptBackend({
      ts: host.ts,
      factory,
      original: (irName) => this.lowerer.declarationOf(irName),
      originOf: (irName, variable) => this.lowerer.originOf(irName, variable),
      freeName: (base) => this.names!.free(base),
    });
  }

  statements(): ts.Statement[] {
    // Every plan first: what the wrappers share (an argument check, a valueAndGrad's body) is
    // known before the first of them is emitted.
    const plans = this.out.map((entry) => (Array.isArray(entry) ? undefined : entry.plan()));
    plans.forEach((plan, k) => plan && this.backend.expect(plan, (this.out[k] as { fn: string }).fn));
    for (let k = 0; k < this.out.length; k++) {
      const entry = this.out[k];
      if (!Array.isArray(entry)) this.out[k] = entry.emit(plans[k]!);
    }
    return (this.out as ts.Statement[][]).flat();
  }

  /** Mixing: which callees of compiled code run taped, as opaque calls (transformer/taped, constructs/taped). */
  set tapedCallees(choose: Lowerer['tapedCallees']) {
    this.lowerer.tapedCallees = choose;
  }

  /**
   * `import * as tsad$module_k from '…'` for each module whose variables a wrapper reads, and
   * `const { tsad$grow, … } = tsad$rt.tsad$emitted;` for the runtime helpers the emitted code calls,
   * after `import * as tsad$rt from 'tsad'` unless the module has it already (`runtimeImported`:
   * taped code's import comes first).
   */
  importStatements(sf: ts.SourceFile, runtimeImported: boolean): ts.Statement[] {
    const f = this.factory;
    const namespace = (ns: string, specifier: string) =>
      f.createImportDeclaration(undefined, f.createImportClause(false, undefined, f.createNamespaceImport(f.createIdentifier(ns))), f.createStringLiteral(specifier));
    const out: ts.Statement[] = [...this.imports].map(([home, ns]) => namespace(ns, this.specifier(sf, home)));
    const helpers = this.backend.runtimeHelpers();
    if (helpers.length === 0) return out;
    if (!runtimeImported) out.push(namespace(TAPED_RUNTIME, runtimeSpecifier(sf, this.checker)));
    const binding = f.createObjectBindingPattern(helpers.map((h) => f.createBindingElement(undefined, undefined, h)));
    const from = f.createPropertyAccessExpression(f.createIdentifier(TAPED_RUNTIME), RUNTIME_HELPERS);
    out.push(f.createVariableStatement(undefined, f.createVariableDeclarationList([f.createVariableDeclaration(binding, undefined, undefined, from)], this.host.ts.NodeFlags.Const)));
    return out;
  }

  /** How `sf` names `home`: as one of its own imports does (an extension, a path alias), else by a relative path. */
  private specifier(sf: ts.SourceFile, home: ts.SourceFile): string {
    const t = this.host.ts;
    for (const s of sf.statements) {
      if (!(t.isImportDeclaration(s) || t.isExportDeclaration(s)) || !s.moduleSpecifier || !t.isStringLiteral(s.moduleSpecifier)) continue;
      if (this.checker.getSymbolAtLocation(s.moduleSpecifier)?.valueDeclaration === home) return s.moduleSpecifier.text;
    }
    return relativeSpecifier(sf, home);
  }

  /** Accessors for the unexported variables the marked functions of `sf` read (moduleState.ts). */
  accessors(sf: ts.SourceFile): ts.Statement[] {
    return accessorsOf(this.host.ts, this.checker, this.factory, sf, moduleValues(this.host.ts, this.checker, this.lowerer.lowered()));
  }

  /**
   * For an instance method: the wrapper's `this` (the object `grad(obj.method)` bound), checked to
   * have the methods compiled for it, the method itself and those it calls through `this`. A
   * subclass that overrides one gets a TypeError naming it, never the base's body.
   */
  private receiverGuard(fn: LoweredFunction, callSite: ts.Node, sf: ts.SourceFile, ns: (home: ts.SourceFile) => string): (() => ts.Expression) | undefined {
    const t = this.host.ts;
    const f = this.factory;
    if (!isInstanceMethod(t, fn.decl)) return undefined;
    const methods = [...new Set([fn.decl, ...fn.methods])];
    const call = t.isCallExpression(callSite) ? callSite : undefined;
    const kind = call ? call.expression.getText() : 'the transform';
    const where = `${kind}(${call?.arguments[0]?.getText() ?? fn.name})`;
    const compiledFor = sourceName(t, fn.decl, fn.name);
    const prototypes = methods.map((m) => {
      const cls = classOf(t, m);
      const symbol = cls && this.checker.getSymbolAtLocation(cls.name);
      if (!cls || !symbol) return fail(1102, callSite, `${where} needs the class of '${m.name.getText()}' by name when it runs: declare the class at module level`);
      return { method: m.name.getText(), cls: moduleValueReader(t, this.checker, f, sf, { symbol, decl: cls }, ns) };
    });
    return () => {
      const self = f.createThis();
      const thrower = (message: ts.Expression) =>
        f.createCallExpression(
          f.createParenthesizedExpression(
            f.createArrowFunction(
              undefined,
              undefined,
              [],
              undefined,
              f.createToken(t.SyntaxKind.EqualsGreaterThanToken),
              f.createBlock([f.createThrowStatement(f.createNewExpression(f.createIdentifier('TypeError'), undefined, [message]))]),
            ),
          ),
          undefined,
          [],
        );
      const className = f.createPropertyAccessExpression(f.createPropertyAccessExpression(f.createThis(), 'constructor'), 'name');
      const plus = (...parts: ts.Expression[]) => parts.reduce((a, b) => f.createBinaryExpression(a, t.SyntaxKind.PlusToken, b));
      let guarded: ts.Expression = self;
      for (const { method, cls } of [...prototypes].reverse()) {
        const compiled = f.createPropertyAccessExpression(f.createPropertyAccessExpression(cls.read(), 'prototype'), method);
        const differs = f.createBinaryExpression(f.createPropertyAccessExpression(f.createThis(), method), t.SyntaxKind.ExclamationEqualsEqualsToken, compiled);
        const message = plus(
          f.createStringLiteral(`tsad: ${where} was compiled for ${compiledFor}, but it is called on a `),
          className,
          f.createStringLiteral(`, whose ${method} is another method: give the receiver its own class's type (`),
          className,
          f.createStringLiteral('), so that tsad compiles that method'),
        );
        guarded = f.createConditionalExpression(differs, undefined, thrower(message), undefined, guarded);
      }
      const missing = f.createBinaryExpression(f.createThis(), t.SyntaxKind.EqualsEqualsToken, f.createNull());
      const unbound = thrower(
        f.createStringLiteral(`tsad: ${where} was compiled for the method ${compiledFor}, which needs the object it is called on: write ${kind}(object.${methods[0].name.getText()})`),
      );
      return f.createConditionalExpression(missing, undefined, unbound, undefined, guarded);
    };
  }

  /**
   * The function as its planner sees it: the module variables it reads become trailing
   * parameters with `read` set, and the wrapper binds each to a read of its variable.
   */
  private withState(fn: LoweredFunction, callSite: ts.Node): { sig: Signature; readers: Map<string, () => ts.Expression> } {
    const readers = new Map<string, () => ts.Expression>();
    const def = this.lowerer.defs.find((d) => d.name === fn.name)!;
    const names = def.nlParams.slice(fn.params.length).map((p) => p.name);
    const sf = callSite.getSourceFile();
    const ns = (home: ts.SourceFile) => {
      let known = this.imports.get(home);
      if (!known) {
        known = `tsad$module_${this.imports.size + 1}`;
        this.imports.set(home, known);
      }
      return known;
    };
    const guard = this.receiverGuard(fn, callSite, sf, ns);
    if (guard) readers.set(RECEIVER, guard);
    const state = fn.state.map((s: ModuleState, k) => {
      const reader = stateReader(this.host.ts, this.checker, this.factory, sf, s, ns);
      readers.set(names[k], reader.read);
      return { name: names[k], shape: s.shape, read: reader.root };
    });
    return { sig: { name: fn.name, params: [...fn.params, ...state], result: fn.result }, readers };
  }

  /** The Linear A program of a marked function and its callees (for `tsad inspect`). */
  lower(target: ts.SignatureDeclaration): { program: Program; fn: LoweredFunction } {
    const fn = this.lowerer.lower(target);
    return { program: { defs: [...this.lowerer.defs] }, fn };
  }

  /** Lowers a marked function that no transform may use, for its diagnostics (cached like any lowering). */
  check(target: ts.SignatureDeclaration): void {
    this.lowerer.lower(target);
  }

  compile(req: CompileRequest): CompiledTransform {
    const fn = req.of ? this.lowerer.nested.lower(req.of, req.captured).fn : this.lowerer.lower(req.target);
    const derivative = `${fn.name}|${req.wrt.join(',')}|${JSON.stringify(req.checkpoint ?? 'store')}`;
    const key = `${req.transform}${req.flat ? '|flat' : ''}|${derivative}`;
    const cached = this.wrappers.get(key);
    if (cached) return cached;
    // The module's other functions are not this derivative's business: every pass over the
    // program would otherwise walk all of them again, per call site.
    const program = closureOf({ defs: [...this.lowerer.defs] }, fn.name);
    const spec = TRANSFORMS[req.transform];
    const label = req.of?.tag === 'derived' ? req.of.call.getText() : req.of?.tag === 'arrow' ? shortText(req.of.decl.getText()) : sourceName(this.host.ts, req.target, fn.name);
    if (spec.scalarResult && fn.result.kind !== 'number') {
      fail(1004, req.callSite, `${req.transform} needs a function that returns a number; '${label}' returns a ${fn.result.kind}`);
    }
    // Reverse mode cannot transpose a derivative's loop yet (T of its tangent stacks): gradients
    // and Hessians of such a derivative go by forward mode instead (one JVP per scalar), Jacobians
    // by columns; only vjp has no forward stand-in.
    const twice = 'transposes' in spec && spec.transposes ? this.lowerer.nested.secondOrderLoop(program) : undefined;
    if (twice) {
      const what = twice.op === 'loop' ? 'a counted loop' : 'a while loop';
      const where = twice.fn === twice.derivative ? `the derivative '${twice.fn}'` : `'${twice.fn}' (called by the derivative '${twice.derivative}')`;
      const said = `${req.transform}(${label}) differentiates a derivative again in reverse mode, and ${where} runs ${what}: reverse mode through a derivative's loop is not supported yet`;
      if (req.transform === 'vjp') fail(1007, req.callSite, said);
      // The forward stand-in runs one JVP per number of the differentiated parameters, counted at compile time.
      const sized = req.transform === 'jacobian' || req.transform === 'jacrev' ? undefined : req.wrt.map((i) => fn.params[i]).find((p) => hasArray(p.shape));
      if (sized) fail(1007, req.callSite, `${said}, and its forward-mode stand-in (one JVP per number) cannot take '${sized.name}', which holds ${describeShape(sized.shape)}`, SIZED_FORWARD_HINT);
    }
    // Forward mode takes one JVP per number of the differentiated parameters; an array's numbers
    // are only known at run time, so an array is a constant there (a flat one, whose zero
    // direction has its run-time length), never differentiated.
    if (twice && req.transform !== 'jacobian' && req.transform !== 'jacrev') {
      // (hessian and hvp take the gradient in every parameter.)
      const every = req.transform === 'hessian' || req.transform === 'hvp';
      const array = fn.params.find((p, i) => hasArray(p.shape) && (every || req.wrt.includes(i) || !isNumberArray(p.shape)));
      if (array) {
        const where = twice.fn === twice.derivative ? `the derivative '${twice.fn}'` : `'${twice.fn}' (called by the derivative '${twice.derivative}')`;
        fail(
          1007,
          req.callSite,
          `${req.transform}(${label}) differentiates a derivative again, and ${where} runs a loop, which goes by forward mode (one JVP per number); forward mode does not take the array parameter '${array.name}' yet${every || req.wrt.includes(fn.params.indexOf(array)) ? '' : ' (an array inside a tuple or object, or a matrix)'}`,
        );
      }
    }
    if (spec.wrt) {
      for (const i of req.wrt) {
        const p = fn.params[i];
        if (!numbersOnly(p.shape)) {
          fail(1002, req.callSite, `cannot differentiate '${fn.name}' with respect to '${p.name}': it holds ${describeShape(p.shape)}, and booleans and strings have no derivative`);
        }
      }
    }
    this.checkMatrixShapes(req, fn, label);
    const suffix = req.wrt.length === 1 && req.wrt[0] === 0 ? '' : `_${req.wrt.join('_')}`;
    this.names ??= new ModuleNames(this.host.ts, req.callSite.getSourceFile());
    const name = this.names.free(`${fn.name}_${req.transform}${suffix}${req.flat ? '_flat' : ''}`);
    const planner = twice && (req.transform === 'jacobian' || req.transform === 'jacrev') ? PLANNERS.jacfwd : PLANNERS[req.transform];
    let plan: CallSitePlan;
    const stated = this.withState(fn, req.callSite);
    const request = {
      kind: req.transform,
      program,
      fn: stated.sig,
      wrt: req.wrt,
      where: `${req.transform}(${label})`,
      driver: twice ? { ...this.driverFor(req), forwardGrad: true } : this.driverFor(req),
      reverse: (fused?: boolean) => this.reverse(program, fn.name, req, fused),
      ...(req.flat ? { flat: true } : {}),
    };
    const grad = req.transform === 'grad';
    try {
      plan = planner({ ...request, valueAndGrad: grad ? this.valueAndGrads.get(derivative) : undefined });
    } catch (e) {
      // An array combinator whose rule for this transform is not built yet (second order through
      // scan and reduce) says so with an IrError: a diagnostic at the call site, not a crash.
      if (!(e instanceof IrError) || !usesArrayCombinators(program)) throw e;
      return fail(1121, req.callSite, `${req.transform}(${label}) is not supported yet: ${e.message}`, PASS_LIMIT_HINT);
    }
    // A grad of the same runs this wrapper's body under its own name (not with module state, whose reads the wrapper binds).
    if (req.transform === 'valueAndGrad') this.valueAndGrads.set(derivative, { program: plan.program, def: plan.entries[0], ...(stated.readers.size === 0 ? { wrapper: name } : {}) });
    const readState = (param: string) => stated.readers.get(param)!();
    const emit = (p: CallSitePlan) =>
      this.backend.callSite(stated.readers.size > 0 ? readingState(p, stated.readers) : p, name, { target: req.target, callSite: req.callSite, readState, fn: fn.name });
    // Wrappers are emitted when the module's call sites are all known: the backend shares a check
    // that several of them make.
    if (grad && !this.valueAndGrads.has(derivative)) {
      // A valueAndGrad later in the module may still bring a def this grad can share.
      const own = plan;
      this.out.push({
        fn: fn.name,
        plan: () => {
          const vg = this.valueAndGrads.get(derivative);
          return vg ? planner({ ...request, valueAndGrad: vg }) : own;
        },
        emit,
      });
    } else this.out.push({ fn: fn.name, plan: () => plan, emit });
    const compiled: CompiledTransform = { name, replaces: spec.form };
    this.wrappers.set(key, compiled);
    return compiled;
  }

  /** `gpu(f)`, `gpu(grad(f))`: the device program (backend/wgsl); TSAD1011 names what is not on the GPU yet. */
  gpu(target: ts.SignatureDeclaration, req: GpuRequest, callSite: ts.Node): GpuProgram {
    const fn = this.lowerer.lower(target);
    if (fn.state.length > 0) fail(1011, callSite, `${req.where} is not on the GPU yet: '${fn.name}' reads module-level variables or fields of this`);
    const program = closureOf({ defs: [...this.lowerer.defs] }, fn.name);
    const compileReq: CompileRequest = { target, transform: req.transform ?? 'grad', wrt: req.wrt, callSite };
    try {
      return gpuProgramOf(program, fn, req, this.driverFor(compileReq), () => this.reverse(program, fn.name, compileReq));
    } catch (e) {
      if (e instanceof NotOnGpu) return fail(1011, callSite, `${req.where} is not on the GPU yet: it uses ${e.message}`);
      throw e;
    }
  }

  /**
   * Jacobians and Hessians with arrays have run-time sizes: they take a number or an array of
   * numbers (not arrays inside tuples or objects, nor arrays of arrays), and a Hessian one of them.
   */
  private checkMatrixShapes(req: CompileRequest, fn: { params: readonly { name: string; shape: Shape }[]; result: Shape }, label: string): void {
    const matrix = ['jacobian', 'jacfwd', 'jacrev', 'hessian'].includes(req.transform);
    if (!matrix) return;
    const flat = (s: Shape) => s.kind === 'number' || (s.kind === 'array' && s.elem.kind === 'number');
    const sides = [...(req.transform === 'hessian' ? [] : [{ what: 'its result', shape: fn.result }]), ...req.wrt.map((w) => ({ what: `'${fn.params[w].name}'`, shape: fn.params[w].shape }))];
    const arrays = sides.some((x) => hasArray(x.shape));
    if (!arrays) return;
    if (req.flat)
      fail(
        1121,
        req.callSite,
        `${req.transform}(${label}, { flat: true }) needs numbers, tuples and objects of numbers (sizes known when it compiles), but ${sides.find((x) => hasArray(x.shape))!.what} holds an array: leave flat out for number[][]`,
        MATRIX_RESULT_HINT,
      );
    for (const x of sides) {
      if (!flat(x.shape))
        fail(1121, req.callSite, `${req.transform}(${label}) with arrays needs numbers and arrays of numbers, but ${x.what} is ${describeShape(x.shape)}: use vjp or jvp for it`, MATRIX_RESULT_HINT);
    }
    if (req.transform === 'hessian' && req.wrt.length > 1)
      fail(1121, req.callSite, `hessian(${label}) of several parameters with arrays is not supported yet: differentiate one at a time, or use hvp`, MATRIX_RESULT_HINT);
  }

  /**
   * One reverse pass per function and module, shared by its grad and valueAndGrad call sites
   * (`fused`: they inline it, so its straight-line defs wait for that simplification) and by its
   * vjp and jacrev call sites, which emit its halves as they are.
   */
  private reverse(program: Program, fn: string, req: CompileRequest, fused = false): Reverse {
    const key = `${fn}|${JSON.stringify(req.checkpoint ?? 'store')}|${fused}`;
    let v = this.reverses.get(key);
    if (!v) {
      v = vjpOf(program, fn, { ...this.driverFor(req), deferSimplify: fused });
      this.reverses.set(key, v);
    }
    return v;
  }

  /** The module's driver options with the function's checkpoint policy. */
  private driverFor(req: CompileRequest): DriverOptions {
    return req.checkpoint ? { ...this.driver, checkpoint: req.checkpoint } : this.driver;
  }
}

/** The wrapper binds each state parameter to a read of its variable, after the argument check; the caller does not pass them. */
function readingState(plan: CallSitePlan, readers: ReadonlyMap<string, unknown>): CallSitePlan {
  const binds: PlanStatement[] = [...readers.keys()].map((param) => ({ tag: 'const', names: [param], init: { tag: 'state', param } }));
  const [first, ...rest] = plan.body;
  const body = first?.tag === 'check' ? [first, ...binds, ...rest] : [...binds, ...plan.body];
  return { ...plan, params: plan.params.filter((p) => !readers.has(p)), body };
}

function shortText(text: string): string {
  const t = text.replace(/\s+/g, ' ');
  return t.length > 40 ? `${t.slice(0, 37)}...` : t;
}

/** Does the program use the array combinators (whose rules are still being completed)? */
function usesArrayCombinators(program: Program): boolean {
  let found = false;
  for (const d of program.defs) {
    visitBlock(d.body, {
      expr: (e) => {
        if (e.tag === 'construct' && isConstruct(e.op) && CONSTRUCTS[e.op].combinator) found = true;
      },
    });
  }
  return found;
}

function numbersOnly(s: Shape): boolean {
  if (s.kind === 'array') return !s.constant && numbersOnly(s.elem);
  return s.kind === 'number' || ((s.kind === 'tuple' || s.kind === 'object') && componentShapes(s).every(numbersOnly));
}

/** The name a user knows the function by: `Fit.loss` for a method, else the IR's name. */
function sourceName(t: typeof ts, target: ts.SignatureDeclaration, fallback: string): string {
  if (t.isMethodDeclaration(target) && t.isIdentifier(target.name) && t.isClassLike(target.parent) && target.parent.name) {
    return `${target.parent.name.text}.${target.name.text}`;
  }
  return fallback;
}
