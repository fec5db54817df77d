// The source-file rewrite shared by every integration (ts-patch, ts-jest, transform()):
// transform calls become references to generated functions, markers disappear, generated code is
// appended to the module. Diagnostics are caught here and only here.
import type * as ts from 'typescript';
import { ModuleCompiler, TransformKind } from '../compile';
import { TsadDiagnosticError, diagnosticMessage, isTsadDiagnostic } from '../frontend/diagnostics';
import { resolveMarkedFunction, tsadExportName, useTypeScript, wrtList } from '../frontend/markers';

const TRANSFORMS: ReadonlySet<string> = new Set(['grad', 'valueAndGrad', 'jvp', 'vjp', 'linearize', 'jacobian', 'jacfwd', 'jacrev', 'hessian', 'hvp']);
/** Transforms whose second argument is an options object. */
const WITH_OPTIONS: ReadonlySet<string> = new Set(['grad', 'valueAndGrad', 'jacobian', 'jacfwd', 'jacrev', 'hessian', 'hvp']);

export type Report = (e: TsadDiagnosticError, sf: ts.SourceFile) => void;

/** TS diagnostic codes for ours: 900000 + n, so `tsc` never shows a real TS code. */
export const DIAGNOSTIC_CODE_BASE = 900000;

export function toDiagnostic(tsApi: typeof ts, e: TsadDiagnosticError, sf: ts.SourceFile): ts.Diagnostic {
  const node = e.node && e.node.pos >= 0 ? e.node : undefined;
  return {
    file: sf,
    start: node ? node.getStart(sf) : 0,
    length: node ? node.getWidth(sf) : 0,
    messageText: `${e.codeText}: ${e.message}`,
    category: tsApi.DiagnosticCategory.Error,
    code: DIAGNOSTIC_CODE_BASE + e.code,
    source: 'tsad',
  };
}

/** "file:line:col - error TSAD1001: message" */
export function formatDiagnostic(tsApi: typeof ts, d: ts.Diagnostic): string {
  const text = tsApi.flattenDiagnosticMessageText(d.messageText, '\n');
  if (!d.file || d.start === undefined) return `error: ${text}`;
  const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
  const [code, ...rest] = text.split(': ');
  return `${d.file.fileName}:${line + 1}:${character + 1} - error ${code}: ${rest.join(': ')}`;
}

function internal(e: unknown, node: ts.Node): TsadDiagnosticError {
  // TSAD_DEBUG=1 adds our stack to the report, for bug reports; users never see it otherwise.
  const message = e instanceof Error ? (process.env.TSAD_DEBUG ? `${e.message}\n${e.stack}` : e.message) : String(e);
  return new TsadDiagnosticError(1099, node, diagnosticMessage(1099, `internal error while differentiating: ${message}`));
}

export function rewriteSourceFile(tsApi: typeof ts, checker: ts.TypeChecker, ctx: ts.TransformationContext, sf: ts.SourceFile, report: Report): ts.SourceFile {
  useTypeScript(tsApi);
  const f = ctx.factory;
  const compiler = new ModuleCompiler(tsApi, checker, f);
  const fail = (e: unknown, node: ts.Node) => {
    const d = isTsadDiagnostic(e) ? e : internal(e, node);
    report(d, sf);
    d.related.forEach((r) => report(r, sf));
  };

  const transformCall = (call: ts.CallExpression, kind: string): ts.Expression => {
    const [target, ...rest] = call.arguments;
    if (!target) throw new TsadDiagnosticError(1005, call, diagnosticMessage(1005, `${kind} needs the function to differentiate as its first argument`));
    const marked = resolveMarkedFunction(target, checker);
    if (!marked) {
      throw new TsadDiagnosticError(1001, target, diagnosticMessage(1001, `'${target.getText(sf)}' is not a differentiable function`));
    }
    const params = marked.decl.parameters.map((p) => p.name.getText());
    let wrt: readonly (string | number)[] = marked.marker.wrt ?? [0];
    const options = WITH_OPTIONS.has(kind) ? rest[0] : undefined;
    if (options) {
      if (!tsApi.isObjectLiteralExpression(options)) throw new TsadDiagnosticError(1003, options, diagnosticMessage(1003, `the options of ${kind} must be an object literal`));
      for (const p of options.properties) {
        if (tsApi.isPropertyAssignment(p) && p.name.getText(sf) === 'wrt') wrt = wrtList(p.initializer);
        else throw new TsadDiagnosticError(1003, p, diagnosticMessage(1003, `unknown option '${p.name?.getText(sf)}' (only wrt is supported)`));
      }
    }
    const indices = wrt.map((w) => {
      const i = typeof w === 'number' ? w : params.indexOf(w);
      if (!(Number.isInteger(i) && i >= 0 && i < params.length)) {
        throw new TsadDiagnosticError(1002, options ?? call, diagnosticMessage(1002, `'${w}' is not a parameter of '${target.getText(sf)}' (parameters: ${params.join(', ')})`));
      }
      return i;
    });
    const compiled = compiler.compile({ target: marked.decl, transform: kind as TransformKind, wrt: indices, callSite: call });
    const id = f.createIdentifier(compiled.name);
    if (compiled.replaces === 'reference') return id;
    return f.createCallExpression(id, undefined, rest.map((a) => tsApi.visitNode(a, visit) as ts.Expression));
  };

  // Only the paths down to tsad's calls and decorators are visited: the rest of the file (which
  // may nest thousands deep, like a long sum) is returned untouched without recursing into it.
  const interesting = pathsToTsadNodes(tsApi, checker, sf);
  const visit = (node: ts.Node): ts.Node => {
    if (!interesting.has(node)) return node;
    if (tsApi.isCallExpression(node)) {
      const name = tsadExportName(node.expression, checker);
      if (name && TRANSFORMS.has(name)) {
        try {
          return transformCall(node, name);
        } catch (e) {
          fail(e, node);
          return tsApi.visitEachChild(node, visit, ctx);
        }
      }
      // The wrapper form: differentiable(fn) is fn once derivatives are compiled.
      if (name === 'differentiable' && node.arguments.length === 1 && (tsApi.isArrowFunction(node.arguments[0]) || tsApi.isFunctionExpression(node.arguments[0]))) {
        return tsApi.visitNode(node.arguments[0], visit) as ts.Expression;
      }
    }
    // derivative(f, rule) registrations are compiled into the derivatives: nothing runs them.
    if (tsApi.isExpressionStatement(node) && tsApi.isCallExpression(node.expression)) {
      const callee = node.expression.expression;
      const registered = tsApi.isPropertyAccessExpression(callee) ? callee.expression : callee;
      if (tsadExportName(registered, checker) === 'derivative') return undefined as unknown as ts.Node;
    }
    if (tsApi.isDecorator(node)) {
      const e = node.expression;
      const target = tsApi.isCallExpression(e) ? e.expression : e;
      if (tsadExportName(target, checker) === 'differentiable') return undefined as unknown as ts.Node;
    }
    return tsApi.visitEachChild(node, visit, ctx);
  };

  let out: ts.SourceFile;
  try {
    out = tsApi.visitEachChild(sf, visit, ctx);
  } catch (e) {
    fail(e, sf);
    return sf;
  }
  const generated = compiler.statements();
  if (generated.length === 0) return out;
  return f.updateSourceFile(out, [...out.statements, ...generated]);
}

/** Every node on a path from the file to a call of a tsad export or a decorator, found without recursion. */
function pathsToTsadNodes(tsApi: typeof ts, checker: ts.TypeChecker, sf: ts.SourceFile): Set<ts.Node> {
  const found = new Set<ts.Node>();
  const stack: ts.Node[] = [sf];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const hit =
      (tsApi.isCallExpression(node) && tsadExportName(node.expression, checker) !== undefined) ||
      (tsApi.isDecorator(node) && tsadExportName(tsApi.isCallExpression(node.expression) ? node.expression.expression : node.expression, checker) !== undefined);
    if (hit) {
      for (let n: ts.Node | undefined = node; n && !found.has(n); n = n.parent) found.add(n);
    }
    tsApi.forEachChild(node, (child) => {
      stack.push(child);
    });
  }
  return found;
}
