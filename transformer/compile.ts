// The bridge from a transform call site to generated code: lower the marked function, run the
// Linear A drivers, emit the needed defs once per module, and write a small wrapper that converts
// between the user's values (numbers, tuples, objects) and the IR's (reals and arrays).
import type * as ts from 'typescript';
import { Program } from './ir/syntax';
import { Lowerer, LoweredFunction } from './frontend/lower';
import { Shape, componentShapes, isScalarShape, describeShape } from './frontend/shapes';
import { fail } from './frontend/diagnostics';
import { jvpOf, vjpOf, linearizeOf, hvpOf, valueAndGradOf, fuse } from './ad/drivers';
import { calleesFirst } from './ad/program';
import { gradName, valueAndGradName } from './ad/names';
import { emitDefs, mangle, mapTo } from './backend/emitTs';

export type TransformKind = 'grad' | 'valueAndGrad' | 'jvp' | 'vjp' | 'linearize' | 'jacobian' | 'jacfwd' | 'jacrev' | 'hessian' | 'hvp';

export interface CompileRequest {
  readonly target: ts.SignatureDeclaration;
  readonly transform: TransformKind;
  readonly wrt: readonly number[];
  readonly callSite: ts.Node;
}

export interface CompiledTransform {
  readonly name: string;
  /** 'reference': `T(f, opts?)` becomes `name`; 'call': `T(f, ...rest)` becomes `name(...rest)`. */
  readonly replaces: 'reference' | 'call';
}

/** Generated code is simplified (copy/zero propagation, CSE, dead code) before emission. */
const DRIVER = { simplify: true, inlinePrimal: true } as const;

export const CALL_FORMS: ReadonlySet<TransformKind> = new Set(['jvp', 'vjp', 'linearize']);

export class ModuleCompiler {
  private readonly lowerer: Lowerer;
  private readonly emitted = new Set<string>();
  private readonly out: ts.Statement[] = [];
  private readonly wrappers = new Map<string, CompiledTransform>();
  private readonly vjps = new Map<string, ReturnType<typeof vjpOf>>();
  private readonly f: ts.NodeFactory;

  constructor(
    private readonly tsApi: typeof ts,
    checker: ts.TypeChecker,
    factory: ts.NodeFactory,
  ) {
    this.lowerer = new Lowerer(tsApi, checker);
    this.f = factory;
  }

  statements(): ts.Statement[] {
    return this.out;
  }

  /** The Linear A program of a marked function and its callees (for `tsad inspect`). */
  lower(target: ts.SignatureDeclaration): { program: Program; fn: LoweredFunction } {
    const fn = this.lowerer.lower(target);
    return { program: { defs: [...this.lowerer.defs] }, fn };
  }

  compile(req: CompileRequest): CompiledTransform {
    const lowered = this.lower(req.target);
    const fn = lowered.fn;
    const key = `${fn.name}|${req.transform}|${req.wrt.join(',')}`;
    const cached = this.wrappers.get(key);
    if (cached) return cached;
    // The module's other functions are not this derivative's business: every pass over the
    // program would otherwise walk all of them again, per call site.
    const program = closureOf(lowered.program, fn.name);
    const scalarOut = fn.result.kind === 'number';
    if (['grad', 'valueAndGrad', 'hessian', 'hvp'].includes(req.transform) && !scalarOut) {
      fail(1004, req.callSite, `${req.transform} needs a function that returns a number; '${fn.name}' returns a ${fn.result.kind}`);
    }
    if (req.transform !== 'jvp' && req.transform !== 'vjp' && req.transform !== 'linearize') {
      for (const i of req.wrt) {
        const p = fn.params[i];
        if (!numbersOnly(p.shape)) {
          fail(1002, req.callSite, `cannot differentiate '${fn.name}' with respect to '${p.name}': it holds ${describeShape(p.shape)}, and booleans and strings have no derivative`);
        }
      }
    }
    const suffix = req.wrt.length === 1 && req.wrt[0] === 0 ? '' : `_${req.wrt.join('_')}`;
    const name = `${fn.name}_${req.transform}${suffix}`;
    const decl = this.wrapper(req, program, fn, name);
    this.out.push(decl);
    const compiled: CompiledTransform = { name, replaces: CALL_FORMS.has(req.transform) ? 'call' : 'reference' };
    this.wrappers.set(key, compiled);
    return compiled;
  }

  /** One reverse pass per function and module, shared by its grad, valueAndGrad, vjp and jacrev call sites. */
  private vjpOf(program: Program, fn: string): ReturnType<typeof vjpOf> {
    let v = this.vjps.get(fn);
    if (!v) {
      v = vjpOf(program, fn, DRIVER);
      this.vjps.set(fn, v);
    }
    return v;
  }

  /** Emits the defs reachable from `entries` that this module does not have yet. */
  private emit(program: Program, entries: readonly string[], target: ts.Node): void {
    const needed = new Set(calleesFirst(program, entries));
    const defs = program.defs.filter((d) => needed.has(d.name) && !this.emitted.has(d.name));
    defs.forEach((d) => this.emitted.add(d.name));
    this.out.push(
      ...emitDefs(defs, {
        factory: this.f,
        tsApi: this.tsApi,
        fnName: irFunctionName,
        original: (irName) => this.lowerer.declarationOf(irName) ?? target,
        originOf: (irName, variable) => this.lowerer.originOf(irName, variable),
      }),
    );
  }

  private fnId(irName: string): ts.Identifier {
    return this.f.createIdentifier(irFunctionName(irName));
  }

  private wrapper(req: CompileRequest, program: Program, fn: LoweredFunction, name: string): ts.FunctionDeclaration {
    const f = this.f;
    const params = fn.params.map((p) => p.name);
    const g = new Gen(f, this.tsApi, new Set([...params, 'primals', 'tangents', 'cotangent', 'v', 'columns']));
    const irArgs = fn.params.map((p) => g.toIR(f.createIdentifier(p.name), p.shape));
    const where = `${req.transform}(${sourceName(this.tsApi, req.target, fn.name)})`;
    let body: ts.Statement[];
    let wrapperParams = params;
    switch (req.transform) {
      case 'grad':
      case 'valueAndGrad': {
        // One straight-line function computes the value and exactly the requested gradients, on
        // scalar leaves: the wrapper passes fields and elements and builds the user's shapes.
        const withValue = req.transform === 'valueAndGrad';
        const vg = valueAndGradOf(program, fn.name, { ...DRIVER, wrt: req.wrt, value: withValue, flatSignature: true, vjp: this.vjpOf(program, fn.name) });
        // One def per (transform, wrt) in the module: f.vg, f.grad, f.grad_1 for wrt [1], ...
        const allParams = req.wrt.join('_') === fn.params.map((_, i) => i).join('_');
        const irName = `${withValue ? valueAndGradName(fn.name) : gradName(fn.name)}${allParams ? '' : `_${req.wrt.join('_')}`}`;
        const vgProgram = { defs: vg.program.defs.map((d) => (d.name === vg.valueAndGrad ? { ...d, name: irName } : d)) };
        this.emit(vgProgram, [irName], req.target);
        const value = withValue ? [g.fresh('value')] : [];
        const barLeaves = req.wrt.map((i) => g.leafNames(`${fn.params[i].name}_bar`, fn.params[i].shape));
        const results = [...value, ...barLeaves.flat()];
        const args = fn.params.flatMap((p, i) => (req.wrt.includes(i) ? g.leaves(f.createIdentifier(p.name), p.shape) : [irArgs[i]]));
        body = [g.const(results, f.createCallExpression(this.fnId(irName), undefined, args))];
        const grads = req.wrt.map((i, k) => g.build(fn.params[i].shape, barLeaves[k]));
        const gradient = grads.length === 1 ? grads[0] : f.createArrayLiteralExpression(grads);
        const flatShape = (s: Shape) => s.kind === 'number' || (s.kind === 'tuple' && s.elems.every((c) => c.kind === 'number'));
        const sameShape = req.wrt.length === 1 ? flatShape(fn.params[req.wrt[0]].shape) : req.wrt.every((i) => fn.params[i].shape.kind === 'number');
        if (!withValue && sameShape) {
          // The def already returns the gradient in the user's shape: no copy.
          body = [f.createReturnStatement(f.createCallExpression(this.fnId(irName), undefined, args))];
        } else body.push(f.createReturnStatement(withValue ? f.createArrayLiteralExpression([f.createIdentifier(value[0]), gradient]) : gradient));
        break;
      }
      case 'jvp': {
        const j = jvpOf(program, fn.name, { ...DRIVER, inline: true });
        this.emit(j.program, [j.jvp], req.target);
        wrapperParams = ['primals', 'tangents'];
        const prim = fn.params.map((p, i) => g.toIR(f.createElementAccessExpression(f.createIdentifier('primals'), i), p.shape));
        const tan = fn.params.map((p, i) => g.toIR(f.createElementAccessExpression(f.createIdentifier('tangents'), i), p.shape));
        const [y, yDot] = [g.fresh('value'), g.fresh('tangent')];
        body = [
          g.const([y, yDot], f.createCallExpression(this.fnId(j.jvp), undefined, [...prim, ...tan])),
          f.createReturnStatement(f.createArrayLiteralExpression([g.fromIR(f.createIdentifier(y), fn.result), g.fromIR(f.createIdentifier(yDot), fn.result)])),
        ];
        break;
      }
      case 'vjp': {
        const v = this.vjpOf(program, fn.name);
        this.emit(v.program, [v.fwd, v.bwd], req.target);
        const [value, tape] = [g.fresh('value'), g.fresh('tape')];
        const bars = fn.params.map((p) => g.fresh(`${p.name}_bar`));
        // A function expression, not an arrow: its own `arguments` is what the check counts.
        const pullback = f.createFunctionExpression(
          undefined,
          undefined,
          undefined,
          undefined,
          [f.createParameterDeclaration(undefined, undefined, 'cotangent')],
          undefined,
          f.createBlock([
            g.argumentCheck(`${where}'s pullback`, [{ label: 'argument 1', path: 'cotangent', value: f.createIdentifier('cotangent'), spec: g.spec(fn.result, true) }]),
            g.const(bars, f.createCallExpression(this.fnId(v.bwd), undefined, [f.createIdentifier(tape), g.toIR(f.createIdentifier('cotangent'), fn.result)]), bars.length),
            f.createReturnStatement(f.createArrayLiteralExpression(fn.params.map((p, i) => g.fromIR(f.createIdentifier(bars[i]), p.shape)))),
          ], true),
        );
        body = [
          g.const([value, tape], f.createCallExpression(this.fnId(v.fwd), undefined, irArgs)),
          f.createReturnStatement(f.createArrayLiteralExpression([g.fromIR(f.createIdentifier(value), fn.result), pullback])),
        ];
        break;
      }
      case 'linearize': {
        const l = linearizeOf(program, fn.name, DRIVER);
        this.emit(l.program, [l.fwd, l.lin], req.target);
        const [value, tape] = [g.fresh('value'), g.fresh('tape')];
        const dots = fn.params.map((p) => g.fresh(`${p.name}_dot`));
        const tangentChecks = fn.params.map((p, i) => ({ label: `argument ${i + 1}`, path: p.name, value: f.createIdentifier(dots[i]), spec: g.spec(p.shape, true) }));
        const fLin = f.createFunctionExpression(
          undefined,
          undefined,
          undefined,
          undefined,
          dots.map((d) => f.createParameterDeclaration(undefined, undefined, d)),
          undefined,
          f.createBlock([
            g.argumentCheck(`${where}'s linear function`, tangentChecks),
            f.createReturnStatement(
              g.fromIR(f.createCallExpression(this.fnId(l.lin), undefined, [f.createIdentifier(tape), ...fn.params.map((p, i) => g.toIR(f.createIdentifier(dots[i]), p.shape))]), fn.result),
            ),
          ], true),
        );
        body = [
          g.const([value, tape], f.createCallExpression(this.fnId(l.fwd), undefined, irArgs)),
          f.createReturnStatement(f.createArrayLiteralExpression([g.fromIR(f.createIdentifier(value), fn.result), fLin])),
        ];
        break;
      }
      case 'jacobian':
      case 'jacfwd':
      case 'jacrev': {
        // One matrix per differentiated parameter (rows = outputs); a list of several gives a tuple.
        const ns = req.wrt.map((w) => leafCount(fn.params[w].shape));
        const m = leafCount(fn.result);
        const total = ns.reduce((a, b) => a + b, 0);
        const pickParam = (all: ts.Expression, w: number) => (fn.params.length === 1 ? all : f.createElementAccessExpression(all, w));
        let matrices: ts.Expression[];
        // jacobian picks the cheaper mode: one pass per output (reverse) or per input (forward).
        if (req.transform === 'jacrev' || (req.transform === 'jacobian' && m < total)) {
          // Rows by reverse mode: one primal pass, then one backward pass per output scalar.
          const v = this.vjpOf(program, fn.name);
          this.emit(v.program, [v.fwd, v.bwd], req.target);
          const [value, tape] = [g.fresh('value'), g.fresh('tape')];
          const cotangents = Array.from({ length: m }, (_, r) => {
            const ct = g.fresh(`cotangent_${r}`);
            return { ct, decl: g.const([ct], f.createCallExpression(this.fnId(v.bwd), undefined, [f.createIdentifier(tape), g.basis(fn.result, r)])) };
          });
          matrices = req.wrt.map((w) =>
            f.createArrayLiteralExpression(cotangents.map(({ ct }) => g.flatten(pickParam(f.createIdentifier(ct), w), fn.params[w].shape, 'row'))),
          );
          body = [g.const([value, tape], f.createCallExpression(this.fnId(v.fwd), undefined, irArgs)), ...cotangents.map((c) => c.decl), ...g.takePending()];
        } else {
          // Columns by forward mode: one JVP per input scalar of each differentiated parameter.
          const j = jvpOf(program, fn.name, { ...DRIVER, inline: true });
          this.emit(j.program, [j.jvp], req.target);
          body = [];
          matrices = req.wrt.map((w, k) => {
            const cols = Array.from({ length: ns[k] }, (_, c) => {
              const tangents = fn.params.map((p, i) => (i === w ? g.basis(p.shape, c) : g.zeros(p.shape)));
              return g.flatten(f.createElementAccessExpression(f.createCallExpression(this.fnId(j.jvp), undefined, [...irArgs, ...tangents]), 1), fn.result, 'column');
            });
            const name = g.fresh(req.wrt.length === 1 ? 'columns' : `columns_${fn.params[w].name}`);
            body.push(...g.takePending(), g.const([name], f.createArrayLiteralExpression(cols)));
            return g.transpose(name, m, ns[k]);
          });
        }
        body.push(f.createReturnStatement(matrices.length === 1 ? matrices[0] : f.createArrayLiteralExpression(matrices)));
        break;
      }
      case 'hessian':
      case 'hvp': {
        const h = hvpOf(program, fn.name, DRIVER);
        this.emit(fuse(h.program, h.hvp, DRIVER), [h.hvp], req.target);
        const w = req.wrt[0];
        const call = (dirs: ts.Expression[]) => f.createCallExpression(this.fnId(h.hvp), undefined, [...irArgs, ...dirs]);
        const pickW = (e: ts.Expression) => (fn.params.length === 1 ? e : f.createElementAccessExpression(e, w));
        if (req.transform === 'hvp') {
          // v has the gradient's shape: one direction, or a tuple of them for several wrt.
          wrapperParams = [...params, 'v'];
          const single = req.wrt.length === 1;
          const dirOf = (k: number) => (single ? f.createIdentifier('v') : f.createElementAccessExpression(f.createIdentifier('v'), k));
          const dirs = fn.params.map((p, i) => (req.wrt.includes(i) ? g.toIR(dirOf(req.wrt.indexOf(i)), p.shape) : g.zeros(p.shape)));
          if (single) body = [f.createReturnStatement(g.fromIR(pickW(call(dirs)), fn.params[w].shape))];
          else {
            const hv = g.fresh('hv');
            body = [
              g.const([hv], call(dirs)),
              f.createReturnStatement(f.createArrayLiteralExpression(req.wrt.map((i) => g.fromIR(f.createElementAccessExpression(f.createIdentifier(hv), i), fn.params[i].shape)))),
            ];
          }
        } else {
          // Blocks H[a][b] = ∂²f/∂w_a∂w_b from one Hessian-vector product per scalar of each w_b;
          // a single wrt gives the matrix itself.
          body = [];
          const hvs = req.wrt.map((wb) =>
            Array.from({ length: leafCount(fn.params[wb].shape) }, (_, c) => {
              const hv = g.fresh(`hv_${fn.params[wb].name}_${c}`);
              body.push(g.const([hv], call(fn.params.map((p, i) => (i === wb ? g.basis(p.shape, c) : g.zeros(p.shape))))));
              return hv;
            }),
          );
          const block = (a: number, b: number) => {
            const wa = req.wrt[a];
            // Column c of the block is the w_a part of H·e_c; rows are the scalars of w_a.
            const columns = hvs[b].map((hv) => g.flatten(fn.params.length === 1 ? f.createIdentifier(hv) : f.createElementAccessExpression(f.createIdentifier(hv), wa), fn.params[wa].shape, 'part'));
            // A diagonal block is symmetric: its columns are its rows.
            if (a === b) return f.createArrayLiteralExpression(columns);
            const name = g.fresh(`columns_${a}_${b}`);
            body.push(...g.takePending(), g.const([name], f.createArrayLiteralExpression(columns)));
            return g.transpose(name, leafCount(fn.params[wa].shape), columns.length);
          };
          const blocks = req.wrt.map((_, a) => req.wrt.map((__, b) => block(a, b)));
          body.push(f.createReturnStatement(blocks.length === 1 ? blocks[0][0] : f.createArrayLiteralExpression(blocks.map((row) => f.createArrayLiteralExpression(row)))));
        }
        break;
      }
    }
    // Checked once per call, before any work: a wrong argument fails here with its name, not as
    // NaN or a TypeError deep in the derivative code.
    const checks =
      req.transform === 'jvp'
        ? ['primals', 'tangents'].map((list, k) => ({
            label: `argument ${k + 1}`,
            path: list,
            value: f.createIdentifier(list),
            spec: g.list(fn.params.map((p) => [p.name, g.spec(p.shape, k === 1)] as const)),
          }))
        : fn.params.map((p, i) => ({ label: `argument ${i + 1}`, path: p.name, value: f.createIdentifier(p.name), spec: g.spec(p.shape, false) }));
    if (req.transform === 'hvp') {
      const v = req.wrt.length === 1 ? g.spec(fn.params[req.wrt[0]].shape, true) : g.tuple(req.wrt.map((i) => g.spec(fn.params[i].shape, true)));
      checks.push({ label: `argument ${checks.length + 1}`, path: 'v', value: f.createIdentifier('v'), spec: v });
    }
    body.unshift(g.argumentCheck(where, checks));
    if (!withArgumentHelpers.has(this)) {
      // The messages are built by two functions emitted once per module, off the hot path.
      withArgumentHelpers.add(this);
      this.out.push(...argumentHelpers(f, this.tsApi));
    }
    const decl = f.createFunctionDeclaration(
      undefined,
      undefined,
      name,
      undefined,
      wrapperParams.map((p) => f.createParameterDeclaration(undefined, undefined, p)),
      undefined,
      f.createBlock(body, true),
    );
    this.tsApi.setOriginalNode(decl, req.callSite);
    mapTo(this.tsApi, decl, req.callSite);
    return decl;
  }
}

/** `loss.fwd` -> `loss$fwd`; a primal def `loss` -> `loss$`, never the user's own `loss`. */
function irFunctionName(irName: string): string {
  return irName.includes('.') ? mangle(irName) : `${irName}$`;
}

/**
 * The defs a derivative of `fn` can reach: its callees and, for each of them, the defs lowered
 * from its custom rule (`g.jvp` and what that calls), which no call names but J uses instead of g.
 */
function closureOf(p: Program, fn: string): Program {
  let roots = [fn];
  let reachable = new Set<string>();
  for (;;) {
    reachable = new Set(calleesFirst(p, roots));
    const rules = p.defs.filter((d) => !reachable.has(d.name) && [...reachable].some((r) => d.name.startsWith(`${r}.`))).map((d) => d.name);
    if (rules.length === 0) break;
    roots = [...roots, ...rules];
  }
  return { defs: p.defs.filter((d) => reachable.has(d.name)) };
}

function numbersOnly(s: Shape): boolean {
  return s.kind === 'number' || ((s.kind === 'tuple' || s.kind === 'object') && componentShapes(s).every(numbersOnly));
}

function leafCount(s: Shape): number {
  return isScalarShape(s) ? 1 : componentShapes(s).reduce((n, c) => n + leafCount(c), 0);
}

/** The name a user knows the function by: `Fit.loss` for a method, else the IR's name. */
function sourceName(t: typeof ts, target: ts.SignatureDeclaration, fallback: string): string {
  if (t.isMethodDeclaration(target) && t.isIdentifier(target.name) && t.isClassLike(target.parent) && target.parent.name) {
    return `${target.parent.name.text}.${target.name.text}`;
  }
  return fallback;
}

/**
 * What a runtime argument check expects of a value: the kind of a leaf, a container of such
 * expectations, or '' for a value that is not read (the tangent of a boolean).
 */
type Spec = '' | 'number' | 'boolean' | 'string' | { readonly tag: 'tuple' | 'object' | 'arguments'; readonly expected: string; readonly items: readonly (readonly [string | number, Spec])[] };

interface ArgumentCheck {
  readonly label: string;
  readonly path: string;
  readonly value: ts.Expression;
  readonly spec: Spec;
}

const withArgumentHelpers = new WeakSet<ModuleCompiler>();

type SpecJson = string | (string | number | SpecJson)[];

function specJson(spec: Spec): SpecJson {
  return typeof spec === 'string' ? spec : [spec.tag, spec.expected, ...spec.items.flatMap(([k, c]) => [k, specJson(c)])];
}

/**
 * The cold half of the argument checks, emitted once per module:
 * `tsad$argumentError(where, expected, count, ...values)` returns the TypeError for the first
 * problem, `tsad$argumentProblem` walks one value. `expected` is JSON, `[[label, path, spec], ...]`
 * with a container spec `[tag, description, key, spec, key, spec, ...]`: one string constant at
 * the call, so the check adds little bytecode to the wrapper and V8 still inlines it. Plain
 * functions, so a module carries no import.
 */
function argumentHelpers(f: ts.NodeFactory, t: typeof ts): ts.Statement[] {
  const K = t.SyntaxKind;
  const id = (name: string) => f.createIdentifier(name);
  const str = (text: string) => f.createStringLiteral(text);
  const num = (n: number) => f.createNumericLiteral(n);
  const bin = (a: ts.Expression, op: ts.BinaryOperator, b: ts.Expression) => f.createBinaryExpression(a, op, b);
  const cat = (...parts: ts.Expression[]) => parts.reduce((a, b) => bin(a, K.PlusToken, b));
  const at = (e: ts.Expression, i: ts.Expression | number) => f.createElementAccessExpression(e, i);
  const typeOf = (e: ts.Expression) => f.createTypeOfExpression(e);
  const ret = (e: ts.Expression) => f.createReturnStatement(e);
  const typeError = (message: ts.Expression) => f.createNewExpression(id('TypeError'), undefined, [message]);
  const local = (name: string, init: ts.Expression) =>
    f.createVariableStatement(undefined, f.createVariableDeclarationList([f.createVariableDeclaration(name, undefined, undefined, init)], t.NodeFlags.Const));
  const forEach = (i: string, from: number, limit: ts.Expression, step: number, body: ts.Statement[]) =>
    f.createForStatement(
      f.createVariableDeclarationList([f.createVariableDeclaration(i, undefined, undefined, num(from))], t.NodeFlags.Let),
      bin(id(i), K.LessThanToken, limit),
      bin(id(i), K.PlusEqualsToken, num(step)),
      f.createBlock(body, true),
    );
  const fn = (name: string, params: string[], body: ts.Statement[]) =>
    f.createFunctionDeclaration(
      undefined,
      undefined,
      name,
      undefined,
      params.map((p) => (p.startsWith('...') ? f.createParameterDeclaration(undefined, f.createToken(K.DotDotDotToken), p.slice(3)) : f.createParameterDeclaration(undefined, undefined, p))),
      undefined,
      f.createBlock(body, true),
    );
  const quoted = (label: ts.Expression, path: ts.Expression) => cat(label, str(" '"), path, str("' must be "));

  const length = f.createPropertyAccessExpression(id('params'), 'length');
  const error = fn('tsad$argumentError', ['where', 'expected', 'count', '...values'], [
    local('params', f.createCallExpression(f.createPropertyAccessExpression(id('JSON'), 'parse'), undefined, [id('expected')])),
    f.createIfStatement(
      bin(id('count'), K.ExclamationEqualsEqualsToken, length),
      ret(typeError(cat(id('where'), str(': expects '), length, f.createConditionalExpression(bin(length, K.EqualsEqualsEqualsToken, num(1)), undefined, str(' argument, got '), undefined, str(' arguments, got ')), id('count')))),
    ),
    forEach('i', 0, length, 1, [
      local('problem', f.createCallExpression(id('tsad$argumentProblem'), undefined, [0, 1, 2].map((k) => at(at(id('params'), id('i')), k)).concat(at(id('values'), id('i'))))),
      f.createIfStatement(id('problem'), ret(typeError(cat(id('where'), str(': '), id('problem'))))),
    ]),
    ret(typeError(cat(id('where'), str(': invalid arguments')))),
  ]);

  const v = id('v');
  const index = f.createParenthesizedExpression(bin(f.createParenthesizedExpression(bin(id('i'), K.MinusToken, num(2))), K.SlashToken, num(2)));
  const isArguments = bin(at(id('spec'), 0), K.EqualsEqualsEqualsToken, str('arguments'));
  const problem = fn('tsad$argumentProblem', ['label', 'path', 'spec', 'v'], [
    f.createIfStatement(bin(id('spec'), K.EqualsEqualsEqualsToken, str('')), ret(str(''))),
    local(
      'got',
      f.createConditionalExpression(
        bin(v, K.EqualsEqualsEqualsToken, f.createNull()),
        undefined,
        str('null'),
        undefined,
        f.createConditionalExpression(
          f.createCallExpression(f.createPropertyAccessExpression(id('Array'), 'isArray'), undefined, [v]),
          undefined,
          cat(str('an array of length '), f.createPropertyAccessExpression(v, 'length')),
          undefined,
          typeOf(v),
        ),
      ),
    ),
    f.createIfStatement(
      bin(typeOf(id('spec')), K.EqualsEqualsEqualsToken, str('string')),
      ret(f.createConditionalExpression(bin(typeOf(v), K.EqualsEqualsEqualsToken, id('spec')), undefined, str(''), undefined, cat(quoted(id('label'), id('path')), str('a '), id('spec'), str(', got '), id('got')))),
    ),
    f.createIfStatement(
      [
        bin(v, K.EqualsEqualsEqualsToken, f.createNull()),
        bin(bin(typeOf(v), K.ExclamationEqualsEqualsToken, str('object')), K.AmpersandAmpersandToken, bin(typeOf(v), K.ExclamationEqualsEqualsToken, str('function'))),
        bin(isArguments, K.AmpersandAmpersandToken, bin(f.createPropertyAccessExpression(v, 'length'), K.ExclamationEqualsEqualsToken, bin(bin(f.createPropertyAccessExpression(id('spec'), 'length'), K.MinusToken, num(2)), K.SlashToken, num(2)))),
      ].reduce((a, b) => bin(a, K.BarBarToken, b)),
      ret(cat(quoted(id('label'), id('path')), at(id('spec'), 1), str(', got '), id('got'))),
    ),
    forEach('i', 2, f.createPropertyAccessExpression(id('spec'), 'length'), 2, [
      local('key', at(id('spec'), id('i'))),
      local(
        'inner',
        f.createConditionalExpression(
          isArguments,
          undefined,
          f.createCallExpression(id('tsad$argumentProblem'), undefined, [cat(id('path'), str('['), index, str(']')), id('key'), at(id('spec'), bin(id('i'), K.PlusToken, num(1))), at(v, index)]),
          undefined,
          f.createCallExpression(id('tsad$argumentProblem'), undefined, [
            id('label'),
            f.createConditionalExpression(
              bin(at(id('spec'), 0), K.EqualsEqualsEqualsToken, str('tuple')),
              undefined,
              cat(id('path'), str('['), id('key'), str(']')),
              undefined,
              cat(id('path'), str('.'), id('key')),
            ),
            at(id('spec'), bin(id('i'), K.PlusToken, num(1))),
            at(v, id('key')),
          ]),
        ),
      ),
      f.createIfStatement(id('inner'), ret(id('inner'))),
    ]),
    ret(str('')),
  ]);
  return [error, problem];
}

/** Expression builders for the wrappers. */
class Gen {
  constructor(
    private readonly f: ts.NodeFactory,
    private readonly t: typeof ts,
    private readonly taken: Set<string>,
  ) {}

  /** A local name that does not shadow a parameter of the wrapper. */
  fresh(base: string): string {
    let name = base;
    for (let k = 1; this.taken.has(name); k++) name = `${base}_${k}`;
    this.taken.add(name);
    return name;
  }

  const(names: readonly string[], init: ts.Expression, count = names.length): ts.Statement {
    const f = this.f;
    const binding: ts.BindingName =
      count === 1 && names.length === 1 ? f.createIdentifier(names[0]) : f.createArrayBindingPattern(names.map((n) => f.createBindingElement(undefined, undefined, n)));
    return f.createVariableStatement(undefined, f.createVariableDeclarationList([f.createVariableDeclaration(binding, undefined, undefined, init)], this.t.NodeFlags.Const));
  }

  /** The scalar leaves of a user value, in IR order (object fields by name). */
  leaves(e: ts.Expression, s: Shape): ts.Expression[] {
    const f = this.f;
    if (isScalarShape(s)) return [e];
    if (s.kind === 'tuple') return s.elems.flatMap((c, i) => this.leaves(f.createElementAccessExpression(e, i), c));
    return s.fields.flatMap(([k, c]) => this.leaves(f.createPropertyAccessExpression(e, k), c));
  }

  /** Fresh local names for the leaves of a shape: `p_bar`, or `p_bar_amplitude`, `q_bar_0`, ... */
  leafNames(base: string, s: Shape): string[] {
    if (isScalarShape(s)) return [this.fresh(base)];
    if (s.kind === 'tuple') return s.elems.flatMap((c, i) => this.leafNames(`${base}_${i}`, c));
    return s.fields.flatMap(([k, c]) => this.leafNames(`${base}_${k}`, c));
  }

  /** A user value of a shape from its leaves, in order. */
  build(s: Shape, leaves: readonly string[]): ts.Expression {
    const f = this.f;
    let next = 0;
    const go = (x: Shape): ts.Expression => {
      if (isScalarShape(x)) return f.createIdentifier(leaves[next++]);
      if (x.kind === 'tuple') return f.createArrayLiteralExpression(x.elems.map(go));
      return f.createObjectLiteralExpression(x.fields.map(([k, c]) => f.createPropertyAssignment(k, go(c))));
    };
    return go(s);
  }

  /** User value -> IR value (objects become arrays in field-name order). */
  toIR(e: ts.Expression, s: Shape): ts.Expression {
    const f = this.f;
    if (isScalarShape(s)) return e;
    if (s.kind === 'tuple') return s.elems.every((c) => c.kind === 'number') ? e : f.createArrayLiteralExpression(s.elems.map((c, i) => this.toIR(f.createElementAccessExpression(e, i), c)));
    return f.createArrayLiteralExpression(s.fields.map(([k, c]) => this.toIR(f.createPropertyAccessExpression(e, k), c)));
  }

  /** IR value -> user value. */
  fromIR(e: ts.Expression, s: Shape): ts.Expression {
    const f = this.f;
    if (isScalarShape(s)) return e;
    if (s.kind === 'tuple') return s.elems.every((c) => c.kind === 'number') ? e : f.createArrayLiteralExpression(s.elems.map((c, i) => this.fromIR(f.createElementAccessExpression(e, i), c)));
    return f.createObjectLiteralExpression(s.fields.map(([k, c], i) => f.createPropertyAssignment(k, this.fromIR(f.createElementAccessExpression(e, i), c))));
  }

  /** The k-th basis tangent of a shape, as an IR value. */
  basis(s: Shape, k: number): ts.Expression {
    let i = 0;
    const build = (x: Shape): ts.Expression => {
      if (isScalarShape(x)) return this.f.createNumericLiteral(i++ === k ? 1 : 0);
      return this.f.createArrayLiteralExpression(componentShapes(x).map(build));
    };
    return build(s);
  }

  zeros(s: Shape): ts.Expression {
    return this.basis(s, -1);
  }

  /** What the argument check of a value of shape `s` expects; a tangent's booleans and strings are not read. */
  spec(s: Shape, tangent: boolean): Spec {
    if (s.kind === 'number') return 'number';
    if (s.kind === 'boolean' || s.kind === 'string') return tangent ? '' : s.kind;
    if (s.kind === 'tuple') return this.tuple(s.elems.map((c) => this.spec(c, tangent)));
    const items = s.fields.map(([k, c]) => [k, this.spec(c, tangent)] as const);
    if (items.every(([, c]) => c === '')) return '';
    const names = s.fields.map(([k]) => k).join(', ');
    return { tag: 'object', expected: items.every(([, c]) => c === 'number') ? `an object with number fields ${names}` : `an object with fields ${names}`, items };
  }

  tuple(elems: readonly Spec[]): Spec {
    if (elems.every((c) => c === '')) return '';
    const what = elems.every((c) => c === 'number') ? 'numbers' : 'elements';
    return { tag: 'tuple', expected: `an array of ${elems.length} ${what}`, items: elems.map((c, i) => [i, c] as const) };
  }

  /** An array of named values, one per parameter (jvp's primals and tangents). */
  list(items: readonly (readonly [string, Spec])[]): Spec {
    return { tag: 'arguments', expected: `an array of ${items.length} values`, items };
  }

  /**
   * `if (<any check fails>) throw tsad$argumentError(...)`: one test per leaf and per container
   * on the happy path, which allocates nothing; the description of what was expected is built
   * only when the check fails.
   */
  argumentCheck(where: string, checks: readonly ArgumentCheck[]): ts.Statement {
    const f = this.f;
    const K = this.t.SyntaxKind;
    const count = f.createPropertyAccessExpression(f.createIdentifier('arguments'), 'length');
    const failures = [f.createBinaryExpression(count, K.ExclamationEqualsEqualsToken, f.createNumericLiteral(checks.length)), ...checks.flatMap((c) => this.failures(c.value, c.spec))];
    const report = f.createCallExpression(f.createIdentifier('tsad$argumentError'), undefined, [
      f.createStringLiteral(where),
      f.createStringLiteral(JSON.stringify(checks.map((c) => [c.label, c.path, specJson(c.spec)])), true),
      count,
      ...checks.map((c) => c.value),
    ]);
    return f.createIfStatement(
      failures.reduce((a, b) => f.createBinaryExpression(a, K.BarBarToken, b)),
      f.createThrowStatement(report),
    );
  }

  /** Conditions, any of which means `e` does not fit `spec`. */
  private failures(e: ts.Expression, spec: Spec): ts.Expression[] {
    const f = this.f;
    const K = this.t.SyntaxKind;
    if (spec === '') return [];
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

  /** Statements the expression builders needed (temporaries); the caller places them. */
  private pending: ts.Statement[] = [];

  takePending(): ts.Statement[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }

  /** The scalars of an IR value, in order, as an array. A flat IR tuple already is one. */
  flatten(e: ts.Expression, s: Shape, base = 'part'): ts.Expression {
    const f = this.f;
    if (isScalarShape(s)) return f.createArrayLiteralExpression([e]);
    const parts = componentShapes(s);
    if (parts.every((c) => isScalarShape(c))) return e;
    const name = this.fresh(base);
    this.pending.push(this.const([name], e));
    const leaves: ts.Expression[] = [];
    const walk = (x: ts.Expression, sh: Shape) => {
      if (isScalarShape(sh)) leaves.push(x);
      else componentShapes(sh).forEach((c, i) => walk(f.createElementAccessExpression(x, i), c));
    };
    walk(f.createIdentifier(name), s);
    return f.createArrayLiteralExpression(leaves);
  }

  /** rows[i][j] = columns[j][i] for an m x n matrix given by columns. */
  transpose(columns: string, m: number, n: number): ts.Expression {
    const f = this.f;
    const rows = Array.from({ length: m }, (_, i) =>
      f.createArrayLiteralExpression(Array.from({ length: n }, (_, j) => f.createElementAccessExpression(f.createElementAccessExpression(f.createIdentifier(columns), j), i))),
    );
    return f.createArrayLiteralExpression(rows);
  }
}
