// TypeScript -> Linear A. Each marked function becomes a purely non-linear IR def in A-normal
// form; local variables become IR variables named after them (reassignment gives SSA versions
// `a`, `a_1`, ...), tuples and objects become IR tuples, Math calls become primitives, calls to
// other marked functions become calls of their (earlier) defs. Anything outside the subset is a
// diagnostic with a code; all problems of a function are collected before reporting.
// This file holds the Lowerer (the program: each function once, callees first, custom rules,
// recursion) and the top layer of FunctionLowering; loweringState.ts says how the layers below
// it divide the work.
import type * as ts from 'typescript';
import { FnDef, InternalError, binder, ret } from '../ir/syntax';
import { restoreLinearity } from '../ir/linearity';
import { TsadDiagnosticError, fail, reportedByTypeScript } from './diagnostics';
import { shapeOfType, irType, hasArray } from './shapes';
import type { Shape } from './shapes';
import { checkArrayWrites, keepsNoReference } from './writes';
import { checkViews } from './views';
import { customRuleOf, ruleKind } from './markers';
import { annotateTypes } from '../language/check';
import { reachable } from '../plan/closure';
import { customJvpDef, customVjpDefs, NotLinearError } from '../ad/customJvp';
import { primalNameOf, role } from '../ir/names';
import { Capture, NestedDerivatives, ProgramLowering } from './nested';
import type { LoweredFunction } from './values';
import { PLAIN_PARAMETER_HINT, functionName } from './loweringState';
import { ControlLowering } from './control';
import { stateName } from './moduleState';

/** Lowers marked functions of one program, each once, callees before callers. */
export class Lowerer implements ProgramLowering {
  readonly defs: FnDef[] = [];
  /** Per lowered def: the TypeScript node each IR variable was computed from (for source maps). */
  private readonly origins = new Map<string, ReadonlyMap<string, ts.Node>>();
  private readonly done = new Map<ts.Node, LoweredFunction>();
  private readonly active = new Set<ts.Node>();
  /** Functions whose custom rule failed: every later use reports the rule's problem again. */
  private readonly brokenRules = new Map<ts.Node, unknown>();
  /** Recursions found, by the places of the functions in the cycle. */
  private readonly cycles = new Map<string, unknown>();
  private readonly names = new Set<string>();
  /** Derivatives that are themselves differentiated or called by marked functions (nested.ts). */
  readonly nested: NestedDerivatives = new NestedDerivatives(this);

  constructor(
    readonly tsApi: typeof ts,
    readonly checker: ts.TypeChecker,
    /** TSAD_RECHECK: each lowered def must need no dup or drop its builders did not write. */
    readonly recheck = false,
  ) {}

  /**
   * Set by the plugin (transformer/taped): the names of a callee that runs taped, given the error
   * of its lowering and the functions being lowered now (a cycle through one of them makes the
   * caller run taped as a whole).
   */
  tapedCallees?: (decl: ts.SignatureDeclaration, error: unknown, lowering: readonly ts.Node[]) => string | undefined;

  tapedCallee(decl: ts.SignatureDeclaration, error: unknown): string | undefined {
    return this.tapedCallees?.(decl, error, [...this.active]);
  }

  /** The functions lowered so far. */
  lowered(): LoweredFunction[] {
    return [...this.done.values()];
  }

  /** The declaration a lowered def came from (callers map derived defs to their source by role). */
  declarationOf(source: string): ts.SignatureDeclaration | undefined {
    for (const f of this.done.values()) if (f.name === source) return f.decl;
    return undefined;
  }

  /**
   * The source node behind a variable of a lowered def or of a def derived from it. Derived names
   * (`a_dot`, `a_bar_2`) map to the primal variable they differentiate, so the backward pass
   * points at the forward operation, as a debugger user expects.
   */
  originOf(source: string, name: string): ts.Node | undefined {
    const origins = this.origins.get(source);
    if (!origins) return undefined;
    return origins.get(name) ?? origins.get(primalNameOf(name));
  }

  /** `at`: the call that needs the function, where a recursion is reported (it closes the cycle). */
  lower(decl: ts.SignatureDeclaration, at?: ts.Node): LoweredFunction {
    const broken = this.brokenRules.get(decl);
    if (broken) throw broken;
    const existing = this.done.get(decl);
    if (existing) return existing;
    if (this.active.has(decl)) this.recursion(decl, at);
    this.active.add(decl);
    try {
      const f = new FunctionLowering(this, decl, this.uniqueName(functionName(this.tsApi, decl))).run().settled(this.recheck);
      this.done.set(decl, f.lowered);
      this.defs.push(f.def);
      this.origins.set(f.lowered.name, f.origins);
      const rule = customRuleOf(decl, this.checker);
      if (rule) {
        try {
          this.defs.push(...this.customRule(f.lowered, f.def, rule));
        } catch (e) {
          // The function itself is cached already (its rule may call it): without this, the
          // next transform of it, or of a caller, would compile the body and ignore the rule.
          this.brokenRules.set(decl, e);
          throw e;
        }
      }
      return f.lowered;
    } finally {
      this.active.delete(decl);
    }
  }

  /**
   * TSAD1109 at the call that closes the cycle. A cycle entered at another of its functions
   * (checking `g` after `grad(f)` found f → g → f) is the same problem, reported once.
   */
  private recursion(decl: ts.Node, at: ts.Node | undefined): never {
    const members = [...this.active].slice([...this.active].indexOf(decl));
    const key = members
      .map((d) => `${d.getSourceFile().fileName}:${d.pos}`)
      .sort()
      .join(',');
    const known = this.cycles.get(key);
    if (known) throw known;
    const name = (d: ts.Node) => functionName(this.tsApi, d as ts.SignatureDeclaration);
    const cycle = members.map(name);
    const line = decl.getSourceFile().getLineAndCharacterOfPosition(decl.getStart()).line + 1;
    const how =
      cycle.length === 1
        ? 'directly'
        : `through ${cycle
            .slice(1)
            .map((c) => `'${c}'`)
            .join(', ')}: ${[...cycle, cycle[0]].join(' → ')}`;
    try {
      return fail(1109, at ?? decl, `'${name(decl)}' (line ${line}) calls itself ${how}`);
    } catch (e) {
      this.cycles.set(key, e);
      throw e;
    }
  }

  /** A local arrow a transform is applied to, as a def taking the variables it captures first. */
  lift(decl: ts.SignatureDeclaration, captures: readonly Capture[]): LoweredFunction {
    const existing = this.done.get(decl);
    if (existing) return existing;
    this.active.add(decl);
    try {
      const f = new FunctionLowering(this, decl, this.uniqueName(functionName(this.tsApi, decl)), undefined, captures).run().settled(this.recheck);
      this.done.set(decl, f.lowered);
      this.defs.push(f.def);
      this.origins.set(f.lowered.name, f.origins);
      return f.lowered;
    } finally {
      this.active.delete(decl);
    }
  }

  /**
   * `f.jvp` (and for a VJP rule its pullback and the pullback's transpose) from
   * `derivative(f, rule)` / `derivative.vjp(f, rule)`: the JVP pass then uses `f.jvp` instead of
   * differentiating f.
   */
  private customRule(f: LoweredFunction, primal: FnDef, call: ts.CallExpression): FnDef[] {
    const t = this.tsApi;
    const rule = call.arguments[1];
    const kind = ruleKind(call, this.checker) ?? 'jvp';
    if (kind !== 'jvp' && kind !== 'vjp') return fail(1111, call, `derivative.${kind} is not a tsad rule; use derivative(f, jvpRule) or derivative.vjp(f, vjpRule)`);
    if (!rule || !(t.isArrowFunction(rule) || t.isFunctionExpression(rule))) return fail(1111, rule ?? call, 'the rule must be an arrow function or function expression written here');
    if (f.state.length > 0)
      fail(1111, call, `a custom derivative of '${f.name}', which reads '${stateName(f.state[0])}' when it runs, is not supported yet: pass the variable as a parameter, or remove the rule`);
    if ([f.result, ...f.params.map((p) => p.shape)].some(hasArray)) {
      fail(1111, call, `a custom derivative of '${f.name}', which takes or returns arrays, is not supported yet: tsad differentiates its code instead if you remove the rule`);
    }
    const arity = kind === 'jvp' ? 2 * f.params.length : f.params.length;
    if (rule.parameters.length !== arity) {
      const what = kind === 'jvp' ? `the ${f.params.length} argument(s) of '${f.name}' and then one tangent for each` : `the ${f.params.length} argument(s) of '${f.name}'`;
      fail(1111, rule, `the rule takes ${what} (${arity} parameters), not ${rule.parameters.length}`);
    }
    const lowered = new FunctionLowering(this, rule, role('rule', f.name), kind === 'vjp' ? f : undefined).run().settled(this.recheck);
    // Only what the rule and its function reach: another function of the module is not this rule's business (its problems are its own).
    const typed = annotateTypes(reachable({ defs: [...this.defs, lowered.def] }, [lowered.def.name, primal.name]));
    const ruleDef = typed.defs.find((d) => d.name === lowered.def.name)!;
    try {
      if (kind === 'jvp') return [customJvpDef(ruleDef, f.params.length, role('jvp', f.name), irType(f.result))];
      const typedPrimal = typed.defs.find((d) => d.name === primal.name)!;
      return customVjpDefs(ruleDef, typedPrimal, typed);
    } catch (e) {
      if (!(e instanceof NotLinearError)) throw e;
      return fail(1110, lowered.origins.get(e.variable) ?? rule.body, `the derivative of '${f.name}' is not linear in its ${kind === 'jvp' ? 'tangents' : 'cotangent'}: ${e.message}`);
    }
  }

  uniqueName(base: string): string {
    let name = base.replace(/[^A-Za-z0-9_]/g, '_') || 'f';
    for (let k = 2; this.names.has(name); k++) name = `${base}_${k}`;
    this.names.add(name);
    return name;
  }
}

class FunctionLowering extends ControlLowering {
  /** With TSAD_RECHECK: the def must need no dup or drop that its builders did not write. */
  settled(recheck: boolean): this {
    if (recheck && restoreLinearity(this.def) !== this.def) throw new InternalError(`lowering: ${this.name} needs a drop that its builders did not write`);
    return this;
  }

  run(): this {
    const { t, decl } = this;
    this.checkKind();
    const captured = this.captures.map((c) => {
      const name = this.supply.fresh(c.symbol.name);
      this.env.set(c.symbol, { name, shape: c.shape });
      return sourceNamed(name, c.symbol.name, c.shape);
    });
    const own = decl.parameters.map((p, i) => {
      if (p.dotDotDotToken || p.questionToken || p.initializer) {
        fail(1105, p, 'parameters of a differentiable function must be names or destructuring patterns (no optional, default or rest parameters)', PLAIN_PARAMETER_HINT);
      }
      const shape = shapeOfType(t, this.checker, this.checker.getTypeAtLocation(p), p);
      // `{ lu, perm }: LU` is one argument: its names are bound to its parts below.
      const written = t.isIdentifier(p.name) ? p.name.text : `arg${i}`;
      const name = this.supply.fresh(written);
      if (t.isIdentifier(p.name)) this.env.set(this.checker.getSymbolAtLocation(p.name)!, { name, shape });
      return sourceNamed(name, written, shape);
    });
    const params = [...captured, ...own];
    const sig = this.checker.getSignatureFromDeclaration(decl);
    const body = (decl as ts.FunctionLikeDeclaration).body;
    if (!body) fail(1107, decl, 'a differentiable function needs a body');
    if (this.viewInfos.size > 0) checkViews(t, this.owner.checker, decl, this.viewInfos, this.renames, (call, k) => keepsNoReference(t, this.owner.checker, call, k));
    this.writtenArrays = checkArrayWrites(t, this.owner.checker, decl, body, this.renames);
    decl.parameters.forEach((p, i) => {
      if (!t.isIdentifier(p.name)) this.guard(p, () => this.bindPattern(p.name, own[i]));
    });
    const out = t.isBlock(body) ? this.block(body) : this.guard(body, () => this.returned(body as ts.Expression));
    // A VJP rule's result is (value, cotangents); its declared type holds a function.
    const result = out && this.vjpOf ? out.shape : shapeOfType(t, this.checker, sig ? this.checker.getReturnTypeOfSignature(sig) : this.checker.getAnyType(), decl.type ?? decl);
    const returned =
      out &&
      this.guard(body, () => {
        const node = t.isBlock(body) ? finalReturn(t, body) : body;
        const v = this.coerce(node, out, result);
        this.conform(node, v, result, 'the returned value');
        return v;
      });
    if (this.pullbackParam) params.push(this.pullbackParam);
    if (this.errors.length > 0) {
      // A callee's problems arrive as one error carrying the rest: keep every one of them.
      const [first, ...rest] = this.errors.flatMap(everyProblem);
      throw new TsadDiagnosticError(first.code, first.node, first.message, rest);
    }
    const state = this.state.list;
    if (state.length > 0 && (this.role !== undefined || this.vjpOf)) fail(1111, decl, `a derivative rule cannot read '${stateName(state[0].state)}' yet: pass it as a parameter`);
    this.lowered = { name: this.name, decl, params, result, state: state.map((s) => s.state), methods: [...this.methods] };
    const nlParams = [...params, ...state.map((s) => s.value)].map((p) => binder(p.name, irType(p.shape)));
    // The builders settle each block as they finish it (ir/usageBuilder.ts): no repair here.
    this.def = {
      name: this.name,
      ...(this.role ? { role: this.role } : {}),
      nlParams,
      linParams: [],
      nlResults: [irType(result)],
      linResults: [],
      body: this.b.finishBody(nlParams, [], ret([returned!.name])),
    };
    return this;
  }

  /**
   * Problems with the function as a whole, found before its body: one diagnostic that names the
   * construct, instead of one per statement or a printed Promise type.
   */
  private checkKind(): void {
    const { t, decl } = this;
    const sf = decl.getSourceFile();
    // The parser has already reported this function's syntax errors; its error-recovered tree
    // would only add a cascade of follow-up diagnostics.
    const parseErrors = (sf as { parseDiagnostics?: readonly ts.Diagnostic[] }).parseDiagnostics ?? [];
    if (parseErrors.some((d) => d.start !== undefined && d.start >= decl.pos && d.start < decl.end)) reportedByTypeScript(decl, 1101, 'this function has syntax errors');
    const what = functionName(t, decl);
    if (t.getCombinedModifierFlags(decl as ts.Declaration) & t.ModifierFlags.Async) {
      fail(1112, decl, `'${what}' is an async function, which cannot be differentiable: differentiate a synchronous function and await its inputs before calling it`);
    }
    if ((decl as ts.FunctionLikeDeclaration).asteriskToken) fail(1112, decl, `'${what}' is a generator function, which cannot be differentiable: differentiate a function that computes one value`);
    if (t.isGetAccessor(decl) || t.isSetAccessor(decl) || t.isConstructorDeclaration(decl)) {
      fail(1112, decl, `a ${t.isConstructorDeclaration(decl) ? 'constructor' : 'getter or setter'} cannot be differentiable: mark a method or a function`);
    }
  }
}

function everyProblem(e: TsadDiagnosticError): TsadDiagnosticError[] {
  return [e, ...e.related.flatMap(everyProblem)];
}

function finalReturn(tsApi: typeof ts, body: ts.Block): ts.Node {
  const last = body.statements[body.statements.length - 1];
  return last && tsApi.isReturnStatement(last) && last.expression ? last.expression : body;
}

/** A parameter, with the name its declaration wrote where the IR's differs (a capture's, or a JavaScript global's: ir/names.ts JS_GLOBALS). */
function sourceNamed(name: string, written: string, shape: Shape): { name: string; shape: Shape; source?: string } {
  return name === written ? { name, shape } : { name, shape, source: written };
}
