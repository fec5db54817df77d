// Compiling one file at a time with the whole project's type checker behind it, for the tools
// that hand tsad a file rather than a program: the Node loader (`tsad/register`) and the bundler
// plugins (`tsad/vite`, `tsad/esbuild`). One language service per tsconfig.json keeps the
// program between files and rebuilds only what an edit touched; the plugin runs as its custom
// transformer, so a call site in one file sees the marked functions of every file it imports.
import * as fs from 'fs';
import * as path from 'path';
import type * as ts from 'typescript';
import { diagnosticReporter, formatDiagnostic, rewriteSourceFile } from './rewrite';
import type { Host } from '../host';

/** Where a problem is, for tools that show one position (Vite's overlay, esbuild's messages). */
export interface ProblemPlace {
  readonly file: string;
  /** 1-based, as editors count. */
  readonly line: number;
  /** 1-based. */
  readonly column: number;
  readonly lineText: string;
}

/** A build error: its text is the diagnostics (`file:line:col - error CODE: …`), and no frames of tsad's internals. */
export class TsadBuildError extends Error {
  declare readonly messages: readonly string[];
  declare readonly place: ProblemPlace | undefined;

  constructor(heading: string, messages: readonly string[], place?: ProblemPlace) {
    super(`${heading}\n${messages.join('\n')}`);
    // Not enumerable: Node prints an uncaught error's own enumerable properties after its text.
    Object.defineProperty(this, 'messages', { value: messages });
    Object.defineProperty(this, 'place', { value: place });
    this.name = 'TsadBuildError';
    this.stack = `${this.name}: ${this.message}`;
  }
}

/** What the tool runs: CommonJS with inline maps (Node's loader) or ES modules with a map file (bundlers). */
export type OutputKind = 'commonjs' | 'esm';

export interface Compiled {
  readonly code: string;
  /** The source map's JSON, for ES module output. */
  readonly map?: string;
  /** The project's own TypeScript files the compile could read: what a watcher must watch. */
  readonly inputs: readonly string[];
  /** tsad's notes (TSAD2xxx: a function runs taped), formatted; never a reason to fail. */
  readonly notes: readonly string[];
}

class Project {
  private readonly roots: Set<string>;
  private readonly service: ts.LanguageService;
  /** Text a tool handed us that may differ from the disk (an editor buffer, a bundler's earlier plugin). */
  private readonly given = new Map<string, { readonly text: string; readonly version: string; readonly disk: string }>();
  private pending: ts.Diagnostic[] = [];
  private notes: ts.Diagnostic[] = [];

  constructor(
    private readonly host: Host,
    options: ts.CompilerOptions,
    rootFiles: readonly string[],
    directory: string,
  ) {
    const tsApi = host.ts;
    this.roots = new Set(rootFiles.map(normal));
    const serviceHost: ts.LanguageServiceHost = {
      getCompilationSettings: () => options,
      getScriptFileNames: () => [...this.roots],
      getScriptVersion: (file) => this.givenText(file)?.version ?? versionOnDisk(file),
      getScriptSnapshot: (file) => {
        const text = this.givenText(file)?.text ?? tsApi.sys.readFile(file);
        return text === undefined ? undefined : tsApi.ScriptSnapshot.fromString(text);
      },
      getCurrentDirectory: () => directory,
      getDefaultLibFileName: (o) => tsApi.getDefaultLibFilePath(o),
      fileExists: tsApi.sys.fileExists,
      readFile: (file) => this.givenText(file)?.text ?? tsApi.sys.readFile(file),
      readDirectory: tsApi.sys.readDirectory,
      directoryExists: tsApi.sys.directoryExists,
      getDirectories: tsApi.sys.getDirectories,
      // The checker must be the one of the program being emitted: the service's current one.
      getCustomTransformers: () => ({
        before: [
          (ctx) => (sf) =>
            rewriteSourceFile(
              this.host,
              this.checker(),
              ctx,
              sf,
              diagnosticReporter(tsApi, (d) => (d.category === tsApi.DiagnosticCategory.Error ? this.pending : this.notes).push(d)),
            ),
        ],
      }),
    };
    this.service = tsApi.createLanguageService(serviceHost, tsApi.createDocumentRegistry());
  }

  /** A tool's copy of FILE while the file on disk is the one it was handed for; an edit since wins. */
  private givenText(file: string) {
    const given = this.given.get(normal(file));
    return given && given.disk === versionOnDisk(file) ? given : undefined;
  }

  private checker(): ts.TypeChecker {
    return this.service.getProgram()!.getTypeChecker();
  }

  compile(file: string, heading: string, text?: string): Compiled {
    const tsApi = this.host.ts;
    const key = normal(file);
    this.roots.add(key);
    if (text !== undefined) this.given.set(key, { text, version: `given:${hashText(text)}`, disk: versionOnDisk(file) });
    this.pending = [];
    this.notes = [];
    const syntax = this.service.getSyntacticDiagnostics(file);
    const output = this.service.getEmitOutput(file);
    const problems = [...syntax, ...this.pending];
    if (problems.length > 0) {
      const messages = [...syntax.map((d) => formatTypeScript(tsApi, d)), ...this.pending.map((d) => formatDiagnostic(tsApi, d))];
      throw new TsadBuildError(heading, messages, placeOf(problems[0]));
    }
    const js = output.outputFiles.find((f) => /\.[cm]?js$/.test(f.name));
    if (!js) throw new TsadBuildError(heading, [`${file}: TypeScript emitted no JavaScript for this file`]);
    const map = output.outputFiles.find((f) => f.name.endsWith('.map'))?.text;
    // The service names the map file; a bundler attaches the map itself.
    const code = js.text.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
    const inputs = this.service
      .getProgram()!
      .getSourceFiles()
      .filter((sf) => !sf.isDeclarationFile && !sf.fileName.includes('/node_modules/'))
      .map((sf) => path.resolve(sf.fileName));
    const notes = this.notes.map((d) => formatDiagnostic(tsApi, d));
    return map === undefined ? { code: js.text, inputs, notes } : { code, map, inputs, notes };
  }
}

function placeOf(d: ts.Diagnostic): ProblemPlace | undefined {
  if (!d.file || d.start === undefined) return undefined;
  const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
  const lineText = d.file.text.split(/\r?\n/)[line] ?? '';
  return { file: d.file.fileName, line: line + 1, column: character + 1, lineText };
}

/** TypeScript's own diagnostics (syntax, tsconfig) in the `file:line:col - error TSn: text` form. */
function formatTypeScript(tsApi: typeof ts, d: ts.Diagnostic): string {
  const text = tsApi.flattenDiagnosticMessageText(d.messageText, '\n');
  const place = placeOf(d);
  return place ? `${place.file}:${place.line}:${place.column} - error TS${d.code}: ${text}` : `error TS${d.code}: ${text}`;
}

function normal(file: string): string {
  return path.resolve(file).split(path.sep).join('/');
}

function versionOnDisk(file: string): string {
  try {
    return String(fs.statSync(file).mtimeMs);
  } catch {
    return '0';
  }
}

/** FNV-1a: a version string for text handed over in memory. */
function hashText(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return `${text.length}:${(h >>> 0).toString(16)}`;
}

/** The user's compiler options, with what the tool runs: the module kind and the source maps. */
function outputOptions(tsApi: typeof ts, options: ts.CompilerOptions, kind: OutputKind): ts.CompilerOptions {
  const esm = kind === 'esm';
  return {
    ...options,
    module: esm ? tsApi.ModuleKind.ESNext : tsApi.ModuleKind.CommonJS,
    moduleResolution: esm ? tsApi.ModuleResolutionKind.Bundler : tsApi.ModuleResolutionKind.Node10,
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
    sourceMap: esm,
    inlineSourceMap: !esm,
    inlineSources: true,
  };
}

const DEFAULT_OPTIONS = (tsApi: typeof ts): ts.CompilerOptions => ({
  target: tsApi.ScriptTarget.ES2022,
  strict: true,
  skipLibCheck: true,
  esModuleInterop: true,
});

/** The projects of the files a tool hands over, each found from its file's nearest tsconfig.json. */
export class Projects {
  private readonly projects = new Map<string, Project>();

  constructor(
    private readonly host: Host,
    private readonly kind: OutputKind,
    private readonly heading: string,
  ) {}

  /** The compiled text of FILE (TEXT when the tool has its own copy), or a TsadBuildError. */
  compile(file: string, text?: string): Compiled {
    return this.projectOf(file).compile(file, this.heading, text);
  }

  private projectOf(file: string): Project {
    const tsApi = this.host.ts;
    const config = tsApi.findConfigFile(path.dirname(file), tsApi.sys.fileExists) ?? '';
    const known = this.projects.get(config);
    if (known) return known;
    let project: Project;
    if (config === '') {
      project = new Project(this.host, outputOptions(tsApi, DEFAULT_OPTIONS(tsApi), this.kind), [file], path.dirname(file));
    } else {
      const read = tsApi.readConfigFile(config, tsApi.sys.readFile);
      if (read.error) throw new TsadBuildError(this.heading, [formatTypeScript(tsApi, read.error)]);
      const parsed = tsApi.parseJsonConfigFileContent(read.config, tsApi.sys, path.dirname(config), undefined, config);
      // 18003: "no inputs were found", true of a tsconfig.json that only sets options.
      const fatal = parsed.errors.filter((e) => e.category === tsApi.DiagnosticCategory.Error && e.code !== 18003);
      if (fatal.length > 0)
        throw new TsadBuildError(
          this.heading,
          fatal.map((d) => formatTypeScript(tsApi, d)),
        );
      project = new Project(this.host, outputOptions(tsApi, parsed.options, this.kind), parsed.fileNames, path.dirname(config));
    }
    this.projects.set(config, project);
    return project;
  }
}

/** TypeScript file extensions the tools hand to tsad. */
export const TYPESCRIPT_EXTENSIONS = ['.ts', '.tsx', '.cts', '.mts'] as const;

/**
 * An import (static, dynamic or `require`d) of a module whose name holds `tsad`: the package, its
 * entries, or a module of the project's own that re-exports it (`./tsad`), as the type checker
 * will tell.
 */
const TSAD_IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"][^'"\n]*tsad[^'"\n]*['"]/;

/**
 * Whether a file can hold anything tsad changes: a transform call or a marker comes from, or
 * is written for, the `tsad` package. Other files go to the tool's own TypeScript handling,
 * also those that only mention tsad in a comment or a string (compiling them with the type
 * checker behind would cost the build time and change nothing).
 */
export function mayUseTsad(text: string): boolean {
  return text.includes('@differentiable') || TSAD_IMPORT.test(text);
}
