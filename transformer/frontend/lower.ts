// TypeScript -> Linear A. Each marked function becomes a purely non-linear IR def in A-normal
// form; local variables become IR variables named after them (reassignment gives SSA versions
// `a`, `a_1`, ...), tuples and objects become IR tuples, Math calls become primitives, calls to
// other marked functions become calls of their (earlier) defs. Anything outside the subset is a
// diagnostic with a code; all problems of a function are collected before reporting.
import type * as ts from 'typescript';
import { Builder, NameSupply } from '../ir/build';
import { FnDef, REAL, Role, arrayType, binder, call, construct, lambda, prim, ret, tuple } from '../ir/syntax';
import type { Binder, Block, Expr, Lambda } from '../ir/syntax';
import { freeVars } from '../ir/freeVars';
import { renameOperands, renameStmtOperands, rewriteBlock } from '../ir/traverse';
import { restoreLinearity } from '../ad/linearity';
import { TsadDiagnosticError, fail, isTsadDiagnostic, reportedByTypeScript } from './diagnostics';
import { Shape, NUMBER, BOOLEAN, STRING, shapeOfType, irType, componentShapes, describeShape, isScalarShape, layoutOf, hasArray, isMatrix, rowShape } from './shapes';
import { checkArrayWrites, pushedArray, writtenArray } from './writes';
import { ArrayLowering, ArraySite, userName } from './arrays';
import { TRANSFORM_NAMES, customRuleOf, isBuiltIn, isRuleCall, isTsadExport, nestedTransformMessage, resolveMarkedFunction, ruleKind, transformCallBehind, tsadExportName } from './markers';
import { annotateTypes } from '../ir/check';
import { reachable } from '../plan/closure';
import { customJvpDef, customVjpDefs, NotLinearError } from '../ad/customJvp';
import { derivedName, primalNameOf, role } from '../ir/names';
import { MATH_FUNCTIONS, primDef } from '../prims/registry';
import { Capture, NestedDerivatives, NestedSite, lowerNestedCall } from './nested';
import { LocalFunction, anyExit, declaresLocalFunction, exitsOf, isInside, isJump, localFunctionOf, loopExits } from './exits';
import { ModuleState, StateParams, StateSource, isFixed, moduleVariable, stateName } from './moduleState';
import { methodCall, thisField } from './methods';

export interface Value {
  readonly name: string;
  readonly shape: Shape;
}

export interface LoweredFunction {
  readonly name: string;
  readonly decl: ts.SignatureDeclaration;
  readonly params: readonly { readonly name: string; readonly shape: Shape }[];
  readonly result: Shape;
  /** Module-level variables and fields of `this` it reads when it runs (moduleState.ts): its def's trailing parameters. */
  readonly state: readonly ModuleState[];
  /** The instance methods it calls through `this`: the object's own must be these (compile.ts checks). */
  readonly methods: readonly ts.MethodDeclaration[];
}

/** TSAD1105's hint is about value types; a parameter's form has a fix of its own. */
const PLAIN_PARAMETER_HINT = 'write each parameter as a name with a type, (x: number, y: number), and pass every argument at the call (a default: wrap it, const f2 = (x: number) => f(x, 2)); destructure inside the body: const [a, b] = p';

const MATH_CONSTANTS: Record<string, number> = {
  PI: Math.PI,
  E: Math.E,
  LN2: Math.LN2,
  LN10: Math.LN10,
  LOG2E: Math.LOG2E,
  LOG10E: Math.LOG10E,
  SQRT2: Math.SQRT2,
  SQRT1_2: Math.SQRT1_2,
};

type OperatorTable = Partial<Record<ts.SyntaxKind, string>>;
const tables = new WeakMap<typeof ts, { arith: OperatorTable; compare: OperatorTable; logic: OperatorTable; compound: OperatorTable }>();
function operatorTables(t: typeof ts) {
  let found = tables.get(t);
  if (!found) {
    const K = t.SyntaxKind;
    found = {
      arith: { [K.PlusToken]: 'add', [K.MinusToken]: 'sub', [K.AsteriskToken]: 'mul', [K.SlashToken]: 'div', [K.PercentToken]: 'mod', [K.AsteriskAsteriskToken]: 'pow' },
      compare: {
        [K.LessThanToken]: 'lt',
        [K.LessThanEqualsToken]: 'le',
        [K.GreaterThanToken]: 'gt',
        [K.GreaterThanEqualsToken]: 'ge',
        [K.EqualsEqualsEqualsToken]: 'eq',
        [K.EqualsEqualsToken]: 'eq',
        [K.ExclamationEqualsEqualsToken]: 'ne',
        [K.ExclamationEqualsToken]: 'ne',
      },
      logic: { [K.AmpersandAmpersandToken]: 'and', [K.BarBarToken]: 'or' },
      compound: {
        [K.PlusEqualsToken]: 'add',
        [K.MinusEqualsToken]: 'sub',
        [K.AsteriskEqualsToken]: 'mul',
        [K.SlashEqualsToken]: 'div',
        [K.PercentEqualsToken]: 'mod',
        [K.AsteriskAsteriskEqualsToken]: 'pow',
      },
    };
    tables.set(t, found);
  }
  return found;
}
const BINARY_ARITH = (t: typeof ts) => operatorTables(t).arith;
const BINARY_COMPARE = (t: typeof ts) => operatorTables(t).compare;
const BINARY_LOGIC = (t: typeof ts) => operatorTables(t).logic;

/** Lowers marked functions of one program, each once, callees before callers. */
export class Lowerer {
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
  readonly nested = new NestedDerivatives(this);

  constructor(
    readonly tsApi: typeof ts,
    readonly checker: ts.TypeChecker,
  ) {}

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
      const f = new FunctionLowering(this, decl, this.uniqueName(functionName(this.tsApi, decl))).run();
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
    const key = members.map((d) => `${d.getSourceFile().fileName}:${d.pos}`).sort().join(',');
    const known = this.cycles.get(key);
    if (known) throw known;
    const name = (d: ts.Node) => functionName(this.tsApi, d as ts.SignatureDeclaration);
    const cycle = members.map(name);
    const line = decl.getSourceFile().getLineAndCharacterOfPosition(decl.getStart()).line + 1;
    const how = cycle.length === 1 ? 'directly' : `through ${cycle.slice(1).map((c) => `'${c}'`).join(', ')}: ${[...cycle, cycle[0]].join(' → ')}`;
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
      const f = new FunctionLowering(this, decl, this.uniqueName(functionName(this.tsApi, decl)), undefined, captures).run();
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
    if (f.state.length > 0) fail(1111, call, `a custom derivative of '${f.name}', which reads '${stateName(f.state[0])}' when it runs, is not supported yet: pass the variable as a parameter, or remove the rule`);
    if ([f.result, ...f.params.map((p) => p.shape)].some(hasArray)) {
      fail(1111, call, `a custom derivative of '${f.name}', which takes or returns arrays, is not supported yet: tsad differentiates its code instead if you remove the rule`);
    }
    const arity = kind === 'jvp' ? 2 * f.params.length : f.params.length;
    if (rule.parameters.length !== arity) {
      const what = kind === 'jvp' ? `the ${f.params.length} argument(s) of '${f.name}' and then one tangent for each` : `the ${f.params.length} argument(s) of '${f.name}'`;
      fail(1111, rule, `the rule takes ${what} (${arity} parameters), not ${rule.parameters.length}`);
    }
    const lowered = new FunctionLowering(this, rule, role('rule', f.name), kind === 'vjp' ? f : undefined).run();
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

export function functionName(t: typeof ts, decl: ts.SignatureDeclaration): string {
  if (t.isFunctionDeclaration(decl) && decl.name) return decl.name.text;
  if (t.isMethodDeclaration(decl)) {
    const cls = decl.parent;
    const owner = t.isClassLike(cls) && cls.name ? `${cls.name.text}_` : '';
    return `${owner}${decl.name.getText()}`;
  }
  // differentiable(arrow) named by what it is assigned to: `const loss = ...`, `{ loss: ... }`.
  let p: ts.Node = decl.parent;
  while (t.isCallExpression(p) || t.isParenthesizedExpression(p) || t.isAsExpression(p) || t.isSatisfiesExpression(p)) p = p.parent;
  if ((t.isVariableDeclaration(p) || t.isPropertyAssignment(p) || t.isPropertyDeclaration(p)) && t.isIdentifier(p.name)) return p.name.text;
  // Otherwise by position, so generated names stay stable and readable.
  const line = decl.getSourceFile().getLineAndCharacterOfPosition(decl.getStart()).line + 1;
  return `lambda_${line}`;
}

/**
 * Thrown when an expression reads a variable whose definition already failed and no stand-in
 * value can be made for it: that failure is the diagnostic, and the statement is skipped
 * without a second one.
 */
class AlreadyReported {}

class FunctionLowering {
  private readonly t: typeof ts;
  /** Locals whose initializer failed (reading them is not a new problem). */
  private failed = new Set<ts.Symbol>();
  /** The local arrays the function writes into by index (writes.ts has checked them). */
  private writtenArrays: ReadonlySet<ts.Symbol> = new Set();
  /** `let y;` before its first assignment (read before that is an error). */
  private unassigned = new Set<ts.Symbol>();
  private readonly checker: ts.TypeChecker;
  private env = new Map<ts.Symbol, Value>();
  private readonly supply = new NameSupply();
  private b = new Builder(this.supply);
  private readonly errors: TsadDiagnosticError[] = [];
  /** Parts of tuples already unpacked in this block (each branch of a cond has its own copy). */
  private unpacked = new Map<string, Value[]>();
  readonly origins = new Map<string, ts.Node>();
  private current: ts.Node | undefined;
  /** Module constants being inlined (a cycle is an error, not a hang). */
  private readonly inlining = new Set<ts.Node>();
  /** Local functions whose calls are being inlined (a local function calling itself is TSAD1109). */
  private readonly inlinedCalls = new Set<ts.Node>();
  /** The flags of the innermost loop (or flagged statement) whose exits are being lowered: see `sequence`. */
  private exitCtx: ExitFlags | undefined;
  /** The function whose `return`s are being lowered: the function itself, or a local function inlined into it. */
  private frame: Frame;
  lowered!: LoweredFunction;
  def!: FnDef;
  private readonly name: string;
  private readonly role: Role | undefined;

  /** The shape of every value an expression gave, by IR name (array lowering asks for free variables' shapes). */
  private readonly shapes = new Map<string, Shape>();
  private readonly arrays: ArrayLowering;
  /** The module-level variables and fields of `this` it reads (moduleState.ts). */
  private readonly state: StateParams;
  private readonly methods = new Set<ts.MethodDeclaration>();

  /** Set for a `derivative.vjp` rule: its pullback's cotangent parameter, once lowered. */
  private pullbackParam: { name: string; shape: Shape } | undefined;
  private inPullback = false;

  constructor(
    private readonly owner: Lowerer,
    private readonly decl: ts.SignatureDeclaration,
    /** The def's name, or the role of a derivative rule (named after its function). */
    nameOrRole: string | Role,
    /** Lowering a VJP rule `(x̄) => [value, (ct) => [x̄_bar...]]` of this function. */
    private readonly vjpOf?: LoweredFunction,
    /** A lifted arrow's captured variables: its first parameters. */
    private readonly captures: readonly Capture[] = [],
  ) {
    this.name = typeof nameOrRole === 'string' ? nameOrRole : derivedName(nameOrRole);
    this.role = typeof nameOrRole === 'string' ? undefined : nameOrRole;
    this.t = owner.tsApi;
    this.checker = owner.checker;
    this.frame = { decl };
    this.supply.onFresh = (name) => {
      if (this.current) this.origins.set(name, this.current);
    };
    this.arrays = new ArrayLowering(this.arraySite());
    this.state = new StateParams(this.t, this.checker, (base) => this.supply.fresh(base));
  }

  run(): this {
    const { t, decl } = this;
    this.checkKind();
    const captured = this.captures.map((c) => {
      const name = this.supply.fresh(c.symbol.name);
      this.env.set(c.symbol, { name, shape: c.shape });
      return { name, shape: c.shape };
    });
    const own = decl.parameters.map((p) => {
      if (!t.isIdentifier(p.name) || p.dotDotDotToken || p.questionToken || p.initializer) {
        fail(1105, p, 'parameters of a differentiable function must be plain names (no destructuring, optional, default or rest parameters)', PLAIN_PARAMETER_HINT);
      }
      const shape = shapeOfType(t, this.checker, this.checker.getTypeAtLocation(p), p);
      const name = this.supply.fresh(p.name.text);
      this.env.set(this.checker.getSymbolAtLocation(p.name)!, { name, shape });
      return { name, shape };
    });
    const params = [...captured, ...own];
    const sig = this.checker.getSignatureFromDeclaration(decl);
    const body = (decl as ts.FunctionLikeDeclaration).body;
    if (!body) fail(1107, decl, 'a differentiable function needs a body');
    this.writtenArrays = checkArrayWrites(t, this.checker, decl, body);
    const out = t.isBlock(body) ? this.block(body) : this.guard(body, () => this.returned(body as ts.Expression));
    // A VJP rule's result is (value, cotangents); its declared type holds a function.
    const result = out && this.vjpOf ? out.shape : shapeOfType(t, this.checker, sig ? this.checker.getReturnTypeOfSignature(sig) : this.checker.getAnyType(), decl.type ?? decl);
    const returned = out && this.guard(body, () => {
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
    this.def = restoreLinearity({
      name: this.name,
      ...(this.role ? { role: this.role } : {}),
      nlParams: [...params, ...state.map((s) => s.value)].map((p) => binder(p.name, irType(p.shape))),
      linParams: [],
      nlResults: [irType(result)],
      linResults: [],
      body: this.b.finish(ret([returned!.name])),
    });
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

  /** Runs one lowering step; a diagnostic is recorded and lowering goes on. */
  private guard<T>(node: ts.Node, f: () => T): T | undefined {
    try {
      return f();
    } catch (e) {
      if (e instanceof AlreadyReported) return undefined;
      if (!isTsadDiagnostic(e)) throw e;
      this.errors.push(e);
      return undefined;
    }
  }

  private block(body: ts.Block): Value | undefined {
    const result = this.tail(body.statements);
    if (!result && this.errors.length === 0) fail(1107, body, 'a differentiable function must end with a return statement');
    return result;
  }

  /**
   * Statements in tail position: they end the function (or a branch of an `if` that returns) and
   * give its result, the value of the one return each path ends with.
   *
   * Early returns. An `if` with a `return` anywhere inside it ends the statement list here: the
   * statements after it (`rest`) are appended to each of its branches that can fall through, and
   * the `if` becomes a cond whose one result is the function's value. So
   * `if (c) return a; REST` is `cond(c)[a, REST]`: the rest of the function is the else part, and
   * a nested `if (d) return b;` inside a branch is the same rule one level down. This needs no
   * result flag and no placeholder values, and only the path taken runs. The price: when both
   * branches of such an `if` can fall through (`if (c) { if (d) return a; y = 1; } REST`), REST is
   * lowered into both of them, and with many such `if`s in a row the copies would multiply. So
   * such an `if` (and a switch with a case that can fall through, and a loop with a return
   * inside) is lowered with a result flag instead (`flaggedReturn`): its returns set
   * `returned` and the result value, and the rest follows once, as `returned ? value : REST`.
   * Every statement is then lowered once, and the emitted code stays linear in the source.
   */
  private tail(statements: readonly ts.Statement[]): Value | undefined {
    const { t } = this;
    // Local function declarations are hoisted: they bind nothing where they are written.
    const stmts = statements.filter((s) => !t.isFunctionDeclaration(s));
    let result: Value | undefined;
    for (let i = 0; i < stmts.length; i++) {
      const s = stmts[i];
      if (t.isReturnStatement(s)) {
        if (i !== stmts.length - 1) {
          this.guard(s, () => fail(1107, s, 'return must be the last statement of a differentiable function'));
          continue;
        }
        if (!s.expression) {
          this.guard(s, () => fail(1107, s, 'a differentiable function must return a value'));
          continue;
        }
        result = this.guard(s, () => this.returned(s.expression!));
        continue;
      }
      if (t.isIfStatement(s) && containsReturn(t, s)) {
        const rest = stmts.slice(i + 1);
        return this.guard(s, () => this.at(s, () => this.returningIf(s, rest)));
      }
      if (t.isSwitchStatement(s) && containsReturn(t, s)) {
        const rest = stmts.slice(i + 1);
        return this.guard(s, () => this.at(s, () => this.returningSwitch(s, rest)));
      }
      if ((t.isIterationStatement(s, false) || t.isBlock(s)) && containsReturn(t, s)) {
        const rest = stmts.slice(i + 1);
        return this.guard(s, () => this.at(s, () => this.flaggedReturn(s, rest)));
      }
      this.guard(s, () => this.statement(s));
    }
    return result;
  }

  /** `if (c) { …return a… } else { … }` followed by `rest`, in tail position: see `tail`. */
  private returningIf(s: ts.IfStatement, rest: readonly ts.Statement[]): Value {
    const { t } = this;
    if (this.role !== undefined) fail(1101, s, 'an if statement is not supported in a derivative rule yet: write the value with ?: (both sides are computed)');
    const returns = [s.thenStatement, s.elseStatement].map((arm) => arm !== undefined && alwaysReturns(t, statementsOf(t, arm)));
    // Both arms fall through: the rest would be lowered into each of them.
    if (rest.length > 0 && !returns[0] && !returns[1]) return this.flaggedReturn(s, rest);
    const pred = this.predicate(s.expression);
    const arms = [s.thenStatement, s.elseStatement].map((arm, k) => {
      const own = arm ? statementsOf(t, arm) : [];
      return { node: arm ?? s, returns: returns[k], lower: (after: readonly ts.Statement[]) => this.tail([...own, ...after]) };
    });
    return this.returningCond(s, pred, arms, rest);
  }

  /**
   * The cond of an `if` (or of one step of a switch's if chain) in tail position: each arm is
   * lowered in a branch scope with `rest` appended when it can fall through.
   */
  private returningCond(s: ts.Node, pred: Value, arms: readonly ReturningArm[], rest: readonly ts.Statement[]): Value {
    if (arms.every((arm) => arm.returns) && rest.length > 0) this.guard(rest[0], () => fail(1107, rest[0], 'this statement is never reached: every branch before it returns'));
    const errors = this.errors.length;
    const lowered = arms.map((arm) =>
      this.branch(() => {
        const value = arm.lower(arm.returns ? [] : rest);
        if (!value && this.errors.length === errors) fail(1107, arm.node, 'a differentiable function must end with a return statement: this path reaches the end of the function without one');
        return value;
      }),
    );
    const [a, b] = lowered.map((l) => l.result);
    if (!a || !b) throw new AlreadyReported();
    this.conform(arms[1].node, b, a.shape, 'the value returned on the else path');
    const blocks = lowered.map((l) => l.scope.b.finish(ret([l.result!.name])));
    return this.cond(pred, blocks, [a.shape], ['result'])[0];
  }

  /**
   * `switch (v)` is the chain `if (v === A) … else if (v === B) … else default`: `v` is computed
   * once, a case's labels (with the empty cases that fall into it) are or-ed, the default (wherever
   * it is written) is the last else, and a case's closing `break` is dropped. Fall-through from a
   * non-empty case and a `break` anywhere else are TSAD1101.
   */
  private switchCases(s: ts.SwitchStatement): { subject: Value; cases: SwitchCase[] } {
    const { t } = this;
    if (this.role !== undefined) fail(1101, s, 'a switch is not supported in a derivative rule yet: write the value with ?: (both sides are computed)');
    const subject = this.expr(s.expression, 'subject');
    if (!isScalarShape(subject.shape)) fail(1105, s.expression, `a switch needs a number, boolean or string, got ${describeShape(subject.shape)}`);
    const clauses = s.caseBlock.clauses;
    const cases: SwitchCase[] = [];
    let labels: ts.Expression[] = [];
    let isDefault = false;
    clauses.forEach((c, i) => {
      if (t.isDefaultClause(c)) isDefault = true;
      else labels.push(c.expression);
      if (c.statements.length === 0 && i < clauses.length - 1) return;
      let body: readonly ts.Statement[] = c.statements.length === 1 && t.isBlock(c.statements[0]) ? c.statements[0].statements : c.statements;
      const last = body[body.length - 1];
      if (last && t.isBreakStatement(last) && !last.label) body = body.slice(0, -1);
      // A case ending in `continue` leaves the switch too (its loop's next iteration starts).
      else if (i < clauses.length - 1 && !alwaysReturns(t, body) && !(last && t.isContinueStatement(last))) {
        fail(1101, c, 'fall-through from a non-empty case is not supported: end the case with break or return, or repeat its statements');
      }
      const early = body.map((x) => breakIn(t, x)).find((b) => b !== undefined);
      if (early) fail(1101, early, 'break is supported only as the last statement of a case: put the rest of the case under an if');
      cases.push({ node: c, labels, isDefault, body });
      labels = [];
      isDefault = false;
    });
    // The default is tested last: without fall-through, that is the same as where it is written.
    const ordered = [...cases.filter((c) => !c.isDefault), ...cases.filter((c) => c.isDefault)];
    return { subject, cases: ordered };
  }

  /** `subject === A || subject === B` for a case's labels (lowered where the test runs). */
  private caseTest(subject: Value, c: SwitchCase): Value {
    let acc: Value | undefined;
    for (const label of c.labels) {
      const v = this.expr(label);
      this.sameScalars(label, subject, v);
      const eq = this.at(label, () => this.op('eq', [subject, v], 'is', BOOLEAN));
      acc = acc ? this.op('or', [acc, eq], 'is', BOOLEAN) : eq;
    }
    return acc!;
  }

  /** A switch with no return inside: the if chain of `switchCases`, one `joinIf` per case. */
  private switchStatement(s: ts.SwitchStatement): void {
    const { subject, cases } = this.switchCases(s);
    const run = (stmts: readonly ts.Statement[]) => this.sequence(stmts);
    const chain = (k: number): void => {
      const c = cases[k];
      if (!c) return;
      if (c.isDefault) return run(c.body);
      const pred = this.caseTest(subject, c);
      this.joinIf(s, pred, [() => run(c.body), () => chain(k + 1)]);
    };
    chain(0);
  }

  /** A switch with a return inside, followed by `rest`, in tail position: see `tail`. */
  private returningSwitch(s: ts.SwitchStatement, rest: readonly ts.Statement[]): Value {
    const { t } = this;
    // A case that can fall through would get its own copy of the rest.
    const clauses = s.caseBlock.clauses;
    const fallsThrough = clauses.some((c, i) => !(c.statements.length === 0 && i < clauses.length - 1) && !alwaysReturns(t, c.statements));
    if (rest.length > 0 && fallsThrough) return this.flaggedReturn(s, rest);
    const { subject, cases } = this.switchCases(s);
    const chain = (k: number, after: readonly ts.Statement[]): Value | undefined => {
      const c = cases[k];
      if (!c) return this.tail(after);
      if (c.isDefault) return this.tail([...c.body, ...after]);
      const pred = this.caseTest(subject, c);
      const others = cases.slice(k + 1);
      const arms: ReturningArm[] = [
        { node: c.node, returns: alwaysReturns(t, c.body), lower: (r) => this.tail([...c.body, ...r]) },
        { node: cases[k + 1]?.node ?? s, returns: others.some((o) => o.isDefault) && others.every((o) => alwaysReturns(t, o.body)), lower: (r) => chain(k + 1, r) },
      ];
      return this.returningCond(s, pred, arms, after);
    };
    const value = chain(0, rest);
    if (!value) throw new AlreadyReported();
    return value;
  }

  /** `if` with no return inside: a cond whose results are the enclosing variables a branch assigns. */
  private ifStatement(s: ts.IfStatement): void {
    const { t } = this;
    const pred = this.predicate(s.expression);
    const arms = [s.thenStatement, s.elseStatement].map((arm) => () => {
      if (arm) this.sequence(statementsOf(t, arm));
    });
    this.joinIf(s.elseStatement ?? s, pred, arms);
  }

  /**
   * The cond of two arms lowered as statements: its results are the enclosing variables an arm
   * assigns. With `declared` (a guarded chunk of a statement list, see `sequence`) the variables
   * an arm declares are results too, since the statements after the chunk read them; an arm that
   * does not declare one gives a zero, which nothing reads: the later chunks are skipped as well.
   */
  private joinIf(at: ts.Node, pred: Value, arms: readonly (() => void)[], declared = false): void {
    const lowered = arms.map((arm) => this.branch(arm));
    // The variables of the enclosing scope that either branch assigns, in declaration order.
    const outer = { env: this.env, unassigned: this.unassigned };
    const joined: { sym: ts.Symbol; values: Value[] }[] = [];
    if (declared) {
      const fresh = new Set<ts.Symbol>();
      for (const l of lowered) for (const sym of l.scope.env.keys()) if (!outer.env.has(sym) && !outer.unassigned.has(sym) && !l.scope.failed.has(sym)) fresh.add(sym);
      for (const sym of fresh) {
        const shape = lowered.map((l) => l.scope.env.get(sym)).find((v) => v !== undefined)!.shape;
        const values = lowered.map((l) => l.scope.env.get(sym) ?? this.within(l.scope.b, () => this.zero(shape)));
        joined.push({ sym, values });
      }
    }
    for (const sym of [...outer.env.keys(), ...outer.unassigned]) {
      if (lowered.some((l) => l.scope.failed.has(sym))) {
        this.failed.add(sym);
        continue;
      }
      const before = outer.env.get(sym);
      const after = lowered.map((l) => (l.scope.unassigned.has(sym) ? undefined : l.scope.env.get(sym)));
      if (after.every((v) => v?.name === before?.name)) continue;
      // `let y;` assigned on one path only stays unassigned (reading it later is TSAD1115).
      if (after.some((v) => v === undefined)) continue;
      joined.push({ sym, values: after as Value[] });
    }
    const shapes = joined.map(({ sym, values }) => {
      this.conform(at, values[1], values[0].shape, `the value of '${sym.name}' after the else branch`);
      return values[0].shape;
    });
    // Matrices leave the branches as their parts (carriedParts), unpacked in each branch.
    const blocks = lowered.map((l, k) => {
      const saved = this.unpacked;
      this.unpacked = l.scope.unpacked;
      try {
        return l.scope.b.finish(ret(this.within(l.scope.b, () => joined.flatMap((j) => this.carriedParts(j.values[k])))));
      } finally {
        this.unpacked = saved;
      }
    });
    const partShapes = shapes.flatMap((sh) => (isMatrix(sh) ? [rowShape(sh), NUMBER, NUMBER] : [sh]));
    const partHints = joined.flatMap((j, i) => (isMatrix(shapes[i]) ? [`${j.sym.name}_data`, `${j.sym.name}_rows`, `${j.sym.name}_cols`] : [j.sym.name]));
    const outs = this.cond(pred, blocks, partShapes, partHints);
    let next = 0;
    joined.forEach(({ sym }, i) => {
      const width = isMatrix(shapes[i]) ? 3 : 1;
      this.env.set(sym, this.fromCarried(outs.slice(next, next + width).map((o) => o.name), shapes[i], sym.name));
      next += width;
      this.unassigned.delete(sym);
    });
  }

  /** A condition of `if` or `?:`: a boolean (comparisons, &&, ||, !), never a number. */
  private predicate(e: ts.Expression): Value {
    const c = this.expr(e);
    if (c.shape.kind !== 'boolean') {
      const what = c.shape.kind === 'number' ? 'a number' : describeShape(c.shape);
      fail(1116, e, `the condition is ${what}, not a boolean: a derivative cannot branch on the truthiness of a differentiable value`);
    }
    return c;
  }

  /**
   * Runs `f` in a scope of its own (a branch): its own builder, and copies of the environment and
   * of what is known about variables, so nothing it binds or assigns leaks into the enclosing scope.
   */
  private branch<T>(f: () => T): { result: T; scope: { b: Builder; env: Map<ts.Symbol, Value>; unassigned: Set<ts.Symbol>; failed: Set<ts.Symbol>; unpacked: Map<string, Value[]> } } {
    const saved = { b: this.b, env: this.env, unassigned: this.unassigned, failed: this.failed, unpacked: this.unpacked };
    const scope = { b: new Builder(this.supply), env: new Map(this.env), unassigned: new Set(this.unassigned), failed: new Set(this.failed), unpacked: new Map(this.unpacked) };
    Object.assign(this, scope);
    try {
      return { result: f(), scope };
    } finally {
      Object.assign(this, saved);
    }
  }

  /**
   * `let (ȳ) = cond(p, x̄)[then, else]` from two blocks lowered in the enclosing scope's names.
   * Bodies are closed: what a block reads from outside (its free variables) becomes an operand,
   * after the predicate, and a parameter of each body, renamed inside it (names are unique in the
   * function, so renaming every occurrence is exact).
   */
  private cond(pred: Value, blocks: Block[], shapes: readonly Shape[], hints: readonly string[]): Value[] {
    const free = new Set<string>();
    for (const blk of blocks) for (const n of freeVars(blk).nl) free.add(n);
    const operands = [...free];
    const bodies = blocks.map((blk) => {
      const fresh = new Map(operands.map((n) => [n, this.supply.fresh(n)] as const));
      const rename = (n: string) => fresh.get(n) ?? n;
      const body = rewriteBlock(blk, { expr: (e) => renameOperands(e, rename), stmt: (st, emit) => emit(renameStmtOperands(st, rename)) });
      return lambda(operands.map((n) => binder(fresh.get(n)!)), [], body);
    });
    const results = shapes.map((sh, i) => binder(this.supply.fresh(hints[i]), irType(sh)));
    this.b.bind(results, [], construct('cond', [pred.name, ...operands], [], bodies));
    return results.map((r, i) => ({ name: r.name, shape: shapes[i] }));
  }

  /**
   * Loops. A counted `for (let i = a; i < n; i++)` (also `<=`, `++i`, `i += 1`, `i = i + 1`) is
   * the IR's counted `loop`: the trip count is computed once before it (`n`, `n - a`, or
   * `floor(n - a) + 1` for `<=`) and `i` is `a + k` inside, k the loop's counter. Every other
   * `for`, `while` and `do … while` is the IR's `while`: a `for` runs its initializer before the
   * loop and its incrementor at the end of the step, a `do` loop runs its body once and then
   * loops (the body is lowered twice). The carried values are the variables declared before the
   * loop that its body (or incrementor) assigns, found syntactically, in declaration order; the
   * body is lowered once in a scope of its own where they are parameters. What the bodies read
   * from outside becomes the invariant operands (before the carried ones), as for `cond`.
   */
  private loopStatement(s: ts.IterationStatement): void {
    const { t } = this;
    if (t.isForOfStatement(s) && this.arrays.isArrayValued(s.expression)) return this.forOf(s);
    if (t.isForInStatement(s) || t.isForOfStatement(s)) {
      fail(1101, s, `for…${t.isForOfStatement(s) ? 'of' : 'in'} is not supported: tuples and objects have a fixed shape; write a counted loop for (let i = 0; i < n; i++)`);
    }
    if (t.isWhileStatement(s)) return this.whileLoop(s.expression, [s.statement], undefined, this.openLoop(s));
    if (t.isDoStatement(s)) {
      // `do B while (c)` is `B; while (c) B`.
      const flags = this.openLoop(s);
      this.iteration(flags, [s.statement]);
      return this.whileLoop(s.expression, [s.statement], undefined, flags);
    }
    const f = s as ts.ForStatement;
    if (f.initializer) {
      if (t.isVariableDeclarationList(f.initializer)) this.declarations(f.initializer);
      else this.assignment(f.initializer);
    }
    const flags = this.openLoop(s);
    const leaves = flags !== undefined && (flags.broke !== undefined || flags.returns);
    if (!f.condition && !leaves) fail(1101, f, 'a for loop without a condition, break or return never ends: write the condition between the semicolons');
    // A loop that can stop early is a while loop: a counted loop would go on to its last trip.
    if (leaves || !this.countedFor(f, flags)) this.whileLoop(f.condition, [f.statement], f.incrementor, flags);
  }

  /** `for (const x of xs) body`: a counted loop over xs's length with x = xs[k]. */
  private forOf(s: ts.ForOfStatement): void {
    const { t } = this;
    const init = s.initializer;
    const decl = t.isVariableDeclarationList(init) && init.declarations.length === 1 ? init.declarations[0] : undefined;
    if (!decl || !t.isIdentifier(decl.name)) fail(1121, init, 'for…of over an array needs one new variable: for (const x of xs)');
    const flags = this.openLoop(s);
    const xs = this.arrays.arrayOf(s.expression, 'xs');
    const n = this.arrays.length(xs);
    const sym = this.checker.getSymbolAtLocation(decl.name)!;
    if (flags) return this.forOfWithExits(s, decl.name, sym, xs, n, flags);
    const carried = this.carriedBy([s.statement], sym);
    const counter = binder(this.supply.fresh('k'), REAL);
    const body = this.loopScope(carried, () => {
      this.env.set(sym, this.arrays.read(xs, { name: counter.name, shape: NUMBER }, decl.name.getText(), s.expression));
      this.iteration(undefined, [s.statement]);
      return this.carriedNow(carried);
    });
    if (carried.length === 0) return;
    const { invariants, bodies } = this.closeLoop([body], counter);
    this.bindCarried(carried, 'loop', [n.name, ...invariants, ...carried.flatMap((c) => this.carriedParts(c.value))], [lambda([counter, ...bodies[0].inv, ...body.params], [], bodies[0].body)]);
  }

  /**
   * `for (const x of xs)` that may break, continue or return: a while loop over a hidden counter k,
   * running while no flag stops it and k < xs.length, with x = xs[k] at the start of each step.
   */
  private forOfWithExits(s: ts.ForOfStatement, name: ts.Identifier, sym: ts.Symbol, xs: Value, n: Value, flags: ExitFlags): void {
    const counter = flagSymbol('k');
    this.env.set(counter, this.literal(0, 'k'));
    const carried = [...this.carriedBy([s.statement], sym), { sym: counter, value: this.env.get(counter)! }, ...this.carriedFlags(flags)];
    const more = () => this.op('lt', [this.env.get(counter)!, n], 'more', BOOLEAN);
    this.whileConstruct(
      carried,
      () => this.loopCondition(more, flags),
      () => {
        const k = this.env.get(counter)!;
        this.env.set(sym, this.arrays.read(xs, k, name.getText(), s.expression));
        this.iteration(flags, [s.statement]);
        // After a break the condition fails whatever k is, so k steps unconditionally.
        this.env.set(counter, this.op('add', [k, this.literal(1, 'one')], 'k'));
      },
    );
  }

  /** The variables declared before a loop (in this scope) that its code assigns, in declaration order. */
  private carriedBy(nodes: readonly (ts.Node | undefined)[], exclude?: ts.Symbol): { sym: ts.Symbol; value: Value }[] {
    const assigned = new Set<ts.Symbol>();
    for (const n of nodes) if (n) assignedSymbols(this.t, this.checker, n, assigned);
    const out: { sym: ts.Symbol; value: Value }[] = [];
    for (const [sym, value] of this.env) if (assigned.has(sym) && sym !== exclude && !this.failed.has(sym)) out.push({ sym, value });
    return out;
  }

  /**
   * Lowers loop code in a scope of its own where each carried variable is a fresh parameter;
   * `result` gives the block's result (the carried values' new values, or a condition).
   */
  private loopScope(carried: readonly { sym: ts.Symbol; value: Value }[], lower: () => string[]): { block: Block; params: Binder[] } {
    const perVariable = carried.map((c) => this.carriedBinders(c.sym.name, c.value.shape));
    const params = perVariable.flat();
    const { result, scope } = this.branch(() => {
      carried.forEach((c, i) => this.env.set(c.sym, this.fromCarried(perVariable[i].map((p) => p.name), c.value.shape, c.sym.name)));
      return lower();
    });
    for (const c of carried) if (scope.failed.has(c.sym)) this.failed.add(c.sym);
    return { block: scope.b.finish(ret(result)), params };
  }

  /** The carried variables' values at the end of a loop body (in the body's scope). */
  private carriedNow(carried: readonly { sym: ts.Symbol; value: Value }[]): string[] {
    return carried.flatMap((c) => this.carriedParts(this.failed.has(c.sym) ? c.value : this.env.get(c.sym)!));
  }

  /**
   * The IR values a variable travels as through a loop or a branch: a matrix as its data and
   * dimensions, so that the data stays an array of its own that a write may change in place
   * (ad/inplace.ts follows arrays, not arrays inside tuples); anything else as itself.
   */
  private carriedParts(v: Value): string[] {
    if (!isMatrix(v.shape)) return [v.name];
    return this.unpack(v).map((p) => p.name);
  }

  private carriedBinders(hint: string, shape: Shape): Binder[] {
    return isMatrix(shape) ? this.matrixBinders(hint) : [binder(this.supply.fresh(hint), irType(shape))];
  }

  /** Fresh binders for a matrix's parts: `m_data`, `m_rows`, `m_cols`. */
  private matrixBinders(base: string): Binder[] {
    return [binder(this.supply.fresh(`${base}_data`), arrayType(REAL)), binder(this.supply.fresh(`${base}_rows`), REAL), binder(this.supply.fresh(`${base}_cols`), REAL)];
  }

  /** The variable's value from the parts it travelled as (in the current scope). */
  private fromCarried(names: readonly string[], shape: Shape, hint: string): Value {
    if (!isMatrix(shape)) return { name: names[0], shape };
    const parts = names.map((n, k) => ({ name: n, shape: k === 0 ? rowShape(shape) : NUMBER }));
    const v = { name: this.b.nl(hint, tuple(false, [...names]), irType(shape)), shape };
    this.unpacked.set(v.name, parts);
    return v;
  }

  /**
   * Closes loop bodies: the variables they read from outside become invariant operands, and each
   * body gets its own parameters for them (renamed inside it; names are unique in the function).
   */
  private closeLoop(blocks: readonly { block: Block; params: Binder[] }[], counter?: Binder): { invariants: string[]; bodies: { inv: Binder[]; body: Block }[] } {
    const own = new Set(blocks.flatMap((b) => b.params.map((p) => p.name)));
    if (counter) own.add(counter.name);
    const free = new Set<string>();
    for (const { block } of blocks) for (const n of freeVars(block).nl) if (!own.has(n)) free.add(n);
    const invariants = [...free];
    const bodies = blocks.map(({ block }) => {
      const fresh = new Map(invariants.map((n) => [n, this.supply.fresh(n)] as const));
      const rename = (n: string) => fresh.get(n) ?? n;
      const body = rewriteBlock(block, { expr: (e) => renameOperands(e, rename), stmt: (st, emit) => emit(renameStmtOperands(st, rename)) });
      return { inv: invariants.map((n) => binder(fresh.get(n)!)), body };
    });
    return { invariants, bodies };
  }

  /** Binds a loop construct's results to the carried variables. */
  private bindCarried(carried: readonly { sym: ts.Symbol; value: Value }[], op: 'loop' | 'while', nl: string[], bodies: Lambda[]): void {
    const perVariable = carried.map((c) => this.carriedBinders(c.sym.name, c.value.shape));
    this.b.bind(perVariable.flat(), [], construct(op, nl, [], bodies));
    carried.forEach((c, i) => this.env.set(c.sym, this.fromCarried(perVariable[i].map((p) => p.name), c.value.shape, c.sym.name)));
  }

  // ---- Leaving a loop early (docs/frontend.md, "Leaving a loop early") ----
  //
  // The IR has no jumps. `break` assigns true to the loop's `broke` flag, `continue` to its
  // `skip` flag, `return v` to the function's `returned` flag and `v` to its result variable;
  // the flags are variables of the environment under symbols of their own, so the joins of
  // `if`s and the carried values of loops treat them like any `let`. After a statement that may
  // have jumped, the rest of its statement list runs under `if (!(broke || skip || returned))`
  // (`sequence`); a loop that can break or return carries those flags and runs while
  // `!(broke || returned) && c`; `skip` is reset at the start of each iteration.

  /** The flags of a loop with exits, set up before it: `broke` starts false, `returned` and the result as `openReturn` says. */
  private openLoop(s: ts.IterationStatement): ExitFlags | undefined {
    const exits = loopExits(this.t, s);
    if (!anyExit(exits)) return undefined;
    const flags: ExitFlags = { returns: exits.returns };
    if (exits.breaks) {
      flags.broke = flagSymbol('broke');
      this.env.set(flags.broke, this.literal(false, 'broke'));
    }
    if (exits.continues) flags.skip = flagSymbol('skip');
    if (exits.returns) this.openReturn();
    return flags;
  }

  /**
   * The frame's `returned` flag (false) and result variable (a zero of the result's shape, which
   * no path reads: `returned` is false until a return assigns it), unless they are set up already.
   */
  private openReturn(): void {
    const f = this.frame;
    if (f.returned && this.env.has(f.returned)) return;
    f.returned ??= flagSymbol('returned');
    f.value ??= flagSymbol('result');
    f.shape ??= this.resultShape(f.decl);
    this.env.set(f.returned, this.literal(false, 'returned'));
    this.env.set(f.value, this.zero(f.shape));
  }

  /** The flags a loop carries from one iteration to the next (`skip` is per iteration). */
  private carriedFlags(flags: ExitFlags | undefined): { sym: ts.Symbol; value: Value }[] {
    if (!flags) return [];
    const f = this.frame;
    const syms = [flags.broke, ...(flags.returns ? [f.returned, f.value] : [])];
    return syms.filter((x): x is ts.Symbol => x !== undefined).map((sym) => ({ sym, value: this.env.get(sym)! }));
  }

  /** True when some flag says the rest of the iteration must not run (`skip` counted only within an iteration). */
  private stopping(flags: ExitFlags, withSkip: boolean): Value | undefined {
    const syms = [flags.broke, withSkip ? flags.skip : undefined, flags.returns ? this.frame.returned : undefined];
    let acc: Value | undefined;
    for (const sym of syms) {
      const v = sym && this.env.get(sym);
      if (!v) continue;
      acc = acc ? this.op('or', [acc, v], 'stop', BOOLEAN) : v;
    }
    return acc;
  }

  /**
   * Statements in order. Inside a loop with exits, the statements after one that may have jumped
   * run under `if (!stop)`, in chunks that each end with the next statement that may jump: the
   * guards follow each other instead of nesting (nested conds would forward each other's
   * residuals, and the reverse pass's code would grow with the square of their number).
   */
  private sequence(stmts: readonly ts.Statement[]): void {
    const { t } = this;
    const flags = this.exitCtx;
    const run = (chunk: readonly ts.Statement[]) => {
      for (const s of chunk) this.guard(s, () => this.statement(s));
    };
    if (!flags) return run(stmts);
    let start = 0;
    for (let i = 0; i <= stmts.length; i++) {
      const s = stmts[i] as ts.Statement | undefined;
      if (s && !anyExit(exitsOf(t, s))) continue;
      const chunk = stmts.slice(start, i + 1);
      const first = start === 0;
      start = i + 1;
      if (chunk.length === 0) continue;
      const stop = first ? undefined : this.stopping(flags, true);
      if (stop) this.guard(chunk[0], () => this.joinIf(chunk[0], stop, [() => {}, () => run(chunk)], true));
      else run(chunk);
      // What follows a jump never runs (TypeScript flags it as unreachable).
      if (s && isJump(t, s)) return;
    }
  }

  /** One iteration of a loop body: `skip` reset, the body, then the incrementor unless the loop has ended. */
  private iteration(flags: ExitFlags | undefined, body: readonly ts.Statement[], incrementor?: ts.Expression): void {
    const outer = this.exitCtx;
    this.exitCtx = flags;
    try {
      // An iteration runs only while no flag is set: known false here, the tests of them fold.
      for (const sym of [flags?.skip, flags?.broke, flags?.returns ? this.frame.returned : undefined]) {
        if (sym) this.env.set(sym, this.literal(false, sym.name));
      }
      this.sequence(body);
    } finally {
      this.exitCtx = outer;
    }
    if (!incrementor) return;
    const step = () => this.guard(incrementor, () => this.at(incrementor, () => this.assignment(incrementor)));
    // After a break (or return) the incrementor does not run: the variables keep their values.
    const stop = flags && this.stopping(flags, false);
    if (stop) this.joinIf(incrementor, stop, [() => {}, step]);
    else step();
  }

  /** The condition of a loop with exits: `!(broke || returned) && c`, short-circuit when `c` calls a function. */
  private loopCondition(condition: ts.Expression | (() => Value) | undefined, flags: ExitFlags | undefined): Value {
    const stop = flags && this.stopping(flags, false);
    if (!condition) return stop ? this.op('not', [stop], 'running', BOOLEAN) : this.literal(true, 'running');
    // A condition built by the front end (for…of's k < n) calls nothing: `and` evaluates it eagerly.
    const evaluate = typeof condition === 'function' ? condition : () => this.predicate(condition);
    if (!stop) return evaluate();
    if (typeof condition === 'function' || !containsCall(this.t, condition)) return this.op('and', [this.op('not', [stop], 'running', BOOLEAN), evaluate()], 'running', BOOLEAN);
    const test = this.branch(() => this.predicate(condition));
    const stopped = this.branch(() => this.b.lit(false, 'running'));
    const blocks = [stopped.scope.b.finish(ret([stopped.result])), test.scope.b.finish(ret([test.result.name]))];
    return this.cond(stop, blocks, [BOOLEAN], ['running'])[0];
  }

  /** `break` / `continue`: the innermost loop's flag becomes true. */
  private jump(s: ts.BreakStatement | ts.ContinueStatement): void {
    const word = this.t.isBreakStatement(s) ? 'break' : 'continue';
    if (s.label) fail(1101, s, `${word} with a label is not supported: ${word} the innermost loop, and leave an outer loop with a flag that its condition tests`);
    const flag = word === 'break' ? this.exitCtx?.broke : this.exitCtx?.skip;
    if (!flag) fail(1101, s, `${word} is supported inside a for, while or do loop (and as the last statement of a switch case)`);
    this.env.set(flag, this.literal(true, word === 'break' ? 'broke' : 'skip'));
  }

  /** `return v` inside a loop (or a flagged statement): the frame's flag and result. */
  private flagReturn(s: ts.ReturnStatement): void {
    const f = this.frame;
    if (!this.exitCtx?.returns || !f.returned || !f.value || !f.shape) return fail(1107, s, 'return must be the last statement of a differentiable function, of a branch, or inside a loop');
    if (!s.expression) fail(1107, s, 'a differentiable function must return a value');
    const v = this.expr(s.expression, 'result');
    this.conform(s.expression, v, f.shape, 'the returned value');
    this.env.set(f.returned, this.literal(true, 'returned'));
    this.env.set(f.value, v);
  }

  /**
   * A statement with returns inside (a loop, or an `if`/switch whose rest would be copied) in
   * tail position: lowered once with the result flag, then `returned ? result : REST`.
   */
  private flaggedReturn(s: ts.Statement, rest: readonly ts.Statement[]): Value {
    this.openReturn();
    // When the rest ends in returns, it is lowered with the flag too: one guard after another,
    // never nested (see `sequence`), and the function's value is the result variable.
    const flat = alwaysReturns(this.t, rest);
    const outer = this.exitCtx;
    this.exitCtx = { returns: true };
    try {
      if (flat) this.sequence([s, ...rest]);
      else this.statement(s);
    } finally {
      this.exitCtx = outer;
    }
    const f = this.frame;
    if (flat) return this.env.get(f.value!)!;
    const returned = this.env.get(f.returned!)!;
    const arms: ReturningArm[] = [
      { node: s, returns: true, lower: () => this.env.get(f.value!) },
      {
        node: rest[0] ?? s,
        returns: false,
        lower: (after) => {
          // Known false here: later tests of the flag fold away.
          this.env.set(f.returned!, this.literal(false, 'returned'));
          return this.tail(after);
        },
      },
    ];
    return this.returningCond(s, returned, arms, rest);
  }

  /** Runs `f` emitting into another builder (an arm's, before it is finished). */
  private within<T>(b: Builder, f: () => T): T {
    const saved = this.b;
    this.b = b;
    try {
      return f();
    } finally {
      this.b = saved;
    }
  }

  /** A zero of a shape: the result variable's value before any return assigns it. */
  private zero(shape: Shape): Value {
    if (shape.kind === 'array') return this.arrays.zero(shape);
    if (isScalarShape(shape)) return this.literal(shape.kind === 'number' ? 0 : shape.kind === 'boolean' ? false : '', 'result');
    const parts = componentShapes(shape).map((s) => this.zero(s));
    return { name: this.b.nl('result', tuple(false, parts.map((p) => p.name)), irType(shape)), shape };
  }

  private literal(v: number | boolean | string, hint: string): Value {
    return { name: this.b.lit(v, hint), shape: typeof v === 'number' ? NUMBER : typeof v === 'boolean' ? BOOLEAN : STRING };
  }

  /** The shape a function (or local function) returns, from its signature. */
  private resultShape(decl: ts.SignatureDeclaration): Shape {
    const { t, checker } = this;
    const sig = checker.getSignatureFromDeclaration(decl);
    return shapeOfType(t, checker, sig ? checker.getReturnTypeOfSignature(sig) : checker.getAnyType(), decl.type ?? decl);
  }

  /**
   * `h(a, b)` of a local function `h` (declared in this function, see exits.ts): inlined. The
   * arguments are computed here, the parameters bound to them in the environment, and the body
   * lowered in place with a frame of its own (its returns are its own, no loop of the caller's
   * is in scope). It reads the caller's variables as they are at the call, as a closure does;
   * assigning them would be a side effect of the call, which is not modelled: TSAD1108.
   */
  private inlineCall(e: ts.CallExpression, fn: LocalFunction, hint?: string): Value {
    const { t, checker } = this;
    const name = e.expression.getText();
    if (this.inlinedCalls.has(fn)) fail(1109, e, `the local function '${name}' calls itself: tsad inlines a local function's calls, so it cannot be recursive; write the recursion as a loop`);
    if (e.arguments.length !== fn.parameters.length) fail(1102, e, `'${name}' takes ${fn.parameters.length} argument(s)`);
    const assigned = new Set<ts.Symbol>();
    if (fn.body) assignedSymbols(t, checker, fn.body, assigned);
    for (const sym of assigned) {
      const d = sym.valueDeclaration;
      if (d && !isInside(d, fn)) fail(1108, e, `the local function '${name}' assigns '${sym.name}', a variable of the function around it: a call may not change the caller's variables here; return the new value and assign it at the call`);
    }
    const args = e.arguments.map((a) => this.expr(a));
    const saved = { frame: this.frame, exitCtx: this.exitCtx, keys: new Set(this.env.keys()) };
    this.frame = { decl: fn };
    this.exitCtx = undefined;
    this.inlinedCalls.add(fn);
    try {
      fn.parameters.forEach((p, i) => {
        if (p.dotDotDotToken || p.questionToken || p.initializer) fail(1105, p, 'parameters of a local function cannot be optional, have defaults or be rest parameters', PLAIN_PARAMETER_HINT);
        const shape = shapeOfType(t, checker, checker.getTypeAtLocation(p), p);
        this.conform(e.arguments[i], args[i], shape, `argument ${i + 1} of '${name}'`);
        this.bindPattern(p.name, args[i]);
      });
      const errors = this.errors.length;
      const body = fn.body!;
      const value = t.isBlock(body) ? this.tail(body.statements) : this.expr(body, hint);
      if (!value) {
        if (this.errors.length > errors) throw new AlreadyReported();
        return fail(1107, fn, `the local function '${name}' must end with a return statement`);
      }
      this.conform(e, value, this.resultShape(fn), `the value '${name}' returns`);
      return value;
    } finally {
      this.frame = saved.frame;
      this.exitCtx = saved.exitCtx;
      this.inlinedCalls.delete(fn);
      // Its parameters and locals mean nothing after the call (and must not join an if's results).
      for (const k of [...this.env.keys()]) if (!saved.keys.has(k)) this.env.delete(k);
    }
  }

  /**
   * `while (c) body` (and the general `for`, with its incrementor at the end of the step). With
   * exits, the break and return flags are carried too, and the condition is `running && c`.
   */
  private whileLoop(condition: ts.Expression | undefined, body: readonly ts.Statement[], incrementor: ts.Expression | undefined, flags: ExitFlags | undefined): void {
    const carried = [...this.carriedBy([condition, ...body, incrementor]), ...this.carriedFlags(flags)];
    this.whileConstruct(
      carried,
      () => this.loopCondition(condition, flags),
      () => this.iteration(flags, body, incrementor),
    );
  }

  /** The IR's `while` over the carried variables: `test` lowers the condition, `advance` one step (both in the loop's scope). */
  private whileConstruct(carried: readonly { sym: ts.Symbol; value: Value }[], test: () => Value, advance: () => void): void {
    const cond = this.loopScope(carried, () => [test().name]);
    const step = this.loopScope(carried, () => {
      advance();
      return this.carriedNow(carried);
    });
    // A loop that assigns nothing declared before it has no effect.
    if (carried.length === 0) return;
    const { invariants, bodies } = this.closeLoop([cond, step]);
    const lambdas = [cond, step].map((b, k) => lambda([...bodies[k].inv, ...b.params], [], bodies[k].body));
    this.bindCarried(carried, 'while', [...invariants, ...carried.flatMap((c) => this.carriedParts(c.value))], lambdas);
  }

  /**
   * `for (let i = a; i < n; i++) body` as a counted loop, when it is one: a fresh `let` counter
   * the body does not assign, stepped by one, and a bound that reads nothing the body assigns
   * (so evaluating it once is the same as evaluating it before each iteration). False otherwise.
   */
  private countedFor(f: ts.ForStatement, flags: ExitFlags | undefined): boolean {
    const { t, checker } = this;
    const K = t.SyntaxKind;
    const init = f.initializer;
    if (!init || !t.isVariableDeclarationList(init) || (init.flags & t.NodeFlags.Let) === 0 || init.declarations.length !== 1) return false;
    const decl = init.declarations[0];
    if (!t.isIdentifier(decl.name) || !decl.initializer) return false;
    const sym = checker.getSymbolAtLocation(decl.name);
    const cond = f.condition;
    if (!sym || !cond || !t.isBinaryExpression(cond) || (cond.operatorToken.kind !== K.LessThanToken && cond.operatorToken.kind !== K.LessThanEqualsToken)) return false;
    if (!t.isIdentifier(cond.left) || checker.getSymbolAtLocation(cond.left) !== sym) return false;
    const isI = (e: ts.Expression) => t.isIdentifier(e) && checker.getSymbolAtLocation(e) === sym;
    const isOne = (e: ts.Expression) => t.isNumericLiteral(e) && Number(e.text) === 1;
    const inc = f.incrementor;
    const stepsByOne =
      !!inc &&
      (((t.isPostfixUnaryExpression(inc) || t.isPrefixUnaryExpression(inc)) && inc.operator === K.PlusPlusToken && isI(inc.operand)) ||
        (t.isBinaryExpression(inc) && isI(inc.left) && inc.operatorToken.kind === K.PlusEqualsToken && isOne(inc.right)) ||
        (t.isBinaryExpression(inc) &&
          isI(inc.left) &&
          inc.operatorToken.kind === K.EqualsToken &&
          t.isBinaryExpression(inc.right) &&
          inc.right.operatorToken.kind === K.PlusToken &&
          ((isI(inc.right.left) && isOne(inc.right.right)) || (isOne(inc.right.left) && isI(inc.right.right)))));
    if (!stepsByOne) return false;
    const assigned = new Set<ts.Symbol>();
    assignedSymbols(t, checker, f.statement, assigned);
    if (assigned.has(sym)) return false;
    const read = new Set<ts.Symbol>();
    readSymbols(t, checker, cond.right, read);
    if (read.has(sym) || [...read].some((r) => assigned.has(r))) return false;
    const start = this.env.get(sym);
    if (!start || start.shape.kind !== 'number') return false;
    const bound = this.expr(cond.right, 'n');
    this.numbers(cond.right, bound);
    const fromZero = t.isNumericLiteral(decl.initializer) && Number(decl.initializer.text) === 0;
    const count = this.at(cond, () => {
      const span = fromZero ? bound : this.op('sub', [bound, start], 'span');
      if (cond.operatorToken.kind === K.LessThanToken) return span;
      // i <= n runs floor(n - a) + 1 times (none when n < a: the count is then ≤ 0).
      return this.op('add', [this.op('floor', [span], 'span'), { name: this.b.lit(1, 'one'), shape: NUMBER }], 'trips');
    });
    const carried = this.carriedBy([f.statement], sym);
    const counter = binder(this.supply.fresh(fromZero ? decl.name.text : 'k'), REAL);
    const body = this.loopScope(carried, () => {
      const i = fromZero ? counter.name : this.b.prim('add', [start.name, counter.name], decl.name.getText());
      this.env.set(sym, { name: i, shape: NUMBER });
      this.iteration(flags, [f.statement]);
      return this.carriedNow(carried);
    });
    if (carried.length === 0) return true;
    const trips = fromZero ? this.checkedTrips(count, body.block, counter.name, cond.right, body.params) : count;
    const { invariants, bodies } = this.closeLoop([body], counter);
    this.bindCarried(carried, 'loop', [trips.name, ...invariants, ...carried.flatMap((c) => this.carriedParts(c.value))], [lambda([counter, ...bodies[0].inv, ...body.params], [], bodies[0].body)]);
    return true;
  }

  /**
   * The trip count of a counted loop from 0 that reads `a[i]` at its counter on every iteration
   * (a statement of the body itself, not of a branch in it): checked once against a's length, so
   * a read past the end is a RangeError, not an `undefined` that becomes NaN.
   */
  private checkedTrips(count: Value, body: Block, counter: string, bound: ts.Expression, carried: readonly Binder[]): Value {
    // An array the loop carries (one it writes into) is the body's own; it has no name outside.
    const bodyNames = new Set([...carried.map((p) => p.name), ...body.stmts.flatMap((st) => (st.tag === 'let' ? [...st.nl, ...st.lin] : st.names).map((x) => x.name))]);
    const arrays = new Set<string>();
    for (const st of body.stmts) {
      if (st.tag === 'let' && st.rhs.tag === 'construct' && st.rhs.op === 'index' && st.rhs.nl[1] === counter && !bodyNames.has(st.rhs.nl[0])) arrays.add(st.rhs.nl[0]);
    }
    let trips = count;
    for (const a of arrays) {
      if (this.arrays.isLengthOf(count.name, a)) continue;
      const what = `the loop for (… i < ${bound.getText()} …) reads '${userName(a)}[i]' past its end`;
      trips = this.arrays.atMost(trips, this.arrays.length({ name: a, shape: { kind: 'array', container: 'Float64Array', elem: NUMBER } }), what);
    }
    // m[i][j] of a matrix from outside the loop, at the counter: the counter stays below the
    // matrix's rows (i) or columns (j); a column past the end would read the next row.
    const checked = new Set<string>();
    for (const st of body.stmts) {
      const read = st.tag === 'let' && st.nl.length === 1 ? this.arrays.matrices.readOf(st.nl[0].name) : undefined;
      if (!read || bodyNames.has(read.matrix.name) || ![read.row, read.col].includes(counter)) continue;
      const m = userName(read.matrix.name);
      for (const [at, dim, limit] of [[read.row, 'rows', () => this.arrays.matrices.rows(read.matrix)], [read.col, 'columns', () => this.arrays.matrices.cols(read.matrix)]] as const) {
        if (at !== counter || checked.has(`${read.matrix.name}:${dim}`)) continue;
        checked.add(`${read.matrix.name}:${dim}`);
        if (limit().name === count.name) continue;
        const what = `the loop for (… < ${bound.getText()} …) reads '${m}' past its ${dim}`;
        trips = this.arrays.atMost(trips, limit(), what);
      }
    }
    return trips;
  }

  /**
   * `c ? a : b`. A side that calls a function (a Math function or a marked function) makes it a
   * cond, so only the side taken runs and is differentiated: such a side can be costly, and its
   * derivative can be infinite or NaN where it is not taken (`x > 0 ? Math.log(x) : 0` at 0).
   * Sides without calls (arithmetic on variables and literals, field access, nested cheap `?:`)
   * stay a `select` of two scalars, both computed: that is cheaper than a branch, and T guards
   * the untaken side's backward code with the same test (ad/guards.ts: `x !== 0 ? 1 / x : 0` has
   * derivative 0 at 0). Tuples and objects, which `select` does not take, become a cond whose bodies return the
   * sides already computed.
   */
  private conditional(e: ts.ConditionalExpression, hint?: string): Value {
    const { t } = this;
    const c = this.predicate(e.condition);
    const sides = [e.whenTrue, e.whenFalse];
    // In a derivative rule `c ? dx : dy` is a linear select of tangents (ad/customJvp.ts): always a select.
    if (this.role !== undefined || !sides.some((side) => containsCall(t, side))) {
      const [a, b2] = sides.map((side) => this.expr(side));
      if (isScalarShape(a.shape) || isScalarShape(b2.shape) || this.role !== undefined) {
        this.sameScalars(e, a, b2);
        return this.op('select', [c, a, b2], hint, a.shape);
      }
      this.conform(e.whenFalse, b2, a.shape, 'the second side of ?:');
      return this.cond(c, [a, b2].map((v) => ({ stmts: [], result: ret([v.name]) })), [a.shape], [hint ?? 'cond'])[0];
    }
    const lowered = sides.map((side) => this.branch(() => this.expr(side)));
    const [a, b2] = lowered.map((l) => l.result);
    if (isScalarShape(a.shape) || isScalarShape(b2.shape)) this.sameScalars(e, a, b2);
    else this.conform(e.whenFalse, b2, a.shape, 'the second side of ?:');
    const blocks = lowered.map((l) => l.scope.b.finish(ret([l.result.name])));
    return this.cond(c, blocks, [a.shape], [hint ?? 'cond'])[0];
  }

  /** The returned expression; for a VJP rule, `[value, (ct) => [...cotangents]]`. */
  private returned(e: ts.Expression): Value {
    const { t } = this;
    const primal = this.vjpOf;
    if (!primal || this.inPullback) return this.expr(e);
    const pair = t.isParenthesizedExpression(e) ? e.expression : e;
    const pullback = t.isArrayLiteralExpression(pair) && pair.elements.length === 2 ? pair.elements[1] : undefined;
    if (!pullback || !(t.isArrowFunction(pullback) || t.isFunctionExpression(pullback)) || pullback.parameters.length !== 1 || !t.isIdentifier(pullback.parameters[0].name)) {
      return fail(1111, e, 'a VJP rule returns [value, (cotangent) => [one cotangent per parameter]]');
    }
    const value = this.expr((pair as ts.ArrayLiteralExpression).elements[0], 'value');
    const ctName = this.supply.fresh(pullback.parameters[0].name.text);
    this.pullbackParam = { name: ctName, shape: primal.result };
    this.env.set(this.checker.getSymbolAtLocation(pullback.parameters[0].name)!, { name: ctName, shape: primal.result });
    // The pullback's body reads the rule's locals directly: they become residuals.
    this.inPullback = true;
    let cotangents: Value | undefined;
    try {
      cotangents = t.isBlock(pullback.body) ? this.block(pullback.body) : this.expr(pullback.body);
    } finally {
      this.inPullback = false;
    }
    if (!cotangents) return fail(1111, pullback, 'the pullback must return its cotangents');
    const expected: Shape = { kind: 'tuple', elems: primal.params.map((p) => p.shape) };
    this.conform(pullback.body, cotangents, expected, 'the cotangents returned by the pullback');
    const shape: Shape = { kind: 'tuple', elems: [value.shape, expected] };
    return { name: this.b.nl('rule', tuple(false, [value.name, cotangents.name])), shape };
  }

  private statement(s: ts.Statement): void {
    this.at(s, () => this.statementAt(s));
  }

  private statementAt(s: ts.Statement): void {
    const { t } = this;
    if (t.isVariableStatement(s)) return this.declarations(s.declarationList);
    if (t.isExpressionStatement(s)) return this.assignment(s.expression);
    if (t.isEmptyStatement(s)) return;
    if (t.isIfStatement(s)) {
      if (this.role !== undefined) fail(1101, s, 'an if statement is not supported in a derivative rule yet: write the value with ?: (both sides are computed)');
      return this.ifStatement(s);
    }
    if (t.isIterationStatement(s, false)) {
      if (this.role !== undefined) fail(1101, s, 'a loop is not supported in a derivative rule yet: write the rule without one, or differentiate the function itself');
      return this.loopStatement(s);
    }
    if (t.isBlock(s)) return this.sequence(s.statements);
    if (t.isBreakStatement(s) || t.isContinueStatement(s)) return this.jump(s);
    if (t.isReturnStatement(s)) return this.flagReturn(s);
    if (t.isSwitchStatement(s)) return this.switchStatement(s);
    // Hoisted: its calls are inlined where they are made.
    if (t.isFunctionDeclaration(s) && localFunctionOf(t, s.name && this.checker.getSymbolAtLocation(s.name), this.decl)) return;
    if (t.isLabeledStatement(s)) {
      fail(1101, s, 'labeled statements (break label, continue label) are not supported: break or continue the innermost loop, and leave an outer loop with a flag that its condition tests');
    }
    fail(1101, s, `a ${t.SyntaxKind[s.kind]} is not supported yet in differentiable functions`);
  }

  /** `const`/`let` declarations (a statement's, or a `for` loop's initializer). */
  private declarations(list: ts.VariableDeclarationList): void {
    const { t } = this;
    {
      for (const d of list.declarations) {
        // `const h = (t: number) => …`: its calls are inlined where they are made.
        if (declaresLocalFunction(t, d, this.decl, this.checker)) continue;
        if (!d.initializer) {
          // `let y;` then `y = ...`: the first assignment gives y its value and shape.
          if (!t.isIdentifier(d.name)) fail(1101, d, 'a destructuring declaration needs an initializer');
          this.unassigned.add(this.checker.getSymbolAtLocation(d.name)!);
          continue;
        }
        const hint = t.isIdentifier(d.name) ? d.name.text : undefined;
        try {
          let v = this.expr(d.initializer, hint);
          // `const c = [x, y, 1]` is a tuple in the IR, but TypeScript says number[]: one that is
          // written into is an array from the start (also as a carried or joined value).
          if (t.isIdentifier(d.name) && v.shape.kind === 'tuple' && this.writtenArrays.has(this.checker.getSymbolAtLocation(d.name)!)) {
            const declared = shapeOfType(t, this.checker, this.checker.getTypeAtLocation(d.name), d.name);
            if (declared.kind === 'array' && !isMatrix(declared)) v = this.coerce(d.initializer, v, declared);
          }
          this.bindPattern(d.name, v);
        } catch (e) {
          // The initializer or the pattern is the problem: the names it binds are not a second one.
          this.markFailed(d.name);
          throw e;
        }
      }
    }
  }

  /** Every name a failed declaration binds: later reads of them are not new problems. */
  private markFailed(name: ts.BindingName): void {
    const { t } = this;
    if (t.isIdentifier(name)) {
      const sym = this.checker.getSymbolAtLocation(name);
      if (sym) this.failed.add(sym);
      return;
    }
    for (const el of name.elements) if (!t.isOmittedExpression(el)) this.markFailed(el.name);
  }

  private bindPattern(name: ts.BindingName, v: Value): void {
    const { t } = this;
    if (t.isIdentifier(name)) {
      this.env.set(this.checker.getSymbolAtLocation(name)!, v);
      return;
    }
    if (t.isArrayBindingPattern(name)) {
      if (v.shape.kind === 'array') fail(1121, name, `destructuring ${describeShape(v.shape)} is not supported: its length is known only at run time; read the elements by index (const a = xs[0])`);
      if (v.shape.kind !== 'tuple') fail(1102, name, 'array destructuring needs a tuple');
      const parts = this.unpack(v);
      name.elements.forEach((el, i) => {
        if (t.isOmittedExpression(el)) return;
        if (el.dotDotDotToken || el.initializer) fail(1102, el, 'rest elements and defaults are not supported in destructuring');
        this.bindPattern(el.name, parts[i]);
      });
      return;
    }
    if (v.shape.kind !== 'object') fail(1102, name, 'object destructuring needs an object');
    const parts = this.unpack(v);
    const fields = v.shape.fields;
    for (const el of name.elements) {
      if (el.dotDotDotToken || el.initializer) fail(1102, el, 'rest elements and defaults are not supported in destructuring');
      const key = el.propertyName ? el.propertyName.getText() : (el.name as ts.Identifier).text;
      const i = fields.findIndex(([f]) => f === key);
      this.bindPattern(el.name, parts[i]);
    }
  }

  private assignment(e: ts.Expression): void {
    const { t } = this;
    const K = t.SyntaxKind;
    if (pushedArray(t, e)) return this.push(e as ts.CallExpression);
    if (writtenArray(t, e)) return this.elementAssignment(e);
    const target = (node: ts.Expression): ts.Symbol => {
      if (t.isElementAccessExpression(node)) this.arrays.write(node);
      if (!t.isIdentifier(node)) fail(1108, node, 'only local variables can be assigned in a differentiable function');
      const sym = this.checker.getSymbolAtLocation(node);
      if (!sym) reportedByTypeScript(node, 1108, `cannot assign to '${node.text}': it is not declared`);
      const decl = sym.valueDeclaration;
      // A name bound by destructuring (`let [a, b] = …`) is a binding element: its let is the declaration list's.
      const isLet = decl && (t.isVariableDeclaration(decl) || t.isBindingElement(decl)) && (t.getCombinedNodeFlags(decl) & t.NodeFlags.Let) !== 0;
      const local = this.env.has(sym) || this.unassigned.has(sym) || this.failed.has(sym);
      if (!local || !isLet) fail(1108, node, `cannot assign to '${node.text}': only local let variables can be reassigned`);
      return sym;
    };
    if ((t.isPrefixUnaryExpression(e) || t.isPostfixUnaryExpression(e)) && (e.operator === K.PlusPlusToken || e.operator === K.MinusMinusToken)) {
      const sym = target(e.operand);
      const cur = this.current$(sym, e.operand as ts.Identifier);
      const one = this.b.lit(1, 'one');
      const op = e.operator === K.PlusPlusToken ? 'add' : 'sub';
      this.env.set(sym, { name: this.b.prim(op, [cur.name, one], cur.name), shape: NUMBER });
      return;
    }
    if (t.isBinaryExpression(e)) {
      const compound = operatorTables(t).compound;
      if (e.operatorToken.kind === K.EqualsToken) {
        const sym = target(e.left);
        const name = (e.left as ts.Identifier).text;
        let value: Value;
        try {
          value = this.expr(e.right, name);
        } catch (err) {
          // Whatever y was before, its value from here on is unknown: no follow-up diagnostics.
          this.failed.add(sym);
          throw err;
        }
        const previous = this.env.get(sym);
        if (previous && !this.failed.has(sym)) value = this.coerce(e.right, value, previous.shape);
        if (previous && !this.failed.has(sym)) this.conform(e.right, value, previous.shape, `the value assigned to '${name}'`);
        else {
          // The first value of `let y: T;` (or a new value after a failed one): T gives the shape.
          const declared = sym.valueDeclaration && t.isVariableDeclaration(sym.valueDeclaration) ? sym.valueDeclaration.type : undefined;
          if (declared) this.conform(e.right, value, shapeOfType(t, this.checker, this.checker.getTypeAtLocation(declared), declared), `the value assigned to '${name}'`);
        }
        this.unassigned.delete(sym);
        this.failed.delete(sym);
        this.env.set(sym, value);
        return;
      }
      const op = compound[e.operatorToken.kind];
      if (op) {
        const sym = target(e.left);
        const cur = this.current$(sym, e.left as ts.Identifier);
        const rhs = this.expr(e.right);
        this.numbers(e, cur, rhs);
        this.env.set(sym, { name: this.b.prim(op, [cur.name, rhs.name], cur.name), shape: NUMBER });
        return;
      }
    }
    if (t.isBinaryExpression(e) && (e.operatorToken.kind === K.AmpersandAmpersandToken || e.operatorToken.kind === K.BarBarToken)) {
      fail(1101, e, `'${e.operatorToken.getText()}' as a statement has no effect: a differentiable function has no side effects, so its value would be discarded; write if (…) { … } to assign conditionally`);
    }
    if (t.isCallExpression(e) && t.isPropertyAccessExpression(e.expression) && this.arrays.isArrayValued(e.expression.expression)) this.arrays.write(e);
    if (t.isCallExpression(e)) fail(1101, e, 'a call as a statement has no effect: a differentiable function has no side effects, so its value would be discarded; assign it to a variable');
    fail(1101, e, 'an expression statement in a differentiable function must be an assignment, ++ or --');
  }

  /**
   * `a[i] = v`, `a[i] op= v`, `a[i]++`: a becomes `update(a, i, v)`. checkArrayWrites has made
   * sure a is a local array with one name, so the new version is all the function can see.
   */
  private elementAssignment(e: ts.Expression): void {
    const { t } = this;
    const id = writtenArray(t, e)!;
    const sym = this.checker.getSymbolAtLocation(id)!;
    let access: ts.Expression = t.isBinaryExpression(e) ? e.left : (e as ts.PrefixUnaryExpression | ts.PostfixUnaryExpression).operand;
    while (t.isParenthesizedExpression(access)) access = access.expression;
    const target = access as ts.ElementAccessExpression;
    const a = this.current$(sym, id);
    if (isMatrix(a.shape)) return this.matrixAssignment(e, sym, id, a, target);
    if (a.shape.kind !== 'array') fail(1122, target, `only arrays can be written into by index, '${id.text}' is ${describeShape(a.shape)}`);
    const i = this.expr(target.argumentExpression, 'i');
    let value = this.writtenValue(e, `${id.text}_i`, 'an array element', () => this.arrays.read(a, i, `${id.text}_i`, target));
    // An Int32Array (indices, a constant) stores the value truncated toward zero, as JavaScript
    // does for values in its range; no derivative flows through an index.
    if (a.shape.kind === 'array' && a.shape.constant) value = this.op('stop_gradient', [this.op('trunc', [value], `${id.text}_i`)], `${id.text}_i`);
    this.env.set(sym, this.arrays.update(a, i, value, target));
  }

  /**
   * The value an element write stores: the right side of `=`, or `old op right` for a compound
   * assignment, `++` and `--` (`old` reads the element, only then).
   */
  private writtenValue(e: ts.Expression, hint: string, what: string, old: () => Value): Value {
    const { t } = this;
    const K = t.SyntaxKind;
    if (t.isBinaryExpression(e) && e.operatorToken.kind === K.EqualsToken) return this.expr(e.right, hint);
    const before = old();
    const op = t.isBinaryExpression(e) ? operatorTables(t).compound[e.operatorToken.kind] : (e as ts.PrefixUnaryExpression).operator === K.PlusPlusToken ? 'add' : 'sub';
    if (!op) fail(1108, e, `'${(e as ts.BinaryExpression).operatorToken.getText()}' is not supported on ${what}`);
    const rhs = t.isBinaryExpression(e) ? this.expr(e.right) : { name: this.b.lit(1, 'one'), shape: NUMBER };
    this.numbers(e, before, rhs);
    return { name: this.b.prim(op, [before.name, rhs.name], hint), shape: NUMBER };
  }

  /** `m[i][j] = v`, `m[i][j] op= v`, `m[i][j]++` on a local matrix: one update of its data. */
  private matrixAssignment(e: ts.Expression, sym: ts.Symbol, id: ts.Identifier, m: Value, target: ts.ElementAccessExpression): void {
    const { t } = this;
    let rowAccess: ts.Expression = target.expression;
    while (t.isParenthesizedExpression(rowAccess)) rowAccess = rowAccess.expression;
    if (!t.isElementAccessExpression(rowAccess)) fail(1122, target, `'${id.text}' is a matrix: write its elements, ${id.text}[i][j] = v (a whole row cannot be replaced)`);
    const i = this.expr(rowAccess.argumentExpression, 'i');
    const j = this.expr(target.argumentExpression, 'j');
    this.numbers(target, i, j);
    const value = this.writtenValue(e, `${id.text}_ij`, 'a matrix element', () => this.arrays.matrices.element(m, i, j, `${id.text}_ij`));
    if (value.shape.kind !== 'number') fail(1120, target, `a matrix holds numbers: cannot write ${describeShape(value.shape)}`);
    this.env.set(sym, this.arrays.matrices.update(m, i, j, value, target));
  }

  /** `b.push(x, y)` as a statement: b becomes `append(append(b, x), y)` (checked by checkArrayWrites, as writes are). */
  private push(e: ts.CallExpression): void {
    const id = pushedArray(this.t, e)!;
    const sym = this.checker.getSymbolAtLocation(id)!;
    let a = this.current$(sym, id);
    if (a.shape.kind !== 'array') fail(1122, e, `only arrays can be pushed onto, '${id.text}' is ${describeShape(a.shape)}`);
    for (const arg of e.arguments) {
      if (this.t.isSpreadElement(arg)) fail(1122, arg, 'push(...xs) is not supported: push the elements in a loop');
      const v = this.expr(arg, `${id.text}_last`);
      a = this.arrays.append(a, v, arg);
    }
    this.env.set(sym, a);
  }

  /** The value of a local now; reading a `let y;` before its first assignment is an error. */
  private current$(sym: ts.Symbol, at: ts.Identifier): Value {
    if (this.failed.has(sym)) return this.standIn(at);
    if (this.unassigned.has(sym)) fail(1115, at, `'${at.text}' is read before it is assigned a value`);
    return this.env.get(sym)!;
  }

  /**
   * A value of the right shape for a variable whose definition failed: lowering goes on, so
   * independent problems later in the function are still found, while nothing is reported about
   * the variable itself. The function has an error already, so this value is never emitted.
   */
  private standIn(e: ts.Expression): Value {
    let shape: Shape;
    try {
      shape = shapeOfType(this.t, this.checker, this.checker.getTypeAtLocation(e), e);
    } catch {
      throw new AlreadyReported();
    }
    const make = (s: Shape): Value => {
      if (s.kind === 'array') return this.arrays.zero(s);
      if (isScalarShape(s)) return { name: this.b.lit(s.kind === 'number' ? 0 : s.kind === 'boolean' ? false : '', 'failed'), shape: s };
      const parts = componentShapes(s).map(make);
      return { name: this.b.nl('failed', tuple(false, parts.map((p) => p.name)), irType(s)), shape: s };
    };
    return make(shape);
  }

  /** Each tuple is unpacked once; later field accesses reuse the parts (values are immutable). */
  private unpack(v: Value): Value[] {
    const known = this.unpacked.get(v.name);
    if (known) return known;
    const parts = this.unpackNew(v);
    this.unpacked.set(v.name, parts);
    return parts;
  }

  private unpackNew(v: Value): Value[] {
    if (isMatrix(v.shape)) {
      // A matrix is (data, rows, cols); its dimensions are integers, no tangent flows from them.
      const names = this.matrixBinders(userName(v.name));
      this.b.unpack(false, names, v.name);
      const dims = names.slice(1).map((n) => ({ name: this.b.prim('stop_gradient', [n.name], n.name), shape: NUMBER }));
      const parts = [{ name: names[0].name, shape: rowShape(v.shape) }, ...dims];
      // Known after the scope that unpacked them ends: a map's body unpacks a free matrix, its
      // closing (arrays.ts) then asks what the data is.
      for (const p of parts) this.shapes.set(p.name, p.shape);
      return parts;
    }
    const shapes = componentShapes(v.shape);
    const names = shapes.map((s, i) => binder(this.supply.fresh(`${v.name}_${v.shape.kind === 'object' ? (v.shape.fields[i][0]) : i}`), irType(s)));
    this.b.unpack(false, names, v.name);
    return names.map((n, i) => ({ name: n.name, shape: shapes[i] }));
  }

  /** Code with TypeScript type errors must still end in a diagnostic, never in ill-typed IR. */
  private conform(node: ts.Node, v: Value, expected: Shape, what: string): void {
    if (layoutOf(v.shape) !== layoutOf(expected)) fail(1105, node, `${what} has shape ${describeShape(v.shape)}, but ${describeShape(expected)} is expected here`);
  }

  /** Comparisons and `?:` work on two numbers, two booleans or two strings. */
  private sameScalars(node: ts.Node, a: Value, b: Value): void {
    if (!isScalarShape(a.shape) || a.shape.kind !== b.shape.kind) {
      fail(1105, node, `this operation needs two numbers, two booleans or two strings, got ${describeShape(a.shape)} and ${describeShape(b.shape)}`);
    }
  }

  private numbers(node: ts.Node, ...vs: Value[]): void {
    for (const v of vs) if (v.shape.kind !== 'number') fail(1105, node, `this operation needs numbers, got a ${v.shape.kind}`);
  }

  private op(name: string, args: Value[], hint: string | undefined, shape: Shape = NUMBER): Value {
    return { name: this.b.nl(hint ?? name, prim(name, args.map((a) => a.name)), irType(shape)), shape };
  }

  /** Lowers an expression; every IR name created meanwhile (not by a sub-expression) maps to it. */
  expr(e: ts.Expression, hint?: string): Value {
    const v = this.at(e, () => this.exprAt(e, hint));
    this.shapes.set(v.name, v.shape);
    return v;
  }

  private arraySite(): ArraySite {
    return {
      t: this.t,
      checker: this.checker,
      b: () => this.b,
      expr: (e, hint) => this.expr(e, hint),
      scope: (f) => {
        const { result, scope } = this.branch(() => f((sym, v) => this.env.set(sym, v)));
        return { block: scope.b.finish(ret(result.map((r) => r.name))), results: result };
      },
      callbackBody: (fn, hint) => this.callbackBody(fn, hint),
      shapeOfName: (name) => this.shapeOfName(name),
      noteShape: (v) => void this.shapes.set(v.name, v.shape),
      conform: (node, v, shape, what) => this.conform(node, v, shape, what),
      functionName: functionName(this.t, this.decl),
      matrixParts: (m) => {
        const [data, rows, cols] = this.unpack(m);
        return { data, rows, cols };
      },
    };
  }

  private shapeOfName(name: string): Shape | undefined {
    const known = this.shapes.get(name);
    if (known) return known;
    for (const v of this.env.values()) if (v.name === name) return v.shape;
    for (const parts of this.unpacked.values()) for (const v of parts) if (v.name === name) return v.shape;
    return undefined;
  }

  /** The value of a callback written in place (`.map((x) => …)`): its expression, or its statements with a frame of their own. */
  private callbackBody(fn: ts.ArrowFunction | ts.FunctionExpression, hint?: string): Value {
    const { t } = this;
    const body = fn.body;
    if (!t.isBlock(body)) return this.expr(body, hint);
    const saved = { frame: this.frame, exitCtx: this.exitCtx };
    this.frame = { decl: fn };
    this.exitCtx = undefined;
    try {
      const errors = this.errors.length;
      const value = this.tail(body.statements);
      if (!value) {
        if (this.errors.length > errors) throw new AlreadyReported();
        return fail(1107, fn, 'the callback must end with a return statement');
      }
      return value;
    } finally {
      this.frame = saved.frame;
      this.exitCtx = saved.exitCtx;
    }
  }

  private at<T>(node: ts.Node, f: () => T): T {
    const outer = this.current;
    this.current = node;
    try {
      return f();
    } finally {
      this.current = outer;
    }
  }

  private exprAt(e: ts.Expression, hint?: string): Value {
    const { t } = this;
    const K = t.SyntaxKind;
    if (t.isParenthesizedExpression(e) || t.isAsExpression(e) || t.isNonNullExpression(e) || t.isSatisfiesExpression(e) || t.isTypeAssertionExpression(e)) {
      return this.expr(e.expression, hint);
    }
    if (t.isNumericLiteral(e)) return { name: this.b.lit(Number(e.text), hint ?? 'c'), shape: NUMBER };
    if (t.isStringLiteral(e) || t.isNoSubstitutionTemplateLiteral(e)) return { name: this.b.lit(e.text, hint ?? 's'), shape: STRING };
    if (e.kind === K.TrueKeyword || e.kind === K.FalseKeyword) return { name: this.b.lit(e.kind === K.TrueKeyword, hint ?? 'c'), shape: BOOLEAN };
    if (t.isIdentifier(e)) return this.identifier(e, hint);
    if (e.kind === K.ThisKeyword) fail(1102, e, "'this' is supported only as this.field (read when the derivative runs) and this.method(...) in an instance method; pass the value as a parameter");
    if (e.kind === K.NullKeyword || t.isVoidExpression(e)) this.noValue(e);
    if (t.isPrefixUnaryExpression(e)) {
      if (e.operator === K.MinusToken) {
        if (t.isNumericLiteral(e.operand)) return { name: this.b.lit(-Number(e.operand.text), hint ?? 'c'), shape: NUMBER };
        const v = this.expr(e.operand);
        this.numbers(e, v);
        return this.op('neg', [v], hint);
      }
      if (e.operator === K.PlusToken) return this.expr(e.operand, hint);
      if (e.operator === K.ExclamationToken) return this.op('not', [this.expr(e.operand)], hint, BOOLEAN);
      fail(1108, e, '++ and -- are statements here, not expressions');
    }
    if (t.isBinaryExpression(e)) return this.binary(e, hint);
    if (t.isConditionalExpression(e)) return this.conditional(e, hint);
    if (t.isPropertyAccessExpression(e)) return this.property(e, hint);
    if (t.isElementAccessExpression(e)) {
      return this.matrixElement(e, hint) ?? this.elementOf(e, this.expr(e.expression), hint);
    }
    if (t.isCallExpression(e)) return this.call(e, hint);
    if (t.isNewExpression(e)) return this.arrays.newArray(e, hint);
    if (t.isArrayLiteralExpression(e) && this.arrays.wantsArray(e)) return this.arrays.literal(e, shapeOfType(t, this.checker, this.checker.getContextualType(e)!, e), hint);
    if (t.isArrayLiteralExpression(e)) {
      const parts = e.elements.map((el) => {
        if (t.isSpreadElement(el) || t.isOmittedExpression(el)) fail(1102, el, 'spread and holes are not supported in tuples');
        return this.expr(el);
      });
      return { name: this.b.nl(hint ?? 't', tuple(false, parts.map((p) => p.name))), shape: { kind: 'tuple', elems: parts.map((p) => p.shape) } };
    }
    if (t.isObjectLiteralExpression(e)) {
      const fields: [string, Value][] = e.properties.map((p) => {
        if (t.isPropertyAssignment(p)) return [p.name.getText().replace(/^['"]|['"]$/g, ''), this.expr(p.initializer, p.name.getText())];
        if (t.isShorthandPropertyAssignment(p)) return [p.name.text, this.identifier(p.name)];
        return fail(1102, p, 'only plain properties are supported in object literals');
      });
      fields.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return {
        name: this.b.nl(hint ?? 'o', tuple(false, fields.map(([, v]) => v.name))),
        shape: { kind: 'object', fields: fields.map(([k, v]) => [k, v.shape] as const) },
      };
    }
    return fail(1102, e, `${t.SyntaxKind[e.kind]} is not supported in differentiable functions`);
  }

  // ---- Arrays: arrays.ts recognises and lowers them ----

  /** A tuple of numbers where an array is expected becomes one; anything else is left to `conform`. */
  private coerce(node: ts.Node, v: Value, expected: Shape): Value {
    if (expected.kind === 'array' && v.shape.kind === 'tuple') return this.arrays.asArray(node, v);
    if (expected.kind === 'array' && v.shape.kind === 'array') return { name: v.name, shape: expected };
    return v;
  }

  private identifier(e: ts.Identifier, hint?: string): Value {
    const { t } = this;
    const sym = this.checker.getSymbolAtLocation(e);
    if (sym && this.failed.has(sym)) return this.standIn(e);
    const v = sym && this.env.get(sym);
    if (v) return v;
    if (localFunctionOf(t, sym, this.decl)) {
      fail(1117, e, `'${e.text}' is a local function used as a value: tsad inlines the calls of a local function, so it can only be called here, not returned, stored or passed on`);
    }
    if (e.text === 'NaN' || e.text === 'Infinity') return { name: this.b.lit(e.text === 'NaN' ? NaN : Infinity, hint ?? 'c'), shape: NUMBER };
    if (e.text === 'undefined' && sym && !sym.valueDeclaration) this.noValue(e);
    // An unknown name is TypeScript's error ("Cannot find name"), and a failed local was ours.
    if (!sym) reportedByTypeScript(e, 1106, `'${e.text}' is not declared`);
    if (this.failed.has(sym) || this.unassigned.has(sym)) return this.current$(sym, e);
    const target = sym && sym.flags & t.SymbolFlags.Alias ? this.checker.getAliasedSymbol(sym) : sym;
    const decl = target?.valueDeclaration;
    // Module state is read when the function runs; only a const primitive is folded.
    const variable = moduleVariable(t, this.checker, sym);
    if (variable && !isFixed(t, this.checker, variable.decl)) return this.stateValue(variable, e);
    if (decl && t.isVariableDeclaration(decl) && decl.initializer && t.isSourceFile(decl.parent.parent.parent) && (decl.parent.flags & t.NodeFlags.Const) !== 0) {
      // A module-level constant (`const TWO_PI = 2 * Math.PI`, also imported): its initializer is
      // pure, so computing it in place gives the same value, and as a constant it has no tangent.
      if (this.inlining.has(decl)) fail(1106, e, `'${e.text}' is defined in terms of itself`);
      this.inlining.add(decl);
      try {
        return this.at(e, () => this.expr(decl.initializer!, hint ?? e.text));
      } catch (err) {
        if (!isTsadDiagnostic(err)) throw err;
        // Computed by code tsad cannot lower (`Math.random()`, a call of a plain function): read it when the function runs.
        if (variable) return this.stateValue(variable, e);
        fail(1106, e, `'${e.text}' is a module-level constant, but its initializer is outside the differentiable subset (${err.message.split('\n')[0]})`);
      } finally {
        this.inlining.delete(decl);
      }
    }
    return fail(1106, e, `'${e.text}' is not a parameter or local variable of this differentiable function`);
  }

  /** The parameter that holds a module-level variable's (or a field of this's) value when the function runs. */
  private stateValue(variable: StateSource, at: ts.Node): Value {
    const v = this.state.read(variable, at);
    this.shapes.set(v.name, v.shape);
    return v;
  }

  /** `undefined` and `null` are values a differentiable function cannot hold (there is no optional value in the subset). */
  private noValue(e: ts.Node): never {
    return fail(1102, e, `'${e.getText()}' is not supported in differentiable functions: every variable holds a number, boolean, string, array, tuple or object; give it a value of its type (0, NaN, false), or test a boolean flag instead of comparing with ${e.getText()}`);
  }

  private isGlobalMath(e: ts.Expression): boolean {
    if (!this.t.isIdentifier(e) || e.text !== 'Math') return false;
    const decl = this.checker.getSymbolAtLocation(e)?.declarations?.[0];
    return !!decl && decl.getSourceFile().hasNoDefaultLib;
  }

  /**
   * `m[i][j]` of a matrix: one read of its flat data, no row built; undefined for anything else.
   */
  private matrixElement(e: ts.ElementAccessExpression, hint?: string): Value | undefined {
    const { t } = this;
    let rowAccess: ts.Expression = e.expression;
    while (t.isParenthesizedExpression(rowAccess)) rowAccess = rowAccess.expression;
    if (!t.isElementAccessExpression(rowAccess) || !this.arrays.isArrayValued(rowAccess.expression)) return undefined;
    const m = this.expr(rowAccess.expression);
    if (!isMatrix(m.shape)) {
      // Not a matrix after all (a tuple of arrays): read it the ordinary way, reusing m.
      const v = this.elementOf(rowAccess, m);
      return this.elementOf(e, v, hint);
    }
    const i = this.expr(rowAccess.argumentExpression, 'i');
    const j = this.expr(e.argumentExpression, 'j');
    for (const [x, node] of [[i, rowAccess.argumentExpression], [j, e.argumentExpression]] as const) if (x.shape.kind !== 'number') fail(1121, node, `a matrix index must be a number, got ${describeShape(x.shape)}`);
    return this.arrays.matrices.element(m, i, j, hint);
  }

  /** `v[index]` for an already lowered v: an array element or a tuple's part. */
  private elementOf(e: ts.ElementAccessExpression, value: Value, hint?: string): Value {
    const { t } = this;
    let v = value;
    if (v.shape.kind === 'tuple' && !t.isNumericLiteral(e.argumentExpression)) v = this.arrays.asArray(e.expression, v);
    if (v.shape.kind === 'array') {
      const i = this.expr(e.argumentExpression, 'i');
      if (i.shape.kind !== 'number') fail(1121, e.argumentExpression, `an array index must be a number, got ${describeShape(i.shape)}`);
      return this.arrays.read(v, i, hint, e);
    }
    if (v.shape.kind !== 'tuple' || !t.isNumericLiteral(e.argumentExpression)) fail(1102, e, 'only tuples and arrays can be indexed (tuples by a number literal)');
    const i = Number(e.argumentExpression.text);
    if (!(i >= 0 && i < v.shape.elems.length)) fail(1102, e.argumentExpression, `index ${i} is outside the tuple`);
    return this.unpack(v)[i];
  }

  private property(e: ts.PropertyAccessExpression, hint?: string): Value {
    if (this.isGlobalMath(e.expression)) {
      const c = MATH_CONSTANTS[e.name.text];
      if (c === undefined) fail(1102, e, `Math.${e.name.text} is not a number constant`);
      return { name: this.b.lit(c, hint ?? e.name.text), shape: NUMBER };
    }
    if (e.name.text === 'length' && this.t.isElementAccessExpression(e.expression) && this.arrays.isArrayValued(e.expression.expression)) {
      // `m[i].length` of a matrix is its column count: no row is built.
      const m = this.expr(e.expression.expression);
      if (isMatrix(m.shape)) return this.arrays.matrices.cols(m);
      return this.arrays.length(this.elementOf(e.expression, m), hint ?? 'n');
    }
    if (e.expression.kind === this.t.SyntaxKind.ThisKeyword) return this.stateValue(thisField(this.t, this.checker, this.decl, e), e);
    const v = this.expr(e.expression);
    if (e.name.text === 'length' && v.shape.kind === 'array') return this.arrays.length(v, hint ?? 'n');
    if (e.name.text === 'length' && v.shape.kind === 'tuple') return this.literal(v.shape.elems.length, hint ?? 'n');
    if (v.shape.kind === 'array') fail(1121, e.name, `'.${e.name.text}' of an array is not supported here`);
    if (v.shape.kind !== 'object') fail(1102, e, `property access needs an object, got a ${v.shape.kind}`);
    const i = v.shape.fields.findIndex(([f]) => f === e.name.text);
    if (i < 0) fail(1102, e.name, `no field ${e.name.text}`);
    return this.unpack(v)[i];
  }

  /**
   * A chain like `a + b + c + ...` nests to the left as deep as it is long: walk the left spine
   * in a loop (innermost first, the order JavaScript evaluates it) instead of recursing.
   */
  private binary(e: ts.BinaryExpression, hint?: string): Value {
    const spine: ts.BinaryExpression[] = [e];
    let left = e.left;
    while (this.t.isBinaryExpression(left) && this.binaryOperator(left)) {
      spine.push(left);
      left = left.left;
    }
    let acc = this.expr(left);
    for (let i = spine.length - 1; i >= 0; i--) {
      const step = spine[i];
      const left = acc;
      acc = this.at(step, () => this.binaryStep(step, left, i === 0 ? hint : undefined));
    }
    return acc;
  }

  private binaryOperator(e: ts.BinaryExpression): { name: string; kind: 'arith' | 'compare' | 'logic' } | undefined {
    const k = e.operatorToken.kind;
    const arith = BINARY_ARITH(this.t)[k];
    if (arith) return { name: arith, kind: 'arith' };
    const compare = BINARY_COMPARE(this.t)[k];
    if (compare) return { name: compare, kind: 'compare' };
    const logic = BINARY_LOGIC(this.t)[k];
    return logic ? { name: logic, kind: 'logic' } : undefined;
  }

  private binaryStep(e: ts.BinaryExpression, a: Value, hint?: string): Value {
    const K = this.t.SyntaxKind;
    const k = e.operatorToken.kind;
    const op = this.binaryOperator(e);
    if (!op) fail(k >= K.FirstAssignment && k <= K.LastAssignment ? 1108 : 1102, e.operatorToken, `operator '${e.operatorToken.getText()}' is not supported here`);
    if (op.kind === 'logic' && this.role === undefined && containsCall(this.t, e.right)) return this.shortCircuit(e, op.name, a, hint);
    const b = this.expr(e.right);
    if (op.kind === 'logic') {
      if (a.shape.kind !== 'boolean' || b.shape.kind !== 'boolean') fail(1105, e, `'${e.operatorToken.getText()}' needs booleans`);
      return this.op(op.name, [a, b], hint, BOOLEAN);
    }
    if (op.kind === 'compare') {
      this.sameScalars(e, a, b);
      if (a.shape.kind === 'boolean' && op.name !== 'eq' && op.name !== 'ne') fail(1105, e, `'${e.operatorToken.getText()}' does not order booleans`);
      return this.op(op.name, [a, b], hint, BOOLEAN);
    }
    this.numbers(e, a, b);
    return this.op(op.name, [a, b], hint, NUMBER);
  }

  /**
   * `a && b` / `a || b` whose right side calls a function: short-circuit, as `a ? b : false` /
   * `a ? true : b` lowered by `conditional`, a cond whose branch not taken never runs (so
   * `x > 0 && Math.log(x) > 1` never computes log(x) where x ≤ 0). Cheap operands stay `and`/`or`.
   */
  private shortCircuit(e: ts.BinaryExpression, op: string, a: Value, hint?: string): Value {
    if (a.shape.kind !== 'boolean') fail(1105, e, `'${e.operatorToken.getText()}' needs booleans`);
    const right = this.branch(() => {
      const b = this.expr(e.right);
      if (b.shape.kind !== 'boolean') fail(1105, e, `'${e.operatorToken.getText()}' needs booleans`);
      return b;
    });
    const constant = this.branch(() => this.b.lit(op === 'or'));
    const blocks = [right.scope.b.finish(ret([right.result.name])), constant.scope.b.finish(ret([constant.result]))];
    return this.cond(a, op === 'and' ? blocks : [blocks[1], blocks[0]], [BOOLEAN], [hint ?? op])[0];
  }

  private call(e: ts.CallExpression, hint?: string): Value {
    const { t } = this;
    const callee = e.expression;
    if (t.isPropertyAccessExpression(callee) && this.isGlobalMath(callee.expression)) {
      const fn = callee.name.text;
      if (!MATH_FUNCTIONS.has(fn)) fail(1103, e, `cannot differentiate through a call to 'Math.${fn}': it is not differentiable`);
      // TypeScript reports a wrong count too, but may not stop the build; JavaScript's NaN for a
      // missing argument is no value to differentiate, so it is ours to refuse at the call.
      const { min, max } = primDef(fn).arity;
      const n = e.arguments.length;
      if (n < min || n > max) fail(1102, e, `Math.${fn} takes ${max === Infinity ? `at least ${min}` : min === max ? min : `${min} to ${max}`} argument(s), got ${n}`);
      const args = e.arguments.map((a) => this.expr(a));
      this.numbers(e, ...args);
      return this.op(fn, args, hint);
    }
    const arrayCall = this.arrays.call(e, hint);
    if (arrayCall) return arrayCall;
    if (isTsadExport(callee, this.checker, 'stopGradient')) {
      if (e.arguments.length !== 1) fail(1102, e, 'stopGradient takes one argument');
      return this.stop(this.expr(e.arguments[0]), hint);
    }
    const nested = lowerNestedCall(this.nestedSite(), e, hint);
    if (nested) return nested;
    const local = t.isIdentifier(callee) ? localFunctionOf(t, this.checker.getSymbolAtLocation(callee), this.decl) : undefined;
    if (local) return this.inlineCall(e, local, hint);
    const target = resolveMarkedFunction(callee, this.checker) ?? this.notDifferentiable(e);
    const lowered = this.owner.lower(target.decl, e);
    for (const m of methodCall(this.t, this.decl, callee, target.decl, lowered.methods)) this.methods.add(m);
    const raw = e.arguments.map((a) => this.expr(a));
    if (raw.length !== lowered.params.length) fail(1102, e, `'${lowered.name}' takes ${lowered.params.length} argument(s)`);
    const args = raw.map((a, i) => this.coerce(e.arguments[i], a, lowered.params[i].shape));
    args.forEach((a, i) => this.conform(e.arguments[i], a, lowered.params[i].shape, `argument ${i + 1} of '${lowered.name}'`));
    // The module state the callee reads, as this function reads it: passed on.
    const state = lowered.state.map((s) => this.stateValue(s, e));
    return { name: this.b.nl(hint ?? lowered.name, call(lowered.name, [...args, ...state].map((a) => a.name)), irType(lowered.result)), shape: lowered.result };
  }

  private nestedSite(): NestedSite {
    return {
      owner: this.owner,
      expr: (a: ts.Expression) => this.expr(a),
      conform: (node: ts.Node, v: Value, s: Shape, what: string) => this.conform(node, v, s, what),
      bind: (base: string, rhs: Expr, s: Shape): Value => ({ name: this.b.nl(base, rhs, irType(s)), shape: s }),
      lit: (x: number) => this.b.lit(x),
      valueOf: (sym: ts.Symbol) => this.env.get(sym),
    };
  }

  /** Why a call cannot be differentiated through, in the most specific words there are. */
  private notDifferentiable(e: ts.CallExpression): never {
    const { t, checker } = this;
    const callee = e.expression;
    const name = callee.getText();
    // `grad(f)(x)`, `df(x)` with `const df = grad(f)`, or `jvp(f, ...)` itself.
    const direct = tsadExportName(callee, checker);
    const transform = direct && TRANSFORM_NAMES.has(direct) && !isRuleCall(e, checker) ? { call: e, name: direct } : transformCallBehind(callee, checker);
    if (transform) fail(1006, e, nestedTransformMessage(undefined, transform));
    let sym = checker.getSymbolAtLocation(t.isPropertyAccessExpression(callee) ? callee.name : callee);
    if (!sym) {
      // `nope(x)`: TypeScript reports the unknown name; `(cond ? f : g)(x)` and the like are ours.
      if (t.isIdentifier(callee) || t.isPropertyAccessExpression(callee)) reportedByTypeScript(callee, 1104, `cannot differentiate through a call to '${name}': it is not declared`);
      fail(1104, e, `cannot differentiate through a call to '${name}': only calls of named differentiable functions are supported`);
    }
    if (sym.flags & t.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
    const decls = sym.declarations ?? [];
    if (decls.length > 0 && decls.every(isBuiltIn)) {
      const owner = decls[0].parent;
      const method = (t.isInterfaceDeclaration(owner) || t.isClassDeclaration(owner)) && owner.name ? `${owner.name.text.replace(/Constructor$/, '')}.${sym.name}` : sym.name;
      const isMethod = t.isPropertyAccessExpression(callee) && !(t.isIdentifier(callee.expression) && method.startsWith(`${callee.expression.text}.`));
      const written = name === method ? '' : ` (in '${name}')`;
      fail(1113, e, `cannot differentiate through the built-in ${isMethod ? 'method' : 'function'} '${method}'${written}: built-in functions and methods are not supported in differentiable functions yet`);
    }
    if (decls.length > 0 && decls.every((d) => d.getSourceFile().isDeclarationFile || ((d as ts.FunctionLikeDeclaration).body === undefined && t.isFunctionLike(d)))) {
      const where = decls[0].getSourceFile().isDeclarationFile ? `a declaration file (${decls[0].getSourceFile().fileName.split('/').pop()})` : 'a declaration without a body';
      fail(1113, e, `cannot differentiate through a call to '${name}': it comes from ${where}, so tsad cannot see its code`);
    }
    return fail(1104, e, `cannot differentiate through a call to '${name}': it is not marked differentiable`);
  }

  /** stopGradient: the value, with every real leaf passed through stop_gradient. */
  private stop(v: Value, hint?: string): Value {
    if (v.shape.kind === 'number') return this.op('stop_gradient', [v], hint ?? `${v.name}_const`);
    if (v.shape.kind === 'boolean' || v.shape.kind === 'string') return v;
    if (v.shape.kind === 'array') return this.arrays.stop(v, hint);
    const parts = this.unpack(v).map((p) => this.stop(p));
    return { name: this.b.nl(hint ?? v.name, tuple(false, parts.map((p) => p.name)), irType(v.shape)), shape: v.shape };
  }
}

function everyProblem(e: TsadDiagnosticError): TsadDiagnosticError[] {
  return [e, ...e.related.flatMap(everyProblem)];
}

function finalReturn(tsApi: typeof ts, body: ts.Block): ts.Node {
  const last = body.statements[body.statements.length - 1];
  return last && tsApi.isReturnStatement(last) && last.expression ? last.expression : body;
}

/** The statements of an `if` branch: a block's, or the one statement written without braces. */
function statementsOf(tsApi: typeof ts, s: ts.Statement): readonly ts.Statement[] {
  return tsApi.isBlock(s) ? s.statements : [s];
}

/** True when a `return` occurs anywhere in a statement (not inside a nested function). */
function containsReturn(tsApi: typeof ts, s: ts.Node): boolean {
  if (tsApi.isReturnStatement(s)) return true;
  if (tsApi.isFunctionLike(s) || tsApi.isClassLike(s)) return false;
  return tsApi.forEachChild(s, (c) => (containsReturn(tsApi, c) ? true : undefined)) ?? false;
}

/** The flags of a loop (or flagged statement) whose exits are being lowered. */
interface ExitFlags {
  /** Set by `break` (absent when the loop has none). */
  broke?: ts.Symbol;
  /** Set by `continue`, reset at each iteration (absent when the loop has none). */
  skip?: ts.Symbol;
  /** A `return` inside: the frame's `returned` flag is tested too. */
  returns: boolean;
}

/** A function whose body is being lowered: its result flag and variable, once a flagged return needs them. */
interface Frame {
  decl: ts.SignatureDeclaration;
  returned?: ts.Symbol;
  value?: ts.Symbol;
  shape?: Shape;
}

/** A symbol of the front end's own, for a flag: never a TypeScript symbol, so it meets no user name. */
function flagSymbol(name: string): ts.Symbol {
  return { name, escapedName: name, flags: 0 } as unknown as ts.Symbol;
}

/** An arm of a cond in tail position: `lower(rest)` lowers it with `rest` appended (empty when it always returns). */
interface ReturningArm {
  node: ts.Node;
  returns: boolean;
  lower: (rest: readonly ts.Statement[]) => Value | undefined;
}

/** A case of a switch: its labels (with those of the empty cases falling into it), and its body without the closing break. */
interface SwitchCase {
  node: ts.Node;
  labels: ts.Expression[];
  isDefault: boolean;
  body: readonly ts.Statement[];
}

/** A `break` that would leave the switch `s` is in (not one of a nested switch or loop), if any. */
function breakIn(tsApi: typeof ts, s: ts.Node): ts.BreakStatement | undefined {
  if (tsApi.isBreakStatement(s)) return s;
  if (tsApi.isFunctionLike(s) || tsApi.isClassLike(s) || tsApi.isSwitchStatement(s) || tsApi.isIterationStatement(s, false)) return undefined;
  return tsApi.forEachChild(s, (c) => breakIn(tsApi, c));
}

/** True when every path through the statements ends in a return. */
function alwaysReturns(tsApi: typeof ts, stmts: readonly ts.Statement[]): boolean {
  const last = stmts[stmts.length - 1];
  if (!last) return false;
  if (tsApi.isReturnStatement(last)) return true;
  if (tsApi.isBlock(last)) return alwaysReturns(tsApi, last.statements);
  if (tsApi.isSwitchStatement(last)) {
    // Every case returns (an empty one falls into the next) and there is a default.
    const clauses = last.caseBlock.clauses;
    return clauses.some((c) => tsApi.isDefaultClause(c)) && clauses.every((c, i) => (c.statements.length === 0 && i < clauses.length - 1) || alwaysReturns(tsApi, c.statements));
  }
  return tsApi.isIfStatement(last) && last.elseStatement !== undefined && alwaysReturns(tsApi, statementsOf(tsApi, last.thenStatement)) && alwaysReturns(tsApi, statementsOf(tsApi, last.elseStatement));
}

/** True when an expression calls a function anywhere (not inside a nested function). */
function containsCall(tsApi: typeof ts, e: ts.Node): boolean {
  if (tsApi.isCallExpression(e)) return true;
  if (tsApi.isFunctionLike(e)) return false;
  return tsApi.forEachChild(e, (c) => (containsCall(tsApi, c) ? true : undefined)) ?? false;
}

/** The local variables a piece of code assigns (`=`, compound assignments, `++`, `--`), not inside nested functions. */
function assignedSymbols(tsApi: typeof ts, checker: ts.TypeChecker, node: ts.Node, out: Set<ts.Symbol>): void {
  const K = tsApi.SyntaxKind;
  const visit = (n: ts.Node): void => {
    if (tsApi.isFunctionLike(n) || tsApi.isClassLike(n)) return;
    let target: ts.Expression | undefined;
    if (tsApi.isBinaryExpression(n) && n.operatorToken.kind >= K.FirstAssignment && n.operatorToken.kind <= K.LastAssignment) target = n.left;
    if ((tsApi.isPrefixUnaryExpression(n) || tsApi.isPostfixUnaryExpression(n)) && (n.operator === K.PlusPlusToken || n.operator === K.MinusMinusToken)) target = n.operand;
    if (target && tsApi.isIdentifier(target)) {
      const sym = checker.getSymbolAtLocation(target);
      if (sym) out.add(sym);
    }
    // `a[i] = v` gives a a new value (a new version of the array), as `a = ...` does.
    const array = writtenArray(tsApi, n);
    if (array) {
      const sym = checker.getSymbolAtLocation(array);
      if (sym) out.add(sym);
    }
    tsApi.forEachChild(n, visit);
  };
  visit(node);
}

/** The symbols an expression reads. */
function readSymbols(tsApi: typeof ts, checker: ts.TypeChecker, node: ts.Node, out: Set<ts.Symbol>): void {
  const visit = (n: ts.Node): void => {
    if (tsApi.isIdentifier(n)) {
      const sym = checker.getSymbolAtLocation(n);
      if (sym) out.add(sym);
    }
    tsApi.forEachChild(n, visit);
  };
  visit(node);
}
