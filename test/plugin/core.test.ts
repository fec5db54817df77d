// The core (ir, prims, language, opt, ad, plan, backend) runs anywhere: it loads no Node builtin and no
// run-time `typescript`, so that a browser playground or a run-time fallback can load it (the
// TypeScript backend is handed its `ts` and factory by the plugin). Checked two ways: every
// import of every file the core loads is relative or type-only, and the core, compiled module
// by module, computes a gradient and plans a call site inside a bare `vm` context, which has no
// require, process or module system.
import * as fs from 'fs';
import * as path from 'path';
import * as vm from 'vm';
import * as ts from 'typescript';

const transformer = path.resolve(__dirname, '../../transformer');
const CORE = ['ir', 'prims', 'language', 'opt', 'ad', 'constructs', 'plan', 'backend'];
/** Globals only a Node host has. */
const HOST_GLOBALS = new Set(['process', 'require', '__dirname', '__filename', 'Buffer']);

interface Scan {
  /** Relative imports that load at run time, by specifier. */
  readonly imports: ReadonlyMap<string, string>;
  readonly problems: readonly string[];
}

/** The run-time imports of a module, and its uses of anything only a Node host has. */
function scan(file: string, text: string): Scan {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const imports = new Map<string, string>();
  const problems: string[] = [];
  const where = (n: ts.Node) => `${path.relative(transformer, file)}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}`;
  const use = (spec: ts.Expression | undefined, typeOnly: boolean, n: ts.Node) => {
    if (!spec || !ts.isStringLiteral(spec) || typeOnly) return;
    if (spec.text.startsWith('.')) imports.set(spec.text, resolve(file, spec.text));
    else problems.push(`${where(n)} imports '${spec.text}'`);
  };
  const visit = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n)) use(n.moduleSpecifier, !!n.importClause?.isTypeOnly, n);
    else if (ts.isExportDeclaration(n)) use(n.moduleSpecifier, n.isTypeOnly, n);
    else if (ts.isImportEqualsDeclaration(n) && ts.isExternalModuleReference(n.moduleReference)) use(n.moduleReference.expression, n.isTypeOnly, n);
    else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword) problems.push(`${where(n)} has a dynamic import()`);
    else if (ts.isIdentifier(n) && HOST_GLOBALS.has(n.text) && !isMemberName(n)) problems.push(`${where(n)} reads '${n.text}'`);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return { imports, problems };
}

/** `x.process`, `{ process: 1 }`, `interface { process: T }`: a name of a member, not the global. */
function isMemberName(n: ts.Identifier): boolean {
  const p = n.parent;
  return (
    ((ts.isPropertyAccessExpression(p) || ts.isPropertyAssignment(p) || ts.isPropertySignature(p) || ts.isPropertyDeclaration(p) || ts.isMethodDeclaration(p)) && p.name === n) || ts.isQualifiedName(p)
  );
}

function resolve(from: string, spec: string): string {
  const base = path.resolve(path.dirname(from), spec);
  const found = [`${base}.ts`, path.join(base, 'index.ts')].find((f) => fs.existsSync(f));
  if (!found) throw new Error(`${from}: cannot resolve '${spec}'`);
  return found;
}

/** Every module of the core folders, and every module they load, with its scan. */
function coreGraph(): Map<string, Scan & { readonly text: string }> {
  const roots = CORE.map((d) => path.join(transformer, d))
    .filter((d) => fs.existsSync(d))
    .flatMap((d) => fs.readdirSync(d, { recursive: true, encoding: 'utf8' }).map((f) => path.join(d, f)))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.endsWith('.test.ts'));
  const graph = new Map<string, Scan & { readonly text: string }>();
  const stack = [...roots];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (graph.has(file)) continue;
    const text = fs.readFileSync(file, 'utf8');
    const s = scan(file, text);
    graph.set(file, { ...s, text });
    stack.push(...s.imports.values());
  }
  return graph;
}

test('the scan sees Node builtins, run-time typescript and host globals, and allows type-only imports', () => {
  const file = path.join(transformer, 'ir', 'example.ts');
  const text = [
    "import type * as ts from 'typescript';",
    "import { Program } from './syntax';",
    "import * as fs from 'fs';",
    "export { tsApi } from 'typescript';",
    "const t = require('typescript');",
    'const debug = process.env.TSAD_DEBUG;',
    'const here = { process: 1 }.process;',
  ].join('\n');
  const s = scan(file, text);
  expect([...s.imports.keys()]).toEqual(['./syntax']);
  expect(s.problems).toEqual(["ir/example.ts:3 imports 'fs'", "ir/example.ts:4 imports 'typescript'", "ir/example.ts:5 reads 'require'", "ir/example.ts:6 reads 'process'"]);
});

test('the core and every module it loads import no Node builtin and no run-time typescript', () => {
  const graph = coreGraph();
  expect(graph.size).toBeGreaterThan(30);
  expect([...graph.values()].flatMap((m) => m.problems)).toEqual([]);
});

test('in a bare vm context (no require, no process), the core computes a gradient and plans a call site', () => {
  const graph = coreGraph();
  const key = (file: string) => path.relative(transformer, file).replace(/\\/g, '/');
  const sources: Record<string, string> = {};
  const deps: Record<string, Record<string, string>> = {};
  for (const [file, m] of graph) {
    sources[key(file)] = ts.transpileModule(m.text, { fileName: file, compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText;
    deps[key(file)] = Object.fromEntries([...m.imports].map(([spec, f]) => [spec, key(f)]));
  }
  const context = vm.createContext({ sources, deps });
  expect(vm.runInContext('[typeof require, typeof process, typeof module, typeof Buffer]', context)).toEqual(['undefined', 'undefined', 'undefined', 'undefined']);
  const out = vm.runInContext(
    `
    const cache = new Map();
    function load(file) {
      if (cache.has(file)) return cache.get(file).exports;
      const module = { exports: {} };
      cache.set(file, module);
      const require = (spec) => {
        const dep = deps[file][spec];
        if (dep === undefined) throw new Error(file + ' requires ' + spec);
        return load(dep);
      };
      new Function('exports', 'require', 'module', sources[file])(module.exports, require, module);
      return module.exports;
    }
    const { parseProgram } = load('language/parse.ts');
    const { evalFn } = load('language/interp.ts');
    const { gradOf, vjpOf } = load('ad/drivers.ts');
    const { PLANNERS } = load('plan/planners.ts');
    const { TypeScriptBackend } = load('backend/typescript.ts');
    const p = parseProgram('def f(x: real, y: real ;) -> (real ;) { let a = mul(x, y)\\n let b = sin(x)\\n let z = add(a, b)\\n (z ;) }');
    const g = gradOf(p, 'f', { simplify: true, recheck: true });
    const number = { kind: 'number' };
    const fn = { name: 'f', params: [{ name: 'x', shape: number }, { name: 'y', shape: number }], result: number };
    const driver = { simplify: true, inlinePrimal: true, recheck: true };
    const plan = PLANNERS.grad({ kind: 'grad', program: p, fn, wrt: [0, 1], where: 'grad(f)', driver, reverse: () => vjpOf(p, 'f', driver) });
    JSON.stringify({
      grad: evalFn(g.program, g.grad, [1, 2]).nl,
      planned: evalFn(plan.program, plan.entries[0], [1, 2]).nl,
      params: plan.params,
      body: plan.body.map((s) => s.tag),
      backend: typeof TypeScriptBackend,
    });
    `,
    context,
  );
  expect(JSON.parse(out)).toEqual({
    grad: [2 + Math.cos(1), 1],
    planned: [2 + Math.cos(1), 1],
    params: ['x', 'y'],
    body: ['check', 'return'],
    backend: 'function',
  });
});
