// Printer for the Linear A text format; `parseProgram(printProgram(p, { types: true }))`
// reproduces p when p is in the parser's normal form (no block without statements, no nested
// block in result position; other blocks print as the text that parses to that form). Used by
// tests, golden files, error messages and `tsad inspect`.
import { Binder, Block, Expr, FnDef, InternalError, Lambda, Program, Stmt, Type } from './syntax';
import { printType } from './printType';
import { visitBlock } from './traverse';

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

function binders(s: Extract<Stmt, { tag: 'let' }>, o: PrintOptions): string {
  const nl = s.nl.map((b) => binderText(b, o));
  const lin = s.lin.map((b) => binderText(b, o));
  if (nl.length === 1 && lin.length === 0) return nl[0];
  return `(${sides(nl, lin)})`;
}

/** Parameters as a def writes them: typed, and a trailing ` ;` when only non-linear ones exist. */
function params(nl: readonly Binder[], lin: readonly Binder[]): string {
  const typed = (b: Binder) => (b.type ? `${b.name}: ${T(b.type)}` : b.name);
  return `${sides(nl.map(typed), lin.map(typed))}${lin.length === 0 && nl.length > 0 ? ' ;' : ''}`;
}

const lambdaHead = (l: Lambda): string => `|${params(l.nlParams, l.linParams)}|`;

/** A leaf in argument position: one line (blocks and construct bodies are laid out by `block`). */
function leafText(e: Expr): string {
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
    case 'construct':
      if (e.bodies.length > 0) throw new InternalError('print: construct bodies are laid out by block()');
      return `${constructHead(e)}]`;
    case 'drop':
    case 'block':
      throw new InternalError(`print: ${e.tag} is laid out by block()`);
  }
}

const constructHead = (e: Extract<Expr, { tag: 'construct' }>): string => `${e.op}(${sides(e.nl, e.lin)}) [`;

/**
 * An expression as the parser reads it back: the `drop(`s around it and what they hold, with
 * blocks of no statements (which the parser never builds) standing for their results.
 */
function opened(e: Expr): { drops: number; inner: Expr } {
  let drops = 0;
  for (;;) {
    if (e.tag === 'drop') drops++;
    else if (e.tag !== 'block' || e.block.stmts.length > 0) return { drops, inner: e };
    e = e.tag === 'drop' ? e.expr : e.block.result;
  }
}

/** What `block` prints next: the rest of a block, a line, or the bodies of a construct after the first. */
type Task =
  | { readonly k: 'stmts'; readonly b: Block; i: number; readonly indent: string }
  | { readonly k: 'line'; readonly text: string }
  | { readonly k: 'bodies'; readonly c: Extract<Expr, { tag: 'construct' }>; j: number; readonly indent: string; readonly inner: string; readonly close: string };

/**
 * A block's statements and result, one per line. Nested blocks and construct bodies are laid
 * out with an explicit stack of what follows them, so depth costs no recursion. A nested block
 * in result position prints as the rest of its parent (the parser splices it back in).
 */
function block(start: Block, indent0: string, o: PrintOptions): string {
  const lines: string[] = [];
  const tasks: Task[] = [{ k: 'stmts', b: start, i: 0, indent: indent0 }];
  // Indentation stops growing past a depth no reader follows: output stays linear in size.
  const deeper = (indent: string) => (indent.length < MAX_INDENT ? indent + '  ' : indent);
  // Prints `head` and a value; a block or a construct with bodies opens lines that tasks close.
  const value = (head: string, e: Expr, indent: string) => {
    const { drops, inner } = opened(e);
    const pre = head + 'drop('.repeat(drops);
    if (inner.tag === 'block') {
      lines.push(`${pre}{`);
      tasks.push({ k: 'line', text: `${indent}}${')'.repeat(drops)}` });
      tasks.push({ k: 'stmts', b: inner.block, i: 0, indent: deeper(indent) });
    } else if (inner.tag === 'construct' && inner.bodies.length > 0) {
      const body = inner.bodies[0];
      lines.push(`${pre}${constructHead(inner)}${lambdaHead(body)} {`);
      tasks.push({ k: 'bodies', c: inner, j: 1, indent, inner: deeper(indent), close: `${indent}}]${')'.repeat(drops)}` });
      tasks.push({ k: 'stmts', b: body.body, i: 0, indent: deeper(indent) });
    } else {
      lines.push(pre + leafText(inner) + ')'.repeat(drops));
    }
  };
  while (tasks.length > 0) {
    const t = tasks[tasks.length - 1];
    if (t.k === 'line') {
      tasks.pop();
      lines.push(t.text);
      continue;
    }
    if (t.k === 'bodies') {
      if (t.j === t.c.bodies.length) {
        tasks.pop();
        lines.push(t.close);
        continue;
      }
      const body = t.c.bodies[t.j++];
      lines.push(`${t.indent}}, ${lambdaHead(body)} {`);
      tasks.push({ k: 'stmts', b: body.body, i: 0, indent: t.inner });
      continue;
    }
    const { indent } = t;
    if (t.i < t.b.stmts.length) {
      const s = t.b.stmts[t.i++];
      if (s.tag === 'unpack') lines.push(`${indent}let <${s.linear ? '; ' : ''}${s.names.map((b) => binderText(b, o)).join(', ')}> = ${s.tuple}`);
      else value(s.nl.length + s.lin.length === 0 ? indent : `${indent}let ${binders(s, o)} = `, s.rhs, indent);
      continue;
    }
    tasks.pop();
    const { drops, inner } = opened(t.b.result);
    if (drops === 0 && inner.tag === 'block') tasks.push({ k: 'stmts', b: inner.block, i: 0, indent });
    else value(indent, t.b.result, indent);
  }
  return lines.join('\n');
}

export function printDef(d: FnDef, o: PrintOptions = {}): string {
  const results = d.linResults.length === 0 ? `${d.nlResults.map(T).join(', ')} ;` : sides(d.nlResults.map(T), d.linResults.map(T));
  const role = d.role ? ` as ${d.role.kind}(${d.role.of})` : '';
  return `def ${d.name}(${params(d.nlParams, d.linParams)}) -> (${results})${role} {\n${block(d.body, '  ', o)}\n}`;
}

/** Named tuple types used anywhere in a def, innermost first, each once. */
function aliasesIn(d: FnDef, seen: Map<string, Type>): void {
  const visit = (t: Type | undefined): void => {
    if (t?.tag === 'stack' || t?.tag === 'array') return visit(t.elem);
    if (t?.tag !== 'tuple') return;
    // A name seen is printed with everything inside it: nested residual types share their parts.
    if (t.name !== undefined && seen.has(t.name)) return;
    t.elems.forEach(visit);
    if (t.name !== undefined && !seen.has(t.name)) seen.set(t.name, t);
  };
  const visitBinder = (b: Binder) => visit(b.type);
  [...d.nlParams, ...d.linParams].forEach(visitBinder);
  [...d.nlResults, ...d.linResults].forEach(visit);
  // A let's binders come before its right-hand side, in the order the text shows them.
  visitBlock(d.body, {
    stmt: (s) => (s.tag === 'let' ? [...s.nl, ...s.lin] : s.names).forEach(visitBinder),
    enter: (l) => [...l.nlParams, ...l.linParams].forEach(visitBinder),
    expr: (e) => {
      if (e.tag === 'zero') visit(e.type);
    },
  });
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
