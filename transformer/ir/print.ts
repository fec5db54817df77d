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

/** An expression in argument position (one line unless it is a block). */
function inline(e: Expr, indent: string, o: PrintOptions): string {
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
      return `drop(${inline(e.expr, indent, o)})`;
    case 'let':
    case 'unpack':
      return `{\n${block(e, indent + '  ', o)}\n${indent}}`;
  }
}

/** A sequence of statements ending in a final expression, one per line. */
function block(e: Expr, indent: string, o: PrintOptions): string {
  const lines: string[] = [];
  for (;;) {
    if (e.tag === 'let') {
      const rhs = inline(e.rhs, indent, o);
      lines.push(e.nl.length + e.lin.length === 0 ? `${indent}${rhs}` : `${indent}let ${binders(e, o)} = ${rhs}`);
      e = e.body;
    } else if (e.tag === 'unpack') {
      lines.push(`${indent}let <${e.linear ? '; ' : ''}${e.names.map((b) => binderText(b, o)).join(', ')}> = ${e.tuple}`);
      e = e.body;
    } else {
      lines.push(indent + inline(e, indent, o));
      return lines.join('\n');
    }
  }
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
  const walk = (e: Expr): void => {
    switch (e.tag) {
      case 'let':
        [...e.nl, ...e.lin].forEach((b) => visit(b.type));
        walk(e.rhs);
        walk(e.body);
        break;
      case 'unpack':
        e.names.forEach((b) => visit(b.type));
        walk(e.body);
        break;
      case 'drop':
        walk(e.expr);
        break;
      case 'zero':
        visit(e.type);
        break;
      default:
        break;
    }
  };
  walk(d.body);
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
