// Derivatives never go stale in the edit loop. A call site `grad(f)` compiles f's body and the
// bodies f reaches in other files; TypeScript's builder re-emits a file only when it or the
// declarations it imports change. Each build mode below replays the same edits (the issue's
// repro, a chain of three files, a module constant, a re-export, a new call site, a build error
// and its fix) and checks the numbers the emitted program prints after every edit.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import type * as ts from 'typescript';

import { nm, project as linkedProject, tspc } from './project';

const E = Math.E;

function project(files: Record<string, string>, links = ['typescript', 'ts-patch']): string {
  const dir = linkedProject({}, links, 'tsad-stale-');
  for (const [name, text] of Object.entries(files)) write(dir, name, text);
  return dir;
}

/** Writes a file and moves its mtime forward, so tools that compare mtimes see every edit. */
function write(dir: string, name: string, text: string): void {
  const file = path.join(dir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const before = fs.existsSync(file) ? fs.statSync(file).mtimeMs : 0;
  fs.writeFileSync(file, text);
  const t = new Date(Math.max(Date.now(), before + 2000));
  fs.utimesSync(file, t, t);
}

// skipLibCheck as `tsc --init` writes it: checking TypeScript's lib files and tsad's declarations
// was half of each build's CPU; packed.test.ts builds the packed package without it.
const tsconfig = (extra: object = {}) =>
  JSON.stringify({
    compilerOptions: { target: 'ES2022', module: 'commonjs', strict: true, skipLibCheck: true, outDir: 'dist', rootDir: 'src', types: [], plugins: [{ transform: 'tsad/transformer' }], ...extra },
    include: ['src'],
  });

const exponent = (k: number) => `/** @differentiable */\nexport function f(x: number, y: number): number {\n  return Math.exp(x)${' * y'.repeat(k)};\n}\n`;
const leaf = (body: string) => `/** @differentiable */\nexport function h(x: number): number {\n  return ${body};\n}\n`;
const constant = (init: string) => `export const K = ${init};\n`;
const mainText = (extra = '') => `import { grad } from 'tsad';
import { f } from './a';
import { top, scaled } from './index';
${extra}
console.log(JSON.stringify({ f: grad(f, { wrt: [0, 1] })(1, 2), top: grad(top)(0.5), scaled: grad(scaled)(3)${extra ? ', extra: extraValue' : ''} }));
`;

const initial: Record<string, string> = {
  'src/a.ts': exponent(1),
  'src/c.ts': leaf('Math.sin(x)'),
  'src/b.ts': `import { h } from './c';\n/** @differentiable */\nexport function g(x: number): number {\n  return 2 * h(x);\n}\n`,
  'src/chain.ts': `import { g } from './b';\n/** @differentiable */\nexport function top(x: number): number {\n  return g(x) + x;\n}\n`,
  'src/k.ts': constant('Math.exp(2)'),
  'src/scaled.ts': `import { K } from './k';\n/** @differentiable */\nexport function scaled(x: number): number {\n  return K * x * x;\n}\n`,
  'src/index.ts': `export { top } from './chain';\nexport { scaled } from './scaled';\n`,
  'src/main.ts': mainText(),
};

interface Expected {
  f: [number, number];
  top: number;
  scaled: number;
  /** hessian(top) of a one-number function: a 1x1 matrix. */
  extra?: number;
}

/** The step a real tspc process builds in each tspc mode: an edit three files away from its call site. */
const CHAIN_EDIT = 'c edited at the end of a chain a -> b -> c';

/** The edits, each with the numbers the rebuilt program must print (undefined: the build must fail with that code). */
const edits: { what: string; files: Record<string, string>; expect: Expected | { error: string } }[] = [
  { what: 'initial build', files: {}, expect: { f: [2 * E, E], top: 2 * Math.cos(0.5) + 1, scaled: 2 * Math.exp(2) * 3 } },
  { what: 'f edited (y*y)', files: { 'src/a.ts': exponent(2) }, expect: { f: [4 * E, 4 * E], top: 2 * Math.cos(0.5) + 1, scaled: 2 * Math.exp(2) * 3 } },
  { what: 'f edited again (y*y*y)', files: { 'src/a.ts': exponent(3) }, expect: { f: [8 * E, 12 * E], top: 2 * Math.cos(0.5) + 1, scaled: 2 * Math.exp(2) * 3 } },
  { what: CHAIN_EDIT, files: { 'src/c.ts': leaf('Math.cos(x)') }, expect: { f: [8 * E, 12 * E], top: -2 * Math.sin(0.5) + 1, scaled: 2 * Math.exp(2) * 3 } },
  { what: 'c edited again', files: { 'src/c.ts': leaf('x * x * x') }, expect: { f: [8 * E, 12 * E], top: 6 * 0.25 + 1, scaled: 2 * Math.exp(2) * 3 } },
  { what: 'imported module constant edited', files: { 'src/k.ts': constant('Math.exp(3)') }, expect: { f: [8 * E, 12 * E], top: 6 * 0.25 + 1, scaled: 2 * Math.exp(3) * 3 } },
  {
    what: 'new call site added',
    files: { 'src/main.ts': mainText(`import { hessian } from 'tsad';\nconst extraValue = hessian(top)(0.5);`) },
    expect: { f: [8 * E, 12 * E], top: 6 * 0.25 + 1, scaled: 2 * Math.exp(3) * 3, extra: 12 * 0.5 },
  },
  {
    what: 'a labeled break in a loop of f (unsupported)',
    files: {
      'src/a.ts': `/** @differentiable */\nexport function f(x: number, y: number): number {\n  let z = y;\n  outer: while (z > x) {\n    z = z / 2;\n    if (z < 1) break outer;\n  }\n  return Math.exp(x) * z;\n}\n`,
    },
    expect: { error: 'TSAD1101' },
  },
  { what: 'f fixed', files: { 'src/a.ts': exponent(2) }, expect: { f: [4 * E, 4 * E], top: 6 * 0.25 + 1, scaled: 2 * Math.exp(3) * 3, extra: 12 * 0.5 } },
  {
    what: 'a leaf of the chain edited after the error',
    files: { 'src/c.ts': leaf('Math.exp(x)') },
    expect: { f: [4 * E, 4 * E], top: 2 * Math.exp(0.5) + 1, scaled: 2 * Math.exp(3) * 3, extra: 2 * Math.exp(0.5) },
  },
];

interface BuildResult {
  readonly ok: boolean;
  readonly messages: string;
}

interface Builder {
  build(changed: readonly string[], step: string): BuildResult;
  close(): void;
}

function replay(dir: string, builder: Builder): void {
  try {
    for (const step of edits) {
      for (const [name, text] of Object.entries(step.files)) write(dir, name, text);
      const r = builder.build(
        Object.keys(step.files).map((n) => path.join(dir, n)),
        step.what,
      );
      if ('error' in step.expect) {
        expect({ step: step.what, ok: r.ok }).toEqual({ step: step.what, ok: false });
        expect(r.messages).toContain(step.expect.error);
        continue;
      }
      expect({ step: step.what, ok: r.ok, messages: r.messages }).toEqual({ step: step.what, ok: true, messages: '' });
      const run = spawnSync(process.execPath, ['dist/main.js'], { cwd: dir, encoding: 'utf8' });
      const got = JSON.parse(run.stdout.trim()) as Expected;
      const want = step.expect;
      const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
      const same =
        close(got.f[0], want.f[0]) &&
        close(got.f[1], want.f[1]) &&
        close(got.top, want.top) &&
        close(got.scaled, want.scaled) &&
        (want.extra === undefined || close((got.extra as unknown as number[][])[0][0], want.extra));
      expect({ step: step.what, got, same }).toEqual({ step: step.what, got, same: true });
    }
  } finally {
    builder.close();
  }
}

/** A `tspc -p .` process, as a user's incremental builds run. */
function tspcProcess(dir: string): BuildResult {
  const r = spawnSync(process.execPath, [tspc, '-p', '.'], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  return { ok: r.status === 0, messages: `${r.stdout}${r.stderr}` };
}

/**
 * What a `tspc -p .` process runs, in this one: ts-patch's compiler's command line
 * (`executeCommandLine`, TypeScript's own `tsc`, not in its .d.ts) on a system whose `exit`
 * returns. Each build starts from the disk and the .tsbuildinfo, as a new process does; the
 * plugin's state is per program. A process costs seconds of start-up (TypeScript's code, the lib
 * files, ts-patch's patching) that tell nothing about stale derivatives.
 */
function tspcInProcess(dir: string): BuildResult {
  let status: number | undefined;
  const out: string[] = [];
  const system: ts.System = {
    ...patched.sys,
    // The project by its full path: TypeScript reads a relative one from process.cwd().
    args: ['-p', dir],
    getCurrentDirectory: () => dir,
    write: (s) => {
      out.push(s);
    },
    writeOutputIsTTY: () => false,
    exit: (code) => {
      status ??= code ?? 0;
    },
  };
  const cli = patched as typeof ts & { executeCommandLine(system: ts.System, cb: () => void, args: readonly string[]): void };
  cli.executeCommandLine(system, () => {}, system.args);
  // An exit without output still says why it failed.
  return { ok: status === 0, messages: status === 0 || out.length > 0 ? out.join('') : `exit status ${status}` };
}

/**
 * The tspc command line per build: a real process for the steps named (an edit read back from a
 * .tsbuildinfo that another process wrote), the same command line in this process for the others.
 */
function tspcBuilder(dir: string, processAt: readonly string[] = []): Builder {
  return {
    build(_changed, step) {
      return processAt.includes(step) ? tspcProcess(dir) : tspcInProcess(dir);
    },
    close() {},
  };
}

function parseConfig(tsApi: typeof ts, dir: string): ts.ParsedCommandLine {
  const host: ts.ParseConfigFileHost = { ...tsApi.sys, onUnRecoverableConfigFileDiagnostic: (d) => fail(tsApi.flattenDiagnosticMessageText(d.messageText, '\n')) };
  return tsApi.getParsedCommandLineOfConfigFile(path.join(dir, 'tsconfig.json'), undefined, host)!;
}

function format(tsApi: typeof ts, diagnostics: readonly ts.Diagnostic[]): string {
  return diagnostics.map((d) => `${d.file ? path.basename(d.file.fileName) : ''} ${tsApi.flattenDiagnosticMessageText(d.messageText, '\n')}`).join('\n');
}

/** ts-patch's compiler's lib files, parsed by the first build that reads them. */
const patchedLibFiles = new Map<string, ts.SourceFile>();

/**
 * HOST with TypeScript's lib files parsed once for this file's builds, as test/environment.js
 * does for plain TypeScript's hosts: ts-patch's compiler is a TypeScript of its own, whose hosts
 * parse lib.es2022.full and lib.dom again for every build, and lib files never change between
 * builds. The project's own files still come from the disk each build.
 */
function sharingLibFiles(host: ts.CompilerHost): ts.CompilerHost {
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, onError, create) => {
    if (path.dirname(path.resolve(name)) !== libDir) return getSourceFile(name, version, onError, create);
    const key = `${path.resolve(name)}|${JSON.stringify(version)}`;
    const hit = patchedLibFiles.get(key);
    if (hit && !create) return hit;
    const sf = getSourceFile(name, version, onError, create);
    if (sf) patchedLibFiles.set(key, sf);
    return sf;
  };
  return host;
}

/**
 * `createIncrementalProgram` with a `.tsbuildinfo`, a fresh builder per build (as a new process
 * would have). With ts-patch's compiler the plugin comes from tsconfig; with plain TypeScript
 * the host passes the factory itself, created before it asks for anything.
 */
function incrementalBuilder(dir: string, tsApi: typeof ts, manual: boolean): Builder {
  return {
    build() {
      const config = parseConfig(tsApi, dir);
      const options = manual ? { ...config.options, plugins: undefined } : config.options;
      const host = tsApi === patched ? sharingLibFiles(tsApi.createIncrementalCompilerHost(options)) : tsApi.createIncrementalCompilerHost(options);
      const builder = tsApi.createIncrementalProgram({ rootNames: config.fileNames, options, host });
      let transformers: ts.CustomTransformers | undefined;
      const thrown: string[] = [];
      if (manual) {
        // Plain TypeScript has no addDiagnostic: the factory throws on a tsad diagnostic.
        const tsad = require(path.join(dir, 'node_modules/tsad/dist/transformer/plugin/index.js')).default;
        const factory = tsad(builder.getProgram(), {}, { ts: tsApi });
        transformers = {
          before: [
            (ctx: ts.TransformationContext) => (sf: ts.SourceFile) => {
              try {
                return factory(ctx)(sf);
              } catch (e) {
                thrown.push(String(e));
                return sf;
              }
            },
          ],
        };
      }
      const diagnostics = [...builder.getSyntacticDiagnostics(), ...builder.getSemanticDiagnostics()];
      const emitted = builder.emit(undefined, undefined, undefined, undefined, transformers);
      const all = [...diagnostics, ...emitted.diagnostics];
      const messages = [format(tsApi, all), ...thrown].filter((m) => m !== '').join('\n');
      return { ok: all.length === 0 && thrown.length === 0, messages };
    },
    close() {},
  };
}

/** `createWatchProgram` with the file system's watchers and timers driven by the test. */
function watchBuilder(dir: string, tsApi: typeof ts): Builder {
  const fileWatchers = new Map<string, ts.FileWatcherCallback[]>();
  let pending: (() => void) | undefined;
  const reports: ts.Diagnostic[] = [];
  const system: ts.System = {
    ...tsApi.sys,
    watchFile: (file, cb) => {
      const list = fileWatchers.get(path.resolve(file)) ?? [];
      list.push(cb);
      fileWatchers.set(path.resolve(file), list);
      return { close: () => list.splice(list.indexOf(cb), 1) };
    },
    watchDirectory: () => ({ close() {} }),
    setTimeout: ((fn: () => void) => {
      pending = fn;
      return 1;
    }) as ts.System['setTimeout'],
    clearTimeout: () => {
      pending = undefined;
    },
  };
  const host = tsApi.createWatchCompilerHost(
    path.join(dir, 'tsconfig.json'),
    {},
    system,
    tsApi.createEmitAndSemanticDiagnosticsBuilderProgram,
    (d) => {
      reports.push(d);
    },
    () => {},
  );
  let watch: ts.WatchOfConfigFile<ts.EmitAndSemanticDiagnosticsBuilderProgram> | undefined;
  const settle = () => {
    for (let guard = 0; pending && guard < 10; guard++) {
      const fn = pending;
      pending = undefined;
      fn();
    }
  };
  return {
    build(changed) {
      reports.length = 0;
      if (!watch) watch = tsApi.createWatchProgram(host);
      else {
        for (const file of changed) for (const cb of fileWatchers.get(path.resolve(file)) ?? []) cb(file, tsApi.FileWatcherEventKind.Changed);
        settle();
      }
      return { ok: reports.length === 0, messages: format(tsApi, reports) };
    },
    close() {
      watch?.close();
    },
  };
}

// Every mode reads the built package (`npm test` builds it first).
const patched: typeof ts = require('ts-patch/compiler');
const plain: typeof ts = require('typescript');
const libDir = path.dirname(patched.getDefaultLibFilePath({}));

test('tspc with incremental: true and a .tsbuildinfo', () => {
  const dir = project({ ...initial, 'tsconfig.json': tsconfig({ incremental: true }) });
  replay(dir, tspcBuilder(dir, [CHAIN_EDIT]));
}, 300_000);

test('TypeScript API: createIncrementalProgram (ts-patch compiler, plugin from tsconfig)', () => {
  const dir = project({ ...initial, 'tsconfig.json': tsconfig({ incremental: true }) });
  replay(dir, incrementalBuilder(dir, patched, false));
}, 300_000);

test('TypeScript API: createIncrementalProgram (plain TypeScript, factory passed to emit)', () => {
  const dir = project({ ...initial, 'tsconfig.json': tsconfig({ incremental: true }) });
  replay(dir, incrementalBuilder(dir, plain, true));
}, 300_000);

test('TypeScript API: createWatchProgram (what tspc --watch runs)', () => {
  const dir = project({ ...initial, 'tsconfig.json': tsconfig() });
  replay(dir, watchBuilder(dir, patched));
}, 300_000);

// isolatedModules tells the builder that no output depends on another file: it re-emits only
// edited files, and the plugin emits the files whose derivatives read them after them.
test('tspc incremental with isolatedModules', () => {
  const dir = project({ ...initial, 'tsconfig.json': tsconfig({ incremental: true, isolatedModules: true }) });
  replay(dir, tspcBuilder(dir, [CHAIN_EDIT]));
}, 300_000);

test('TypeScript API: createWatchProgram with isolatedModules', () => {
  const dir = project({ ...initial, 'tsconfig.json': tsconfig({ isolatedModules: true }) });
  replay(dir, watchBuilder(dir, patched));
}, 300_000);

test('declaration files written to disk are unchanged by the dependency tracking', () => {
  const dir = project({ ...initial, 'tsconfig.json': tsconfig({ incremental: true, declaration: true }) });
  const r = tspcInProcess(dir);
  expect(r).toEqual({ ok: true, messages: '' });
  expect(fs.readFileSync(path.join(dir, 'dist/a.d.ts'), 'utf8')).toBe('/** @differentiable */\nexport declare function f(x: number, y: number): number;\n');
  write(dir, 'src/c.ts', leaf('Math.cos(x)'));
  expect(tspcInProcess(dir)).toEqual({ ok: true, messages: '' });
  const out = spawnSync(process.execPath, ['dist/main.js'], { cwd: dir, encoding: 'utf8' }).stdout;
  expect(JSON.parse(out).top).toBeCloseTo(-2 * Math.sin(0.5) + 1, 12);
}, 120_000);

// The two forms of the jest configuration, each a project of one nested jest run per edit (a new
// process per edit, as a user's runs are; one process for both forms, each with its own transform
// and cache entries, where a run per form cost a jest start-up each).
const jestForms = {
  // ts-jest's own options with the adapter inside (the form since 0.1).
  adapter: `['ts-jest', { tsconfig: { strict: true, types: [] }, astTransformers: { before: ['tsad/jest'] } }]`,
  // tsad/jest as the transformer, ts-jest's options as its options.
  transformer: `['tsad/jest', { tsconfig: { strict: true, types: [] } }]`,
};

test('ts-jest, adapter and transformer forms: an edit three files away reaches the cached test', () => {
  const projectConfig = (form: keyof typeof jestForms) =>
    `{ displayName: '${form}', rootDir: __dirname, testEnvironment: 'node', cacheDirectory: '<rootDir>/.jest-cache', testMatch: ['<rootDir>/${form}.test.ts'], transform: { '^.+\\\\.ts$': ${jestForms[form]} } }`;
  // The test compares the compiled gradient with central differences of the current code.
  const testFile = `import { test, expect } from '@jest/globals';
import { grad } from 'tsad';
import { top } from './a';
test('compiled gradient follows the source', () => {
  const x = 0.5, e = 1e-6;
  expect(grad(top)(x)).toBeCloseTo((top(x + e) - top(x - e)) / (2 * e), 6);
});`;
  const files: Record<string, string> = {
    'jest.config.js': `module.exports = { projects: [${projectConfig('adapter')}, ${projectConfig('transformer')}] };`,
    'c.ts': leaf('Math.sin(x)'),
    'b.ts': `import { h } from './c';\n/** @differentiable */\nexport function g(x: number): number {\n  return 2 * h(x);\n}\n`,
    'a.ts': `import { g } from './b';\n/** @differentiable */\nexport function top(x: number): number {\n  return g(x) + x;\n}\n`,
    'adapter.test.ts': testFile,
    'transformer.test.ts': testFile,
  };
  const dir = project(files, ['typescript', 'ts-jest', 'jest', '@jest/globals']);
  // ts-jest and tsad resolve from the repository's node_modules (symlinks); an installed app has them side by side.
  const env = { ...process.env, NODE_PATH: path.join(dir, 'node_modules') };
  const jest = () => spawnSync(process.execPath, [path.join(nm, 'jest', 'bin', 'jest.js'), '--rootDir', dir, '--ci', '--runInBand', '--json'], { cwd: dir, encoding: 'utf8', env, timeout: 120_000 });
  for (const body of ['Math.sin(x)', 'Math.cos(x)', 'x * x * x']) {
    write(dir, 'c.ts', leaf(body));
    const r = jest();
    let results: Record<string, string> | string = `${r.stdout}${r.stderr}`;
    try {
      const json = JSON.parse(r.stdout) as { testResults: { name: string; status: string; message: string }[] };
      results = Object.fromEntries(json.testResults.map((t) => [path.basename(t.name), t.status === 'passed' ? t.status : `${t.status}: ${t.message}`]));
    } catch {
      // Not JSON: the output says why.
    }
    expect({ body, results }).toEqual({ body, results: { 'adapter.test.ts': 'passed', 'transformer.test.ts': 'passed' } });
  }
  // A run without edits is served from the cache.
  expect(fs.readdirSync(path.join(dir, '.jest-cache')).length).toBeGreaterThan(0);
}, 300_000);

test('the import-closure stamp of the jest transformer changes with a file three imports away, not with an unrelated one', () => {
  const { importClosureStamp } = require('../../dist/transformer/plugin/jestCache.js');
  const dir = project({
    'a.ts': `import { g } from './b';\nexport const a = g;\n`,
    'b.ts': `import { h } from './c';\nexport const g = h;\n`,
    'c.ts': `export const h = 1;\n`,
    'other.ts': `export const o = 1;\n`,
  });
  const stamp = () => importClosureStamp(plain, path.join(dir, 'a.ts'));
  const first = stamp();
  expect(first.split('\n').map((l: string) => path.basename(l.split(':')[0]))).toEqual(['a.ts', 'b.ts', 'c.ts']);
  write(dir, 'other.ts', `export const o = 2;\n`);
  expect(stamp()).toBe(first);
  write(dir, 'c.ts', `export const h = 2;\n`);
  expect(stamp()).not.toBe(first);
});
