// Statements run for their effect inside a differentiable function (docs/frontend.md, "Throwing
// and logging"): `throw new Error(message)` and `console.log(…)`.
//
// A throw becomes a `raise` (constructs/effect/raise.ts) at the place it is written, under
// the conds that lead there; what follows it on its path is unreachable, so a throw ends a path
// like a `return` does, and a path ending in a throw needs no value. This module reads the
// thrown expression; lower.ts places the statement. A console call becomes a `log`
// (constructs/effect/log.ts) with the values it prints, which must be numbers, booleans or strings.
import type * as ts from 'typescript';
import { fail } from './diagnostics';
import { ERROR_CLASSES } from '../constructs/effect/raise';
import { CONSOLE_METHODS } from '../constructs/effect/log';
import { hasEffect } from '../constructs/effect';
import type { Block, Expr } from '../ir/syntax';
import { construct } from '../ir/syntax';
import { Shape, describeShape, isScalarShape } from './shapes';

/** A piece of the message: its text, or a number-valued expression JavaScript formats with String. */
export type MessagePart = { readonly text: string } | { readonly number: ts.Expression };

export interface Thrown {
  /** The built-in class named after `new`. */
  readonly kind: string;
  /** The message's pieces in order, or undefined for `new Error()`. */
  readonly parts: readonly MessagePart[] | undefined;
}

const HINT = "throw new Error('…') (or RangeError, TypeError, …) with a message made of strings, template literals and numbers";

/** What `throw e` throws, when tsad can throw the same: `new <built-in error class>(message?)`. */
export function thrownError(tsApi: typeof ts, checker: ts.TypeChecker, s: ts.ThrowStatement): Thrown {
  let e: ts.Expression = s.expression;
  while (tsApi.isParenthesizedExpression(e)) e = e.expression;
  const call = tsApi.isNewExpression(e) || tsApi.isCallExpression(e) ? e : undefined;
  const callee = call && tsApi.isIdentifier(call.expression) ? call.expression : undefined;
  if (!call || !callee || !ERROR_CLASSES.has(callee.text) || !isGlobal(checker, callee)) {
    return fail(1101, s.expression, 'a differentiable function can throw only a new built-in error (Error, RangeError, TypeError, …)', HINT);
  }
  const args = call.arguments ?? [];
  if (args.length > 1) fail(1101, args[1], `tsad throws ${callee.text} with a message only: options such as { cause } are not supported`, HINT);
  return { kind: callee.text, parts: args.length === 0 ? undefined : messageParts(tsApi, checker, args[0]) };
}

/** The name resolves to JavaScript's global class (not a local or imported one of the same name). */
function isGlobal(checker: ts.TypeChecker, id: ts.Identifier): boolean {
  const decls = checker.getSymbolAtLocation(id)?.declarations ?? [];
  return decls.length > 0 && decls.every((d) => d.getSourceFile().isDeclarationFile);
}

function messageParts(tsApi: typeof ts, checker: ts.TypeChecker, e: ts.Expression, what = 'the message of a thrown error'): MessagePart[] {
  while (tsApi.isParenthesizedExpression(e)) e = e.expression;
  if (tsApi.isStringLiteral(e) || tsApi.isNoSubstitutionTemplateLiteral(e)) return [{ text: e.text }];
  if (tsApi.isTemplateExpression(e)) {
    const out: MessagePart[] = [{ text: e.head.text }];
    for (const span of e.templateSpans) out.push(...piece(tsApi, checker, span.expression, what), { text: span.literal.text });
    return out;
  }
  if (tsApi.isBinaryExpression(e) && e.operatorToken.kind === tsApi.SyntaxKind.PlusToken && isString(tsApi, checker, e)) {
    return [...piece(tsApi, checker, e.left, what), ...piece(tsApi, checker, e.right, what)];
  }
  return fail(1101, e, `${what} must be built from string literals, template literals and numbers`, HINT);
}

/** An operand of a string concatenation or a template span: a string piece, or a number. */
function piece(tsApi: typeof ts, checker: ts.TypeChecker, e: ts.Expression, what: string): MessagePart[] {
  if (isString(tsApi, checker, e)) return messageParts(tsApi, checker, e, what);
  const type = checker.getTypeAtLocation(e);
  if (type.flags & tsApi.TypeFlags.NumberLike) return [{ number: e }];
  return fail(1101, e, `'${e.getText()}' in ${what} is not a number or a string literal`, HINT);
}

function isString(tsApi: typeof ts, checker: ts.TypeChecker, e: ts.Expression): boolean {
  return (checker.getTypeAtLocation(e).flags & tsApi.TypeFlags.StringLike) !== 0;
}

/** A statement's kind in the words of the language (never the compiler's SyntaxKind name). */
export function statementWord(tsApi: typeof ts, s: ts.Statement): string {
  if (tsApi.isTryStatement(s)) return 'try/catch (let the error reach the caller of the derivative)';
  if (tsApi.isClassDeclaration(s)) return 'a class declaration (declare it outside the function)';
  if (tsApi.isWithStatement(s)) return 'with';
  if (tsApi.isDebuggerStatement(s)) return 'debugger';
  if (tsApi.isForInStatement(s)) return 'for…in (loop over an array with for…of or a counter)';
  const first = s.getText().split(/[\s({;]/)[0];
  return `'${first}'`;
}

/** A loop body that assigns nothing outside still runs when it may throw. */
export function blockHasEffect(b: Block): boolean {
  return b.stmts.some((st) => st.tag === 'let' && hasEffect(st.rhs));
}

/** `console.log(…)` and the other console methods tsad calls, when `console` is JavaScript's: the method's name. */
export function consoleMethod(tsApi: typeof ts, checker: ts.TypeChecker, e: ts.Expression): string | undefined {
  if (!tsApi.isCallExpression(e) || !tsApi.isPropertyAccessExpression(e.expression)) return undefined;
  const target = e.expression.expression;
  if (!tsApi.isIdentifier(target) || target.text !== 'console' || !isGlobal(checker, target)) return undefined;
  const method = e.expression.name.text;
  if (!CONSOLE_METHODS.has(method)) fail(1101, e, `console.${method} is not supported in differentiable functions`, `use ${[...CONSOLE_METHODS].map((m) => `console.${m}`).join(', ')}`);
  return method;
}

export const LOG_HINT = "log numbers, booleans and strings (console.log('loss', loss, x[0])); log an array or an object outside the function, or one element at a time";

/** A logged string built from pieces (a template literal, a `+` of strings): its pieces; undefined for any other value. */
export function loggedText(tsApi: typeof ts, checker: ts.TypeChecker, e: ts.Expression): MessagePart[] | undefined {
  let x = e;
  while (tsApi.isParenthesizedExpression(x)) x = x.expression;
  const built = tsApi.isTemplateExpression(x) || (tsApi.isBinaryExpression(x) && x.operatorToken.kind === tsApi.SyntaxKind.PlusToken && isString(tsApi, checker, x));
  return built ? messageParts(tsApi, checker, x, 'a logged string') : undefined;
}

/** What lowering a throw or a console call needs from the function being lowered. */
export interface EffectSite {
  /** A value computed where the statement is written. */
  value(e: ts.Expression, hint: string): { readonly name: string; readonly shape: Shape };
  /** A str literal. */
  lit(v: string, hint: string): string;
  /** A statement that binds nothing, run for its effect. */
  emit(e: Expr): void;
}

/** The pieces of a message as operands: each text a literal (empty ones left out), each number its value. */
function operands(site: EffectSite, parts: readonly MessagePart[]): string[] {
  return parts.flatMap((p) => ('text' in p ? (p.text === '' ? [] : [site.lit(p.text, 'text')]) : [site.value(p.number, 'part').name]));
}

/** `throw new Error(…)`: a raise where it is written. */
export function lowerThrow(tsApi: typeof ts, checker: ts.TypeChecker, site: EffectSite, s: ts.ThrowStatement): void {
  const thrown = thrownError(tsApi, checker, s);
  site.emit(construct('raise', [site.lit(thrown.kind, 'kind'), ...operands(site, thrown.parts ?? [])], [], []));
}

/** `console.log(a, b, …)`: a log of the primal values where it is written. */
export function lowerLog(tsApi: typeof ts, checker: ts.TypeChecker, site: EffectSite, e: ts.CallExpression): void {
  const method = consoleMethod(tsApi, checker, e)!;
  const layout: string[] = [];
  const parts: string[] = [];
  for (const a of e.arguments) {
    if (tsApi.isSpreadElement(a)) fail(1101, a, `a spread argument of console.${method} is not supported`, LOG_HINT);
    const text = loggedText(tsApi, checker, a);
    if (text) {
      const pieces = operands(site, text);
      layout.push(`s${pieces.length}`);
      parts.push(...pieces);
      continue;
    }
    const v = site.value(a, 'logged');
    if (!isScalarShape(v.shape)) fail(1101, a, `console.${method} of ${describeShape(v.shape)} is not supported in differentiable functions`, LOG_HINT);
    layout.push('v');
    parts.push(v.name);
  }
  site.emit(construct('log', [site.lit(method, 'method'), site.lit(layout.join(','), 'layout'), ...parts], [], []));
}
