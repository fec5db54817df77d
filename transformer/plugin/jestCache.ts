// Cache keys for ts-jest that see every file a derivative is compiled from.
//
// Jest reuses a transformed file while its cache key is unchanged. ts-jest's key covers the
// file, its imports and their imports (two levels, by mtime), but `grad(top)` in a test compiles
// the bodies of everything `top` reaches, however deep the chain. Two ways to use tsad with
// ts-jest, both correct:
// - the transformer form `['tsad/jest', tsJestOptions]` (recommended): ts-jest with tsad's
//   adapter added, and a key that also stamps the contents of the file's whole import closure;
//   an edit re-transforms exactly the files that can reach it;
// - the adapter form `astTransformers: { before: ['tsad/jest'] }` inside ts-jest's own options:
//   ts-jest puts the adapter's `version` into every key, so the version stamps the project's
//   TypeScript sources; an edit anywhere re-transforms every file on the next run.
import * as fs from 'fs';
import * as path from 'path';
import type * as ts from 'typescript';
import { hash } from './hash';

interface Stamp {
  readonly mtimeMs: number;
  readonly size: number;
  readonly hash: string;
  readonly imports: readonly string[];
}

const stamps = new Map<string, Stamp>();

/** The file's content hash and the local files it imports, re-read only when it changes on disk. */
function stampOf(tsApi: typeof ts, file: string, options: ts.CompilerOptions): Stamp | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return undefined;
  }
  const known = stamps.get(file);
  if (known && known.mtimeMs === stat.mtimeMs && known.size === stat.size) return known;
  const text = fs.readFileSync(file, 'utf8');
  const imports: string[] = [];
  for (const ref of tsApi.preProcessFile(text, true, true).importedFiles) {
    const resolved = tsApi.resolveModuleName(ref.fileName, file, options, tsApi.sys).resolvedModule;
    if (resolved && !resolved.isExternalLibraryImport && !resolved.resolvedFileName.endsWith('.d.ts')) imports.push(path.resolve(resolved.resolvedFileName));
  }
  const stamp = { mtimeMs: stat.mtimeMs, size: stat.size, hash: hash(text), imports };
  stamps.set(file, stamp);
  return stamp;
}

/** Content hashes of every local file `file` reaches through imports, itself included. */
export function importClosureStamp(tsApi: typeof ts, file: string, options: ts.CompilerOptions = {}): string {
  const opts: ts.CompilerOptions = { moduleResolution: tsApi.ModuleResolutionKind.Node10, ...options };
  const seen = new Set<string>();
  const queue = [path.resolve(file)];
  const parts: string[] = [];
  while (queue.length > 0) {
    const next = queue.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    const s = stampOf(tsApi, next, opts);
    if (!s) continue;
    parts.push(`${next}:${s.hash}`);
    queue.push(...s.imports);
  }
  return parts.sort().join('\n');
}

/** (path, mtime, size) of every TypeScript source under `dir`, outside node_modules and dot-folders. */
export function sourceTreeStamp(dir: string): string {
  const parts: string[] = [];
  const stack = [dir];
  while (stack.length > 0) {
    const d = stack.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
      const full = path.join(d, e.name);
      if (e.isDirectory()) stack.push(full);
      else if (/\.(c|m)?tsx?$/.test(e.name) && !/\.d\.(c|m)?ts$/.test(e.name)) {
        const s = fs.statSync(full);
        parts.push(`${full}:${s.mtimeMs}:${s.size}`);
      }
    }
  }
  return hash(parts.sort().join('\n'));
}

type TransformOptions = { readonly config?: { readonly rootDir?: string } } & Record<string, unknown>;
interface JestTransformer {
  readonly canInstrument?: boolean;
  process(source: string, file: string, options: TransformOptions): unknown;
  processAsync?(source: string, file: string, options: TransformOptions): Promise<unknown>;
  getCacheKey?(source: string, file: string, options: TransformOptions): string;
  getCacheKeyAsync?(source: string, file: string, options: TransformOptions): Promise<string>;
}
type AstTransformerEntry = string | { readonly path: string; readonly options?: unknown };
interface TsJestOptions {
  readonly astTransformers?: { readonly before?: readonly AstTransformerEntry[] } & Record<string, unknown>;
  readonly [key: string]: unknown;
}

/**
 * The transformer form: `transform: { '^.+\\.tsx?$': ['tsad/jest', tsJestOptions] }`. ts-jest
 * does the compiling, with tsad's adapter added to its `before` transformers.
 */
export function createTransformer(options: TsJestOptions = {}): JestTransformer {
  const tsApi: typeof ts = require('typescript');
  const tsJest = require('ts-jest');
  const adapter = path.join(__dirname, 'jestAdapter');
  const before = [...(options.astTransformers?.before ?? [])].filter((t) => !isTsadAdapter(t));
  const inner: JestTransformer = (tsJest.default ?? tsJest).createTransformer({
    ...options,
    astTransformers: { ...options.astTransformers, before: [...before, adapter] },
  });
  const key = (base: string, file: string) => hash(`${base}\n${importClosureStamp(tsApi, file)}`);
  return {
    canInstrument: inner.canInstrument,
    process: (source, file, opts) => inner.process(source, file, opts),
    processAsync: inner.processAsync && ((source, file, opts) => inner.processAsync!(source, file, opts)),
    getCacheKey: (source, file, opts) => key(inner.getCacheKey ? inner.getCacheKey(source, file, opts) : hash(source), file),
    getCacheKeyAsync: async (source, file, opts) => key(inner.getCacheKeyAsync ? await inner.getCacheKeyAsync(source, file, opts) : hash(source), file),
  };
}

function isTsadAdapter(t: AstTransformerEntry): boolean {
  const p = typeof t === 'string' ? t : t.path;
  return p === 'tsad/jest' || /[\\/]transformer[\\/]plugin[\\/]jest(Adapter)?(\.js)?$/.test(p);
}
