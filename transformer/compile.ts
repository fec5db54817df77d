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
    const { program, fn } = this.lower(req.target);
    const key = `${fn.name}|${req.transform}|${req.wrt.join(',')}`;
    const cached = this.wrappers.get(key);
    if (cached) return cached;
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
    let body: ts.Statement[];
    let wrapperParams = params;
    switch (req.transform) {
      case 'grad':
      case 'valueAndGrad': {
        // One straight-line function computes the value and exactly the requested gradients, on
        // scalar leaves: the wrapper passes fields and elements and builds the user's shapes.
        const withValue = req.transform === 'valueAndGrad';
        const vg = valueAndGradOf(program, fn.name, { ...DRIVER, wrt: req.wrt, value: withValue, flatSignature: true });
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
        const v = vjpOf(program, fn.name, DRIVER);
        this.emit(v.program, [v.fwd, v.bwd], req.target);
        const [value, tape] = [g.fresh('value'), g.fresh('tape')];
        const bars = fn.params.map((p) => g.fresh(`${p.name}_bar`));
        const pullback = f.createArrowFunction(
          undefined,
          undefined,
          [f.createParameterDeclaration(undefined, undefined, 'cotangent')],
          undefined,
          undefined,
          f.createBlock([
            g.const(bars, f.createCallExpression(this.fnId(v.bwd), undefined, [f.createIdentifier(tape), g.toIR(f.createIdentifier('cotangent'), fn.result)]), bars.length),
            f.createReturnStatement(f.createArrayLiteralExpression(fn.params.map((p, i) => g.fromIR(f.createIdentifier(bars[i]), p.shape)))),
          ]),
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
        const fLin = f.createArrowFunction(
          undefined,
          undefined,
          dots.map((d) => f.createParameterDeclaration(undefined, undefined, d)),
          undefined,
          undefined,
          g.fromIR(f.createCallExpression(this.fnId(l.lin), undefined, [f.createIdentifier(tape), ...fn.params.map((p, i) => g.toIR(f.createIdentifier(dots[i]), p.shape))]), fn.result),
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
          const v = vjpOf(program, fn.name, DRIVER);
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

function numbersOnly(s: Shape): boolean {
  return s.kind === 'number' || ((s.kind === 'tuple' || s.kind === 'object') && componentShapes(s).every(numbersOnly));
}

function leafCount(s: Shape): number {
  return isScalarShape(s) ? 1 : componentShapes(s).reduce((n, c) => n + leafCount(c), 0);
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
