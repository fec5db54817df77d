// The bridge from a transform call site to generated code: lower the marked function, check
// that the transform applies to it, let the transform's planner run the drivers and describe
// the wrapper (plan/), and let the backend write the code, each def once per module.
import type * as ts from 'typescript';
import { Program } from './ir/syntax';
import { Lowerer, LoweredFunction } from './frontend/lower';
import { Shape, componentShapes, describeShape } from './frontend/shapes';
import { fail } from './frontend/diagnostics';
import { DriverOptions, vjpOf } from './ad/drivers';
import { closureOf } from './plan/closure';
import { PLANNERS } from './plan/planners';
import { DRIVER, Reverse } from './plan/request';
import { TRANSFORMS, TransformKind } from './plan/transforms';
import type { Backend } from './backend/backend';
import { TypeScriptBackend, TypeScriptSite } from './backend/typescript';
import type { Host } from './plugin/host';

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

export class ModuleCompiler {
  private readonly lowerer: Lowerer;
  private readonly backend: Backend<ts.Statement, TypeScriptSite>;
  private readonly driver: DriverOptions;
  private readonly out: ts.Statement[] = [];
  private readonly wrappers = new Map<string, CompiledTransform>();
  private readonly reverses = new Map<string, Reverse>();

  constructor(
    private readonly host: Host,
    checker: ts.TypeChecker,
    factory: ts.NodeFactory,
  ) {
    this.lowerer = new Lowerer(host.ts, checker);
    this.driver = { ...DRIVER, recheck: host.recheck };
    this.backend = new TypeScriptBackend({
      ts: host.ts,
      factory,
      original: (irName) => this.lowerer.declarationOf(irName),
      originOf: (irName, variable) => this.lowerer.originOf(irName, variable),
    });
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
    const spec = TRANSFORMS[req.transform];
    if (spec.scalarResult && fn.result.kind !== 'number') {
      fail(1004, req.callSite, `${req.transform} needs a function that returns a number; '${fn.name}' returns a ${fn.result.kind}`);
    }
    if (spec.wrt) {
      for (const i of req.wrt) {
        const p = fn.params[i];
        if (!numbersOnly(p.shape)) {
          fail(1002, req.callSite, `cannot differentiate '${fn.name}' with respect to '${p.name}': it holds ${describeShape(p.shape)}, and booleans and strings have no derivative`);
        }
      }
    }
    const suffix = req.wrt.length === 1 && req.wrt[0] === 0 ? '' : `_${req.wrt.join('_')}`;
    const name = `${fn.name}_${req.transform}${suffix}`;
    const plan = PLANNERS[req.transform]({
      kind: req.transform,
      program,
      fn,
      wrt: req.wrt,
      where: `${req.transform}(${sourceName(this.host.ts, req.target, fn.name)})`,
      driver: this.driver,
      reverse: () => this.reverse(program, fn.name),
    });
    this.out.push(...this.backend.callSite(plan, name, { target: req.target, callSite: req.callSite }));
    const compiled: CompiledTransform = { name, replaces: spec.form };
    this.wrappers.set(key, compiled);
    return compiled;
  }

  /** One reverse pass per function and module, shared by its grad, valueAndGrad, vjp and jacrev call sites. */
  private reverse(program: Program, fn: string): Reverse {
    let v = this.reverses.get(fn);
    if (!v) {
      v = vjpOf(program, fn, this.driver);
      this.reverses.set(fn, v);
    }
    return v;
  }
}

function numbersOnly(s: Shape): boolean {
  return s.kind === 'number' || ((s.kind === 'tuple' || s.kind === 'object') && componentShapes(s).every(numbersOnly));
}

/** The name a user knows the function by: `Fit.loss` for a method, else the IR's name. */
function sourceName(t: typeof ts, target: ts.SignatureDeclaration, fallback: string): string {
  if (t.isMethodDeclaration(target) && t.isIdentifier(target.name) && t.isClassLike(target.parent) && target.parent.name) {
    return `${target.parent.name.text}.${target.name.text}`;
  }
  return fallback;
}
