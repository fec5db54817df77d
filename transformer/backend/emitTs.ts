// Linear A -> TypeScript. Each IR def becomes a plain function of straight-line `const`
// declarations: tuples are arrays, a multi-value result is an array (a single one is returned
// bare), `dup` is an alias, `drop` disappears (everything is pure), primitives print through their
// records' `emitTs`. Nested blocks are flattened (names are unique per def), so no closures.
import type * as ts from 'typescript';
import { Expr, FnDef, InternalError, Type } from '../ir/syntax';
import { PRIMS, LIN_PRIMS } from '../prims/registry';

export interface EmitOptions {
  readonly factory: ts.NodeFactory;
  readonly tsApi: typeof ts;
  /** The identifier an IR def is emitted under. */
  readonly fnName: (irName: string) => string;
  /** Source node for source maps, per IR def. */
  readonly original?: (irName: string) => ts.Node | undefined;
  /** Source node per variable of a def, for statement-level source maps. */
  readonly originOf?: (irName: string, variable: string) => ts.Node | undefined;
}

const NAMED_CONSTANTS = new Map<number, string>(
  (['PI', 'E', 'LN2', 'LN10', 'LOG2E', 'LOG10E', 'SQRT2', 'SQRT1_2'] as const).map((k) => [Math[k], k]),
);

export function mangle(irName: string): string {
  return irName.replace(/\./g, '$');
}

class DefEmitter {
  private readonly stmts: ts.Statement[] = [];
  /** Fan-outs and renames are aliases, not copies. */
  private readonly alias = new Map<string, string>();
  /** Literal bindings are printed at their uses: `x - 1`, not `const c = 1; x - c`. */
  private readonly literal = new Map<string, ts.Expression>();
  private lastOrigin: ts.Node | undefined;
  /** Emitted operations by operator and resolved operands, for reuse (all code is pure). */
  private readonly computed = new Map<string, string>();

  private resolve(name: string): string {
    let n = name;
    while (this.alias.has(n)) n = this.alias.get(n)!;
    return n;
  }

  /** True (and `name` aliased) when the operation was emitted before with the same operands. */
  private reuse(name: string, rhs: Extract<Expr, { tag: 'prim' | 'lprim' }>): boolean {
    const operands = rhs.tag === 'prim' ? rhs.args : [...rhs.nl, ';', ...rhs.lin];
    const key = `${rhs.tag}:${rhs.op}(${operands.map((n) => (n === ';' ? n : this.literalKey(n) ?? this.resolve(n))).join(',')})`;
    const seen = this.computed.get(key);
    if (seen !== undefined) {
      this.alias.set(name, seen);
      return true;
    }
    this.computed.set(key, name);
    return false;
  }

  private literalKey(name: string): string | undefined {
    const lit = this.literal.get(this.resolve(name));
    return lit && this.o.tsApi.isNumericLiteral(lit) ? `#${lit.text}` : undefined;
  }
  constructor(
    private readonly o: EmitOptions,
    private readonly defName: string,
  ) {}

  private get f(): ts.NodeFactory {
    return this.o.factory;
  }

  private id(name: string): ts.Identifier {
    let n = name;
    while (this.alias.has(n)) n = this.alias.get(n)!;
    return this.f.createIdentifier(n);
  }

  /** A use of a variable: its alias target, or its literal value. */
  private ref(name: string): ts.Expression {
    let n = name;
    while (this.alias.has(n)) n = this.alias.get(n)!;
    return this.literal.get(n) ?? this.f.createIdentifier(n);
  }

  private number(v: number): ts.Expression {
    const f = this.f;
    if (Number.isNaN(v)) return this.id('NaN');
    if (v === Infinity) return this.id('Infinity');
    // Negative literals keep their parentheses: the factory does not add them for `(-2) ** x`.
    if (v === -Infinity) return f.createParenthesizedExpression(f.createPrefixUnaryExpression(this.o.tsApi.SyntaxKind.MinusToken, this.id('Infinity')));
    const named = NAMED_CONSTANTS.get(v);
    if (named) return f.createPropertyAccessExpression(f.createIdentifier('Math'), named);
    if (v < 0 || Object.is(v, -0)) return f.createParenthesizedExpression(f.createPrefixUnaryExpression(this.o.tsApi.SyntaxKind.MinusToken, f.createNumericLiteral(-v)));
    return f.createNumericLiteral(v);
  }

  private zero(t: Type): ts.Expression {
    return t.tag === 'tuple' ? this.f.createArrayLiteralExpression(t.elems.map((e) => this.zero(e))) : this.number(0);
  }

  private constDecl(names: readonly string[], init: ts.Expression): void {
    const f = this.f;
    const K = this.o.tsApi.NodeFlags.Const;
    const binding: ts.BindingName =
      names.length === 1 ? this.id(names[0]) : f.createArrayBindingPattern(names.map((n) => f.createBindingElement(undefined, undefined, this.id(n))));
    const stmt = f.createVariableStatement(undefined, f.createVariableDeclarationList([f.createVariableDeclaration(binding, undefined, undefined, init)], K));
    // Helpers a derivative rule introduced (`dcos`, `slope`) have no source variable: they map
    // to the statement before them, the operation whose derivative they belong to.
    const origin = this.o.originOf?.(this.defName, names[0]) ?? this.lastOrigin;
    if (origin) mapTo(this.o.tsApi, stmt, origin);
    this.lastOrigin = origin;
    this.stmts.push(stmt);
  }

  /** The value of a leaf expression (one result, or an array of several). */
  private leaf(e: Expr): ts.Expression {
    const f = this.f;
    const ids = (ns: readonly string[]) => ns.map((n) => this.ref(n));
    switch (e.tag) {
      case 'var':
        return this.ref(e.name);
      case 'lit':
        return typeof e.value === 'boolean' ? (e.value ? f.createTrue() : f.createFalse()) : typeof e.value === 'string' ? f.createStringLiteral(e.value) : this.number(e.value);
      case 'tuple':
        return f.createArrayLiteralExpression(ids(e.elems));
      case 'prim':
        return PRIMS[e.op].emitTs(ids(e.args), f);
      case 'lprim':
        return LIN_PRIMS[e.op].emitTs(ids(e.nl), ids(e.lin), f);
      case 'zero':
        return this.zero(e.type);
      case 'call':
        return f.createCallExpression(this.id(this.o.fnName(e.fn)), undefined, ids([...e.nl, ...e.lin]));
      case 'ret': {
        const all = [...e.nl, ...e.lin];
        return all.length === 1 ? this.ref(all[0]) : f.createArrayLiteralExpression(ids(all));
      }
      case 'dup':
        return f.createArrayLiteralExpression(ids([e.name, e.name]));
      default:
        throw new InternalError(`emitTs: ${e.tag} is not a leaf`);
    }
  }

  /** A linear primitive at a tuple type: applied leaf by leaf (records describe one leaf). */
  private leafwise(e: Extract<Expr, { tag: 'lprim' }>, t: Type, path: readonly number[] = []): ts.Expression {
    const f = this.f;
    if (t.tag === 'tuple') return f.createArrayLiteralExpression(t.elems.map((el, i) => this.leafwise(e, el, [...path, i])));
    const at = (n: string) => path.reduce<ts.Expression>((acc, i) => f.createElementAccessExpression(acc, i), this.ref(n));
    return LIN_PRIMS[e.op].emitTs(e.nl.map((n) => this.ref(n)), e.lin.map(at), f);
  }

  /** Emits the statements of a block; returns the expression of its final leaf. */
  block(e: Expr): ts.Expression | null {
    for (;;) {
      switch (e.tag) {
        case 'let': {
          const names = [...e.nl, ...e.lin].map((b) => b.name);
          const rhs = e.rhs;
          if (rhs.tag === 'drop') {
            // Everything in Linear A is pure: discarding a value is doing nothing.
          } else if (rhs.tag === 'lit' && names.length === 1) {
            this.literal.set(names[0], this.leaf(rhs));
          } else if (rhs.tag === 'dup' || (rhs.tag === 'ret' && names.length > 1)) {
            // Aliases: no array is built for a fan-out or a multi-value rename.
            const src = rhs.tag === 'dup' ? [rhs.name, rhs.name] : [...rhs.nl, ...rhs.lin];
            names.forEach((n, i) => this.alias.set(n, src[i]));
          } else if ((rhs.tag === 'var' || rhs.tag === 'ret') && names.length === 1) {
            this.alias.set(names[0], rhs.tag === 'var' ? rhs.name : [...rhs.nl, ...rhs.lin][0]);
          } else if (rhs.tag === 'let' || rhs.tag === 'unpack') {
            const value = this.block(rhs);
            if (names.length > 0 && value) this.constDecl(names, value);
          } else if (rhs.tag === 'lprim' && e.lin[0]?.type?.tag === 'tuple') {
            this.constDecl(names, this.leafwise(rhs, e.lin[0].type));
          } else if (names.length === 1 && (rhs.tag === 'prim' || rhs.tag === 'lprim') && this.reuse(names[0], rhs)) {
            // The same operation on the same values was already computed (cotangents of a
            // fan-out alias one name, so the linear part repeats itself): reuse it.
          } else if (names.length > 0) {
            this.constDecl(names, this.leaf(rhs));
          }
          e = e.body;
          continue;
        }
        case 'unpack':
          this.constDecl(
            e.names.map((b) => b.name),
            this.ref(e.tuple),
          );
          e = e.body;
          continue;
        case 'drop':
          return null;
        default:
          return this.leaf(e);
      }
    }
  }

  statements(): ts.Statement[] {
    return this.stmts;
  }
}

const mapSources = new WeakMap<ts.SourceFile, ts.SourceMapSource>();

/**
 * Points generated code at a source node, naming the node's file: a marked function imported
 * from another module maps into that module, not to the same offsets of the current one.
 */
export function mapTo(tsApi: typeof ts, generated: ts.Node, origin: ts.Node): void {
  if (origin.pos < 0) return;
  const sf = origin.getSourceFile();
  let source = mapSources.get(sf);
  if (!source) {
    source = tsApi.createSourceMapSource(sf.fileName, sf.text);
    mapSources.set(sf, source);
  }
  tsApi.setSourceMapRange(generated, { pos: origin.getStart(sf), end: origin.end, source });
}

/** One function declaration per IR def, in the given order. */
export function emitDefs(defs: readonly FnDef[], o: EmitOptions): ts.FunctionDeclaration[] {
  const f = o.factory;
  return defs.map((d) => {
    const em = new DefEmitter(o, d.name);
    const result = em.block(d.body);
    const body = f.createBlock([...em.statements(), f.createReturnStatement(result ?? undefined)], true);
    const params = [...d.nlParams, ...d.linParams].map((p) => f.createParameterDeclaration(undefined, undefined, p.name));
    const fn = f.createFunctionDeclaration(undefined, undefined, o.fnName(d.name), undefined, params, undefined, body);
    const original = o.original?.(d.name);
    if (original) {
      o.tsApi.setOriginalNode(fn, original);
      mapTo(o.tsApi, fn, original);
    }
    return fn;
  });
}
