// Finding tsad's markers and API calls through the type checker: a name counts only if its
// symbol resolves (through imports, re-exports and aliases) into the tsad runtime module, which
// is recognised by its TSAD_RUNTIME export, never by the identifier's text.
import type * as ts from 'typescript';
import { fail } from './diagnostics';
import { InternalError } from '../ir/syntax';
import { TRANSFORM_KINDS } from '../plan/transforms';
import type { LoopCheckpoint } from '../ad/checkpoint';
import { reassignment } from './bindings';

export interface MarkerInfo {
  readonly node: ts.Node;
  readonly wrt?: readonly (string | number)[];
  /** How reverse mode treats the function's counted loops (ad/checkpoint.ts). */
  readonly checkpoint?: LoopCheckpoint;
  /** `taped: false`: recursion is the error it was (TSAD1109) instead of running taped (docs/frontend.md, "Taped mode"). */
  readonly taped?: boolean;
}

/** The TypeScript the plugin was handed; every entry sets it before it looks for markers. */
let tsApi: typeof ts | undefined;
export function useTypeScript(api: typeof ts): void {
  tsApi = api;
}
function api(): typeof ts {
  if (!tsApi) throw new InternalError('markers: useTypeScript was not called');
  return tsApi;
}

/** How `sf` names tsad's runtime: as its own import of it does (a path alias, a re-export), else `tsad`. */
export function runtimeSpecifier(sf: ts.SourceFile, checker: ts.TypeChecker): string {
  const t = api();
  for (const s of sf.statements) {
    if (!t.isImportDeclaration(s) || !t.isStringLiteral(s.moduleSpecifier)) continue;
    if (checker.getSymbolAtLocation(s.moduleSpecifier)?.exports?.has('TSAD_RUNTIME' as ts.__String)) return s.moduleSpecifier.text;
  }
  return 'tsad';
}

/**
 * The tsad export an expression refers to (`grad`, `differentiable`, ...), if any: through
 * imports (renamed or not), re-exports, namespaces, and consts holding it (`const g = grad`).
 */
export function tsadExportName(expr: ts.Expression, checker: ts.TypeChecker, depth = 0): string | undefined {
  const t = api();
  expr = unwrap(expr);
  const sym = checker.getSymbolAtLocation(t.isPropertyAccessExpression(expr) ? expr.name : expr);
  return sym && tsadExportOfSymbol(sym, checker, depth);
}

/** tsadExportName for a symbol (`{ grad }` in an object literal names the value's). */
export function tsadExportOfSymbol(sym: ts.Symbol, checker: ts.TypeChecker, depth = 0): string | undefined {
  const t = api();
  if (sym.flags & t.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
  const decl = sym.declarations?.[0];
  if (!decl) return undefined;
  const moduleSym = checker.getSymbolAtLocation(decl.getSourceFile());
  if (moduleSym?.exports?.has('TSAD_RUNTIME' as ts.__String)) return sym.name;
  // A const of the user's is the value it was given; a let could hold something else by the
  // time it is called.
  if (t.isVariableDeclaration(decl) && decl.parent.flags & t.NodeFlags.Const && decl.initializer && depth < 8) {
    const init = unwrap(decl.initializer);
    if (t.isIdentifier(init) || t.isPropertyAccessExpression(init)) return tsadExportName(init, checker, depth + 1);
  }
  return undefined;
}

export function isTsadExport(expr: ts.Expression, checker: ts.TypeChecker, name: string): boolean {
  return tsadExportName(expr, checker) === name;
}

/** Looks through parentheses and type assertions: `(f as any)` is still `f`. */
function unwrap(e: ts.Expression): ts.Expression {
  const t = api();
  while (t.isParenthesizedExpression(e) || t.isAsExpression(e) || t.isNonNullExpression(e) || t.isSatisfiesExpression(e) || t.isTypeAssertionExpression(e)) e = e.expression;
  return e;
}

/** The options of `@differentiable({ wrt, checkpoint })` or `differentiable(fn, { checkpoint })`. */
function markerOptions(node: ts.Expression | undefined): { wrt?: readonly (string | number)[]; checkpoint?: LoopCheckpoint; taped?: boolean } {
  const t = api();
  if (!node) return {};
  if (!t.isObjectLiteralExpression(node)) return fail(1003, node, 'the options of @differentiable must be an object literal');
  let wrt: readonly (string | number)[] | undefined;
  let checkpoint: LoopCheckpoint | undefined;
  let taped: boolean | undefined;
  for (const p of node.properties) {
    const key = p.name?.getText();
    if (t.isPropertyAssignment(p) && key === 'wrt') wrt = wrtList(p.initializer);
    else if (t.isPropertyAssignment(p) && key === 'checkpoint') checkpoint = checkpointOption(p.initializer);
    else if (t.isPropertyAssignment(p) && key === 'taped') taped = booleanOption(p.initializer, 'taped');
    else fail(1003, p, `unknown option ${key ? `'${key}' ` : ''}of @differentiable: the options are wrt, checkpoint and taped, written as wrt: [...], checkpoint: ... and taped: false`);
  }
  return { ...(wrt ? { wrt } : {}), ...(checkpoint ? { checkpoint } : {}), ...(taped !== undefined ? { taped } : {}) };
}

/** `true` or `false` written as a literal. */
function booleanOption(node: ts.Expression, key: string): boolean {
  const t = api();
  if (node.kind === t.SyntaxKind.TrueKeyword) return true;
  if (node.kind === t.SyntaxKind.FalseKeyword) return false;
  return fail(1003, node, `${key} must be true or false written as a literal, got ${node.getText()}`);
}

const CHECKPOINT_FORMS = "'store', 'sqrt', { every: k } or { levels: L } (k, L positive whole numbers written as literals)";

/** `'sqrt'`, `{ every: 32 }`, ...: a literal, checked here so a bad one is reported where it is written. */
export function checkpointOption(node: ts.Expression): LoopCheckpoint {
  const t = api();
  const inner = t.isAsExpression(node) || t.isSatisfiesExpression(node) ? node.expression : node;
  if (t.isStringLiteral(inner) || t.isNoSubstitutionTemplateLiteral(inner)) {
    if (inner.text === 'store' || inner.text === 'sqrt') return inner.text;
    const hint = inner.text === 'binomial' || inner.text === 'revolve' ? '; for O(log n) snapshots use { levels: L } with L about log₂ n' : '';
    return fail(1008, inner, `checkpoint '${inner.text}' is not a policy: use ${CHECKPOINT_FORMS}${hint}`);
  }
  if (t.isObjectLiteralExpression(inner) && inner.properties.length === 1) {
    const p = inner.properties[0];
    const key = p.name?.getText();
    if (t.isPropertyAssignment(p) && (key === 'every' || key === 'levels')) {
      const v = p.initializer;
      const value = t.isNumericLiteral(v) ? Number(v.text) : NaN;
      if (Number.isInteger(value) && value >= 1) return key === 'every' ? { every: value } : { levels: value };
      return fail(1008, v, `checkpoint ${key} must be a positive whole number written as a literal, got ${v.getText()}`);
    }
  }
  return fail(1008, inner, `checkpoint must be ${CHECKPOINT_FORMS}; got ${inner.getText()}`);
}

/** `[0, 'x']` -> [0, 'x']; anything that is not a literal list is a diagnostic. */
export function wrtList(node: ts.Expression): (string | number)[] {
  const t = api();
  const inner = t.isAsExpression(node) || t.isSatisfiesExpression(node) ? node.expression : node;
  if (!t.isArrayLiteralExpression(inner)) return fail(1003, node, 'wrt must be an array literal of parameter names or indices');
  return inner.elements.map((e) => {
    if (t.isNumericLiteral(e)) return Number(e.text);
    if (t.isStringLiteral(e)) return e.text;
    return fail(1003, e, 'wrt entries must be number or string literals');
  });
}

/** The transforms (plan/transforms.ts): a call of one of these is replaced by compiled derivative code. */
export const TRANSFORM_NAMES: ReadonlySet<string> = new Set(TRANSFORM_KINDS);

function hasDocMarker(decl: ts.Node): boolean {
  return docMarkerComment(decl) !== undefined;
}

/**
 * `@differentiable` as a tag: first on a line of the comment (`/** @differentiable *\/`,
 * ` * @differentiable`, `// @differentiable`). A mention in prose ("unlike a @differentiable
 * function, ...") marks nothing: every marked function is lowered, so it would be an error.
 */
const DOC_MARKER = /(?:^|\n)[ \t]*(?:\/\*\*?|\/\/|\*)?[ \t]*@differentiable\b/;

/** The comment before `decl` that holds `@differentiable`, if any. */
function docMarkerComment(decl: ts.Node): ts.CommentRange | undefined {
  const t = api();
  const sf = decl.getSourceFile();
  const ranges = t.getLeadingCommentRanges(sf.text, decl.getFullStart()) ?? [];
  return ranges.find((r) => DOC_MARKER.test(sf.text.slice(r.pos, r.end)));
}

/** The end of the parenthesized text opening at `open` (past its `)`), skipping strings; `end` if it is not closed. */
function closingParenthesis(text: string, open: number, end: number): number {
  let depth = 0;
  for (let i = open; i < end; i++) {
    const c = text[i];
    if (c === "'" || c === '"' || c === '`') {
      for (i++; i < end && text[i] !== c; i++) if (text[i] === '\\') i++;
    } else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i + 1;
  }
  return end;
}

/** Options of comment markers, by the comment's position in its file (parsed once). */
const docOptionsCache = new WeakMap<ts.SourceFile, Map<number, ReturnType<typeof markerOptions>>>();

/**
 * `/** @differentiable({ checkpoint: 'sqrt' }) *\/`: the options of a comment marker, the same as
 * the decorator's. Comments have no syntax tree, so the options are parsed on their own, in a
 * copy of the file that is blank up to them: each node keeps its line and column, and a bad
 * option is reported where it is written.
 */
function docOptions(holder: ts.Node): ReturnType<typeof markerOptions> {
  const t = api();
  const comment = docMarkerComment(holder);
  if (!comment) return {};
  const sf = holder.getSourceFile();
  let cache = docOptionsCache.get(sf);
  if (!cache) docOptionsCache.set(sf, (cache = new Map()));
  const known = cache.get(comment.pos);
  if (known) return known;
  const text = sf.text.slice(comment.pos, comment.end);
  const marker = /@differentiable\b\s*\(/.exec(text);
  let options: ReturnType<typeof markerOptions> = {};
  if (marker) {
    const open = comment.pos + marker.index + marker[0].length - 1;
    const close = closingParenthesis(sf.text, open, comment.end);
    // A continuation line of a block comment starts with ` * `: blank the star, keep the column.
    const body = sf.text.slice(open, close).replace(/(\n[ \t]*)\*/g, '$1 ');
    const parsed = t.createSourceFile(sf.fileName, sf.text.slice(0, open).replace(/[^\r\n]/g, ' ') + body, sf.languageVersion, true);
    const statement = parsed.statements[0];
    const call = statement && t.isExpressionStatement(statement) ? statement.expression : undefined;
    const errors = (parsed as { parseDiagnostics?: readonly ts.Diagnostic[] }).parseDiagnostics ?? [];
    if (!call || !t.isParenthesizedExpression(call) || parsed.statements.length !== 1 || errors.length > 0) {
      return fail(1003, holder, `the options of /** @differentiable(...) */ must be one object literal in parentheses, e.g. @differentiable({ checkpoint: 'sqrt' })`);
    }
    options = markerOptions(call.expression);
  }
  cache.set(comment.pos, options);
  return options;
}

/** The variable declaration an arrow or function expression is the value of (through parentheses and `as`). */
function variableHolding(fn: ts.Node): ts.VariableDeclaration | undefined {
  const t = api();
  let p = fn.parent;
  while (p && (t.isParenthesizedExpression(p) || t.isAsExpression(p) || t.isSatisfiesExpression(p))) p = p.parent;
  return p && t.isVariableDeclaration(p) && p.initializer && unwrap(p.initializer) === fn ? p : undefined;
}

/**
 * `/** @differentiable *\/ const f = (x: number) => ...`: the comment sits before the statement
 * (or before the declaration in a list). Only a const counts: a let could be reassigned after the
 * derivative was compiled from its first value.
 */
function docMarkedConst(fn: ts.Node): ts.VariableDeclaration | undefined {
  const t = api();
  if (!(t.isArrowFunction(fn) || t.isFunctionExpression(fn))) return undefined;
  const decl = variableHolding(fn);
  if (!decl || !(decl.parent.flags & t.NodeFlags.Const)) return undefined;
  const statement = decl.parent.parent;
  return hasDocMarker(decl) || (t.isVariableStatement(statement) && hasDocMarker(statement)) ? decl : undefined;
}

/** Where the marker comment of a doc-marked const sits: before the declaration, or before its statement. */
function docMarkerHolder(decl: ts.VariableDeclaration): ts.Node {
  return hasDocMarker(decl) ? decl : decl.parent.parent;
}

/** The statement a doc comment for a variable would sit on. */
function docCommentHolder(decl: ts.VariableDeclaration): ts.Node {
  const t = api();
  const statement = decl.parent.parent;
  return t.isVariableStatement(statement) && statement.declarationList.declarations[0] === decl ? statement : decl;
}

/** `derivative(f, rule)` calls per source file, by the declaration of `f`. */
const ruleCache = new WeakMap<ts.SourceFile, Map<ts.Node, ts.CallExpression>>();

/**
 * The `derivative(f, rule)` registration for a function declaration, if its module has one.
 * Registering a derivative also marks the function differentiable.
 */
export function customRuleOf(decl: ts.Node, checker: ts.TypeChecker): ts.CallExpression | undefined {
  const t = api();
  const sf = decl.getSourceFile();
  let rules = ruleCache.get(sf);
  if (!rules) {
    rules = new Map();
    const stack: ts.Node[] = [sf];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (t.isCallExpression(node) && node.arguments.length >= 1) {
        if (isRuleCall(node, checker)) {
          const target = functionDeclarationOf(node.arguments[0], checker);
          // The first rule in the file counts (a later one is an error, see checkRuleTarget).
          const known = target && rules.get(target);
          if (target && (!known || node.pos < known.pos)) rules.set(target, node);
        }
      }
      t.forEachChild(node, (c) => {
        stack.push(c);
      });
    }
    ruleCache.set(sf, rules);
  }
  return rules.get(decl);
}

/** The function declaration (or function expression) an expression names, through aliases. */
function functionDeclarationOf(expr: ts.Expression, checker: ts.TypeChecker): ts.Node | undefined {
  const t = api();
  const e = unwrap(expr);
  let sym = checker.getSymbolAtLocation(t.isPropertyAccessExpression(e) ? e.name : e);
  if (!sym) return undefined;
  if (sym.flags & t.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
  for (const d of sym.declarations ?? []) {
    if (t.isFunctionDeclaration(d) || t.isMethodDeclaration(d)) return d;
    if (t.isVariableDeclaration(d) && d.initializer) {
      const init = unwrap(d.initializer);
      if (t.isArrowFunction(init) || t.isFunctionExpression(init)) return init;
      if (t.isCallExpression(init) && init.arguments[0] && (t.isArrowFunction(init.arguments[0]) || t.isFunctionExpression(init.arguments[0]))) return init.arguments[0];
    }
  }
  return undefined;
}

/** Is this declaration from TypeScript's own library (`Math`, `Array.prototype`, ...)? */
export function isBuiltIn(decl: ts.Node): boolean {
  return decl.getSourceFile().hasNoDefaultLib;
}

/** The declarations a name refers to, through import aliases. */
function declarationsOf(expr: ts.Expression, checker: ts.TypeChecker): readonly ts.Declaration[] {
  const t = api();
  const e = unwrap(expr);
  let sym = checker.getSymbolAtLocation(t.isPropertyAccessExpression(e) ? e.name : e);
  if (sym && sym.flags & t.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
  return sym?.declarations ?? [];
}

/** `grad(f)`, or a const holding it (`const df = grad(f)`), with the transform's name. */
export function transformCallBehind(expr: ts.Expression, checker: ts.TypeChecker, depth = 0): { call: ts.CallExpression; name: string } | undefined {
  const t = api();
  const e = unwrap(expr);
  if (t.isCallExpression(e)) {
    const name = tsadExportName(e.expression, checker);
    return name && TRANSFORM_NAMES.has(name) && !isRuleCall(e, checker) ? { call: e, name } : undefined;
  }
  if (depth > 8 || !(t.isIdentifier(e) || t.isPropertyAccessExpression(e))) return undefined;
  for (const d of declarationsOf(e, checker)) {
    if (t.isVariableDeclaration(d) && d.initializer && d.parent.flags & t.NodeFlags.Const) {
      const found = transformCallBehind(d.initializer, checker, depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}

/** `derivative(f, rule)` or `derivative.vjp(f, rule)` (also `tsad.derivative(...)`). */
export function isRuleCall(call: ts.CallExpression, checker: ts.TypeChecker): boolean {
  return ruleKind(call, checker) !== undefined;
}

/** 'jvp' for `derivative(...)`, the member's name for `derivative.<member>(...)`. */
export function ruleKind(call: ts.CallExpression, checker: ts.TypeChecker): string | undefined {
  const t = api();
  const callee = unwrap(call.expression);
  if (isTsadExport(callee, checker, 'derivative')) return 'jvp';
  if (t.isPropertyAccessExpression(callee) && isTsadExport(callee.expression, checker, 'derivative')) return callee.name.text;
  return undefined;
}

/**
 * What to do instead of a transform of a transform, which is not compiled yet. `outer` is the
 * transform applied to `inner`, or undefined when `inner` is called inside a marked function.
 */
export function nestedTransformMessage(outer: string | undefined, inner: { call: ts.CallExpression; name: string }): string {
  const fn = inner.call.arguments[0]?.getText() ?? 'f';
  const written = outer ? `${outer}(${inner.call.getText()})` : `calling ${inner.call.getText()} inside a differentiable function`;
  const instead =
    inner.name === 'grad' && (outer === 'jvp' || outer === undefined)
      ? `for a Hessian-vector product use hvp(${fn})(x, v), for the whole matrix hessian(${fn})`
      : `for second derivatives use hessian(${fn}) (the matrix) or hvp(${fn})(x, v) (Hessian-vector products)`;
  return `${written} is not supported yet: tsad does not differentiate derivative code; ${instead}`;
}

/**
 * Why `expr` (the first argument of a transform) is not a differentiable function, in the
 * words the user needs: a built-in, a library declaration, a marker comment in a place where it
 * does not count, or simply no marker.
 */
export function notDifferentiableReason(expr: ts.Expression, checker: ts.TypeChecker): string {
  const t = api();
  const text = expr.getText();
  const decls = declarationsOf(expr, checker);
  if (decls.length > 0 && decls.every(isBuiltIn)) {
    return `'${text}' is a built-in function; differentiate a function of your own that calls it, e.g. /** @differentiable */ function f(x: number) { return ${text}(x); }`;
  }
  if (decls.length > 0 && decls.every((d) => d.getSourceFile().isDeclarationFile)) {
    return `'${text}' is declared in a declaration file (${decls[0].getSourceFile().fileName.split('/').pop()}), so tsad cannot see its code`;
  }
  for (const d of decls) {
    if (!t.isVariableDeclaration(d) || !hasDocMarker(docCommentHolder(d))) continue;
    if (!(d.parent.flags & t.NodeFlags.Const)) {
      return `'${text}' has a @differentiable comment, but it is declared with ${d.parent.flags & t.NodeFlags.Let ? 'let' : 'var'}: only a const holding a function can be marked (a reassigned function would not match its compiled derivative)`;
    }
    return `'${text}' has a @differentiable comment, but its value is not an arrow function or function expression written here`;
  }
  return `'${text}' is not a differentiable function`;
}

/**
 * `derivative(f, rule)` attaches to a function declared in the same module (its derivatives are
 * compiled from there); anything else would be silently ignored, so it is an error.
 */
export function checkRuleTarget(call: ts.CallExpression, checker: ts.TypeChecker): void {
  const target = call.arguments[0];
  const kind = ruleKind(call, checker);
  const how = kind === 'jvp' ? 'derivative' : `derivative.${kind}`;
  if (!target) return fail(1111, call, `${how} needs the function and its rule: ${how}(f, rule)`);
  const text = target.getText();
  const decl = functionDeclarationOf(target, checker);
  if (!decl) {
    const decls = declarationsOf(target, checker);
    if (decls.length > 0 && decls.every(isBuiltIn)) {
      return fail(
        1114,
        target,
        `cannot attach a derivative to the built-in '${text}': it has its own derivative already; to change it, wrap it in a function of this module (function mine(x: number) { return ${text}(x); }) and attach the rule to that`,
      );
    }
    return fail(1114, target, `cannot attach a derivative to '${text}': ${how} needs a function declared in this module (a function declaration, a const holding an arrow function, or a method)`);
  }
  const home = decl.getSourceFile();
  if (home !== call.getSourceFile()) {
    return fail(
      1114,
      target,
      `cannot attach a derivative to '${text}' here: it is declared in ${home.fileName.split('/').pop()}, and a rule is seen only in the module that declares the function; move this ${how}(...) there`,
    );
  }
  if (!(decl as ts.FunctionLikeDeclaration).body) return fail(1114, target, `cannot attach a derivative to '${text}': it has no body`);
  const first = customRuleOf(decl, checker);
  if (first && first !== call) {
    const line = home.getLineAndCharacterOfPosition(first.getStart()).line + 1;
    return fail(1114, call, `'${text}' already has a derivative rule (line ${line}); only one rule per function is allowed`);
  }
}

/** The marker on a function-like declaration, if it has one. */
export function markerOf(decl: ts.Node, checker: ts.TypeChecker): MarkerInfo | undefined {
  const t = api();
  const rule = customRuleOf(decl, checker);
  if (rule && !t.isMethodDeclaration(decl)) return { node: rule };
  if (t.isFunctionDeclaration(decl)) return hasDocMarker(decl) ? { node: decl, ...docOptions(decl) } : undefined;
  if (t.isMethodDeclaration(decl)) {
    for (const d of t.getDecorators(decl) ?? []) {
      const e = d.expression;
      if (isTsadExport(e, checker, 'differentiable')) return { node: d };
      if (t.isCallExpression(e) && isTsadExport(e.expression, checker, 'differentiable')) {
        return { node: d, ...markerOptions(e.arguments[0]) };
      }
    }
    return hasDocMarker(decl) ? { node: decl, ...docOptions(decl) } : undefined;
  }
  if ((t.isArrowFunction(decl) || t.isFunctionExpression(decl)) && t.isCallExpression(decl.parent)) {
    const call = decl.parent;
    if (call.arguments[0] === decl && isTsadExport(call.expression, checker, 'differentiable')) return { node: call, ...markerOptions(call.arguments[1]) };
  }
  const variable = docMarkedConst(decl);
  if (variable) return { node: variable, ...docOptions(docMarkerHolder(variable)) };
  return undefined;
}

/**
 * A `let` (or `var`) holding a differentiable function is compiled as the function it was
 * declared with: written later, it would be differentiated as the wrong one, so that is an error
 * at the write. Resolving the binding live would need a derivative of every function it may hold.
 */
function notReassigned(decl: ts.VariableDeclaration, checker: ts.TypeChecker): void {
  const t = api();
  const write = reassignment(t, decl, checker);
  if (!write) return;
  const name = decl.name.getText();
  const line = decl.getSourceFile().getLineAndCharacterOfPosition(decl.getStart()).line + 1;
  const kind = decl.parent.flags & t.NodeFlags.Let ? 'let' : 'var';
  fail(
    1009,
    write,
    `'${name}' holds a differentiable function (declared with ${kind} on line ${line}) and is assigned again here: transforms of '${name}' are compiled from the function it was declared with, and would differentiate that one after this assignment`,
  );
}

/**
 * Is `node` a marked function (for the check of every marked function of a file, used by a
 * transform or not)? Also a marked getter, setter or constructor, which cannot be differentiable:
 * lowering it says so, where a marker on it would otherwise be silently ignored.
 */
export function isMarkedFunction(node: ts.Node, checker: ts.TypeChecker): node is ts.SignatureDeclaration {
  const t = api();
  if (t.isGetAccessor(node) || t.isSetAccessor(node) || t.isConstructorDeclaration(node)) {
    const decorators = t.canHaveDecorators(node) ? t.getDecorators(node) : undefined;
    const decorated = (decorators ?? []).some((d) => isTsadExport(t.isCallExpression(d.expression) ? d.expression.expression : d.expression, checker, 'differentiable'));
    return decorated || hasDocMarker(node);
  }
  if (t.isFunctionDeclaration(node) || t.isMethodDeclaration(node) || t.isArrowFunction(node) || t.isFunctionExpression(node)) {
    return (node as ts.FunctionLikeDeclaration).body !== undefined && markerOf(node, checker) !== undefined;
  }
  return false;
}

/** `f` at a call site -> the marked declaration, through aliases, imports and `const g = f`. */
export function resolveMarkedFunction(expr: ts.Expression, checker: ts.TypeChecker, depth = 0): { decl: ts.SignatureDeclaration; marker: MarkerInfo } | undefined {
  const t = api();
  if (depth > 8) return undefined;
  expr = unwrap(expr);
  if (t.isCallExpression(expr) && isTsadExport(expr.expression, checker, 'differentiable')) {
    const fn = expr.arguments[0];
    if (fn && (t.isArrowFunction(fn) || t.isFunctionExpression(fn))) return { decl: fn, marker: { node: expr, ...markerOptions(expr.arguments[1]) } };
    return fn ? resolveMarkedFunction(fn, checker, depth + 1) : undefined;
  }
  const at = t.isPropertyAccessExpression(expr) ? expr.name : expr;
  let sym = checker.getSymbolAtLocation(at);
  if (!sym) return undefined;
  if (sym.flags & t.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
  for (const decl of sym.declarations ?? []) {
    if (t.isFunctionDeclaration(decl) || t.isMethodDeclaration(decl)) {
      const marker = markerOf(decl, checker);
      if (marker && decl.body) return { decl, marker };
    }
    if (t.isVariableDeclaration(decl) && decl.initializer) {
      const init = unwrap(decl.initializer);
      const rule = (t.isArrowFunction(init) || t.isFunctionExpression(init)) && customRuleOf(init, checker);
      const r = rule
        ? { decl: init as ts.SignatureDeclaration, marker: { node: rule } }
        : docMarkedConst(init)
          ? { decl: init as ts.ArrowFunction | ts.FunctionExpression, marker: { node: decl, ...docOptions(docMarkerHolder(decl)) } }
          : resolveMarkedFunction(decl.initializer, checker, depth + 1);
      if (r) {
        notReassigned(decl, checker);
        return r;
      }
    }
  }
  return undefined;
}
