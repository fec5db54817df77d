// Transforms of a function-valued parameter (docs/frontend.md, "Functions passed as values"): a
// user's own `minimize(loss, x0)` that calls `grad(loss)`. Which function `loss` is, is known only
// at run time; which functions are passed to it is known at build time, at the call sites. So a
// call site that passes a marked function or an arrow to a parameter some transform is applied
// to (in the callee, or in a function the callee hands the parameter on to) registers the
// derivatives compiled for that function with the function value (runtime/derivatives.ts), and
// the transform of the parameter looks them up when it runs, keyed by transform and wrt.
import type * as ts from 'typescript';
import { isRuleCall, tsadExportName, wrtList } from '../frontend/markers';
import { TsadDiagnosticError, diagnosticMessage } from '../frontend/diagnostics';
import { TRANSFORMS, TransformKind, isTransformKind } from '../plan/transforms';

/** A transform a function value needs: which, with respect to which parameters, and its registry key. */
export interface Need {
  readonly kind: TransformKind;
  readonly wrt: readonly number[];
  readonly key: string;
}

/** An argument of a call passed to a parameter that needs derivatives. */
export interface PassedArgument {
  readonly index: number;
  readonly arg: ts.Expression;
  readonly needs: readonly Need[];
}

type FunctionLike = ts.SignatureDeclaration & { readonly body?: ts.Node };

export class PassedFunctions {
  /** Per function: the transforms each parameter needs (by index), made once. */
  private readonly needs = new Map<ts.Node, ReadonlyMap<number, readonly Need[]>>();
  private readonly inProgress = new Set<ts.Node>();

  constructor(
    private readonly tsApi: typeof ts,
    private readonly checker: ts.TypeChecker,
  ) {}

  /** The function-typed parameter `expr` names, with its function and index; undefined for anything else. */
  parameterOf(expr: ts.Expression): { readonly fn: FunctionLike; readonly index: number; readonly param: ts.ParameterDeclaration } | undefined {
    const t = this.tsApi;
    const e = unwrap(t, expr);
    if (!t.isIdentifier(e)) return undefined;
    const decl = this.checker.getSymbolAtLocation(e)?.valueDeclaration;
    if (!decl || !t.isParameter(decl) || !t.isIdentifier(decl.name)) return undefined;
    const fn = decl.parent as FunctionLike;
    if (!t.isFunctionLike(fn) || !fn.body) return undefined;
    if (this.checker.getTypeAtLocation(decl).getCallSignatures().length === 0) return undefined;
    return { fn, index: fn.parameters.indexOf(decl), param: decl };
  }

  /** What `kind(param, options)` needs: its wrt (by index, or by the names of the parameter's function type), by default the first parameter. */
  needOf(call: ts.CallExpression, kind: TransformKind, param: ts.ParameterDeclaration): Need {
    const t = this.tsApi;
    const options = TRANSFORMS[kind].options ? call.arguments[1] : undefined;
    let wrt: readonly (string | number)[] = [0];
    if (options) {
      if (!t.isObjectLiteralExpression(options)) throw new TsadDiagnosticError(1003, options, diagnosticMessage(1003, `the options of ${kind} must be an object literal`));
      for (const p of options.properties) {
        if (t.isPropertyAssignment(p) && p.name.getText() === 'wrt') wrt = wrtList(p.initializer);
        else throw new TsadDiagnosticError(1003, p, diagnosticMessage(1003, `unknown option '${p.name?.getText()}' (only wrt is supported)`));
      }
    }
    const [signature] = this.checker.getTypeAtLocation(param).getCallSignatures();
    const names = signature.getParameters().map((s) => s.name);
    const indices = wrt.map((w) => {
      const i = typeof w === 'number' ? w : names.indexOf(w);
      if (!(Number.isInteger(i) && i >= 0 && i < names.length)) {
        throw new TsadDiagnosticError(1002, options ?? call, diagnosticMessage(1002, `'${w}' is not a parameter of '${param.name.getText()}' (its type's parameters: ${names.join(', ')})`));
      }
      return i;
    });
    return { kind, wrt: indices, key: `${kind}|${indices.join(',')}` };
  }

  /** The arguments of `call` that go to a parameter needing derivatives (none for most calls). */
  sitesOf(call: ts.CallExpression): PassedArgument[] {
    const t = this.tsApi;
    if (!call.arguments.some((a) => isFunctionOrName(t, a))) return [];
    const callee = this.calleeOf(call);
    if (!callee) return [];
    const needs = this.needsOf(callee);
    const out: PassedArgument[] = [];
    call.arguments.forEach((arg, index) => {
      const n = needs.get(index);
      if (n && n.length > 0 && !t.isSpreadElement(arg)) out.push({ index, arg, needs: n });
    });
    return out;
  }

  /** The function a call runs, where tsad can see its code. */
  private calleeOf(call: ts.CallExpression): FunctionLike | undefined {
    const t = this.tsApi;
    if (call.arguments.some((a) => t.isSpreadElement(a))) return undefined;
    const decl = this.checker.getResolvedSignature(call)?.declaration as FunctionLike | undefined;
    if (!decl || !t.isFunctionLike(decl) || !decl.body || decl.getSourceFile().isDeclarationFile) return undefined;
    return decl;
  }

  /** The transforms each parameter of `fn` needs: applied to it in its body, or by a function it hands the parameter to. */
  needsOf(fn: FunctionLike): ReadonlyMap<number, readonly Need[]> {
    const known = this.needs.get(fn);
    if (known) return known;
    // A cycle of functions handing a parameter round adds nothing the first pass does not find.
    if (this.inProgress.has(fn) || !fn.body) return new Map();
    this.inProgress.add(fn);
    const t = this.tsApi;
    const found = new Map<number, Need[]>();
    const add = (index: number, need: Need) => {
      const list = found.get(index) ?? [];
      if (!list.some((n) => n.key === need.key)) list.push(need);
      found.set(index, list);
    };
    const own = (e: ts.Expression) => {
      const p = this.parameterOf(e);
      return p && p.fn === fn ? p : undefined;
    };
    const visit = (n: ts.Node): void => {
      if (t.isCallExpression(n)) {
        const name = tsadExportName(n.expression, this.checker);
        const target = n.arguments[0];
        const p = target && own(target);
        if (name && isTransformKind(name) && !isRuleCall(n, this.checker)) {
          if (p) {
            try {
              add(p.index, this.needOf(n, name, p.param));
            } catch {
              // Its own call site reports a bad wrt.
            }
          }
        } else if (n.arguments.some((a) => own(a))) {
          const callee = this.calleeOf(n);
          const inner = callee ? this.needsOf(callee) : undefined;
          n.arguments.forEach((a, i) => {
            const q = own(a);
            if (q) for (const need of inner?.get(i) ?? []) add(q.index, need);
          });
        }
      }
      t.forEachChild(n, visit);
    };
    visit(fn.body);
    this.inProgress.delete(fn);
    this.needs.set(fn, found);
    return found;
  }
}

function unwrap(t: typeof ts, e: ts.Expression): ts.Expression {
  while (t.isParenthesizedExpression(e) || t.isAsExpression(e) || t.isNonNullExpression(e) || t.isSatisfiesExpression(e)) e = e.expression;
  return e;
}

/** An argument that may be a function value: one written in place or a name. */
function isFunctionOrName(t: typeof ts, a: ts.Expression): boolean {
  const e = unwrap(t, a);
  return t.isArrowFunction(e) || t.isFunctionExpression(e) || t.isIdentifier(e) || t.isPropertyAccessExpression(e) || t.isCallExpression(e);
}
