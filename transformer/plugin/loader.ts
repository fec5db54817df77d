// The loader behind `node --import tsad/register app.ts` (or `node -r tsad/register app.ts`): run
// TypeScript with tsad's derivatives compiled in and no build step, for scripts. Each TypeScript file is compiled
// when it is first required, through a language service over its project (the tsconfig.json
// found from the file upwards), so the type checker follows calls into other files exactly as
// under tspc. Nothing is cached between runs, so a derivative is never stale.
//
// The output is CommonJS whatever the tsconfig says: Node's CommonJS loader is the one whose
// file extensions a module can extend, and ES module hooks (registerHooks.ts) hand TypeScript
// files to it, which is what makes `--import` work as well as `-r`.
import * as fs from 'fs';
import * as path from 'path';
import nodeModule = require('module');
import { pathToFileURL } from 'url';
import type * as ts from 'typescript';
import { diagnosticReporter, formatDiagnostic, rewriteSourceFile } from './rewrite';
import { nodeHost } from './host';
import type { Host } from '../host';

const EXTENSIONS = ['.ts', '.tsx', '.cts', '.mts'] as const;

/** A build error met while loading: its text is the diagnostics; no frames of tsad's internals. */
export class TsadLoadError extends Error {
  declare readonly messages: readonly string[];

  constructor(messages: readonly string[]) {
    super(`tsad/register: cannot run this program:\n${messages.join('\n')}`);
    // Not enumerable: Node prints an uncaught error's own enumerable properties after its text.
    Object.defineProperty(this, 'messages', { value: messages });
    this.name = 'TsadLoadError';
    this.stack = `${this.name}: ${this.message}`;
  }
}

/** One language service per tsconfig.json; the key '' is for files outside any project. */
class Project {
  private readonly roots: Set<string>;
  private readonly service: ts.LanguageService;
  private pending: ts.Diagnostic[] = [];

  constructor(
    private readonly host: Host,
    private readonly options: ts.CompilerOptions,
    rootFiles: readonly string[],
    directory: string,
  ) {
    const tsApi = host.ts;
    this.roots = new Set(rootFiles.map(normal));
    const report = () => diagnosticReporter(tsApi, (d) => this.pending.push(d));
    const serviceHost: ts.LanguageServiceHost = {
      getCompilationSettings: () => this.options,
      getScriptFileNames: () => [...this.roots],
      getScriptVersion: (file) => versionOf(file),
      getScriptSnapshot: (file) => {
        const text = tsApi.sys.readFile(file);
        return text === undefined ? undefined : tsApi.ScriptSnapshot.fromString(text);
      },
      getCurrentDirectory: () => directory,
      getDefaultLibFileName: (o) => tsApi.getDefaultLibFilePath(o),
      fileExists: tsApi.sys.fileExists,
      readFile: tsApi.sys.readFile,
      readDirectory: tsApi.sys.readDirectory,
      directoryExists: tsApi.sys.directoryExists,
      getDirectories: tsApi.sys.getDirectories,
      // The checker must be the one of the program being emitted: the service's current one.
      getCustomTransformers: () => ({ before: [(ctx) => (sf) => rewriteSourceFile(this.host, this.checker(), ctx, sf, report())] }),
    };
    this.service = tsApi.createLanguageService(serviceHost, tsApi.createDocumentRegistry());
  }

  private checker(): ts.TypeChecker {
    return this.service.getProgram()!.getTypeChecker();
  }

  /** The CommonJS text of FILE, or a TsadLoadError with its syntax errors and tsad's diagnostics. */
  compile(file: string): string {
    const tsApi = this.host.ts;
    this.roots.add(normal(file));
    this.pending = [];
    const syntax = this.service.getSyntacticDiagnostics(file);
    const output = this.service.getEmitOutput(file);
    const problems = [...syntax.map((d) => formatTypeScript(tsApi, d)), ...this.pending.map((d) => formatDiagnostic(tsApi, d))];
    if (problems.length > 0) throw new TsadLoadError(problems);
    const js = output.outputFiles.find((f) => /\.[cm]?js$/.test(f.name));
    if (!js) throw new TsadLoadError([`${file}: TypeScript emitted no JavaScript for this file`]);
    return js.text;
  }
}

/** TypeScript's own diagnostics (syntax, tsconfig) in the `file:line:col - error TSn: text` form. */
function formatTypeScript(tsApi: typeof ts, d: ts.Diagnostic): string {
  const text = tsApi.flattenDiagnosticMessageText(d.messageText, '\n');
  if (!d.file || d.start === undefined) return `error TS${d.code}: ${text}`;
  const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
  return `${d.file.fileName}:${line + 1}:${character + 1} - error TS${d.code}: ${text}`;
}

function normal(file: string): string {
  return path.resolve(file).split(path.sep).join('/');
}

function versionOf(file: string): string {
  try {
    return String(fs.statSync(file).mtimeMs);
  } catch {
    return '0';
  }
}

/** The user's compiler options, with what running in-process needs: CommonJS and inline maps. */
function runOptions(tsApi: typeof ts, options: ts.CompilerOptions): ts.CompilerOptions {
  return {
    ...options,
    module: tsApi.ModuleKind.CommonJS,
    moduleResolution: tsApi.ModuleResolutionKind.Node10,
    verbatimModuleSyntax: false,
    noEmit: false,
    emitDeclarationOnly: false,
    declaration: false,
    declarationMap: false,
    composite: false,
    incremental: false,
    tsBuildInfoFile: undefined,
    outDir: undefined,
    outFile: undefined,
    noEmitOnError: false,
    sourceMap: false,
    inlineSourceMap: true,
    inlineSources: true,
  };
}

const DEFAULT_OPTIONS = (tsApi: typeof ts): ts.CompilerOptions => ({
  target: tsApi.ScriptTarget.ES2022,
  strict: true,
  skipLibCheck: true,
  esModuleInterop: true,
});

export class Loader {
  private readonly projects = new Map<string, Project>();

  constructor(private readonly host: Host = nodeHost()) {}

  compile(file: string): string {
    return this.projectOf(file).compile(file);
  }

  private projectOf(file: string): Project {
    const tsApi = this.host.ts;
    const config = tsApi.findConfigFile(path.dirname(file), tsApi.sys.fileExists) ?? '';
    const known = this.projects.get(config);
    if (known) return known;
    let project: Project;
    if (config === '') {
      project = new Project(this.host, runOptions(tsApi, DEFAULT_OPTIONS(tsApi)), [file], path.dirname(file));
    } else {
      const read = tsApi.readConfigFile(config, tsApi.sys.readFile);
      if (read.error) throw new TsadLoadError([formatTypeScript(tsApi, read.error)]);
      const parsed = tsApi.parseJsonConfigFileContent(read.config, tsApi.sys, path.dirname(config), undefined, config);
      const fatal = parsed.errors.filter((e) => e.category === tsApi.DiagnosticCategory.Error && e.code !== 18003);
      if (fatal.length > 0) throw new TsadLoadError(fatal.map((d) => formatTypeScript(tsApi, d)));
      project = new Project(this.host, runOptions(tsApi, parsed.options), parsed.fileNames, path.dirname(config));
    }
    this.projects.set(config, project);
    return project;
  }
}

/** Set on `process` once installed: two copies of tsad in one process install one loader. */
const INSTALLED = Symbol.for('tsad.register');

type CompileHook = (module: { _compile(code: string, filename: string): void }, filename: string) => void;

interface ModuleInternals {
  _resolveFilename(request: string, parent: { filename?: string | null } | undefined, ...rest: unknown[]): string;
}

const JS_TO_TS: Readonly<Record<string, readonly string[]>> = { '.js': ['.ts', '.tsx'], '.cjs': ['.cts'], '.mjs': ['.mts'] };

/**
 * TypeScript's own convention for ES module output: `import './model.js'` names the file that
 * model.ts becomes. When no such JavaScript file exists, a TypeScript file importing it gets
 * its TypeScript source, as tsc's module resolution does.
 */
function resolveJsToTs(internals: ModuleInternals): void {
  const resolve = internals._resolveFilename;
  internals._resolveFilename = function (request, parent, ...rest) {
    try {
      return resolve.call(this, request, parent, ...rest);
    } catch (e) {
      const ext = path.extname(request);
      const fromTypeScript = parent?.filename && EXTENSIONS.some((x) => parent.filename!.endsWith(x));
      if (!fromTypeScript || !request.startsWith('.') || !JS_TO_TS[ext]) throw e;
      for (const ts of JS_TO_TS[ext]) {
        try {
          return resolve.call(this, request.slice(0, -ext.length) + ts, parent, ...rest);
        } catch {}
      }
      throw e;
    }
  };
}

/** Installs the loader in this process; safe to call more than once. */
export function install(): void {
  const registry = process as unknown as { [INSTALLED]?: boolean };
  if (registry[INSTALLED]) return;
  registry[INSTALLED] = true;
  const loader = new Loader();
  const extensions = (nodeModule as unknown as { _extensions: Record<string, CompileHook> })._extensions;
  for (const ext of EXTENSIONS) extensions[ext] = (m, filename) => m._compile(loader.compile(filename), filename);
  resolveJsToTs(nodeModule as unknown as ModuleInternals);
  process.setSourceMapsEnabled(true);
  // Node 20.6 and later: the ES module loader (used for the entry under --import) must hand
  // TypeScript files to the CommonJS loader above instead of refusing their extension.
  const register = (nodeModule as { register?: (specifier: string, parentURL?: string) => void }).register;
  if (register) register(pathToFileURL(path.join(__dirname, 'registerHooks.js')).href);
}
