// The tsad GradBench tool (bench/src/gradbench/tool.ts in its default tsad mode) through
// GradBench's runner at small sizes: every derivative tsad compiles for the evals it implements
// is validated against GradBench's hand-written C++ (`manual`). Skips loudly when python3 or a
// C++ compiler is missing.
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import tsadTransformer from '../../transformer/plugin/index';
import { workDir } from '../plugin/harness';
import { expectOutcomeSuccess, missingTools, repoRoot } from './runner';

/** The evals the tsad tool implements: all seven of GradBench's here. */
const EVALS = ['hello', 'lse', 'llsq', 'gmm', 'kmeans', 'lstm', 'ba'];

/**
 * The tool compiled the way `npm run bench:gradbench` compiles it (the plugin over bench/src),
 * but into a temporary folder so that no build output of the repository is touched. The emitted
 * code imports `tsad` from this repository's dist/, as the plugin tests do.
 */
function buildTsadTool(): string {
  const out = path.join(workDir(), 'gradbench-tool');
  const src = path.join(repoRoot, 'bench/src');
  const roots = ['gradbench', 'tsad', 'hand'].flatMap((dir) =>
    fs
      .readdirSync(path.join(src, dir))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => path.join(src, dir, f)),
  );
  const program = ts.createProgram(roots, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    strict: true,
    skipLibCheck: true,
    types: ['node'],
    rootDir: src,
    outDir: out,
    // tsad's published declarations, as an installed package is seen (npm test builds dist/).
    paths: { tsad: [path.join(repoRoot, 'dist/runtime/index.d.ts')] },
  });
  const diagnostics: ts.Diagnostic[] = [];
  const before = tsadTransformer(program, {}, { ts, addDiagnostic: (d) => void diagnostics.push(d) });
  // Only the tool's own files are written, and only under `out`.
  const writeFile: ts.WriteFileCallback = (name, text) => {
    if (path.relative(out, name).startsWith('..')) return;
    fs.mkdirSync(path.dirname(name), { recursive: true });
    fs.writeFileSync(name, text);
  };
  const result = program.emit(undefined, writeFile, undefined, false, { before: [before] });
  const problems = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics, ...diagnostics];
  if (problems.length > 0) {
    const host = { getCanonicalFileName: (f: string) => f, getCurrentDirectory: () => repoRoot, getNewLine: () => '\n' };
    throw new Error(`the tsad tool does not build:\n${ts.formatDiagnostics(problems, host)}`);
  }
  return path.join(out, 'gradbench/tool.js');
}

describe('tsad tool mode against GradBench manual', () => {
  const missing = missingTools();
  if (missing) {
    console.warn(`SKIPPING the GradBench runner tests of the tsad tool: ${missing}`);
    it.skip('runs hello, lse, llsq, gmm, kmeans, lstm and ba through the runner', () => {});
    return;
  }
  let tool = '';
  beforeAll(() => {
    tool = buildTsadTool();
  }, 120_000);
  for (const name of EVALS) {
    it(`${name}: outcome success`, () => {
      expectOutcomeSuccess(name, `node ${tool} tsad`);
    }, 120_000);
  }
});
