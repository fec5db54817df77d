// Taped reverse mode for one module (docs/frontend.md, "Taped mode"): where the compiled path
// refuses a marked function because it recurses (TSAD1109) or uses a function as a value
// (TSAD1105), grad, valueAndGrad and vjp of it run a taped copy (body.ts) that records each
// operation's partials on a tape (runtime/tape.ts), jvp runs a copy on dual numbers, and the
// build says so with the note TSAD2001. The marker option `taped: false` keeps the error.
import type * as ts from 'typescript';
import { TsadDiagnosticError, diagnosticMessage, isTsadDiagnostic } from '../frontend/diagnostics';
import { type MarkerInfo, runtimeSpecifier } from '../frontend/markers';
import { TapedFunctions, TapedRefusal, TapedTarget, sourceName } from './body';
import { TapedPrims, functionDeclaration } from './prims';
import { TAPED_RUNTIME, calleeLiteral } from '../constructs/taped';
import { callableFromCompiled, reachesAny, writesArrayParameters } from './callees';
import { TapedArrays } from './arrays';

/** The note that a function runs taped. */
export const RUNS_TAPED = 2001;

/** The transforms taped mode compiles: reverse mode on the tape (Jacobians by one backward pass per output, linearize by a forward sweep over it), jvp on dual numbers, hvp and hessian forward over reverse. */
const TAPED_KINDS = ['grad', 'valueAndGrad', 'vjp', 'jvp', 'hvp', 'hessian', 'jacobian', 'jacfwd', 'jacrev', 'linearize'] as const;
export type TapedKind = (typeof TAPED_KINDS)[number];

/** The transforms that need a scalar result. */
const SCALAR_RESULT: ReadonlySet<TapedKind> = new Set(['grad', 'valueAndGrad', 'hvp', 'hessian']);

const RUNTIME = TAPED_RUNTIME;

export class TapedModule {
  private readonly prims: TapedPrims;
  private readonly functions: TapedFunctions;
  /** Forward mode's copies (jvp: dual numbers). */
  private readonly forward: TapedFunctions;
  /** Second order's copies (hvp, hessian: nodes carrying tangents). */
  private readonly second: TapedFunctions;
  private readonly wrappers = new Map<string, string>();
  private readonly refused = new Set<ts.Node>();
  private readonly out: ts.Statement[] = [];
  private readonly f: ts.NodeFactory;

  constructor(
    private readonly tsApi: typeof ts,
    private readonly checker: ts.TypeChecker,
    ctx: ts.TransformationContext,
    private readonly sf: ts.SourceFile,
    /** The plugin option `taped: false` turns taped mode off for the whole build. */
    private readonly enabled: boolean,
    /** The compiled valueAndGrad (every parameter) of a marked function of numbers the compiler takes, else undefined: taped code calls it as one tape entry. */
    compiledGradient?: (target: TapedTarget, call: ts.CallExpression) => string | undefined,
  ) {
    this.f = ctx.factory;
    this.prims = new TapedPrims(tsApi, this.f, (member) => this.rt(member));
    const arrays = new TapedArrays(tsApi, checker, this.f, this.prims, this.prims.forward, (member) => this.rt(member));
    this.functions = new TapedFunctions(tsApi, checker, ctx, this.prims, (member) => this.rt(member), 'tsad$taped$', compiledGradient, arrays);
    this.forward = new TapedFunctions(tsApi, checker, ctx, this.prims.forward, (member) => this.rt(member), 'tsad$dual$');
    this.second = new TapedFunctions(tsApi, checker, ctx, this.prims.second, (member) => this.rt(member), 'tsad$taped2$');
  }

  /**
   * Whether `error`, met compiling `kind` of `decl`, is one taped mode answers: code that needs the
   * tape (recursion, functions used as values), a transform it compiles, a function it can copy,
   * and no `taped: false` on the marker (read only then: `marker` may throw for bad options, which
   * keep their error).
   */
  answers(error: unknown, decl: ts.Node, marker: () => MarkerInfo | undefined, kind: string | undefined): decl is TapedTarget {
    const t = this.tsApi;
    if (!this.enabled || !isTsadDiagnostic(error)) return false;
    if (kind !== undefined && !(TAPED_KINDS as readonly string[]).includes(kind)) return false;
    if (!(t.isFunctionDeclaration(decl) || t.isArrowFunction(decl) || t.isFunctionExpression(decl)) || decl.getSourceFile() !== this.sf) return false;
    // Code that needs the tape (recursion, function values) runs taped whatever else the compiled
    // path refused on the way: the copy runs the function's own JavaScript, and what it cannot
    // take is refused when it is made (boundaries.ts, TapedRefusal).
    if (this.why(error, decl) === undefined || !this.tapedAllowed(marker)) return false;
    // A transform of a function that returns a function has no derivative to give (its closure
    // would be seeded with nothing); such a function may still run taped, called from taped code.
    const signature = kind === undefined ? undefined : this.checker.getSignatureFromDeclaration(decl);
    const result = signature && this.checker.getReturnTypeOfSignature(signature);
    if (result && result.getCallSignatures().length > 0) return false;
    if (result && SCALAR_RESULT.has(kind as TapedKind) && !(result.flags & t.TypeFlags.NumberLike)) return false;
    return this.functions.targetOf(nameNode(t, decl)) === decl;
  }

  /**
   * Whether a marked function runs taped, as far as its check (which met `error`) can tell: one a
   * call site tried and taped mode refused keeps its error.
   */
  wouldRunTaped(error: unknown, decl: ts.Node, marker: () => MarkerInfo | undefined): decl is TapedTarget {
    return !this.refused.has(decl) && this.answers(error, decl, marker, undefined);
  }

  /**
   * Mixing (constructs/taped): a marked function that compiled code calls and whose lowering met
   * `error`, which taped mode answers: the str literal naming it and its taped, dual-number and
   * second-order copies (made now), so that the caller stays compiled and calls it as an opaque
   * call. Undefined where the caller must run taped as a whole instead: the callee's calls lead
   * back to a function being lowered (`lowering`), it takes or returns other than numbers and
   * arrays of numbers, or taped mode refuses a copy.
   */
  calleeNames(decl: ts.Node, error: unknown, marker: () => MarkerInfo | undefined, lowering: readonly ts.Node[]): string | undefined {
    if (lowering.includes(decl) || !this.answers(error, decl, marker, undefined)) return undefined;
    if (!callableFromCompiled(this.tsApi, this.checker, decl) || writesArrayParameters(this.tsApi, this.checker, decl, (e) => this.functions.targetOf(e))) return undefined;
    if (reachesAny(this.tsApi, decl, lowering, (e) => this.functions.targetOf(e))) return undefined;
    const copies = [this.functions, this.forward, this.second];
    const [taped, dual, second] = copies.map((c) => c.nameOf(decl));
    try {
      for (const c of copies) c.flush();
    } catch (e) {
      if (!(e instanceof TapedRefusal)) throw e;
      return undefined;
    }
    this.runtimeUsed = true;
    return calleeLiteral({ plain: this.plainName(decl), taped, dual, second });
  }

  /**
   * `function tsad$plain$f(p0, …) { return f(p0, …); }`, by which compiled code calls f itself: a
   * local variable of the caller may be named f too (a declaration, so no order of initialisation).
   */
  private plainName(decl: TapedTarget): string {
    const known = this.plain.get(decl);
    if (known) return known;
    const f = this.f;
    const source = sourceName(this.tsApi, decl);
    const name = `tsad$plain$${source}_${this.plain.size}`;
    const params = decl.parameters.map((_, i) => `p${i}`);
    // Compiled code's arrays are whatever array of numbers the caller passed, or Float64Arrays:
    // each goes in as the kind the function declares (it does not write into them: callees.ts).
    const asDeclared = (p: ts.ParameterDeclaration, name: string): ts.Expression => {
      const type = this.checker.getTypeAtLocation(p);
      const x = f.createIdentifier(name);
      const kind = this.checker.isArrayType(type) ? 'Array' : type.getSymbol()?.getName();
      if (kind !== 'Array' && kind !== 'Float64Array' && kind !== 'Float32Array') return x;
      const test =
        kind === 'Array'
          ? f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier('Array'), 'isArray'), undefined, [x])
          : f.createBinaryExpression(x, this.tsApi.SyntaxKind.InstanceOfKeyword, f.createIdentifier(kind));
      return f.createConditionalExpression(test, undefined, x, undefined, f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier(kind), 'from'), undefined, [x]));
    };
    const call = f.createCallExpression(
      f.createIdentifier(source),
      undefined,
      params.map((p, i) => asDeclared(decl.parameters[i], p)),
    );
    this.calleeStatements.push(functionDeclaration(f, name, params, [f.createReturnStatement(call)]));
    this.plain.set(decl, name);
    return name;
  }

  /** The plain callers of functions compiled code calls as opaque calls (their copies are emitted with the others). */
  private readonly plain = new Map<TapedTarget, string>();
  private readonly calleeStatements: ts.Statement[] = [];

  /** What compiled code cannot take that taped code runs, in words; undefined for any other problem. */
  private reason(e: TsadDiagnosticError): string | undefined {
    if (e.code === 1109)
      return e.message
        .split('\n')[0]
        .replace(/^the local function /, '')
        .replace(/: tsad inlines.*$/, '');
    // TSAD1105 at a value whose type is a function: a parameter or an argument that is a function.
    if (e.code === 1105 && e.node && this.checker.getTypeAtLocation(e.node).getCallSignatures().length > 0) {
      return `it uses a function as a value (line ${lineOf(e.node)})`;
    }
    // TSAD1105 at a value of objects with methods: a method called through an interface (methods.ts).
    if (e.code === 1105 && e.node && hasMethods(this.tsApi, this.checker, this.checker.getTypeAtLocation(e.node))) {
      const named = (e.node as { name?: ts.Node }).name ?? e.node;
      return `it calls methods of '${named.getText()}', whose body depends on the object's class (line ${lineOf(e.node)})`;
    }
    return undefined;
  }

  /** No `taped: false` on the marker; a marker whose options are bad keeps its own error. */
  private tapedAllowed(marker: () => MarkerInfo | undefined): boolean {
    try {
      return marker()?.taped !== false;
    } catch {
      return false;
    }
  }

  /** Why `decl` needs the tape, in words: what `error` (or a problem it lists) says, or the calls that recurse; undefined where it does not. */
  private why(error: TsadDiagnosticError, decl: TapedTarget): string | undefined {
    for (const p of [error, ...error.related]) {
      const reason = this.reason(p);
      if (reason !== undefined) return reason;
    }
    try {
      return this.functions.recursionFrom(decl);
    } catch {
      return undefined;
    }
  }

  /** The note TSAD2001 for `decl`, saying why (the recursion `error` names). */
  note(decl: TapedTarget, error: TsadDiagnosticError): TsadDiagnosticError {
    const name = sourceName(this.tsApi, decl);
    const why = this.why(error, decl) ?? '';
    return new TsadDiagnosticError(
      RUNS_TAPED,
      nameNode(this.tsApi, decl),
      diagnosticMessage(
        RUNS_TAPED,
        `'${name}' runs taped: ${why}, which compiled code cannot take; its grad, valueAndGrad and vjp record every operation on a tape at run time, its jvp runs on dual numbers, and hvp and hessian run forward over the taped reverse mode`,
      ),
    );
  }

  /**
   * The wrapper for `kind` of `decl` with respect to the parameters `wrt`. A construct taped mode
   * cannot take turns `error` (the recursion) into the error it was, saying why.
   */
  compile(decl: TapedTarget, kind: TapedKind, wrt: readonly number[], error: TsadDiagnosticError): string {
    const copies = kind === 'jvp' ? this.forward : kind === 'hvp' || kind === 'hessian' ? this.second : this.functions;
    const copy = copies.nameOf(decl);
    const key = `${copy}|${kind}|${wrt.join(',')}`;
    const known = this.wrappers.get(key);
    if (known) return known;
    try {
      copies.flush();
    } catch (e) {
      if (!(e instanceof TapedRefusal)) throw e;
      this.refused.add(decl);
      const [message, hint] = error.message.split('\n  hint: ');
      throw new TsadDiagnosticError(error.code, error.node, `${message}; it cannot run taped either: ${e.message} (line ${lineOf(e.node)})${hint ? `\n  hint: ${hint}` : ''}`);
    }
    if (decl.parameters.some((p) => p.dotDotDotToken)) {
      throw new TsadDiagnosticError(error.code, error.node, `${error.message.split('\n')[0]}; it cannot run taped either: taped mode does not take rest parameters yet`);
    }
    const suffix = wrt.length === 1 && wrt[0] === 0 ? '' : `_${wrt.join('_')}`;
    const name = `${copy}_${kind}${suffix}`;
    const arity = decl.parameters.length;
    this.out.push(
      kind === 'jvp'
        ? this.jvpWrapper(name, copy, arity)
        : kind === 'hvp' || kind === 'hessian'
          ? this.secondOrderWrapper(name, copy, arity, kind, wrt)
          : kind === 'jacobian' || kind === 'jacfwd' || kind === 'jacrev' || kind === 'linearize'
            ? this.linearWrapper(name, copy, arity, kind, wrt)
            : this.wrapper(name, copy, arity, kind, kind === 'vjp' ? decl.parameters.map((_, i) => i) : wrt),
    );
    this.wrappers.set(key, name);
    return name;
  }

  /** `function name(primals, tangents) { the copy on dual numbers; [value, tangent] }` */
  private jvpWrapper(name: string, copy: string, arity: number): ts.FunctionDeclaration {
    const f = this.f;
    const id = (n: string) => f.createIdentifier(n);
    const at = (array: string, i: number) => f.createElementAccessExpression(id(array), i);
    const args = Array.from({ length: arity }, (_, i) => f.createCallExpression(this.rt('dual'), undefined, [at('primals', i), at('tangents', i)]));
    const y = f.createVariableStatement(
      undefined,
      f.createVariableDeclarationList([f.createVariableDeclaration('y', undefined, undefined, f.createCallExpression(id(copy), undefined, args))], this.tsApi.NodeFlags.Const),
    );
    const result = f.createArrayLiteralExpression([f.createCallExpression(this.rt('primal'), undefined, [id('y')]), f.createCallExpression(this.rt('tangent'), undefined, [id('y')])]);
    return f.createFunctionDeclaration(
      undefined,
      undefined,
      name,
      undefined,
      ['primals', 'tangents'].map((p) => f.createParameterDeclaration(undefined, undefined, p)),
      undefined,
      f.createBlock([y, f.createReturnStatement(result)], true),
    );
  }

  /**
   * `function name(p0, …[, v]) { return hvp(copy, [p0, …], wrt, v) }` (or hessian): the runtime
   * runs the copy on numbers carrying tangents, once for hvp, once per differentiated number for
   * a Hessian (runtime/tapeSecondOrder.ts).
   */
  private secondOrderWrapper(name: string, copy: string, arity: number, kind: 'hvp' | 'hessian', wrt: readonly number[]): ts.FunctionDeclaration {
    const f = this.f;
    const params = Array.from({ length: arity }, (_, i) => `p${i}`);
    const args: ts.Expression[] = [
      f.createIdentifier(copy),
      f.createArrayLiteralExpression(params.map((p) => f.createIdentifier(p))),
      f.createArrayLiteralExpression(wrt.map((i) => f.createNumericLiteral(i))),
    ];
    if (kind === 'hvp') args.push(f.createIdentifier('v'));
    const body = [f.createReturnStatement(f.createCallExpression(this.rt(kind), undefined, args))];
    return functionDeclaration(f, name, kind === 'hvp' ? [...params, 'v'] : params, body);
  }

  /** `function name(p0, …) { return jacobian(copy, [p0, …], wrt) }` (or linearize(copy, [p0, …])): one run on the tape, runtime/tapeLinear.ts. */
  private linearWrapper(name: string, copy: string, arity: number, kind: 'jacobian' | 'jacfwd' | 'jacrev' | 'linearize', wrt: readonly number[]): ts.FunctionDeclaration {
    const f = this.f;
    const params = Array.from({ length: arity }, (_, i) => `p${i}`);
    const args: ts.Expression[] = [f.createIdentifier(copy), f.createArrayLiteralExpression(params.map((p) => f.createIdentifier(p)))];
    if (kind !== 'linearize') args.push(f.createArrayLiteralExpression(wrt.map((i) => f.createNumericLiteral(i))));
    const body = [f.createReturnStatement(f.createCallExpression(this.rt(kind === 'linearize' ? 'linearize' : 'jacobian'), undefined, args))];
    return functionDeclaration(f, name, params, body);
  }

  /** The module's taped code: the runtime's import, the primitives, the copies and the wrappers. */
  statements(): ts.Statement[] {
    if (this.wrappers.size === 0 && this.plain.size === 0) return [];
    return [...this.prims.statements(), ...this.functions.statements(), ...this.forward.statements(), ...this.second.statements(), ...this.out, ...this.calleeStatements];
  }

  importStatements(): ts.Statement[] {
    if (this.wrappers.size === 0 && !this.runtimeUsed) return [];
    const f = this.f;
    return [
      f.createImportDeclaration(
        undefined,
        f.createImportClause(false, undefined, f.createNamespaceImport(f.createIdentifier(RUNTIME))),
        f.createStringLiteral(runtimeSpecifier(this.sf, this.checker)),
      ),
      ...this.prims.forwardBinding(),
    ];
  }

  /** `tsad$rt.tsad$tape.<member>` for code outside taped mode (derivatives of function values): the module imports the runtime. */
  runtime(member: string): ts.Expression {
    this.runtimeUsed = true;
    return this.rt(member);
  }

  private runtimeUsed = false;

  /** `tsad$rt.tsad$tape.<member>` */
  private rt(member: string): ts.Expression {
    const f = this.f;
    return f.createPropertyAccessExpression(f.createPropertyAccessExpression(f.createIdentifier(RUNTIME), 'tsad$tape'), member);
  }

  /**
   * `function name(p0, …) { tape; lift the differentiated parameters; run the copy; backward }`:
   * grad returns the cotangents, valueAndGrad the value first, vjp the value and a pullback that
   * runs the backward pass again for each cotangent it is given.
   */
  private wrapper(name: string, copy: string, arity: number, kind: TapedKind, lifted: readonly number[]): ts.FunctionDeclaration {
    const f = this.f;
    const id = (n: string) => f.createIdentifier(n);
    const constant = (n: string, init: ts.Expression) =>
      f.createVariableStatement(undefined, f.createVariableDeclarationList([f.createVariableDeclaration(n, undefined, undefined, init)], this.tsApi.NodeFlags.Const));
    const call = (fn: ts.Expression, args: ts.Expression[]) => f.createCallExpression(fn, undefined, args);
    const params = Array.from({ length: arity }, (_, i) => `p${i}`);
    const liftedName = (i: number) => `l${i}`;
    const body: ts.Statement[] = [constant('tape', f.createNewExpression(this.rt('Tape'), undefined, []))];
    // The input nodes as lifted: the function may reorder the arrays it is given (an in-place
    // partition), and each number's cotangent is its own node's, wherever the node went.
    const inputsName = (i: number) => `s${i}`;
    for (const i of lifted) {
      body.push(constant(liftedName(i), call(this.rt('lift'), [id('tape'), id(params[i])])));
      body.push(constant(inputsName(i), call(this.rt('inputsOf'), [id(liftedName(i))])));
    }
    body.push(
      constant(
        'y',
        call(
          id(copy),
          params.map((p, i) => id(lifted.includes(i) ? liftedName(i) : p)),
        ),
      ),
    );
    const backward = (ct: ts.Expression) =>
      constant(
        'adjoint',
        call(f.createPropertyAccessExpression(id('tape'), 'backward'), [
          f.createArrowFunction(undefined, undefined, [f.createParameterDeclaration(undefined, undefined, 'a')], undefined, undefined, call(this.rt('seed'), [id('a'), id('y'), ct, id('tape')])),
        ]),
      );
    const collect = (i: number) => call(this.rt('collect'), [id('adjoint'), id(inputsName(i)), id(params[i])]);
    const value = call(this.rt('primal'), [id('y')]);
    if (kind === 'vjp') {
      const pullback = f.createArrowFunction(
        undefined,
        undefined,
        [f.createParameterDeclaration(undefined, undefined, 'ct')],
        undefined,
        undefined,
        f.createBlock([backward(id('ct')), f.createReturnStatement(f.createArrayLiteralExpression(params.map((_, i) => collect(i))))], true),
      );
      body.push(f.createReturnStatement(f.createArrayLiteralExpression([value, pullback])));
    } else {
      body.push(backward(f.createNumericLiteral(1)));
      const grads = lifted.length === 1 ? collect(lifted[0]) : f.createArrayLiteralExpression(lifted.map(collect));
      // The tape is not needed once the gradient is read: its arrays serve the next gradient.
      body.push(
        constant('result', kind === 'grad' ? grads : f.createArrayLiteralExpression([value, grads])),
        f.createExpressionStatement(call(f.createPropertyAccessExpression(id('tape'), 'release'), [])),
        f.createReturnStatement(id('result')),
      );
    }
    return functionDeclaration(f, name, params, body);
  }
}

function lineOf(node: ts.Node): number {
  const sf = node.getSourceFile();
  return sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
}

/** The node a target is named by: a declaration's name, or the const holding the arrow. */
function nameNode(t: typeof ts, decl: TapedTarget): ts.Expression {
  if (t.isFunctionDeclaration(decl) && decl.name) return decl.name;
  let p: ts.Node = decl.parent;
  while (p && !t.isVariableDeclaration(p)) p = p.parent;
  return p && t.isIdentifier(p.name) ? p.name : (decl as unknown as ts.Expression);
}

/** Whether values of `type` (or its arrays' elements) are objects with methods of the program's own classes or interfaces. */
function hasMethods(t: typeof ts, checker: ts.TypeChecker, type: ts.Type): boolean {
  const element = checker.isArrayType(type) ? checker.getTypeArguments(type as ts.TypeReference)[0] : type;
  return element.getProperties().some((p) => p.declarations?.some((d) => (t.isMethodSignature(d) || t.isMethodDeclaration(d)) && !d.getSourceFile().isDeclarationFile) ?? false);
}
