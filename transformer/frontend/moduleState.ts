// Module-level variables a marked function reads. JavaScript reads them when the function runs,
// so the derivative must too: a `const` array filled after its declaration, an object whose
// fields the program sets, a `let` it reassigns. Each such variable becomes a trailing parameter
// of the function's def (and of every marked caller's, which passes its own), a constant that is
// never differentiated; the call site's wrapper reads the variable when it runs (compile.ts).
// Only a `const` of a primitive type is folded: its initializer is its value for ever.
import type * as ts from 'typescript';
import type { LoweredFunction, ModuleDecl, ModuleState, StateSource, Value } from './values';
import { classOf, isInstanceMethod } from './methods';
import { shapeOfType } from './shapes';
import { fail } from './diagnostics';

/** The name the source gives it. */
export function stateName(s: StateSource): string {
  return s.kind === 'module' ? s.decl.name.text : `this.${s.field}`;
}

/** The module-level variable `sym` names (through an import), if it is one. */
export function moduleVariable(t: typeof ts, checker: ts.TypeChecker, sym: ts.Symbol): Extract<StateSource, { kind: 'module' }> | undefined {
  const symbol = sym.flags & t.SymbolFlags.Alias ? checker.getAliasedSymbol(sym) : sym;
  const decl = symbol.valueDeclaration;
  if (!decl || !(t.isVariableDeclaration(decl) || t.isBindingElement(decl)) || !t.isIdentifier(decl.name)) return undefined;
  let top: ts.Node = decl;
  while (t.isBindingElement(top) || t.isObjectBindingPattern(top) || t.isArrayBindingPattern(top)) top = top.parent;
  const list = top.parent;
  if (!t.isVariableDeclarationList(list) || !t.isVariableStatement(list.parent) || !t.isSourceFile(list.parent.parent)) return undefined;
  return { kind: 'module', symbol, decl: decl as ModuleDecl };
}

/** A `const` of a primitive type: its value can never change, so its initializer may be folded. */
export function isFixed(t: typeof ts, checker: ts.TypeChecker, decl: ts.VariableDeclaration | ts.BindingElement): boolean {
  if (!t.isVariableDeclaration(decl) || (decl.parent.flags & t.NodeFlags.Const) === 0 || !decl.initializer) return false;
  const F = t.TypeFlags;
  return (checker.getTypeAtLocation(decl.name).flags & (F.NumberLike | F.BooleanLike | F.StringLike)) !== 0;
}

/** Is the variable exported from its module under its own name (`export const`, `export let`)? */
export function exportedName(t: typeof ts, checker: ts.TypeChecker, state: { symbol: ts.Symbol; decl: ts.Node }): string | undefined {
  const sf = state.decl.getSourceFile();
  const moduleSymbol = checker.getSymbolAtLocation(sf);
  if (!moduleSymbol) return undefined;
  for (const e of checker.getExportsOfModule(moduleSymbol)) {
    const target = e.flags & t.SymbolFlags.Alias ? checker.getAliasedSymbol(e) : e;
    if (target === state.symbol) return e.name;
  }
  return undefined;
}

/** The name of the function a module exports so that other modules' derivatives can read its unexported state. */
export function accessorName(decl: { readonly name: ts.Identifier }): string {
  return `tsad$state$${decl.name.text}`;
}

/** One def's module state, in the order it is first read: each variable's value is one parameter. */
export class StateParams {
  private readonly values = new Map<ts.Symbol, { state: ModuleState; value: Value }>();

  constructor(
    private readonly t: typeof ts,
    private readonly checker: ts.TypeChecker,
    private readonly fresh: (base: string) => string,
  ) {}

  /**
   * The parameter holding the value (made at the first read). `at` is the read (`this.k` for a
   * field, whose type gives its shape), or a call that passes a callee's state on.
   */
  read(source: StateSource, at: ts.Node): Value {
    const known = this.values.get(source.symbol);
    if (known) return known.value;
    const type = source.kind === 'module' ? this.checker.getTypeAtLocation(source.decl.name) : this.checker.getTypeAtLocation(at);
    const shape = source.shape ?? shapeOfType(this.t, this.checker, type, at);
    if (shape.kind === 'tuple' && shape.elems.length === 0) fail(1106, at, `'${stateName(source)}' holds no numbers, arrays or records`);
    // Not the variable's own name: the wrapper binds this name to a read of the variable.
    const value = { name: this.fresh(source.kind === 'module' ? `${source.decl.name.text}_now` : `this_${source.field}`), shape };
    this.values.set(source.symbol, { state: { ...source, shape }, value });
    return value;
  }

  get list(): { state: ModuleState; value: Value }[] {
    return [...this.values.values()];
  }
}

/**
 * How generated code in `sf` reads a module variable when it runs: in its own module by name
 * (the identifier takes the declaration as its original, so that a CommonJS emit rewrites it to
 * `exports.x` where it is exported); in another module through a namespace import of that module
 * (`ns(file)` gives the import's local name): `ns.x` where the variable is exported, else the
 * accessor that module exports for it (`ns.tsad$state$x()`, see `accessorsOf`).
 * `root` is the name the expression starts with, which the wrapper must not shadow.
 */
export function stateReader(
  t: typeof ts,
  checker: ts.TypeChecker,
  f: ts.NodeFactory,
  sf: ts.SourceFile,
  state: ModuleState,
  ns: (file: ts.SourceFile) => string,
): { root: string; read: () => ts.Expression } {
  if (state.kind === 'this') return { root: 'this', read: () => f.createPropertyAccessExpression(f.createThis(), state.field) };
  return moduleValueReader(t, checker, f, sf, state, ns);
}

/** How generated code in `sf` reads a module-level declaration (a variable, a class) when it runs: see stateReader. */
export function moduleValueReader(
  t: typeof ts,
  checker: ts.TypeChecker,
  f: ts.NodeFactory,
  sf: ts.SourceFile,
  value: { symbol: ts.Symbol; decl: ts.Node & { readonly name: ts.Identifier } },
  ns: (file: ts.SourceFile) => string,
): { root: string; read: () => ts.Expression } {
  const home = value.decl.getSourceFile();
  const own = value.decl.name.text;
  if (home === sf) return { root: own, read: () => t.setOriginalNode(f.createIdentifier(own), value.decl.name) };
  if (home.isDeclarationFile) return fail(1106, value.decl, `'${own}' is declared in a declaration file, so tsad cannot read it when the derivative runs: pass it as a parameter`);
  const root = ns(home);
  const exported = exportedName(t, checker, value);
  if (exported) return { root, read: () => f.createPropertyAccessExpression(f.createIdentifier(root), exported) };
  return { root, read: () => f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier(root), accessorName(value.decl)), undefined, []) };
}

/**
 * The accessors a module exports for its unexported variables that its marked functions read
 * (`export function tsad$state$x() { return x; }`), and for its unexported classes with marked
 * instance methods, so that a derivative compiled in another module reads them when it runs.
 */
export function accessorsOf(
  t: typeof ts,
  checker: ts.TypeChecker,
  f: ts.NodeFactory,
  sf: ts.SourceFile,
  states: Iterable<{ symbol: ts.Symbol; decl: ts.Node & { readonly name: ts.Identifier } }>,
): ts.Statement[] {
  const seen = new Set<ts.Node>();
  const out: ts.Statement[] = [];
  for (const s of states) {
    if (s.decl.getSourceFile() !== sf || seen.has(s.decl) || exportedName(t, checker, s)) continue;
    seen.add(s.decl);
    const value = t.setOriginalNode(f.createIdentifier(s.decl.name.text), s.decl.name);
    out.push(f.createFunctionDeclaration([f.createModifier(t.SyntaxKind.ExportKeyword)], undefined, accessorName(s.decl), undefined, [], undefined, f.createBlock([f.createReturnStatement(value)])));
  }
  return out;
}

/** The module specifier by which `from` imports `to` (a relative path without the extension). */
export function relativeSpecifier(from: ts.SourceFile, to: ts.SourceFile): string {
  const dir = from.fileName.split('/').slice(0, -1);
  const target = to.fileName.replace(/\.(d\.)?[cm]?tsx?$/, '').split('/');
  let common = 0;
  while (common < dir.length && common < target.length - 1 && dir[common] === target[common]) common++;
  const up = dir.length - common;
  const rest = target.slice(common).join('/');
  return up === 0 ? `./${rest}` : `${'../'.repeat(up)}${rest}`;
}

/** The module-level declarations the derivatives of `functions` read when they run: variables, and the classes of instance methods. */
export function moduleValues(t: typeof ts, checker: ts.TypeChecker, functions: readonly LoweredFunction[]): { symbol: ts.Symbol; decl: ts.Node & { readonly name: ts.Identifier } }[] {
  return functions.flatMap((f) => [
    ...f.state.flatMap((s) => (s.kind === 'module' ? [s] : [])),
    ...[f.decl, ...f.methods].flatMap((m) => {
      const cls = isInstanceMethod(t, m) ? classOf(t, m) : undefined;
      const symbol = cls && checker.getSymbolAtLocation(cls.name);
      return cls && symbol ? [{ symbol, decl: cls }] : [];
    }),
  ]);
}
