// The playground's compiler: the stages of one marked function, the diagnostics of the edited
// module, and a module to run, from source text and library files held in memory. Host-free (no
// DOM, no Node): the page's worker runs it on bundled files, test/playground runs it in Node.
import type * as ts from 'typescript';
import type { Host } from '../../transformer/host';
import { STAGES, type Stage, stagesOf } from '../../transformer/stages';
import { diagnosticReporter, rewriteSourceFile, toDiagnostic } from '../../transformer/plugin/rewrite';
import { markerOf } from '../../transformer/frontend/markers';

/** Where the edited module, the TypeScript libraries and tsad's runtime sources live in memory. */
export const INPUT = '/playground/input.ts';
export const LIB_DIR = '/lib';
export const RUNTIME_DIR = '/tsad';

export interface Library {
  readonly ts: typeof ts;
  /** `lib.*.d.ts` under LIB_DIR, the sources of runtime/ (`index.ts`, `tape.ts`, `webgpu/*.ts`) under RUNTIME_DIR, by path. */
  readonly files: ReadonlyMap<string, string>;
}

export interface PlaygroundDiagnostic {
  readonly from: number;
  readonly to: number;
  /** 1-based, for the list under the editor. */
  readonly line: number;
  readonly column: number;
  /** `TSAD1103`, `TS2322`. */
  readonly code: string;
  readonly message: string;
  readonly hint?: string;
  readonly severity: 'error' | 'info';
}

export type ParamKind = 'number' | 'array' | 'matrix' | 'other';

export interface Compiled {
  /** Every marked function of the module, by tsad's name for it. */
  readonly marked: readonly string[];
  /** The function whose stages these are (the one asked for, else the first marked one). */
  readonly fn?: string;
  readonly stages: Partial<Record<Stage, string>>;
  readonly diagnostics: readonly PlaygroundDiagnostic[];
  readonly params: readonly { readonly name: string; readonly kind: ParamKind }[];
  /** Why Run cannot call the function, if it cannot. */
  readonly notRunnable?: string;
}

export interface Runnable {
  /**
   * The emitted ES module; it imports `tsad` (and `tsad/webgpu`) and exports
   * `tsad$playground = { f, df?, gpuDf? }`, gpuDf being `gpu(grad(f))` when it compiles.
   */
  readonly js: string;
  /** Why there is no `gpuDf`, when it was asked for. */
  readonly noGpu?: string;
  /** The parameters `df` differentiates with respect to (none: no gradient, see `why`). */
  readonly wrt: readonly number[];
  readonly why?: string;
  readonly diagnostics: readonly PlaygroundDiagnostic[];
}

const PLAYGROUND_DTS = `${LIB_DIR}/playground.d.ts`;
// The page has a console but no DOM types here: what the examples may print with.
const PLAYGROUND_DECLS = 'declare var console: { log(...data: unknown[]): void; warn(...data: unknown[]): void; error(...data: unknown[]): void };\n';

/** Library and runtime files never change within a page: parse them once for every program. */
const parsed = new WeakMap<Library, Map<string, ts.SourceFile>>();

function createProgram(lib: Library, text: string): ts.Program {
  const t = lib.ts;
  const options: ts.CompilerOptions = {
    target: t.ScriptTarget.ES2022,
    module: t.ModuleKind.ESNext,
    moduleResolution: t.ModuleResolutionKind.Node10,
    lib: ['lib.es2022.d.ts'],
    strict: true,
    skipLibCheck: true,
    types: [],
    baseUrl: '/',
    paths: { tsad: [`${RUNTIME_DIR}/index.ts`], 'tsad/webgpu': [`${RUNTIME_DIR}/webgpu/index.ts`] },
  };
  let cache = parsed.get(lib);
  if (!cache) parsed.set(lib, (cache = new Map()));
  const read = (name: string): string | undefined => (name === INPUT ? text : name === PLAYGROUND_DTS ? PLAYGROUND_DECLS : lib.files.get(name));
  const host: ts.CompilerHost = {
    getSourceFile: (name, version) => {
      const source = read(name);
      if (source === undefined) return undefined;
      if (name === INPUT) return t.createSourceFile(name, source, version, true);
      let sf = cache.get(name);
      if (!sf) cache.set(name, (sf = t.createSourceFile(name, source, version, true)));
      return sf;
    },
    getDefaultLibFileName: () => `${LIB_DIR}/lib.es2022.d.ts`,
    getDefaultLibLocation: () => LIB_DIR,
    writeFile: () => undefined,
    getCurrentDirectory: () => '/playground',
    getCanonicalFileName: (f) => f,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
    fileExists: (f) => read(f) !== undefined,
    readFile: read,
    directoryExists: () => true,
    getDirectories: () => [],
  };
  return t.createProgram([INPUT, PLAYGROUND_DTS], options, host);
}

function tsadHost(lib: Library): Host {
  return { ts: lib.ts, recheck: false, verbose: false, taped: true };
}

/** Emits the module with tsad's rewrite, collecting tsad's diagnostics. */
function emit(lib: Library, program: ts.Program): { js: string; diagnostics: ts.Diagnostic[] } {
  const t = lib.ts;
  const sf = program.getSourceFile(INPUT)!;
  const checker = program.getTypeChecker();
  const diagnostics: ts.Diagnostic[] = [];
  let js = '';
  program.emit(
    sf,
    (name, out) => {
      if (name.endsWith('.js')) js = out;
    },
    undefined,
    false,
    {
      before: [
        (ctx) => (file) =>
          rewriteSourceFile(
            tsadHost(lib),
            checker,
            ctx,
            file,
            diagnosticReporter(t, (d) => diagnostics.push(d)),
          ),
      ],
    },
  );
  return { js, diagnostics };
}

function toPlayground(t: typeof ts, d: ts.Diagnostic, sf: ts.SourceFile): PlaygroundDiagnostic {
  const text = t.flattenDiagnosticMessageText(d.messageText, '\n');
  const from = d.file === sf && d.start !== undefined ? d.start : 0;
  const to = from + (d.file === sf ? (d.length ?? 0) : 0);
  const { line, character } = sf.getLineAndCharacterOfPosition(from);
  const tsad = d.source === 'tsad';
  // tsad's message is `TSAD1103: what\n  hint: how`; TypeScript's has its code apart.
  const [head, hint] = text.split(/\n\s*hint: /);
  const colon = head.indexOf(': ');
  const code = tsad && colon > 0 ? head.slice(0, colon) : `TS${d.code}`;
  const message = tsad && colon > 0 ? head.slice(colon + 2) : head;
  return { from, to, line: line + 1, column: character + 1, code, message, ...(hint ? { hint: hint.trim() } : {}), severity: d.category === t.DiagnosticCategory.Error ? 'error' : 'info' };
}

function uniqueDiagnostics(list: readonly PlaygroundDiagnostic[]): PlaygroundDiagnostic[] {
  const seen = new Set<string>();
  return list.filter((d) => {
    const key = `${d.from}:${d.code}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The stages of `fn` (or of the first marked function) and every diagnostic of the module. */
export function compile(lib: Library, text: string, fn?: string): Compiled {
  const t = lib.ts;
  const program = createProgram(lib, text);
  const sf = program.getSourceFile(INPUT)!;
  const checker = program.getTypeChecker();
  const typeErrors = [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)];
  const { diagnostics: tsadErrors } = emit(lib, program);
  const host = tsadHost(lib);
  const { marked } = stagesOf(host, checker, sf, { stages: [] });
  const chosen = fn !== undefined && marked.includes(fn) ? fn : marked[0];
  const diagnostics = [...typeErrors, ...tsadErrors].map((d) => toPlayground(t, d, sf));
  if (chosen === undefined) return { marked, stages: {}, diagnostics: uniqueDiagnostics(diagnostics), params: [], notRunnable: 'no marked function (add /** @differentiable */ above one)' };
  const [found] = stagesOf(host, checker, sf, { fn: chosen, stages: STAGES }).functions;
  if (found.error) diagnostics.push(toPlayground(t, toDiagnostic(t, found.error, sf), sf));
  const params = found.decl.parameters.map((p) => ({ name: p.name.getText(sf), kind: paramKind(checker.typeToString(checker.getTypeAtLocation(p))) }));
  const notRunnable = runName(t, found.decl, sf) === undefined ? `${chosen} is not a top-level function or const of the module` : undefined;
  return { marked, fn: chosen, stages: Object.fromEntries(found.stages), diagnostics: uniqueDiagnostics(diagnostics), params, ...(notRunnable ? { notRunnable } : {}) };
}

/**
 * The module with `fn` and, for a number result, its gradient exported for the page to call;
 * with `gpu`, also `gpu(grad(fn))` when tsad compiles it to WebGPU kernels.
 */
export function runnable(lib: Library, text: string, fn: string, gpu = false): Runnable {
  const t = lib.ts;
  const first = createProgram(lib, text);
  const sf = first.getSourceFile(INPUT)!;
  const checker = first.getTypeChecker();
  const [found] = stagesOf(tsadHost(lib), checker, sf, { fn, stages: [] }).functions;
  const name = found && runName(t, found.decl, sf);
  if (!found || !name) throw new Error(`${fn} is not a top-level function or const of the module`);
  const signature = checker.getSignatureFromDeclaration(found.decl);
  const numberResult = signature !== undefined && (checker.getReturnTypeOfSignature(signature).flags & t.TypeFlags.NumberLike) !== 0;
  const kinds = found.decl.parameters.map((p) => paramKind(checker.typeToString(checker.getTypeAtLocation(p))));
  const marker = markerOf(found.decl, checker);
  const names = found.decl.parameters.map((p) => p.name.getText(sf));
  const wanted = marker?.wrt?.map((w) => (typeof w === 'number' ? w : names.indexOf(w))) ?? kinds.map((_, i) => i);
  const wrt = numberResult ? wanted.filter((i) => i >= 0 && kinds[i] !== 'other') : [];
  const why = !numberResult ? `${fn} does not return a number: Run shows its value, no gradient` : wrt.length === 0 ? `${fn} has no number or array parameter to differentiate` : undefined;
  let noGpu: string | undefined;
  if (gpu && wrt.length > 0) {
    const device = build(lib, text, name, wrt, true);
    const refused = device.diagnostics.find((d) => d.severity === 'error');
    if (!refused) return { ...device, wrt };
    noGpu = `${refused.code}: ${refused.message.replaceAll('tsad$grad(', 'grad(')}`;
  }
  return { ...build(lib, text, name, wrt, false), wrt, ...(why ? { why } : {}), ...(noGpu ? { noGpu } : {}) };
}

function build(lib: Library, text: string, name: string, wrt: readonly number[], gpu: boolean): { js: string; diagnostics: PlaygroundDiagnostic[] } {
  const t = lib.ts;
  // After the user's code, so that their diagnostics keep their places.
  const df = `tsad$grad(${name}, { wrt: [${wrt.join(', ')}] })`;
  const exported = wrt.length === 0 ? `{ f: ${name} }` : gpu ? `{ f: ${name}, df: ${df}, gpuDf: tsad$gpu(${df}) }` : `{ f: ${name}, df: ${df} }`;
  const imports = `import { grad as tsad$grad } from 'tsad';\n${gpu ? "import { gpu as tsad$gpu } from 'tsad/webgpu';\n" : ''}`;
  const program = createProgram(lib, `${text}\n${imports}export const tsad$playground = ${exported};\n`);
  const { js, diagnostics } = emit(lib, program);
  const out = program.getSourceFile(INPUT)!;
  return { js, diagnostics: uniqueDiagnostics(diagnostics.map((d) => toPlayground(t, d, out))) };
}

function paramKind(type: string): ParamKind {
  const plain = type.replace(/readonly |[()]/g, '');
  if (plain === 'number') return 'number';
  if (/^(number\[\]|Float(32|64)Array|NumberArray)\[\]$/.test(plain)) return 'matrix';
  if (/^(number\[\]|Float(32|64)Array|NumberArray|ArrayLike<number>|\[number(, number)*\])$/.test(plain)) return 'array';
  return 'other';
}

/** The module-level name a marked declaration can be called by, if it has one. */
function runName(t: typeof ts, decl: ts.SignatureDeclaration, sf: ts.SourceFile): string | undefined {
  if (t.isFunctionDeclaration(decl)) return decl.parent === sf && decl.name ? decl.name.text : undefined;
  let node: ts.Node = decl;
  // `const f = (x) => ...` or `const f = differentiable((x) => ..., options)`.
  if (t.isCallExpression(node.parent)) node = node.parent;
  const holder = node.parent;
  if (!t.isVariableDeclaration(holder) || !t.isIdentifier(holder.name)) return undefined;
  const statement = holder.parent.parent;
  return t.isVariableStatement(statement) && statement.parent === sf && holder.parent.flags & t.NodeFlags.Const ? holder.name.text : undefined;
}
