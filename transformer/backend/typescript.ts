// The TypeScript backend: IR defs become functions through emitTs.ts, and a plan's wrapper
// becomes a function declaration that converts the user's values, checks them, and calls the
// defs. Nodes are made with the factory and the TypeScript instance the plugin was handed.
import { calleesOfDef, defMap } from '../ir/program';
import { sourceOf } from '../ir/names';
import type * as ts from 'typescript';
import { recordHelpers } from './records';
import { tensorHelpers } from './tensors';
import { matrixHelpers } from './matrices';
import type { Program } from '../ir/syntax';
import type { Backend } from './backend';
import type { ArgumentCheck, CallSitePlan, PlanExpr, PlanStatement, Spec } from '../plan/syntax';
import { reachable } from '../plan/closure';
import { visitBlock } from '../ir/traverse';
import { emitDefs, emitWriterDefs, mangle, type EmitOptions } from './emitTs';
import { mapTo } from './ts/sourceMaps';
import { defArity } from '../language/arity';
import { CONSTRUCTS, isConstruct } from '../constructs/registry';
import { stackHelperName } from './ts/constructs/stackEmit';
import { tidyBody } from './ts/fold';

export interface TypeScriptBackendOptions {
  readonly ts: typeof ts;
  readonly factory: ts.NodeFactory;
  /** The declaration an IR def was lowered from, for source maps. */
  readonly original: (irName: string) => ts.Node | undefined;
  /** The source node of a variable of a def, for statement-level source maps. */
  readonly originOf: (irName: string, variable: string) => ts.Node | undefined;
  /** A module-level name from `base` that the module's source does not use (a shared check's). */
  readonly freeName: (base: string) => string;
}

export interface TypeScriptSite {
  /** The differentiated function: defs with no declaration of their own map to it. */
  readonly target: ts.Node;
  /** The transform call: the wrapper maps to it. */
  readonly callSite: ts.Node;
  /** How the wrapper reads the module-level variable behind a state parameter (plan's `state`). */
  readonly readState?: (param: string) => ts.Expression;
  /** The differentiated function's IR name: its wrappers share an argument check (`f_args`, expect). */
  readonly fn: string;
}

/**
 * The functions of tsad's runtime (runtime/emitted.ts, exported as RUNTIME_HELPERS) that emitted
 * code calls by these names: the module binds the ones it uses from the runtime it imports
 * (compile.ts, importStatements) instead of carrying a copy of each.
 */
export const RUNTIME_HELPERS = 'tsad$emitted';
const ARGUMENT_ERROR = 'tsad$argumentError';
const OUTPUT_ERROR = 'tsad$outputError';
const FIT = 'tsad$fit';

/** One per module: it emits each def once. */
export class TypeScriptBackend implements Backend<ts.Statement, TypeScriptSite> {
  private readonly emitted = new Set<string>();
  /** The defs whose writing form (emitWriterDefs) the module has. */
  private readonly emittedWriters = new Set<string>();
  /** The runtime helpers the module's code calls (RUNTIME_HELPERS), in the order first used. */
  private readonly helpersUsed = new Set<string>();
  private withMatrixHelpers = false;
  /** Did the wrapper being emitted pack or unpack a matrix? */
  private packs = false;
  private withRecordHelpers = false;
  private withTensorHelpers = false;
  /** Did it pack or unpack a tensor of rank 3 or more (backend/tensors.ts)? */
  private tensors = false;
  /** Did it split or join an array of records (backend/records.ts)? */
  private splits = false;
  /** The wrapper's name in messages (`grad(loss)`). */
  private where = '';
  private readState: TypeScriptSite['readState'];
  /**
   * How many wrappers of the module make each argument check (`expect`, before any is emitted),
   * and the function of a check that two or more make (`f_args`), emitted before the first of them.
   */
  private readonly checkUses = new Map<string, number>();
  private readonly sharedChecks = new Map<string, string>();
  private stem = '';
  /** Statements the wrapper being emitted needs before it (a shared check's function). */
  private before: ts.Statement[] = [];
  /**
   * The wrappers another wrapper runs under its own name (PlanExpr `runAs`), each with the name of
   * the function that holds its body and takes the name and the argument count (`f_valueAndGrad$as`).
   */
  private readonly runAs = new Map<string, string>();
  /** While a body shared through runAs is emitted: the parameters it takes for the wrapper's name and argument count. */
  private named?: { readonly where: string; readonly count: string };
  /** The parameters of the wrapper being emitted. */
  private params: readonly string[] = [];
  private readonly f: ts.NodeFactory;
  private readonly t: typeof ts;

  constructor(private readonly o: TypeScriptBackendOptions) {
    this.f = o.factory;
    this.t = o.ts;
  }

  /**
   * Notes the argument check of a wrapper the module will have, before the module's first wrapper
   * is emitted (compile.ts defers them): wrappers of one function with the same parameters
   * (grad, valueAndGrad, hessian) make the same check, which is then one function they call.
   */
  expect(plan: CallSitePlan, fn: string): void {
    const check = plan.body[0];
    if (check?.tag === 'check') this.checkUses.set(checkKey(fn, check), (this.checkUses.get(checkKey(fn, check)) ?? 0) + 1);
    for (const s of plan.body) if (s.tag === 'return') this.noteRunAs(s.value);
  }

  /** Notes the wrappers `e` runs under another name (runAs; a grad's `[1]` of it). */
  private noteRunAs(e: PlanExpr): void {
    const inner = e.tag === 'index' ? e.of : e;
    if (inner.tag === 'runAs' && !this.runAs.has(inner.wrapper)) this.runAs.set(inner.wrapper, this.o.freeName(`${inner.wrapper}$as`));
  }

  callSite(plan: CallSitePlan, name: string, site: TypeScriptSite): ts.Statement[] {
    const out: ts.Statement[] = this.defs(plan.program, plan.entries, plan.writers ?? [], site.target);
    const f = this.f;
    this.packs = false;
    this.splits = false;
    this.tensors = false;
    this.where = plan.body[0]?.tag === 'check' ? plan.body[0].where : name;
    this.readState = site.readState;
    this.stem = site.fn;
    this.before = [];
    this.params = plan.params;
    for (const s of plan.body) if (s.tag === 'return') this.noteRunAs(s.value);
    const shared = this.runAs.get(name);
    // Run by another wrapper too: the body goes into a function that takes the name and the count.
    this.named = shared === undefined ? undefined : { where: freeIn(plan, 'where'), count: freeIn(plan, 'count') };
    let body = plan.body.flatMap((s) => this.statement(s));
    out.push(...this.before);
    if (this.packs && !this.withMatrixHelpers) {
      this.withMatrixHelpers = true;
      out.push(...matrixHelpers(this.f, this.t));
    }
    if (this.tensors && !this.withTensorHelpers) {
      this.withTensorHelpers = true;
      out.push(...tensorHelpers(this.t));
    }
    if (this.splits && !this.withRecordHelpers) {
      this.withRecordHelpers = true;
      out.push(...recordHelpers(this.t));
    }
    // A wrapper that runs another's body (runAs) has that body name its errors.
    const runsAs = plan.body.every((s) => s.tag === 'return' && (s.value.tag === 'runAs' || (s.value.tag === 'index' && s.value.of.tag === 'runAs')));
    if (!runsAs && (checksLengths(plan) || this.packs || this.splits)) {
      body = this.namingTransform(body, plan.body[0]?.tag === 'check' ? plan.body[0].where : name);
    }
    const params = (names: readonly string[]) => names.map((p) => f.createParameterDeclaration(undefined, undefined, p));
    if (shared !== undefined && this.named) {
      const held = f.createFunctionDeclaration(
        undefined,
        undefined,
        shared,
        undefined,
        params([this.named.where, this.named.count, ...plan.params]),
        undefined,
        f.createBlock(tidyBody(this.t, body, body.length + 2), true),
      );
      this.t.setOriginalNode(held, site.callSite);
      mapTo(this.t, held, site.callSite);
      out.push(held);
      this.named = undefined;
      body = [f.createReturnStatement(this.runAsCall({ tag: 'runAs', wrapper: name, where: this.where }))];
    }
    // A wrapper's locals each read once (a derivative's result, the columns of a Hessian) print at
    // their use; a few statements, so the tidy may run until nothing changes (a call moves past a
    // call only once the one after it has moved: one more round per call).
    body = tidyBody(this.t, body, body.length + 2);
    const decl = f.createFunctionDeclaration(undefined, undefined, name, undefined, params(plan.params), undefined, f.createBlock(body, true));
    this.t.setOriginalNode(decl, site.callSite);
    mapTo(this.t, decl, site.callSite);
    out.push(decl);
    return out;
  }

  /** A call of the runtime helper `name` (RUNTIME_HELPERS), noted for the module's binding. */
  private helper(name: string): ts.Identifier {
    this.helpersUsed.add(name);
    return this.f.createIdentifier(name);
  }

  /** The runtime helpers the module's emitted code calls so far (RUNTIME_HELPERS). */
  runtimeHelpers(): readonly string[] {
    return [...this.helpersUsed];
  }

  /**
   * The wrapper's statements after its argument check, in a try whose catch puts the transform's
   * name on RangeErrors (the derivative's own length checks, `atmost`, start `tsad: <function>: `
   * and read `grad(loss): in loss: …`). Only wrappers whose defs check lengths or indices.
   */
  private namingTransform(body: ts.Statement[], where: string): ts.Statement[] {
    const f = this.f;
    const [check, ...rest] = body;
    const named = f.createCallExpression(this.helper(NAMING_HELPER), undefined, [f.createIdentifier('e'), this.whereOf(where)]);
    return [check, f.createTryStatement(f.createBlock(rest, true), f.createCatchClause('e', f.createBlock([f.createThrowStatement(named)], true)), undefined)];
  }

  /** The wrapper's name `where` in a message: the parameter that takes it in a body another wrapper runs too (runAs). */
  private whereOf(where: string): ts.Expression {
    return this.named && where === this.where ? this.f.createIdentifier(this.named.where) : this.f.createStringLiteral(where);
  }

  /** `f_valueAndGrad$as("grad(f)", arguments.length, ...params)`: the shared body run under this wrapper's name. */
  private runAsCall(e: Extract<PlanExpr, { tag: 'runAs' }>): ts.Expression {
    const f = this.f;
    const count = f.createPropertyAccessExpression(f.createIdentifier('arguments'), 'length');
    return f.createCallExpression(f.createIdentifier(this.runAs.get(e.wrapper)!), undefined, [f.createStringLiteral(e.where), count, ...this.params.map((p) => f.createIdentifier(p))]);
  }

  /**
   * The defs reachable from `entries` that this module does not have yet, and the writing forms
   * of `writers` it does not have (their callees in the returning form).
   */
  private defs(program: Program, entries: readonly string[], writers: readonly string[], target: ts.Node): ts.Statement[] {
    const byName = defMap(program);
    const roots = [...entries, ...writers.flatMap((w) => calleesOfDef(byName.get(w)!))];
    const defs = reachable(program, roots).defs.filter((d) => !this.emitted.has(d.name));
    defs.forEach((d) => this.emitted.add(d.name));
    const writing = writers.filter((w) => !this.emittedWriters.has(w)).map((w) => byName.get(w)!);
    writing.forEach((d) => this.emittedWriters.add(d.name));
    // Derived defs map back to the source function their roles lead to (f for f.lin.T).
    const options: EmitOptions = {
      factory: this.f,
      tsApi: this.t,
      fnName: irFunctionName,
      moduleHelper: (name) => this.helper(stackHelperName(name)),
      original: (irName) => this.o.original(sourceOf(irName, byName)) ?? target,
      originOf: (irName, variable) => this.o.originOf(sourceOf(irName, byName), variable),
      // A writer's callees are emitted apart from it (or by an earlier call site).
      calleeArity: defArity(byName),
    };
    return [...emitDefs(defs, options), ...emitWriterDefs(writing, options, writerFunctionName)];
  }

  private statement(s: PlanStatement): ts.Statement | ts.Statement[] {
    const f = this.f;
    switch (s.tag) {
      case 'const': {
        const binding: ts.BindingName = s.names.length === 1 ? f.createIdentifier(s.names[0]) : f.createArrayBindingPattern(s.names.map((n) => f.createBindingElement(undefined, undefined, n)));
        return f.createVariableStatement(undefined, f.createVariableDeclarationList([f.createVariableDeclaration(binding, undefined, undefined, this.expr(s.init))], this.t.NodeFlags.Const));
      }
      case 'return':
        return f.createReturnStatement(this.expr(s.value));
      case 'assign':
        return f.createExpressionStatement(f.createAssignment(f.createIdentifier(s.name), this.expr(s.value)));
      case 'check':
        return this.check(s);
      case 'output':
        return this.output(s.name, s.offset, s.length, this.whereOf(s.where), s.what);
      case 'callInto': {
        const args = [...s.args.map((x) => this.expr(x)), f.createIdentifier(s.into), f.createIdentifier(s.at)];
        return f.createExpressionStatement(f.createCallExpression(f.createIdentifier(writerFunctionName(s.def)), undefined, args));
      }
      case 'store': {
        const at = f.createIdentifier(s.at);
        const index = s.index === 0 ? at : f.createBinaryExpression(at, this.t.SyntaxKind.PlusToken, f.createNumericLiteral(s.index));
        return f.createExpressionStatement(f.createAssignment(f.createElementAccessExpression(f.createIdentifier(s.name), index), this.expr(s.value)));
      }
      case 'sameLength': {
        const K = this.t.SyntaxKind;
        const len = (e: PlanExpr) => f.createPropertyAccessExpression(this.expr(e), 'length');
        const start = this.named && s.where === this.where ? [this.whereOf(s.where), f.createStringLiteral(`: ${s.what} has length `)] : [f.createStringLiteral(`${s.where}: ${s.what} has length `)];
        const parts: ts.Expression[] = [...start, len(s.a), f.createStringLiteral(`, but ${s.against} has length `), len(s.b)];
        const message = parts.reduce((a, b) => f.createBinaryExpression(a, K.PlusToken, b));
        return f.createIfStatement(
          f.createBinaryExpression(len(s.a), K.ExclamationEqualsEqualsToken, len(s.b)),
          f.createThrowStatement(f.createNewExpression(f.createIdentifier('RangeError'), undefined, [message])),
        );
      }
    }
  }

  /** `Array.from({ length: n }, (_, i) => body)` */
  private arrayFrom(container: string, n: ts.Expression, i: string, body: ts.Expression): ts.Expression {
    const f = this.f;
    const arrow = f.createArrowFunction(
      undefined,
      undefined,
      [f.createParameterDeclaration(undefined, undefined, '_'), f.createParameterDeclaration(undefined, undefined, i)],
      undefined,
      undefined,
      body,
    );
    return f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier(container), 'from'), undefined, [
      f.createObjectLiteralExpression([f.createPropertyAssignment('length', n)]),
      arrow,
    ]);
  }

  /**
   * The function `($v, $t) => …` that turns an IR array into the user's containers, as long as
   * `$t` when there is a template (IR tangents are sparse at the end: missing elements are 0),
   * else as long as `$v`. An array of the right class and length goes through uncopied, unless `fresh`.
   */
  private fitter(containers: readonly string[], withTemplate: boolean, fresh: boolean, depth = 0): ts.ArrowFunction {
    const f = this.f;
    const K = this.t.SyntaxKind;
    const [v, t, i] = [`$v${depth}`, `$t${depth}`, `$i${depth}`];
    const id = (n: string) => f.createIdentifier(n);
    const len = (n: string) => f.createPropertyAccessExpression(id(n), 'length');
    const at = (n: string) => f.createElementAccessExpression(id(n), id(i));
    const [outer, ...inner] = containers;
    let body: ts.Expression;
    if (inner.length > 0) {
      const sub = this.fitter(inner, withTemplate, fresh, depth + 1);
      const element = withTemplate
        ? f.createCallExpression(sub, undefined, [f.createBinaryExpression(at(v), K.QuestionQuestionToken, f.createArrayLiteralExpression([])), at(t)])
        : f.createCallExpression(sub, undefined, [at(v)]);
      body = this.arrayFrom('Array', len(withTemplate ? t : v), i, element);
    } else {
      const copy = withTemplate
        ? this.arrayFrom(outer, len(t), i, f.createBinaryExpression(at(v), K.QuestionQuestionToken, f.createNumericLiteral(0)))
        : f.createCallExpression(f.createPropertyAccessExpression(id(outer), 'from'), undefined, [id(v)]);
      const isOuter = f.createBinaryExpression(id(v), K.InstanceOfKeyword, id(outer));
      const fits = withTemplate ? f.createBinaryExpression(isOuter, K.AmpersandAmpersandToken, f.createBinaryExpression(len(v), K.EqualsEqualsEqualsToken, len(t))) : isOuter;
      body = outer === 'Array' || fresh ? copy : f.createConditionalExpression(fits, undefined, id(v), undefined, copy);
    }
    const params = withTemplate ? [v, t] : [v];
    return f.createArrowFunction(
      undefined,
      undefined,
      params.map((p) => f.createParameterDeclaration(undefined, undefined, p)),
      undefined,
      undefined,
      f.createParenthesizedExpression(body),
    );
  }

  private expr(e: PlanExpr): ts.Expression {
    const f = this.f;
    switch (e.tag) {
      case 'name':
        return f.createIdentifier(e.name);
      case 'state':
        if (!this.readState) throw new Error(`no reader for the module state behind '${e.param}'`);
        return this.readState(e.param);
      case 'number':
        return f.createNumericLiteral(e.value);
      case 'undefined':
        return f.createIdentifier('undefined');
      case 'index':
        return f.createElementAccessExpression(this.expr(e.of), e.index);
      case 'field':
        return f.createPropertyAccessExpression(this.expr(e.of), e.key);
      case 'array':
        return f.createArrayLiteralExpression(e.elems.map((x) => this.expr(x)));
      case 'object':
        return f.createObjectLiteralExpression(e.fields.map(([k, v]) => f.createPropertyAssignment(k, this.expr(v))));
      case 'call':
        return f.createCallExpression(
          f.createIdentifier(irFunctionName(e.def)),
          undefined,
          e.args.map((x) => this.expr(x)),
        );
      case 'fit': {
        const [container, ...inner] = e.containers;
        if (inner.length === 0) {
          // One level: the runtime's tsad$fit, or a copy for a value that needs no template and no test.
          if (!e.template && (e.fresh || container === 'Array'))
            return f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier(container), 'from'), undefined, [this.expr(e.value)]);
          const args = [this.expr(e.value), e.template ? this.expr(e.template) : f.createIdentifier('undefined'), f.createIdentifier(container)];
          return f.createCallExpression(this.helper(FIT), undefined, e.fresh ? [...args, f.createTrue()] : args);
        }
        const fn = f.createParenthesizedExpression(this.fitter(e.containers, e.template !== undefined, !!e.fresh));
        return f.createCallExpression(fn, undefined, [this.expr(e.value), ...(e.template ? [this.expr(e.template)] : [])]);
      }
      case 'packMatrix': {
        this.packs = true;
        if (e.rank !== undefined) {
          this.tensors = true;
          const args = [this.expr(e.value), f.createStringLiteral(e.path), f.createNumericLiteral(e.rank), this.whereOf(this.where), e.tangent ? f.createTrue() : f.createFalse()];
          if (e.like) args.push(this.expr(e.like));
          return f.createCallExpression(f.createIdentifier('tsad$packTensor'), undefined, args);
        }
        const args = [this.expr(e.value), f.createStringLiteral(e.path)];
        if (e.tangent) args.push(e.like ? this.expr(e.like) : f.createNull());
        return f.createCallExpression(f.createIdentifier('tsad$packMatrix'), undefined, args);
      }
      case 'unpackMatrix':
        this.packs = true;
        if (e.rank !== undefined) {
          this.tensors = true;
          return f.createCallExpression(f.createIdentifier('tsad$unpackTensor'), undefined, [this.expr(e.data), this.expr(e.like), f.createNumericLiteral(e.rank), f.createIdentifier(e.row)]);
        }
        return f.createCallExpression(f.createIdentifier('tsad$unpackMatrix'), undefined, [this.expr(e.data), this.expr(e.like), f.createIdentifier(e.row)]);
      case 'splitRecords': {
        this.splits = true;
        const args = [this.expr(e.value), f.createStringLiteral(e.path), f.createStringLiteral(e.layout), this.whereOf(this.where)];
        if (e.tangent || e.like) args.push(e.tangent ? f.createTrue() : f.createFalse());
        if (e.like) args.push(this.expr(e.like), e.likeIR ? f.createTrue() : f.createFalse());
        return f.createCallExpression(f.createIdentifier('tsad$splitRecords'), undefined, args);
      }
      case 'joinRecords':
        this.splits = true;
        return f.createCallExpression(f.createIdentifier('tsad$joinRecords'), undefined, [
          this.expr(e.columns),
          f.createStringLiteral(e.layout),
          ...(e.like ? [this.expr(e.like), e.likeIR ? f.createTrue() : f.createFalse()] : []),
        ]);
      case 'copy': {
        // A row that is not an array stays as it is: packing the matrix reports it by its index.
        const K = this.t.SyntaxKind;
        const slice = (x: ts.Expression) => f.createCallExpression(f.createPropertyAccessExpression(x, 'slice'), undefined, []);
        if (!e.matrix) return slice(this.expr(e.of));
        const row = f.createIdentifier('$r');
        const copyRow = f.createConditionalExpression(isArrayLike(f, K, row), undefined, slice(row), undefined, row);
        const arrow = f.createArrowFunction(undefined, undefined, [f.createParameterDeclaration(undefined, undefined, row)], undefined, undefined, copyRow);
        return f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier('Array'), 'from'), undefined, [this.expr(e.of), arrow]);
      }
      case 'emptyArray':
        return f.createNewExpression(f.createIdentifier('Float64Array'), undefined, [f.createNumericLiteral(0)]);
      case 'length':
        return f.createPropertyAccessExpression(this.expr(e.of), 'length');
      case 'at':
        return f.createElementAccessExpression(this.expr(e.of), this.expr(e.index));
      case 'oneHot': {
        // (e => (e[i] = 1, e))(new Float64Array(i + 1)): sparse at the end, as IR tangents are.
        const K = this.t.SyntaxKind;
        const i = this.expr(e.index);
        const set = f.createBinaryExpression(f.createAssignment(f.createElementAccessExpression(f.createIdentifier('$e'), i), f.createNumericLiteral(1)), K.CommaToken, f.createIdentifier('$e'));
        const arrow = f.createArrowFunction(undefined, undefined, [f.createParameterDeclaration(undefined, undefined, '$e')], undefined, undefined, f.createParenthesizedExpression(set));
        const alloc = f.createNewExpression(f.createIdentifier('Float64Array'), undefined, [f.createBinaryExpression(this.expr(e.index), K.PlusToken, f.createNumericLiteral(1))]);
        return f.createCallExpression(f.createParenthesizedExpression(arrow), undefined, [alloc]);
      }
      case 'rows': {
        const rows = this.arrayFrom('Array', this.expr(e.count), e.index, this.expr(e.body));
        if (!e.ifNone) return rows;
        // count === 0 ? (ifNone, []) : Array.from(…)
        const none = f.createParenthesizedExpression(f.createCommaListExpression([this.expr(e.ifNone), f.createArrayLiteralExpression([])]));
        const empty = f.createBinaryExpression(this.expr(e.count), this.t.SyntaxKind.EqualsEqualsEqualsToken, f.createNumericLiteral(0));
        return f.createConditionalExpression(empty, undefined, none, undefined, rows);
      }
      case 'runAs':
        return this.runAsCall(e);
      case 'function': {
        // A function expression, not an arrow: its own `arguments` is what its check counts.
        // Its messages name it (`vjp(f)'s pullback`), as its check does.
        const outer = this.where;
        if (e.body[0]?.tag === 'check') this.where = e.body[0].where;
        const body = e.body.flatMap((s) => this.statement(s));
        this.where = outer;
        return f.createFunctionExpression(
          undefined,
          undefined,
          undefined,
          undefined,
          e.params.map((p) => f.createParameterDeclaration(undefined, undefined, p)),
          undefined,
          f.createBlock(body, true),
        );
      }
    }
  }

  /**
   * A wrapper's argument check: inline, or a call of the module's function for a check that two
   * or more wrappers make (`f_args(where, arguments.length, ...values)`, expect). V8 inlines the
   * call into the wrapper (a few tests and no allocation), so the happy path costs the same.
   */
  private check(s: Extract<PlanStatement, { tag: 'check' }>): ts.Statement {
    const f = this.f;
    const own = this.named && s.where === this.where ? this.named : undefined;
    const count = own ? f.createIdentifier(own.count) : f.createPropertyAccessExpression(f.createIdentifier('arguments'), 'length');
    const key = checkKey(this.stem, s);
    if ((this.checkUses.get(key) ?? 0) < 2) return this.argumentCheck(this.whereOf(s.where), count, s.checks, s.optional ?? 0);
    let shared = this.sharedChecks.get(key);
    if (!shared) {
      shared = this.o.freeName(`${this.stem}_args`);
      this.sharedChecks.set(key, shared);
      this.before.push(this.checkFunction(shared, s.checks, s.optional ?? 0));
    }
    const values = [...new Set(s.checks.map((c) => c.value))].map((v) => f.createIdentifier(v));
    return f.createExpressionStatement(f.createCallExpression(f.createIdentifier(shared), undefined, [this.whereOf(s.where), count, ...values]));
  }

  /** `function f_args(where, count, ...values) { <the check> }`: `where` and `count` renamed away from the values' names. */
  private checkFunction(name: string, checks: readonly ArgumentCheck[], optional: number): ts.Statement {
    const f = this.f;
    const values = [...new Set(checks.map((c) => c.value))];
    const free = (base: string) => {
      let n = base;
      for (let k = 1; values.includes(n); k++) n = `${base}_${k}`;
      return n;
    };
    const [where, count] = [free('where'), free('count')];
    const params = [where, count, ...values].map((p) => f.createParameterDeclaration(undefined, undefined, p));
    const body = this.argumentCheck(f.createIdentifier(where), f.createIdentifier(count), checks, optional);
    return f.createFunctionDeclaration(undefined, undefined, name, undefined, params, undefined, f.createBlock([body], true));
  }

  /**
   * `if (<any check fails>) throw tsad$argumentError(...)`: one test per leaf and per container
   * on the happy path, which allocates nothing; the description of what was expected is built
   * only when the check fails. `count`: how many arguments the wrapper got.
   */
  private argumentCheck(where: ts.Expression, count: ts.Expression, checks: readonly ArgumentCheck[], optional: number): ts.Statement {
    const f = this.f;
    const K = this.t.SyntaxKind;
    const value = (c: ArgumentCheck) => f.createIdentifier(c.value);
    const n = f.createNumericLiteral(checks.length);
    const wrongCount = optional
      ? f.createBinaryExpression(
          f.createBinaryExpression(count, K.LessThanToken, n),
          K.BarBarToken,
          f.createBinaryExpression(count, K.GreaterThanToken, f.createNumericLiteral(checks.length + optional)),
        )
      : f.createBinaryExpression(count, K.ExclamationEqualsEqualsToken, n);
    const failures = [wrongCount, ...checks.flatMap((c) => this.failures(value(c), c.spec))];
    // With the optional arguments passed, the message is about the checked ones.
    const reported = optional ? f.createConditionalExpression(wrongCount, undefined, count, undefined, n) : count;
    // The message is built by the runtime, off the hot path, only when a check fails.
    const report = f.createCallExpression(this.helper(ARGUMENT_ERROR), undefined, [where, f.createStringLiteral(JSON.stringify(checks.map(checkJson)), true), reported, ...checks.map(value)]);
    return f.createIfStatement(
      failures.reduce((a, b) => f.createBinaryExpression(a, K.BarBarToken, b)),
      f.createThrowStatement(report),
    );
  }

  /**
   * `offset`: 0 or the caller's non-negative integer; `out`: the caller's Float64Array, long
   * enough from the offset on, or a new one. Two statements, each a test or two on the happy
   * path; the messages are built by a runtime helper (runtime/emitted.ts, tsad$outputError) when
   * one fails.
   */
  private output(out: string, offset: string, length: number, where: ts.Expression, what: string): ts.Statement[] {
    const f = this.f;
    const K = this.t.SyntaxKind;
    const o = f.createIdentifier(out);
    const at = f.createIdentifier(offset);
    const end = f.createBinaryExpression(at, K.PlusToken, f.createNumericLiteral(length));
    const or = (a: ts.Expression, b: ts.Expression) => f.createBinaryExpression(a, K.BarBarToken, b);
    const not = (e: ts.Expression) => f.createPrefixUnaryExpression(K.ExclamationToken, e);
    const isUndefined = (x: ts.Expression) => f.createBinaryExpression(x, K.EqualsEqualsEqualsToken, f.createIdentifier('undefined'));
    const error = f.createThrowStatement(
      f.createCallExpression(this.helper(OUTPUT_ERROR), undefined, [
        where,
        f.createStringLiteral(what),
        f.createNumericLiteral(length),
        f.createStringLiteral(out),
        f.createStringLiteral(offset),
        o,
        at,
      ]),
    );
    // A fraction, NaN or a negative number would put the entries off the array's indices, where a typed array drops them.
    const isInteger = f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier('Number'), 'isInteger'), undefined, [at]);
    const checkOffset = f.createIfStatement(
      isUndefined(at),
      f.createExpressionStatement(f.createAssignment(at, f.createNumericLiteral(0))),
      f.createIfStatement(or(not(isInteger), f.createBinaryExpression(at, K.LessThanToken, f.createNumericLiteral(0))), error),
    );
    const notFloat64 = not(f.createParenthesizedExpression(f.createBinaryExpression(o, K.InstanceOfKeyword, f.createIdentifier('Float64Array'))));
    const checkOut = f.createIfStatement(
      isUndefined(o),
      f.createExpressionStatement(f.createAssignment(o, f.createNewExpression(f.createIdentifier('Float64Array'), undefined, [end]))),
      f.createIfStatement(or(notFloat64, f.createBinaryExpression(f.createPropertyAccessExpression(o, 'length'), K.LessThanToken, end)), error),
    );
    return [checkOffset, checkOut];
  }

  /** Conditions, any of which means `e` does not fit `spec`. */
  private failures(e: ts.Expression, spec: Spec): ts.Expression[] {
    const f = this.f;
    const K = this.t.SyntaxKind;
    if (spec === '') return [];
    if (spec === 'int32array')
      return [f.createPrefixUnaryExpression(K.ExclamationToken, f.createParenthesizedExpression(f.createBinaryExpression(e, K.InstanceOfKeyword, f.createIdentifier('Int32Array'))))];
    if (spec === 'array' || spec === 'matrix') {
      // Not an array, or its first number is not a number: `e.length > 0 && <the first fails>`.
      const notArray = (x: ts.Expression) => f.createPrefixUnaryExpression(K.ExclamationToken, f.createParenthesizedExpression(isArrayLike(f, K, x)));
      const nonEmptyAnd = (x: ts.Expression, cond: ts.Expression) =>
        f.createBinaryExpression(f.createBinaryExpression(f.createPropertyAccessExpression(x, 'length'), K.GreaterThanToken, f.createNumericLiteral(0)), K.AmpersandAmpersandToken, cond);
      const first = f.createElementAccessExpression(e, 0);
      const notNumber = (x: ts.Expression) => f.createBinaryExpression(f.createTypeOfExpression(x), K.ExclamationEqualsEqualsToken, f.createStringLiteral('number'));
      const inner =
        spec === 'array'
          ? notNumber(first)
          : f.createParenthesizedExpression(f.createBinaryExpression(notArray(first), K.BarBarToken, nonEmptyAnd(first, notNumber(f.createElementAccessExpression(first, 0)))));
      if (spec === 'matrix') return [notArray(e), nonEmptyAnd(e, inner)];
      // A number[] with a hole (`new Array(n)` not filled): free for V8's packed arrays of doubles.
      const holey = f.createBinaryExpression(
        f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier('Array'), 'isArray'), undefined, [e]),
        K.AmpersandAmpersandToken,
        f.createCallExpression(f.createPropertyAccessExpression(e, 'includes'), undefined, [f.createVoidZero()]),
      );
      return [notArray(e), nonEmptyAnd(e, inner), holey];
    }
    if (typeof spec === 'string') return [f.createBinaryExpression(f.createTypeOfExpression(e), K.ExclamationEqualsEqualsToken, f.createStringLiteral(spec))];
    const inner = spec.items.flatMap(([k, c], i) => this.failures(spec.tag === 'arguments' ? f.createElementAccessExpression(e, i) : this.member(e, k), c));
    // Reading a field of a number or string gives undefined, which fails its leaf's test, so
    // only null and undefined need a test of their own.
    const container = [f.createBinaryExpression(e, K.EqualsEqualsToken, f.createNull())];
    if (spec.tag === 'arguments') {
      container.push(f.createBinaryExpression(f.createPropertyAccessExpression(e, 'length'), K.ExclamationEqualsEqualsToken, f.createNumericLiteral(spec.items.length)));
    }
    return [...container, ...inner];
  }

  private member(e: ts.Expression, k: string | number): ts.Expression {
    const f = this.f;
    if (typeof k === 'number') return f.createElementAccessExpression(e, k);
    return /^[A-Za-z_$][\w$]*$/.test(k) ? f.createPropertyAccessExpression(e, k) : f.createElementAccessExpression(e, f.createStringLiteral(k));
  }
}

/**
 * What makes two argument checks of a function's wrappers the same but for the transform they
 * name. Per function: another function with the same parameters keeps its own (its wrappers call
 * a function named after it).
 */
function checkKey(fn: string, s: Extract<PlanStatement, { tag: 'check' }>): string {
  return JSON.stringify([fn, s.checks, s.optional ?? 0]);
}

/** `base`, or `base_1`, … : a name no parameter or local of the plan's wrapper has. */
function freeIn(plan: CallSitePlan, base: string): string {
  const taken = new Set<string>(plan.params);
  const collect = (v: unknown, key?: string): void => {
    if (typeof v === 'string') {
      if (key && NAME_KEYS.has(key)) taken.add(v);
    } else if (Array.isArray(v)) v.forEach((x) => collect(x, key));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) if (k !== 'program') collect(x, k);
  };
  collect(plan.body);
  let n = base;
  for (let k = 1; taken.has(n); k++) n = `${base}_${k}`;
  return n;
}

/** The fields of plan statements and expressions that hold a wrapper's variable names. */
const NAME_KEYS = new Set(['name', 'names', 'params', 'value', 'into', 'at', 'offset', 'index']);

/** Do the defs a plan calls check array lengths or indices at run time? */
function checksLengths(plan: CallSitePlan): boolean {
  let found = false;
  for (const d of reachable(plan.program, [...plan.entries, ...(plan.writers ?? [])]).defs) {
    visitBlock(d.body, {
      expr: (e) => {
        if (e.tag === 'construct' && isConstruct(e.op) && CONSTRUCTS[e.op].checks) found = true;
      },
    });
  }
  return found;
}

/** `loss.fwd` -> `loss$fwd`; a primal def `loss` -> `loss$`, never the user's own `loss`. */
export function irFunctionName(irName: string): string {
  return irName.includes('.') ? mangle(irName) : `${irName}$`;
}

/** `f$jac_0_1$into`: the writing form of an IR def (emitWriterDefs), beside its returning form. */
export function writerFunctionName(irName: string): string {
  return `${irFunctionName(irName)}$into`;
}

/** `Array.isArray(e) || ArrayBuffer.isView(e)`: a plain array or a typed array. */
function isArrayLike(f: ts.NodeFactory, K: typeof ts.SyntaxKind, e: ts.Expression): ts.Expression {
  const call = (obj: string, m: string) => f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier(obj), m), undefined, [e]);
  return f.createBinaryExpression(call('Array', 'isArray'), K.BarBarToken, call('ArrayBuffer', 'isView'));
}

/** An item of the runtime's compact JSON (runtime/emitted.ts, tsad$argumentError): `"key:code"`, or `["key:tag", item, …]` for a container. */
type SpecItem = string | SpecItem[];

/** The one-letter codes of the runtime's compact spec (runtime/emitted.ts, SPEC_CODES: the same letters). */
const SPEC_CODES: Readonly<Record<string, string>> = { number: 'n', array: 'a', matrix: 'm', boolean: 'b', string: 's', int32array: 'i', '': '', tuple: 't', object: 'o', arguments: 'g' };

/** A check's entry of the runtime's JSON: its item, under `{ label, item }` only where its label is not `argument i`. */
function checkJson(c: ArgumentCheck, i: number): SpecItem | { label: string; item: SpecItem } {
  const item = specItem(c.path, c.spec);
  return c.label === `argument ${i + 1}` ? item : { label: c.label, item };
}

/** `key:code` for a leaf; `[key:tag, item, …]` for a container, a tuple's items with no key (their index): the runtime describes the container from its items. */
function specItem(key: string, spec: Spec): SpecItem {
  if (typeof spec === 'string') return `${key}:${SPEC_CODES[spec]}`;
  return [`${key}:${SPEC_CODES[spec.tag]}`, ...spec.items.map(([k, c]) => specItem(spec.tag === 'tuple' ? '' : String(k), c))];
}

/** Puts the transform's name on a RangeError a derivative throws (runtime/emitted.ts). */
const NAMING_HELPER = 'tsad$inTransform';
