// Printer for the Linear A text format; `parseProgram(printProgram(p, { types: true }))`
// reproduces p. Used by tests, golden files, error messages and `tsad inspect`.
import type { Binder, Expr, FnDef, Program, Type } from './syntax';
import { printType } from './printType';

export { printType };

export interface PrintOptions {
  /** Annotate every let binder that has a type (def parameters are always typed). */
  readonly types?: boolean;
}

/** Shortest text that parses back to the identical double (-0 and NaN included). */
export function numberText(v: number): string {
  return Object.is(v, -0) ? '-0' : String(v);
}

const T = (t: Type) => printType(t, true);
const MAX_INDENT = 64;

function binderText(b: Binder, o: PrintOptions): string {
  return o.types && b.type ? `${b.name}: ${T(b.type)}` : b.name;
}

function sides(nl: readonly string[], lin: readonly string[]): string {
  if (lin.length === 0) return nl.join(', ');
  return `${nl.join(', ')}${nl.length ? ' ' : ''}; ${lin.join(', ')}`;
}

function binders(e: Extract<Expr, { tag: 'let' }>, o: PrintOptions): string {
  const nl = e.nl.map((b) => binderText(b, o));
  const lin = e.lin.map((b) => binderText(b, o));
  if (nl.length === 1 && lin.length === 0) return nl[0];
  return `(${sides(nl, lin)})`;
}

/** A leaf in argument position: one line (blocks are laid out by `block`). */
function leafText(e: Expr, o: PrintOptions): string {
  switch (e.tag) {
    case 'ret':
      return e.lin.length === 0 && e.nl.length > 0 ? `(${e.nl.join(', ')} ;)` : `(${sides(e.nl, e.lin)})`;
    case 'var':
      return e.name;
    case 'lit':
      return typeof e.value === 'number' ? numberText(e.value) : typeof e.value === 'string' ? JSON.stringify(e.value) : String(e.value);
    case 'tuple':
      return `<${e.linear ? '; ' : ''}${e.elems.join(', ')}>`;
    case 'prim':
      return `${e.op}(${e.args.join(', ')})`;
    case 'lprim':
      return `${e.op}(${sides(e.nl, e.lin)})`;
    case 'call':
      return `${e.fn}(${sides(e.nl, e.lin)})`;
    case 'zero':
      return `zero(${T(e.type)})`;
    case 'dup':
      return `dup(${e.name})`;
    case 'drop':
      return `drop(${leafText(e.expr, o)})`;
    case 'let':
    case 'unpack':
      throw new Error('leafText: blocks are printed by block()');
  }
}

/** `drop(drop(e))` around a block: the number of drops and the block, or null for a leaf. */
function openedBlock(e: Expr): { drops: number; inner: Expr } | null {
  let drops = 0;
  while (e.tag === 'drop') {
    drops++;
    e = e.expr;
  }
  return e.tag === 'let' || e.tag === 'unpack' ? { drops, inner: e } : null;
}

/**
 * A sequence of statements ending in a final expression, one per line. Nested blocks are laid
 * out with an explicit stack of the statements that follow them, so depth costs no recursion.
 */
function block(start: Expr, indent0: string, o: PrintOptions): string {
  const lines: string[] = [];
  const after: { rest: Expr | null; indent: string; close: string }[] = [];
  let e: Expr | null = start;
  let indent = indent0;
  while (e !== null) {
    if (e.tag === 'unpack') {
      lines.push(`${indent}let <${e.linear ? '; ' : ''}${e.names.map((b) => binderText(b, o)).join(', ')}> = ${e.tuple}`);
      e = e.body;
      continue;
    }
    const head = e.tag === 'let' ? (e.nl.length + e.lin.length === 0 ? indent : `${indent}let ${binders(e, o)} = `) : indent;
    const value = e.tag === 'let' ? e.rhs : e;
    const opened = openedBlock(value);
    if (opened) {
      lines.push(`${head}${'drop('.repeat(opened.drops)}{`);
      after.push({ rest: e.tag === 'let' ? e.body : null, indent, close: `${indent}}${')'.repeat(opened.drops)}` });
      // Indentation stops growing past a depth no reader follows: output stays linear in size.
      if (indent.length < MAX_INDENT) indent += '  ';
      e = opened.inner;
      continue;
    }
    lines.push(head + leafText(value, o));
    e = e.tag === 'let' ? e.body : null;
    // A finished block hands over to the statement after it, or finishes its parent too.
    while (e === null && after.length > 0) {
      const k = after.pop()!;
      lines.push(k.close);
      indent = k.indent;
      e = k.rest;
    }
  }
  return lines.join('\n');
}

export function printExpr(e: Expr, o: PrintOptions = {}): string {
  return block(e, '', o);
}

export function printDef(d: FnDef, o: PrintOptions = {}): string {
  const params = sides(
    d.nlParams.map((b) => `${b.name}: ${T(b.type!)}`),
    d.linParams.map((b) => `${b.name}: ${T(b.type!)}`),
  );
  const results = d.linResults.length === 0 ? `${d.nlResults.map(T).join(', ')} ;` : sides(d.nlResults.map(T), d.linResults.map(T));
  return `def ${d.name}(${params}${d.linParams.length === 0 && d.nlParams.length > 0 ? ' ;' : ''}) -> (${results}) {\n${block(d.body, '  ', o)}\n}`;
}

/** Named tuple types used anywhere in a def, innermost first, each once. */
function aliasesIn(d: FnDef, seen: Map<string, Type>): void {
  const visit = (t: Type | undefined): void => {
    if (!t || t.tag !== 'tuple') return;
    t.elems.forEach(visit);
    if (t.name !== undefined && !seen.has(t.name)) seen.set(t.name, t);
  };
  [...d.nlParams, ...d.linParams].forEach((b) => visit(b.type));
  [...d.nlResults, ...d.linResults].forEach(visit);
  // An explicit stack: bodies can be nested thousands deep.
  const stack: Expr[] = [d.body];
  while (stack.length > 0) {
    const e = stack.pop()!;
    switch (e.tag) {
      case 'let':
        [...e.nl, ...e.lin].forEach((b) => visit(b.type));
        stack.push(e.body, e.rhs);
        break;
      case 'unpack':
        e.names.forEach((b) => visit(b.type));
        stack.push(e.body);
        break;
      case 'drop':
        stack.push(e.expr);
        break;
      case 'zero':
        visit(e.type);
        break;
      default:
        break;
    }
  }
}

export function printProgram(p: Program, o: PrintOptions = {}): string {
  const out: string[] = [];
  const seen = new Map<string, Type>();
  for (const d of p.defs) {
    const before = seen.size;
    aliasesIn(d, seen);
    [...seen.entries()].slice(before).forEach(([n, t]) => out.push(`type ${n} = <${(t as Extract<Type, { tag: 'tuple' }>).elems.map(T).join(', ')}>`));
    out.push(printDef(d, o));
  }
  return out.join('\n\n') + '\n';
}
