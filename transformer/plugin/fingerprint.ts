// What a module's derivative code depends on, for TypeScript's incremental builder.
//
// The derivative at a call site `grad(f)` is compiled from f's body and from the bodies of
// everything f reaches (callees, module constants, custom rules), which may live in other files.
// TypeScript re-emits a file only when it changes or when the declaration output ("shape") of
// a module it imports changes, and a function body is not part of that shape. So every module's
// shape, as the builder computes it, gets one extra declaration: a fingerprint of the source
// text of everything a derivative of its exports would read. Edit a body anywhere in that
// closure and the shape of the module changes, the builder re-emits its importers, and their
// fingerprints change in turn when they re-export or call it: a chain a → b → c is re-emitted
// up to every call site. The fingerprint only enters the builder's signature emit
// (`EmitOnlyDtsFiles.BuilderSignature`); `.d.ts` files written to disk are unchanged.
import type * as ts from 'typescript';
import { hash } from './hash';
import { TRANSFORM_NAMES, customRuleOf, markerOf, resolveMarkedFunction, tsadExportName, useTypeScript } from '../frontend/markers';

/** The builder's signature-only declaration emit (TypeScript's internal `EmitOnly.BuilderSignature`). */
const BUILDER_SIGNATURE = 2;

type Emit = ts.Program['emit'];
interface PatchableProgram extends ts.Program {
  /** Where ts-patch keeps TypeScript's own emit when it wraps `emit` with the plugins. */
  originalEmit?: Emit;
}

const hooked = new WeakSet<ts.Program>();

/**
 * Makes the builder's signature emits of `program` carry derivative fingerprints. The plugin
 * factory calls this for every program it is handed: under ts-patch that happens on every emit,
 * the builder's signature emits included, before TypeScript's emit runs; a host that calls the
 * factory itself must call it before asking the builder for diagnostics or emit.
 */
export function trackDerivativeDependencies(tsApi: typeof ts, program: ts.Program): void {
  if (hooked.has(program)) return;
  hooked.add(program);
  const p = program as PatchableProgram;
  const key: 'originalEmit' | 'emit' = typeof p.originalEmit === 'function' ? 'originalEmit' : 'emit';
  const run = p[key]!.bind(program) as (...a: unknown[]) => ts.EmitResult;
  const options = program.getCompilerOptions();
  const isolated = !!(options.isolatedModules || options.verbatimModuleSyntax);
  const reEmitted = new Set<ts.SourceFile>();
  const emit: Emit = (target, writeFile, token, emitOnlyDts, transformers, ...rest: unknown[]) => {
    if ((emitOnlyDts as unknown) !== BUILDER_SIGNATURE) {
      const result = run(target, writeFile, token, emitOnlyDts, transformers, ...rest);
      // Under isolatedModules the builder re-emits only edited files, whatever their shape (an
      // emit of one file is the builder's). The files whose derivatives read this one follow it.
      if (!isolated || !target || emitOnlyDts) return result;
      for (const dependent of dependentsOf(tsApi, program, target)) {
        if (reEmitted.has(dependent)) continue;
        reEmitted.add(dependent);
        const more = run(dependent, writeFile, token, emitOnlyDts, transformers, ...rest);
        result.diagnostics = [...result.diagnostics, ...more.diagnostics];
        result.emitSkipped ||= more.emitSkipped;
      }
      return result;
    }
    const withFingerprint: ts.CustomTransformers = {
      ...transformers,
      afterDeclarations: [...(transformers?.afterDeclarations ?? []), fingerprintTransformer(tsApi, program)],
    };
    return run(target, writeFile, token, emitOnlyDts, withFingerprint, ...rest);
  };
  p[key] = emit;
}

function fingerprintTransformer(tsApi: typeof ts, program: ts.Program): ts.TransformerFactory<ts.SourceFile | ts.Bundle> {
  return (ctx) => (node) => {
    if (!tsApi.isSourceFile(node)) return node;
    const source = program.getSourceFile(node.fileName);
    if (!source || source.isDeclarationFile) return node;
    const text = derivativeClosureText(tsApi, program.getTypeChecker(), source);
    if (text === '') return node;
    const f = ctx.factory;
    const stamp = f.createVariableStatement(
      [f.createModifier(tsApi.SyntaxKind.DeclareKeyword)],
      f.createVariableDeclarationList([f.createVariableDeclaration('__tsad_derivative_inputs', undefined, f.createLiteralTypeNode(f.createStringLiteral(hash(text))))], tsApi.NodeFlags.Const),
    );
    return f.updateSourceFile(node, [...node.statements, stamp]);
  };
}

/**
 * The source text a derivative of this module's exports reads, in a stable order: every marked
 * function and module constant it exports (also re-exported ones), and, transitively, every
 * module-level declaration their bodies refer to and every custom rule attached to them.
 */
export function derivativeClosureText(tsApi: typeof ts, checker: ts.TypeChecker, sf: ts.SourceFile): string {
  const texts = closure(tsApi, checker, rootsOf(tsApi, checker, sf));
  texts.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.pos - b.pos));
  return texts.map((t) => `${t.file}:${t.pos}\n${t.text}`).join('\n');
}

const dependentsByProgram = new WeakMap<ts.Program, Map<string, ts.SourceFile[]>>();

/** The files with a transform call site whose derivative reads `file` (other than `file` itself). */
function dependentsOf(tsApi: typeof ts, program: ts.Program, file: ts.SourceFile): readonly ts.SourceFile[] {
  let map = dependentsByProgram.get(program);
  if (!map) {
    map = new Map();
    const checker = program.getTypeChecker();
    useTypeScript(tsApi);
    for (const sf of program.getSourceFiles()) {
      if (sf.isDeclarationFile) continue;
      const targets: ts.Node[] = [];
      forEachNode(tsApi, sf, (n) => {
        if (!tsApi.isCallExpression(n) || n.arguments.length === 0) return;
        const name = tsadExportName(n.expression, checker);
        if (!name || !TRANSFORM_NAMES.has(name)) return;
        const marked = attempt(() => resolveMarkedFunction(n.arguments[0], checker), undefined);
        if (marked) targets.push(marked.decl);
      });
      for (const read of new Set(closure(tsApi, checker, targets).map((t) => t.file))) {
        if (read === sf.fileName) continue;
        const list = map.get(read) ?? [];
        list.push(sf);
        map.set(read, list);
      }
    }
    dependentsByProgram.set(program, map);
  }
  return map.get(file.fileName) ?? [];
}

function rootsOf(tsApi: typeof ts, checker: ts.TypeChecker, sf: ts.SourceFile): ts.Node[] {
  useTypeScript(tsApi);
  const moduleSymbol = checker.getSymbolAtLocation(sf);
  const roots: ts.Node[] = [];
  // Marked functions of this file (exported or reached by one) and its registrations.
  forEachNode(tsApi, sf, (n) => {
    if ((tsApi.isFunctionDeclaration(n) || tsApi.isMethodDeclaration(n) || tsApi.isArrowFunction(n) || tsApi.isFunctionExpression(n)) && attempt<unknown>(() => markerOf(n, checker), true))
      roots.push(n);
  });
  for (const exported of moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : []) {
    const target = exported.flags & tsApi.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    for (const d of target.declarations ?? []) if (isModuleLevelValue(tsApi, d)) roots.push(d);
  }
  return roots;
}

/** Every module-level declaration the roots reach (through bodies, initializers and rules), with its text. */
function closure(tsApi: typeof ts, checker: ts.TypeChecker, roots: readonly ts.Node[]): { file: string; pos: number; text: string }[] {
  const seen = new Set<ts.Node>();
  const texts: { file: string; pos: number; text: string }[] = [];
  const queue = [...roots];
  while (queue.length > 0) {
    const node = queue.pop()!;
    const owner = enclosingModuleDeclaration(tsApi, node);
    if (seen.has(owner)) continue;
    seen.add(owner);
    const file = owner.getSourceFile();
    if (file.isDeclarationFile) continue;
    // Full text: a marker comment in front of a declaration is part of what it means.
    const holder = tsApi.isVariableDeclaration(owner) ? owner.parent.parent : owner;
    texts.push({ file: file.fileName, pos: owner.pos, text: holder.getFullText(file) });
    const fn = tsApi.isVariableDeclaration(owner) && owner.initializer ? owner.initializer : owner;
    const rule = attempt(() => customRuleOf(fn, checker) ?? customRuleOf(node, checker), undefined);
    if (rule) queue.push(rule);
    forEachIdentifier(tsApi, owner, (id) => {
      let sym = checker.getSymbolAtLocation(id);
      if (sym && sym.flags & tsApi.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
      for (const d of sym?.declarations ?? []) {
        if (!d.getSourceFile().isDeclarationFile && isModuleLevelValue(tsApi, d) && !contains(owner, d)) queue.push(d);
      }
    });
  }
  return texts;
}

/**
 * A malformed marker is the call site's diagnostic to report; here it must not stop the build's
 * bookkeeping, so it counts as `fallback` (marked: its text is fingerprinted either way).
 */
function attempt<T>(f: () => T, fallback: T): T {
  try {
    return f();
  } catch {
    return fallback;
  }
}

/** A function, method or variable declared at the top of a module (or in a top-level class). */
function isModuleLevelValue(tsApi: typeof ts, d: ts.Node): boolean {
  if (tsApi.isFunctionDeclaration(d)) return tsApi.isSourceFile(d.parent);
  if (tsApi.isVariableDeclaration(d)) return tsApi.isVariableDeclarationList(d.parent) && tsApi.isSourceFile(d.parent.parent.parent);
  if (tsApi.isMethodDeclaration(d)) return tsApi.isClassLike(d.parent);
  return false;
}

/** The module-level declaration a node belongs to (an arrow in `const f = differentiable(...)` -> that const). */
function enclosingModuleDeclaration(tsApi: typeof ts, node: ts.Node): ts.Node {
  for (let n: ts.Node | undefined = node; n && !tsApi.isSourceFile(n); n = n.parent) {
    if (isModuleLevelValue(tsApi, n)) return n;
    if (tsApi.isExpressionStatement(n) && tsApi.isSourceFile(n.parent)) return n;
  }
  return node;
}

function contains(outer: ts.Node, inner: ts.Node): boolean {
  return inner.getSourceFile() === outer.getSourceFile() && inner.pos >= outer.pos && inner.end <= outer.end;
}

/** Without recursion: a long expression nests thousands deep. */
function forEachNode(tsApi: typeof ts, root: ts.Node, f: (n: ts.Node) => void): void {
  const stack: ts.Node[] = [root];
  while (stack.length > 0) {
    const n = stack.pop()!;
    f(n);
    tsApi.forEachChild(n, (c) => {
      stack.push(c);
    });
  }
}

function forEachIdentifier(tsApi: typeof ts, root: ts.Node, f: (id: ts.Identifier) => void): void {
  forEachNode(tsApi, root, (n) => {
    if (tsApi.isIdentifier(n)) f(n);
  });
}
