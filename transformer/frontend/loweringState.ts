// The state of lowering one marked function, and the steps every part of that lowering uses.
// The lowering is one object built in layers, each a file with one job, each extending the one
// below: expressions.ts, calls.ts, statements.ts, loops.ts, loopExits.ts, control.ts, and
// lower.ts's FunctionLowering on top. A layer reaches the layers above it through the abstract
// methods declared at the end of LoweringState, so a file imports only the layer below it and
// the front end has no import circle.
import type * as ts from 'typescript';
import { Builder, NameSupply } from '../ir/build';
import { SettlingBuilder } from '../ir/usageBuilder';
import { FnDef, Role, binder, prim, ret, tuple } from '../ir/syntax';
import type { Binder, Block } from '../ir/syntax';
import { TsadDiagnosticError, fail, isTsadDiagnostic } from './diagnostics';
import { Shape, NUMBER, BOOLEAN, STRING, irType, componentShapes, describeShape, isScalarShape, layoutOf, isMatrix, isRecords, recordColumns, flatShape, tensorRank } from './shapes';
import { ArrayLowering } from './arrays';
import type { ArraySite } from './arraySite';
import { userName } from './arraySite';
import { JS_GLOBALS, derivedName } from '../ir/names';
import type { Capture, ProgramLowering } from './nested';
import type { Value, LoweredFunction } from './values';
import { StateParams } from './moduleState';
import { constAliases, renamingChecker } from './aliasing';
import { typedArrayName } from './shapes';
import { viewsOf } from './views';
import type { ViewInfo } from './views';
import { ViewLowering } from './viewLowering';
import type { OpenView } from './viewLowering';

/** TSAD1105's hint is about value types; a parameter's form has a fix of its own. */
export const PLAIN_PARAMETER_HINT =
  'write each parameter as a name with a type, (x: number, y: number), and pass every argument at the call (a default: wrap it, const f2 = (x: number) => f(x, 2)); destructure inside the body: const [a, b] = p';

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
export class AlreadyReported {}

/** The flags of a loop (or flagged statement) whose exits are being lowered. */
export interface ExitFlags {
  /** Set by `break` (absent when the loop has none). */
  broke?: ts.Symbol;
  /** Set by `continue`, reset at each iteration (absent when the loop has none). */
  skip?: ts.Symbol;
  /** A `return` inside: the frame's `returned` flag is tested too. */
  returns: boolean;
}

/** A function whose body is being lowered: its result flag and variable, once a flagged return needs them. */
export interface Frame {
  decl: ts.SignatureDeclaration;
  returned?: ts.Symbol;
  value?: ts.Symbol;
  shape?: Shape;
}

/** A symbol of the front end's own, for a flag: never a TypeScript symbol, so it meets no user name. */
export function flagSymbol(name: string): ts.Symbol {
  return { name, escapedName: name, flags: 0 } as unknown as ts.Symbol;
}

/** An arm of a cond in tail position: `lower(rest)` lowers it with `rest` appended (empty when it always returns). */
export interface ReturningArm {
  node: ts.Node;
  returns: boolean;
  lower: (rest: readonly ts.Statement[]) => Value | undefined;
}

export abstract class LoweringState {
  protected readonly t: typeof ts;

  /** Locals whose initializer failed (reading them is not a new problem). */
  protected failed = new Set<ts.Symbol>();

  /** The local arrays the function writes into by index (writes.ts has checked them). */
  protected writtenArrays: ReadonlySet<ts.Symbol> = new Set();

  /** `let y;` before its first assignment (read before that is an error). */
  protected unassigned = new Set<ts.Symbol>();

  /** The program's checker, reading each `const c = b` that is b as b (aliasing.ts). */
  protected readonly checker: ts.TypeChecker;

  /** `const c = b` → b, and each view → its base, for checkArrayWrites. */
  protected readonly renames: ReadonlyMap<ts.Symbol, ts.Symbol>;

  /** The views lowered as their base at an offset (views.ts), by their own symbol. */
  protected readonly viewInfos: ReadonlyMap<ts.Symbol, ViewInfo>;

  /** The views declared so far: where each starts in its base, and its length. */
  protected readonly openViews = new Map<ts.Symbol, OpenView>();

  protected readonly views: ViewLowering;

  protected env = new Map<ts.Symbol, Value>();

  protected readonly supply = new NameSupply(JS_GLOBALS);

  protected b: Builder = SettlingBuilder.forDef(this.supply, true);

  protected readonly errors: TsadDiagnosticError[] = [];

  /** Parts of tuples already unpacked in this block (each branch of a cond has its own copy). */
  protected unpacked = new Map<string, Value[]>();

  readonly origins = new Map<string, ts.Node>();

  protected current: ts.Node | undefined;

  /** Module constants being inlined (a cycle is an error, not a hang). */
  protected readonly inlining = new Set<ts.Node>();

  /** Local functions whose calls are being inlined (a local function calling itself is TSAD1109). */
  protected readonly inlinedCalls = new Set<ts.Node>();

  /** The flags of the innermost loop (or flagged statement) whose exits are being lowered: see `sequence`. */
  protected exitCtx: ExitFlags | undefined;

  /** The function whose `return`s are being lowered: the function itself, or a local function inlined into it. */
  protected frame: Frame;

  lowered!: LoweredFunction;

  def!: FnDef;

  protected readonly name: string;

  protected readonly role: Role | undefined;

  /** The shape of every value an expression gave, by IR name (array lowering asks for free variables' shapes). */
  protected readonly shapes = new Map<string, Shape>();

  protected readonly arrays: ArrayLowering;
  /** The module-level variables and fields of `this` it reads (moduleState.ts). */
  protected readonly state: StateParams;
  protected readonly methods = new Set<ts.MethodDeclaration>();

  /** Set for a `derivative.vjp` rule: its pullback's cotangent parameter, once lowered. */
  protected pullbackParam: { name: string; shape: Shape } | undefined;

  protected inPullback = false;

  constructor(
    protected readonly owner: ProgramLowering,
    protected readonly decl: ts.SignatureDeclaration,
    /** The def's name, or the role of a derivative rule (named after its function). */
    nameOrRole: string | Role,
    /** Lowering a VJP rule `(x̄) => [value, (ct) => [x̄_bar...]]` of this function. */
    protected readonly vjpOf?: LoweredFunction,
    /** A lifted arrow's captured variables: its first parameters. */
    protected readonly captures: readonly Capture[] = [],
  ) {
    this.name = typeof nameOrRole === 'string' ? nameOrRole : derivedName(nameOrRole);
    this.role = typeof nameOrRole === 'string' ? undefined : nameOrRole;
    this.t = owner.tsApi;
    const raw = owner.checker;
    const aliases = constAliases(this.t, raw, decl.getSourceFile(), (type) => raw.isArrayType(type) || typedArrayName(this.t, type) !== undefined);
    // A view is its base wherever a name is asked for (what a loop writes, what checkArrayWrites
    // checks); its reads and writes are lowered at the base's offset (viewLowering.ts).
    this.viewInfos = viewsOf(this.t, raw, decl.getSourceFile(), aliases);
    this.renames = this.viewInfos.size === 0 ? aliases : new Map([...aliases, ...[...this.viewInfos].map(([sym, v]) => [sym, v.baseSym] as const)]);
    this.checker = renamingChecker(raw, this.renames);
    this.frame = { decl };
    this.supply.onFresh = (name) => {
      if (this.current) this.origins.set(name, this.current);
    };
    this.arrays = new ArrayLowering(this.arraySite());
    this.views = new ViewLowering(this.arrays);
    this.state = new StateParams(this.t, this.checker, (base) => this.supply.fresh(base));
  }

  /** Runs one lowering step; a diagnostic is recorded and lowering goes on. */
  protected guard<T>(_node: ts.Node, f: () => T): T | undefined {
    try {
      return f();
    } catch (e) {
      if (e instanceof AlreadyReported) return undefined;
      if (!isTsadDiagnostic(e)) throw e;
      this.errors.push(e);
      return undefined;
    }
  }

  /** Runs `f` emitting into another builder (an arm's, before it is finished). */
  protected within<T>(b: Builder, f: () => T): T {
    const saved = this.b;
    this.b = b;
    try {
      return f();
    } finally {
      this.b = saved;
    }
  }

  /** A zero of a shape: the result variable's value before any return assigns it. */
  protected zero(shape: Shape): Value {
    if (shape.kind === 'array') return this.arrays.zero(shape);
    if (isScalarShape(shape)) return this.literal(shape.kind === 'number' ? 0 : shape.kind === 'boolean' ? false : '', 'result');
    const parts = componentShapes(shape).map((s) => this.zero(s));
    return {
      name: this.b.nl(
        'result',
        tuple(
          false,
          parts.map((p) => p.name),
        ),
        irType(shape),
      ),
      shape,
    };
  }

  protected literal(v: number | boolean | string, hint: string): Value {
    return { name: this.b.lit(v, hint), shape: typeof v === 'number' ? NUMBER : typeof v === 'boolean' ? BOOLEAN : STRING };
  }

  /** Each tuple is unpacked once; later field accesses reuse the parts (values are immutable). */
  protected unpack(v: Value): Value[] {
    const known = this.unpacked.get(v.name);
    if (known) return known;
    const parts = this.unpackNew(v);
    this.unpacked.set(v.name, parts);
    return parts;
  }

  private unpackNew(v: Value): Value[] {
    if (isMatrix(v.shape)) {
      // A matrix is (data, rows, cols); its dimensions are integers, no tangent flows from them.
      const names = this.matrixBinders(userName(v.name), tensorRank(v.shape));
      this.b.unpack(false, names, v.name);
      const dims = names.slice(1).map((n) => ({ name: this.b.prim('stop_gradient', [n.name], n.name), shape: NUMBER }));
      const parts = [{ name: names[0].name, shape: flatShape(v.shape) }, ...dims];
      // Known after the scope that unpacked them ends: a map's body unpacks a free matrix, its
      // closing (arrays.ts) then asks what the data is.
      for (const p of parts) this.shapes.set(p.name, p.shape);
      return parts;
    }
    const shapes = isRecords(v.shape) ? recordColumns(v.shape) : componentShapes(v.shape);
    const names = shapes.map((s, i) => binder(this.supply.fresh(`${v.name}_${v.shape.kind === 'object' ? v.shape.fields[i][0] : i}`), irType(s)));
    this.b.unpack(false, names, v.name);
    return names.map((n, i) => ({ name: n.name, shape: shapes[i] }));
  }

  /** Code with TypeScript type errors must still end in a diagnostic, never in ill-typed IR. */
  protected conform(node: ts.Node, v: Value, expected: Shape, what: string): void {
    if (layoutOf(v.shape) !== layoutOf(expected)) fail(1105, node, `${what} has shape ${describeShape(v.shape)}, but ${describeShape(expected)} is expected here`);
  }

  /** Comparisons and `?:` work on two numbers, two booleans or two strings. */
  protected sameScalars(node: ts.Node, a: Value, b: Value): void {
    if (!isScalarShape(a.shape) || a.shape.kind !== b.shape.kind) {
      fail(1105, node, `this operation needs two numbers, two booleans or two strings, got ${describeShape(a.shape)} and ${describeShape(b.shape)}`);
    }
  }

  protected numbers(node: ts.Node, ...vs: Value[]): void {
    for (const v of vs) if (v.shape.kind !== 'number') fail(1105, node, `this operation needs numbers, got a ${v.shape.kind}`);
  }

  protected op(name: string, args: Value[], hint: string | undefined, shape: Shape = NUMBER): Value {
    return {
      name: this.b.nl(
        hint ?? name,
        prim(
          name,
          args.map((a) => a.name),
        ),
        irType(shape),
      ),
      shape,
    };
  }

  private arraySite(): ArraySite {
    return {
      t: this.t,
      checker: this.checker,
      b: () => this.b,
      expr: (e, hint) => this.expr(e, hint),
      scope: (f) => {
        const { result, scope } = this.branch(() => f((sym, v) => this.env.set(sym, v)));
        return { block: scope.b.finish(ret(result.map((r) => r.name))), results: result, inner: scope.b };
      },
      callbackBody: (fn, hint) => this.callbackBody(fn, hint),
      callBy: (callee, args, node, hint) => this.callBy(callee, args, node, hint),
      shapeOfName: (name) => this.shapeOfName(name),
      noteShape: (v) => void this.shapes.set(v.name, v.shape),
      conform: (node, v, shape, what) => this.conform(node, v, shape, what),
      functionName: functionName(this.t, this.decl),
      parts: (v) => this.unpack(v),
      matrixParts: (m) => {
        const [data, ...dims] = this.unpack(m);
        return { data, rows: dims[0], cols: dims[1], dims };
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

  /** The view a name is, when it is one (`c` of `const c = b.subarray(k)`, views.ts), once declared. */
  protected viewNamed(e: ts.Expression): OpenView | undefined {
    if (this.openViews.size === 0) return undefined;
    while (this.t.isParenthesizedExpression(e) || this.t.isNonNullExpression(e)) e = e.expression;
    if (!this.t.isIdentifier(e)) return undefined;
    const sym = this.owner.checker.getSymbolAtLocation(e);
    return sym && this.openViews.get(sym);
  }

  /** The current value of a view's base (a failed one was reported already). */
  protected viewBase(view: OpenView): Value {
    const base = this.env.get(view.base);
    if (!base || this.failed.has(view.base)) throw new AlreadyReported();
    return base;
  }

  protected at<T>(node: ts.Node, f: () => T): T {
    const outer = this.current;
    this.current = node;
    try {
      return f();
    } finally {
      this.current = outer;
    }
  }

  // ---- implemented by the layers above, which call each other through these ----

  // control.ts
  protected abstract block(body: ts.Block): Value | undefined;
  protected abstract tail(statements: readonly ts.Statement[]): Value | undefined;
  protected abstract returningCond(s: ts.Node, pred: Value, arms: readonly ReturningArm[], rest: readonly ts.Statement[]): Value;
  protected abstract switchStatement(s: ts.SwitchStatement): void;
  protected abstract ifStatement(s: ts.IfStatement): void;
  protected abstract joinIf(at: ts.Node, pred: Value, arms: readonly (() => void)[], declared?: boolean): void;
  protected abstract predicate(e: ts.Expression): Value;
  protected abstract branch<T>(f: () => T): { result: T; scope: { b: Builder; env: Map<ts.Symbol, Value>; unassigned: Set<ts.Symbol>; failed: Set<ts.Symbol>; unpacked: Map<string, Value[]> } };
  protected abstract cond(pred: Value, blocks: Block[], shapes: readonly Shape[], hints: readonly string[]): Value[];
  // loops.ts
  protected abstract loopStatement(s: ts.IterationStatement): void;
  protected abstract matrixBinders(base: string, rank: number): Binder[];
  // loopExits.ts
  protected abstract openLoop(s: ts.IterationStatement): ExitFlags | undefined;
  protected abstract carriedFlags(flags: ExitFlags | undefined): { sym: ts.Symbol; value: Value }[];
  protected abstract sequence(stmts: readonly ts.Statement[]): void;
  protected abstract iteration(flags: ExitFlags | undefined, body: readonly ts.Statement[], incrementor?: ts.Expression): void;
  protected abstract loopCondition(condition: ts.Expression | (() => Value) | undefined, flags: ExitFlags | undefined): Value;
  protected abstract jump(s: ts.BreakStatement | ts.ContinueStatement): void;
  protected abstract flagReturn(s: ts.ReturnStatement): void;
  // statements.ts
  protected abstract assignment(e: ts.Expression): void;
  protected abstract bindPattern(name: ts.BindingName, v: Value): void;
  // expressions.ts
  protected abstract expr(e: ts.Expression, hint?: string): Value;
  protected abstract callbackBody(fn: ts.ArrowFunction | ts.FunctionExpression, hint?: string): Value;
  // calls.ts
  protected abstract call(e: ts.CallExpression, hint?: string): Value;
  protected abstract callBy(callee: ts.Expression, args: readonly Value[], node: ts.Node, hint?: string): Value;
}
