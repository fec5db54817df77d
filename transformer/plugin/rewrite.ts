// The source-file rewrite shared by every integration (ts-patch, ts-jest, transform()):
// transform calls become references to generated functions, markers disappear, generated code is
// appended to the module. Diagnostics are caught here and only here. Any other exception is a
// bug in tsad: it becomes TSAD9000 at the call site being compiled and at its function (see
// internalError), so that the rest of the build goes on and the bug can be reported.
import type * as ts from 'typescript';
import { CompiledTransform, ModuleCompiler } from '../compile';
import { REPORTED_BY_TYPESCRIPT, TsadDiagnosticError, diagnosticMessage, isTsadDiagnostic } from '../frontend/diagnostics';
import { INTERNAL_ERROR } from '../frontend/codes/internal';
import { isNote } from '../frontend/codes/notes';
import { TapedKind, TapedModule } from '../taped';
import { Need, PassedArgument, PassedFunctions } from './passedFunctions';
import { nestedTooDeep } from './tooDeep';
import { TRANSFORMS, TransformKind, isTransformKind } from '../plan/transforms';
import type { Host } from './host';
import { transformValueUses } from '../frontend/transformValues';
import { appliedLocalTransform, capturesOf, declaredAround, resolveTarget, wrtOf } from '../frontend/nested';
import { isInstanceMethod } from '../frontend/methods';
import { checkRuleTarget, isMarkedFunction, isRuleCall, markerOf, notDifferentiableReason, resolveMarkedFunction, tsadExportName, useTypeScript, wrtList } from '../frontend/markers';

/**
 * One problem, reported once per file being emitted. `neededBy` holds the transform calls that
 * needed the code the problem is in (they become related information when that code is
 * elsewhere). `sf` is the file being emitted: the diagnostic's own file is its node's.
 */
export type Report = (e: TsadDiagnosticError, sf: ts.SourceFile, neededBy?: readonly ts.Node[]) => void;

/** TS diagnostic codes for ours: 900000 + n, so `tsc` never shows a real TS code. */
export const DIAGNOSTIC_CODE_BASE = 900000;

interface Location {
  readonly file: ts.SourceFile;
  readonly start: number;
  readonly length: number;
}

/**
 * Where a node is, measured in its own source file: a problem found while compiling a call site
 * often lies in another module (the callee's body), and positions measured against the file
 * being emitted would point into unrelated text there.
 */
function locate(node: ts.Node | undefined, fallback: ts.SourceFile): Location {
  const file = node && node.pos >= 0 ? node.getSourceFile() : undefined;
  if (!node || !file) return { file: fallback, start: 0, length: 0 };
  return { file, start: node.getStart(file), length: node.getWidth(file) };
}

export function toDiagnostic(tsApi: typeof ts, e: TsadDiagnosticError, sf: ts.SourceFile, neededBy: readonly ts.Node[] = []): ts.Diagnostic {
  const at = locate(e.node, sf);
  const related = neededBy
    .map((n) => ({ node: n, where: locate(n, sf) }))
    // A call site that contains the problem (grad(f) with f unmarked) needs no pointer to itself.
    .filter(({ where }) => !(where.file === at.file && where.start <= at.start && at.start + at.length <= where.start + where.length))
    .map(({ node, where }) => ({
      ...where,
      category: tsApi.DiagnosticCategory.Message,
      code: DIAGNOSTIC_CODE_BASE + e.code,
      messageText: `needed by ${shortText(node, where.file)} here`,
    }));
  return {
    ...at,
    messageText: `${e.codeText}: ${e.message}`,
    category: isNote(e.code) ? tsApi.DiagnosticCategory.Message : tsApi.DiagnosticCategory.Error,
    code: DIAGNOSTIC_CODE_BASE + e.code,
    source: 'tsad',
    ...(related.length > 0 ? { relatedInformation: related } : {}),
  };
}

function shortText(node: ts.Node, file: ts.SourceFile): string {
  const text = node.getText(file).replace(/\s+/g, ' ');
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * A Report for a whole program emit (ts-patch calls the plugin for the program, and may emit its
 * files in several batches): each problem becomes one diagnostic, however many call sites in
 * however many files needed the broken function; later call sites are added to its related
 * information (the diagnostic is only printed after the emit, so growing it is safe).
 */
export function diagnosticReporter(tsApi: typeof ts, add: (d: ts.Diagnostic) => void): Report {
  const reported = new Map<string, ts.Diagnostic>();
  return (e, sf, neededBy) => {
    const d = toDiagnostic(tsApi, e, sf, neededBy);
    const key = `${d.file?.fileName}:${d.start}:${d.code}`;
    const first = reported.get(key);
    if (!first) {
      reported.set(key, d);
      add(d);
      return;
    }
    for (const r of d.relatedInformation ?? []) {
      const known = (first.relatedInformation ??= []);
      if (!known.some((k) => k.file === r.file && k.start === r.start)) known.push(r);
    }
  };
}

/** "file:line:col - error TSAD1001: message", then where each related location is. */
export function formatDiagnostic(tsApi: typeof ts, d: ts.Diagnostic): string {
  const text = tsApi.flattenDiagnosticMessageText(d.messageText, '\n');
  if (!d.file || d.start === undefined) return `error: ${text}`;
  const [code, ...rest] = text.split(': ');
  const related = (d.relatedInformation ?? []).map((r) => `\n  ${position(r)}: ${tsApi.flattenDiagnosticMessageText(r.messageText, ' ')}`);
  const category = d.category === tsApi.DiagnosticCategory.Message ? 'note' : 'error';
  return `${position(d)} - ${category} ${code}: ${rest.join(': ')}${related.join('')}`;
}

function position(d: ts.Diagnostic | ts.DiagnosticRelatedInformation): string {
  if (!d.file || d.start === undefined) return '';
  const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
  return `${d.file.fileName}:${line + 1}:${character + 1}`;
}

export function rewriteSourceFile(host: Host, checker: ts.TypeChecker, ctx: ts.TransformationContext, sf: ts.SourceFile, report: Report): ts.SourceFile {
  const tsApi = host.ts;
  useTypeScript(tsApi);
  const f = ctx.factory;
  const compiler = new ModuleCompiler(host, checker, f);
  const taped = new TapedModule(tsApi, checker, ctx, sf, host.taped !== false, (target, call) => compiledGradient(target, call));
  const passed = new PassedFunctions(tsApi, checker);
  compiler.tapedCallees = (decl, error, lowering) => taped.calleeNames(decl, error, () => markerOf(decl, checker), lowering);
  // Problems by place: a broken function needed by several call sites is one problem.
  const problems = new Map<string, { error: TsadDiagnosticError; neededBy: ts.Node[] }>();
  /**
   * Records the problems of a diagnostic and returns the one the call site names when it runs
   * (`neededBy`, the call site; none for the check of a marked function no call site uses).
   * Anything else is a bug in tsad, met while compiling `what` at `at`: TSAD9000, which says so.
   */
  const fail = (thrown: unknown, neededBy: ts.Node | undefined, what: string, at: ts.Node = neededBy ?? sf): TsadDiagnosticError => {
    const node = neededBy;
    const e = isTsadDiagnostic(thrown) ? thrown : (nestedTooDeep(tsApi, thrown, what, markedFunctionAt(at) ?? at) ?? internalError(thrown, at, what, markedFunctionAt(at), host.verbose));
    const every = (p: TsadDiagnosticError): TsadDiagnosticError[] => [p, ...p.related.flatMap(every)];
    const all = every(e);
    for (const p of all) {
      if (p.code === REPORTED_BY_TYPESCRIPT) continue;
      const at = locate(p.node, sf);
      const key = `${at.file.fileName}:${at.start}:${p.code}`;
      const known = problems.get(key) ?? { error: p, neededBy: [] };
      problems.set(key, known);
      if (node && !known.neededBy.includes(node)) known.neededBy.push(node);
    }
    return all.find((p) => p.code !== REPORTED_BY_TYPESCRIPT) ?? e;
  };
  /** The function a failing call site compiles, where it can still be found (else the call alone is reported). */
  const markedFunctionAt = (node: ts.Node): ts.Node | undefined => {
    try {
      const target = tsApi.isCallExpression(node) ? node.arguments[0] : undefined;
      return target ? resolveMarkedFunction(target, checker)?.decl : undefined;
    } catch {
      return undefined;
    }
  };
  const flush = () => problems.forEach(({ error, neededBy }) => report(error, sf, neededBy));
  // A transform held by a let or passed around would reach the runtime's uncompiled stub.
  for (const use of transformValueUses(tsApi, sf, checker)) fail(new TsadDiagnosticError(1010, use.node, diagnosticMessage(1010, use.message)), use.node, 'a transform used as a value');

  const transformCall = (call: ts.CallExpression, kind: TransformKind): ts.Expression => {
    const [target, ...rest] = call.arguments;
    if (!target) throw new TsadDiagnosticError(1005, call, diagnosticMessage(1005, `${kind} needs the function to differentiate as its first argument`));
    const marked = resolveMarkedFunction(target, checker);
    const parameter = marked ? undefined : passed.parameterOf(target);
    if (parameter) return parameterTransform(call, kind, parameter.param);
    if (!marked) {
      const of = resolveTarget(tsApi, checker, target, kind, false);
      if (!of) throw new TsadDiagnosticError(1001, target, diagnosticMessage(1001, notDifferentiableReason(target, checker)));
      let inner = of;
      while (inner.tag === 'derived') inner = inner.of;
      const compiled = compiler.compile({ target: inner.decl, of, transform: kind, wrt: wrtOf(tsApi, kind, call, of), callSite: call });
      const ref = f.createIdentifier(compiled.name);
      return compiled.replaces === 'reference'
        ? ref
        : f.createCallExpression(
            ref,
            undefined,
            rest.map((a) => tsApi.visitNode(a, visit) as ts.Expression),
          );
    }
    const params = marked.decl.parameters.map((p) => p.name.getText());
    let wrt: readonly (string | number)[] = marked.marker.wrt ?? [0];
    let flat = false;
    const options = TRANSFORMS[kind].options ? rest[0] : undefined;
    if (options) {
      if (!tsApi.isObjectLiteralExpression(options)) throw new TsadDiagnosticError(1003, options, diagnosticMessage(1003, `the options of ${kind} must be an object literal`));
      for (const p of options.properties) {
        if (tsApi.isPropertyAssignment(p) && p.name.getText(sf) === 'wrt') wrt = wrtList(p.initializer);
        else if ('flat' in TRANSFORMS[kind] && tsApi.isPropertyAssignment(p) && p.name.getText(sf) === 'flat') flat = flatOption(tsApi, p.initializer);
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
    const compiled = compileMarked(marked, kind, indices, call, target, flat);
    const id = f.createIdentifier(compiled.name);
    const args = rest.map((a) => tsApi.visitNode(a, visit) as ts.Expression);
    // An instance method runs on the object it was taken from: grad(s.energy) is bound to s.
    const receiver = isInstanceMethod(tsApi, marked.decl) ? receiverOf(tsApi, f, target, visit) : undefined;
    if (receiver) {
      if (compiled.replaces === 'reference') return f.createCallExpression(f.createPropertyAccessExpression(id, 'bind'), undefined, [receiver]);
      return f.createCallExpression(f.createPropertyAccessExpression(id, 'call'), undefined, [receiver, ...args]);
    }
    if (compiled.replaces === 'reference') return id;
    return f.createCallExpression(id, undefined, args);
  };

  /** `kind` of a marked function: compiled, or taped where compiled code cannot take it (taped/index.ts), with a note. */
  const compileMarked = (
    marked: NonNullable<ReturnType<typeof resolveMarkedFunction>>,
    kind: TransformKind,
    indices: readonly number[],
    call: ts.CallExpression,
    target: ts.Expression,
    flat = false,
  ): CompiledTransform => {
    try {
      return compiler.compile({ target: marked.decl, transform: kind, wrt: indices, callSite: call, checkpoint: marked.marker.checkpoint, ...(flat ? { flat } : {}) });
    } catch (e) {
      // Taped mode has no flat Jacobian: the function's own problem is the error.
      if (flat || !taped.answers(e, marked.decl, () => marked.marker, kind)) throw e;
      const name = taped.compile(marked.decl, kind as TapedKind, indices, e as TsadDiagnosticError);
      fail(taped.note(marked.decl, e as TsadDiagnosticError), call, `${kind}(${shortText(target, sf)})`);
      return { name, replaces: TRANSFORMS[kind].form };
    }
  };

  /**
   * Mixing (taped/index.ts): the compiled valueAndGrad, with respect to every parameter, of a
   * marked function of numbers and arrays of numbers that taped code calls; undefined where the compiler does not take
   * it (then it is copied and taped).
   */
  const compiledGradient = (target: ts.SignatureDeclaration, call: ts.CallExpression): string | undefined => {
    const number = (type: ts.Type) => (type.flags & tsApi.TypeFlags.NumberLike) !== 0;
    // Arrays of numbers too: the entry's partials are the gradient's numbers (runtime/tapedCalls.ts).
    const numbers = (type: ts.Type) =>
      number(type) || (checker.isArrayType(type) && number(checker.getTypeArguments(type as ts.TypeReference)[0])) || ['Float64Array', 'Float32Array'].includes(type.getSymbol()?.getName() ?? '');
    const signature = checker.getSignatureFromDeclaration(target);
    if (!signature || !isMarkedFunction(target, checker) || isInstanceMethod(tsApi, target) || target.parameters.length === 0) return undefined;
    if (!number(checker.getReturnTypeOfSignature(signature)) || !target.parameters.every((p) => !p.dotDotDotToken && !p.questionToken && !p.initializer && numbers(checker.getTypeAtLocation(p))))
      return undefined;
    try {
      return compiler.compile({ target, transform: 'valueAndGrad', wrt: target.parameters.map((_, i) => i), callSite: call }).name;
    } catch {
      return undefined;
    }
  };

  /** `grad(loss)` of a function-valued parameter: the derivative registered with the value it holds, looked up when it runs (passedFunctions.ts). */
  const parameterTransform = (call: ts.CallExpression, kind: TransformKind, param: ts.ParameterDeclaration): ts.Expression => {
    const need = passed.needOf(call, kind, param);
    const lookup = f.createCallExpression(taped.runtime('derivativeOf'), undefined, [
      tsApi.visitNode(call.arguments[0], visit) as ts.Expression,
      f.createStringLiteral(need.key),
      f.createStringLiteral(`${kind}(${param.name.getText()})`),
    ]);
    if (TRANSFORMS[kind].form === 'reference') return lookup;
    return f.createCallExpression(
      lookup,
      undefined,
      call.arguments.slice(1).map((a) => tsApi.visitNode(a, visit) as ts.Expression),
    );
  };

  /** The derivatives `needs` of the function value `arg` (a marked function, or an arrow written in place), by key; undefined where it is neither. */
  const derivativesOf = (arg: ts.Expression, needs: readonly Need[], call: ts.CallExpression): ts.ObjectLiteralExpression | undefined => {
    let e = arg;
    while (tsApi.isParenthesizedExpression(e) || tsApi.isAsExpression(e) || tsApi.isSatisfiesExpression(e)) e = e.expression;
    const marked = resolveMarkedFunction(e, checker);
    const entry = (need: Need, value: ts.Expression) => f.createPropertyAssignment(f.createStringLiteral(need.key), value);
    if (marked) {
      if (isInstanceMethod(tsApi, marked.decl)) return undefined;
      return f.createObjectLiteralExpression(needs.map((need) => entry(need, f.createIdentifier(compileMarked(marked, need.kind, need.wrt, call, e).name))));
    }
    if (!(tsApi.isArrowFunction(e) || tsApi.isFunctionExpression(e))) {
      // A function of the program that is not marked would fail only when the derivative is asked for.
      const decl = tsApi.isIdentifier(e) ? checker.getSymbolAtLocation(e)?.valueDeclaration : undefined;
      const init = decl && tsApi.isVariableDeclaration(decl) ? decl.initializer : undefined;
      const isFunction = decl && (tsApi.isFunctionDeclaration(decl) || (init && (tsApi.isArrowFunction(init) || tsApi.isFunctionExpression(init))));
      if (isFunction && !decl.getSourceFile().isDeclarationFile) {
        const what = needs.map((n) => n.kind).join(', ');
        throw new TsadDiagnosticError(
          1001,
          e,
          diagnosticMessage(1001, `'${e.getText()}' is passed to a parameter that ${shortText(call.expression, sf)} differentiates (${what}), and it is not a differentiable function`),
        );
      }
      return undefined;
    }
    const arrow = e;
    const captured = declaredAround(tsApi, checker, arrow);
    const captures = capturesOf(tsApi, checker, arrow, captured);
    return f.createObjectLiteralExpression(
      needs.map((need) => {
        const compiled = compiler.compile({ target: arrow, of: { tag: 'arrow', decl: arrow }, captured, transform: need.kind, wrt: need.wrt.map((i) => i + captures.length), callSite: call });
        if (captures.length === 0) return entry(need, f.createIdentifier(compiled.name));
        // The captures as they are when the derivative runs, as the arrow reads them.
        const rest = f.createIdentifier('args');
        const body = f.createCallExpression(f.createIdentifier(compiled.name), undefined, [...captures.map((c) => f.createIdentifier(c.symbol.name)), f.createSpreadElement(rest)]);
        return entry(need, f.createArrowFunction(undefined, undefined, [f.createParameterDeclaration(undefined, f.createToken(tsApi.SyntaxKind.DotDotDotToken), rest)], undefined, undefined, body));
      }),
    );
  };

  /** `minimize(bowl, x0)`: each argument going to a parameter that is differentiated, registered with its derivatives. */
  const passingCall = (node: ts.CallExpression, sites: readonly PassedArgument[]): ts.CallExpression => {
    const visited = tsApi.visitEachChild(node, visit, ctx);
    const args = [...visited.arguments];
    for (const site of sites) {
      let derivatives: ts.ObjectLiteralExpression | undefined;
      try {
        derivatives = derivativesOf(site.arg, site.needs, node);
      } catch (e) {
        fail(e, node, `${shortText(site.arg, sf)} passed to ${shortText(node.expression, sf)}`);
      }
      if (derivatives) args[site.index] = f.createCallExpression(taped.runtime('withDerivatives'), undefined, [args[site.index], derivatives]);
    }
    return f.updateCallExpression(visited, visited.expression, visited.typeArguments, args);
  };

  /** `grad((y) => x * y)(args)`: the compiled derivative of the lifted arrow, given its captures first. */
  const localTransform = (node: ts.CallExpression, local: NonNullable<ReturnType<typeof appliedLocalTransform>>): ts.Expression => {
    const captured = declaredAround(tsApi, checker, local.arrow);
    const captures = capturesOf(tsApi, checker, local.arrow, captured);
    const wrt = wrtOf(tsApi, local.kind, local.call, local.of).map((i) => i + captures.length);
    const compiled = compiler.compile({ target: local.arrow, of: local.of, captured, transform: local.kind, wrt, callSite: local.call });
    const args = [...captures.map((c) => f.createIdentifier(c.symbol.name)), ...node.arguments.map((a) => tsApi.visitNode(a, visit) as ts.Expression)];
    return f.createCallExpression(f.createIdentifier(compiled.name), undefined, args);
  };

  // Only the paths down to tsad's calls and decorators are visited: the rest of the file (which
  // may nest thousands deep, like a long sum) is returned untouched without recursing into it.
  const interesting = pathsToTsadNodes(tsApi, checker, sf, (call) => passed.sitesOf(call).length > 0);
  const visit = (node: ts.Node): ts.Node => {
    if (!interesting.has(node)) return node;
    if (tsApi.isCallExpression(node)) {
      const local = appliedLocalTransform(tsApi, checker, node);
      if (local) {
        try {
          return localTransform(node, local);
        } catch (e) {
          const what = `${local.kind}(${shortText(local.arrow, sf)})`;
          return f.createCallExpression(buildFailed(tsApi, f, local.call, local.kind, fail(e, local.call, what), sf), undefined, []);
        }
      }
      const name = tsadExportName(node.expression, checker);
      if (name === 'gpu') {
        try {
          return gpuCall(tsApi, f, checker, compiler, node, visit);
        } catch (e) {
          const what = `gpu(${node.arguments[0] ? shortText(node.arguments[0], sf) : ''})`;
          const error = fail(e, node, what);
          return rejecting(tsApi, f, node, `tsad: ${what} was not compiled: the build reported ${error.codeText} (see the build output)`);
        }
      }
      if (name && isTransformKind(name) && !isRuleCall(node, checker)) {
        try {
          return transformCall(node, name);
        } catch (e) {
          return buildFailed(tsApi, f, node, name, fail(e, node, `${name}(${node.arguments[0] ? shortText(node.arguments[0], sf) : ''})`), sf);
        }
      }
      // The wrapper form: differentiable(fn) (or differentiable(fn, options)) is fn once derivatives are compiled.
      if (name === undefined) {
        const sites = passed.sitesOf(node);
        if (sites.length > 0) return passingCall(node, sites);
      }
      if (name === 'differentiable' && (node.arguments.length === 1 || node.arguments.length === 2) && (tsApi.isArrowFunction(node.arguments[0]) || tsApi.isFunctionExpression(node.arguments[0]))) {
        return tsApi.visitNode(node.arguments[0], visit) as ts.Expression;
      }
    }
    // derivative(f, rule) registrations are compiled into the derivatives: nothing runs them.
    // One that cannot attach to its function would be silently ignored, so it is checked here.
    if (tsApi.isExpressionStatement(node) && tsApi.isCallExpression(node.expression) && isRuleCall(node.expression, checker)) {
      try {
        checkRuleTarget(node.expression, checker);
      } catch (e) {
        fail(e, node.expression, shortText(node.expression, sf));
      }
      return undefined as unknown as ts.Node;
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
    fail(e, sf, sf.fileName.split(/[\\/]/).pop() ?? 'the file');
    flush();
    return sf;
  }
  // Every marked function is checked, also one no transform uses (yet): its problems are found
  // when it is written, not when a call site first needs it. The call sites above have lowered
  // the ones they use, so this lowers only the rest, once each.
  if (interesting.size > 0 || sf.text.includes('@differentiable')) {
    for (const decl of functionsMaybeMarked(tsApi, sf, interesting)) {
      try {
        if (isMarkedFunction(decl, checker)) compiler.check(decl);
      } catch (e) {
        if (taped.wouldRunTaped(e, decl, () => markerOf(decl, checker))) {
          fail(taped.note(decl, e as TsadDiagnosticError), undefined, 'a note', decl);
          continue;
        }
        // Needed by no call site: the diagnostic has no "needed by" line for this check.
        fail(e, undefined, `the marked function ${shortText(decl.name ?? decl, sf)}`, decl);
      }
    }
  }
  flush();
  const generated = [...compiler.statements(), ...taped.statements(), ...compiler.accessors(sf)];
  // Taped code's import of the runtime comes first: the compiled code's helpers are bound from it.
  const tapedImports = taped.importStatements();
  const imports = [...tapedImports, ...compiler.importStatements(sf, tapedImports.length > 0)];
  if (generated.length === 0 && imports.length === 0) return out;
  return f.updateSourceFile(out, [...imports, ...out.statements, ...generated]);
}

/**
 * `gpu(f)`, `gpu(grad(f))`, `gpu(valueAndGrad(f, { wrt }))`: `gpu.compiled(program)`, the device
 * program (backend/wgsl) as data. The call's own callee is reused, so the runtime is the module
 * the user imported `gpu` from.
 */
function gpuCall(tsApi: typeof ts, f: ts.NodeFactory, checker: ts.TypeChecker, compiler: ModuleCompiler, node: ts.CallExpression, visit: (n: ts.Node) => ts.Node): ts.Expression {
  const [arg] = node.arguments;
  if (!arg || node.arguments.length !== 1) throw new TsadDiagnosticError(1005, node, diagnosticMessage(1005, 'gpu takes one argument: a marked function, grad(f), valueAndGrad(f) or hvp(f)'));
  let target: ts.Expression = arg;
  let transform: 'grad' | 'valueAndGrad' | 'hvp' | undefined;
  let wrt: readonly (string | number)[] | undefined;
  if (tsApi.isCallExpression(arg)) {
    const inner = tsadExportName(arg.expression, checker);
    if (inner !== 'grad' && inner !== 'valueAndGrad' && inner !== 'hvp') {
      // vjp(f, x, y) is a call that returns a pullback, not a transform a device program can take.
      const why =
        inner === 'vjp'
          ? 'the transform vjp (vjp(f, ...args) runs at once and returns a host pullback; use gpu(grad(f)) or gpu(valueAndGrad(f)))'
          : inner
            ? `the transform ${inner}`
            : 'a call that is not grad, valueAndGrad or hvp';
      throw new TsadDiagnosticError(1011, arg, diagnosticMessage(1011, `gpu(${arg.getText()}) is not on the GPU yet: ${why}`));
    }
    transform = inner;
    [target] = arg.arguments;
    const options = arg.arguments[1];
    if (!target) throw new TsadDiagnosticError(1005, arg, diagnosticMessage(1005, `${inner} needs the function to differentiate as its first argument`));
    if (options) {
      if (!tsApi.isObjectLiteralExpression(options)) throw new TsadDiagnosticError(1003, options, diagnosticMessage(1003, `the options of ${inner} must be an object literal`));
      for (const p of options.properties) {
        if (tsApi.isPropertyAssignment(p) && p.name.getText() === 'wrt') wrt = wrtList(p.initializer);
        else throw new TsadDiagnosticError(1003, p, diagnosticMessage(1003, `unknown option '${p.name?.getText()}' (only wrt is supported)`));
      }
    }
  }
  const marked = resolveMarkedFunction(target, checker);
  if (!marked) throw new TsadDiagnosticError(1001, target, diagnosticMessage(1001, notDifferentiableReason(target, checker)));
  const params = marked.decl.parameters.map((p) => p.name.getText());
  const indices = (wrt ?? marked.marker.wrt ?? [0]).map((w) => {
    const i = typeof w === 'number' ? w : params.indexOf(w);
    if (!(Number.isInteger(i) && i >= 0 && i < params.length))
      throw new TsadDiagnosticError(1002, arg, diagnosticMessage(1002, `'${w}' is not a parameter of '${target.getText()}' (parameters: ${params.join(', ')})`));
    return i;
  });
  const where = `gpu(${arg.getText().replace(/\s+/g, ' ')})`;
  const program = compiler.gpu(marked.decl, { where, transform, wrt: indices }, node);
  const callee = tsApi.visitNode(node.expression, visit) as ts.Expression;
  const data = f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier('JSON'), 'parse'), undefined, [f.createStringLiteral(JSON.stringify(program))]);
  return f.createCallExpression(f.createPropertyAccessExpression(callee, 'compiled'), undefined, [data]);
}

/** `flat: true` or `flat: false`, written as such: the wrapper's result type is decided at build time. */
function flatOption(tsApi: typeof ts, e: ts.Expression): boolean {
  if (e.kind === tsApi.SyntaxKind.TrueKeyword) return true;
  if (e.kind === tsApi.SyntaxKind.FalseKeyword) return false;
  throw new TsadDiagnosticError(1003, e, diagnosticMessage(1003, 'the option flat must be written true or false'));
}

/** What a `gpu(...)` call that did not compile becomes: an async function that rejects with `message`. */
function rejecting(tsApi: typeof ts, f: ts.NodeFactory, call: ts.CallExpression, message: string): ts.Expression {
  const fn = f.createArrowFunction(
    [f.createModifier(tsApi.SyntaxKind.AsyncKeyword)],
    undefined,
    [],
    undefined,
    f.createToken(tsApi.SyntaxKind.EqualsGreaterThanToken),
    f.createBlock([f.createThrowStatement(f.createNewExpression(f.createIdentifier('Error'), undefined, [f.createStringLiteral(message)]))]),
  );
  tsApi.setOriginalNode(fn, call);
  return fn;
}

/** The object a method is taken from (`s` in `grad(s.energy)`), or undefined when the method is not taken from one. */
function receiverOf(tsApi: typeof ts, f: ts.NodeFactory, target: ts.Expression, visit: (n: ts.Node) => ts.Node): ts.Expression {
  let e = target;
  while (tsApi.isParenthesizedExpression(e) || tsApi.isAsExpression(e) || tsApi.isNonNullExpression(e) || tsApi.isSatisfiesExpression(e)) e = e.expression;
  if (tsApi.isPropertyAccessExpression(e) || tsApi.isElementAccessExpression(e)) return tsApi.visitNode(e.expression, visit) as ts.Expression;
  return f.createIdentifier('undefined');
}

/**
 * TSAD9000 for an exception that is no diagnostic, met while compiling `what` (`hessian(f)`) at
 * `call`: at the call, and again at the function it compiles. One line says what failed (the
 * emitted code throws it at run time too); `verbose` adds the stack.
 */
export function internalError(thrown: unknown, call: ts.Node, what: string, fn: ts.Node | undefined, verbose: boolean): TsadDiagnosticError {
  const raw = thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown);
  const line = raw.replace(/\s*\n\s*/g, ' | ');
  const head = `internal error while compiling ${what}: ${line.length > 400 ? `${line.slice(0, 397)}...` : line}; this is a bug in tsad`;
  const stack = verbose && thrown instanceof Error && thrown.stack ? `\n${thrown.stack}` : '';
  const message = diagnosticMessage(INTERNAL_ERROR, `${head}${stack}`);
  const atFunction = fn && fn !== call ? [new TsadDiagnosticError(INTERNAL_ERROR, fn, message)] : [];
  return new TsadDiagnosticError(INTERNAL_ERROR, call, message, atFunction);
}

/**
 * What a call site whose transform failed becomes: code that throws, when the derivative is
 * used, an error naming the diagnostic (the build output has the details). Running it must not
 * look like a missing plugin, and loading the module must still work, so `grad(f)` becomes a
 * function that throws when called; `jvp(f, ...)`, which runs at once, throws at once.
 */
function buildFailed(tsApi: typeof ts, f: ts.NodeFactory, call: ts.CallExpression, kind: TransformKind, e: TsadDiagnosticError, sf: ts.SourceFile): ts.Expression {
  const target = call.arguments[0] ? shortText(call.arguments[0], sf) : '';
  const at = locate(e.node, sf);
  const { line, character } = at.file.getLineAndCharacterOfPosition(at.start);
  const where = `${at.file.fileName.split(/[\\/]/).pop()}:${line + 1}:${character + 1}`;
  const reason = e.code === REPORTED_BY_TYPESCRIPT ? `TypeScript reported an error at ${where}` : `the build reported ${e.codeText} at ${where}`;
  // A bug in tsad says what failed (the first line of its diagnostic), so that a bug report has it.
  const message = e.code === INTERNAL_ERROR ? `tsad: ${e.message.split('\n')[0]} (${e.codeText} at ${where})` : `tsad: ${kind}(${target}) was not compiled: ${reason} (see the build output)`;
  const thrower = f.createArrowFunction(
    undefined,
    undefined,
    [],
    undefined,
    f.createToken(tsApi.SyntaxKind.EqualsGreaterThanToken),
    f.createBlock([f.createThrowStatement(f.createNewExpression(f.createIdentifier('Error'), undefined, [f.createStringLiteral(message)]))]),
  );
  const replacement = TRANSFORMS[kind].form === 'call' ? f.createCallExpression(f.createParenthesizedExpression(thrower), undefined, []) : thrower;
  tsApi.setOriginalNode(replacement, call);
  return replacement;
}

/**
 * The functions of a file that may be marked (isMarkedFunction decides), in source order, found
 * without recursion. An arrow passed to a call is marked only as the argument of a tsad call
 * (`differentiable(arrow)`), so the arrows of other calls (`xs.map((x) => …)`) are left out.
 */
function functionsMaybeMarked(tsApi: typeof ts, sf: ts.SourceFile, tsadPaths: ReadonlySet<ts.Node>): ts.SignatureDeclaration[] {
  const found: ts.SignatureDeclaration[] = [];
  const stack: ts.Node[] = [sf];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const callback = (tsApi.isArrowFunction(node) || tsApi.isFunctionExpression(node)) && tsApi.isCallExpression(node.parent) && !tsadPaths.has(node.parent);
    if (tsApi.isFunctionLike(node) && !callback) found.push(node);
    tsApi.forEachChild(node, (child) => {
      stack.push(child);
    });
  }
  return found.sort((a, b) => a.pos - b.pos);
}

/** Every node on a path from the file to a call of a tsad export, a call passing a function to a differentiated parameter, or a decorator, found without recursion. */
function pathsToTsadNodes(tsApi: typeof ts, checker: ts.TypeChecker, sf: ts.SourceFile, passesDerivatives: (call: ts.CallExpression) => boolean): Set<ts.Node> {
  const found = new Set<ts.Node>();
  const stack: ts.Node[] = [sf];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const hit =
      (tsApi.isCallExpression(node) && (tsadExportName(node.expression, checker) !== undefined || passesDerivatives(node))) ||
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
