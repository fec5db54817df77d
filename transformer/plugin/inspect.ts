// `tsad inspect FILE.ts`: every stage between a marked TypeScript function and the code the
// plugin emits for it — the Linear A it lowers to, its JVP, the unzipped primal and linear
// parts, the transposed linear part, and the generated TypeScript. For debugging derivatives and
// for learning how the passes work; it prints exactly what the plugin compiles.
import * as fs from 'fs';
import * as path from 'path';
import type * as ts from 'typescript';
import { InputError, Io } from './io';
import type { Stage } from './stages';
import { ModuleCompiler } from '../compile';
import { printProgram } from '../ir/print';
import { jvpOf, linearizeOf, vjpOf, valueAndGradOf, DriverOptions } from '../ad/drivers';
import { isTsadDiagnostic } from '../frontend/diagnostics';
import { markerOf, useTypeScript } from '../frontend/markers';
import { DRIVER } from '../plan/request';
import { reachable } from '../plan/closure';
import { formatDiagnostic, toDiagnostic } from './rewrite';
import { Host, nodeHost, runtimeEntry } from './host';
import { WGSL_HELPERS } from '../backend/wgsl/prims';
import type { GpuProgram } from '../../runtime/webgpu/plan';

export interface InspectOptions {
  readonly file: string;
  readonly fn?: string;
  readonly stages: readonly Stage[];
}

const TS_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts'];

/**
 * Why FILE cannot be inspected, or undefined when it is a TypeScript source file. Checked
 * before the compiler sees it: TypeScript silently ignores a file it would not compile
 * (`.js` without allowJs, `.json`, a directory), and "no marked functions" would mislead.
 */
function unsuitable(file: string): string | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (e) {
    return `cannot read ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`;
  }
  const kinds = TS_EXTENSIONS.join(', ');
  if (stat.isDirectory()) return `${file} is a directory; tsad inspect takes one TypeScript file (${kinds})`;
  const lower = file.toLowerCase();
  if (/\.d\.[mc]?ts$/.test(lower)) return `${file} is a declaration file: it has no function bodies to differentiate; inspect the .ts source`;
  const ext = path.extname(lower);
  if (ext === '.lina') return `${file} is a Linear A program; use 'tsad ir check ${file}' and the other 'tsad ir' commands`;
  if (['.js', '.jsx', '.mjs', '.cjs'].includes(ext)) return `${file} is JavaScript; tsad inspect reads the TypeScript source of marked functions (${kinds})`;
  if (!TS_EXTENSIONS.includes(ext)) return `${file} is not a TypeScript file; tsad inspect reads ${kinds}`;
  try {
    fs.accessSync(file, fs.constants.R_OK);
  } catch (e) {
    return `cannot read ${file}: ${(e as Error).message}`;
  }
  return undefined;
}

/** Syntax errors are shown this many at a time; the first usually explains the rest. */
const MAX_SYNTAX_ERRORS = 5;

/** The marked function-like declarations of a file, in source order. */
function markedFunctions(tsApi: typeof ts, sf: ts.SourceFile, checker: ts.TypeChecker): ts.SignatureDeclaration[] {
  const found: ts.SignatureDeclaration[] = [];
  const visit = (node: ts.Node): void => {
    const fnLike = tsApi.isFunctionDeclaration(node) || tsApi.isMethodDeclaration(node) || tsApi.isArrowFunction(node) || tsApi.isFunctionExpression(node);
    if (fnLike && (node as ts.FunctionLikeDeclaration).body && markerOf(node, checker)) found.push(node as ts.SignatureDeclaration);
    tsApi.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

function stageText(stage: Stage, host: Host, checker: ts.TypeChecker, sf: ts.SourceFile, decl: ts.SignatureDeclaration): string {
  const tsApi = host.ts;
  const compiler = new ModuleCompiler(host, checker, tsApi.factory);
  const { program, fn } = compiler.lower(decl);
  // The same simplification the plugin applies before emitting.
  const checkpoint = markerOf(decl, checker)?.checkpoint;
  const driver: DriverOptions = { ...DRIVER, recheck: host.recheck, ...(checkpoint ? { checkpoint } : {}) };
  switch (stage) {
    case 'linear-a':
      return printProgram(reachable(program, [fn.name]));
    case 'jvp': {
      const j = jvpOf(program, fn.name, driver);
      return printProgram(reachable(j.program, [j.jvp]));
    }
    case 'linearize': {
      const l = linearizeOf(program, fn.name, driver);
      return printProgram(reachable(l.program, [l.fwd, l.lin]));
    }
    case 'transpose': {
      const v = vjpOf(program, fn.name, driver);
      return printProgram(reachable(v.program, [v.bwd]));
    }
    case 'grad': {
      // The fused value-and-gradient def grad/valueAndGrad compile from (before emission).
      if (fn.result.kind !== 'number') return `// ${fn.name} does not return a number: no gradient`;
      const v = valueAndGradOf(program, fn.name, driver);
      return printProgram(reachable(v.program, [v.valueAndGrad]));
    }
    case 'emit': {
      // What `grad(f)` (scalar result) or `vjp(f, ...)` (any other result) compiles to.
      const marker = markerOf(decl, checker);
      const names = fn.params.map((p) => p.name);
      const wrt = (marker?.wrt ?? [0]).map((w) => (typeof w === 'number' ? w : names.indexOf(w))).filter((i) => i >= 0);
      compiler.compile({ target: decl, transform: fn.result.kind === 'number' ? 'grad' : 'vjp', wrt: wrt.length ? wrt : [0], callSite: decl, checkpoint: marker?.checkpoint });
      const printer = tsApi.createPrinter({ newLine: tsApi.NewLineKind.LineFeed });
      return compiler
        .statements()
        .map((s) => printer.printNode(tsApi.EmitHint.Unspecified, s, sf))
        .join('\n\n');
    }
    case 'wgsl': {
      // What `gpu(grad(f))` (scalar result) or `gpu(f)` compiles to, or why it is not on the GPU.
      const transform = fn.result.kind === 'number' ? ('grad' as const) : undefined;
      const where = transform ? `gpu(grad(${fn.name}))` : `gpu(${fn.name})`;
      try {
        return printGpuProgram(compiler.gpu(decl, { where, transform, wrt: [0] }, decl));
      } catch (e) {
        if (isTsadDiagnostic(e) && e.code === 1011) return `// ${e.codeText}: ${e.message.split('\n')[0]}`;
        throw e;
      }
    }
  }
}

/** A device program for reading: its host program and steps, then each kernel without the shared helpers. */
function printGpuProgram(p: GpuProgram): string {
  const host = p.host.map(
    (s) =>
      `//   h${s.out} = ${s.op === 'lit' ? s.value : s.op === 'arg' || s.op === 'len' ? `${s.op}(${p.params[s.param].name})` : s.op === 'atmost' ? `atmost(h${s.a}, h${s.b})` : `${s.op}(${s.args.map((r) => `h${r}`).join(', ')})`}`,
  );
  const steps = p.steps.map((s, i) =>
    s.op === 'reduce'
      ? `//   ${i}: reduce of ${s.k} accumulator(s) over h${s.n} elements of array(s) ${s.inputs.join(', ')}: kernels ${s.first}, ${s.next}, ${s.final}`
      : s.op === 'map'
        ? `//   ${i}: kernel ${s.kernel} over h${s.threads} elements, arrays ${s.arrays.join(', ') || '-'}`
        : `//   ${i}: kernel ${s.kernel} (one invocation), arrays ${s.arrays.join(', ') || '-'}`,
  );
  const kernels = p.kernels.map((k, i) => `// ---- kernel ${i} ----\n${k.startsWith(WGSL_HELPERS) ? k.slice(WGSL_HELPERS.length).trimStart() : k}`);
  return [
    `// ${p.where}: ${p.kernels.length} kernels, ${p.slots} scalar slots, ${p.arrays.length} arrays`,
    '// host (lengths, before any kernel):',
    ...host,
    '// device steps (one command encoder):',
    ...steps,
    ...kernels,
  ].join('\n');
}

export function inspectFile(o: InspectOptions, io: Io): number {
  const problem = unsuitable(o.file);
  if (problem) throw new InputError(problem);
  const file = path.resolve(o.file);
  let host: Host;
  try {
    host = nodeHost();
  } catch {
    throw new InputError('tsad inspect needs the typescript package: npm install --save-dev typescript');
  }
  const tsApi = host.ts;
  useTypeScript(tsApi);
  const program = tsApi.createProgram([file], {
    target: tsApi.ScriptTarget.ES2022,
    module: tsApi.ModuleKind.CommonJS,
    strict: true,
    skipLibCheck: true,
    types: [],
    paths: { tsad: [runtimeEntry()] },
  });
  const sf = program.getSourceFile(file);
  if (!sf) throw new InputError(`TypeScript did not load ${o.file} as a source file`);
  // Lowering half-parsed code would report errors about the parser's recovery, not the code.
  const syntax = program.getSyntacticDiagnostics(sf);
  if (syntax.length > 0) {
    syntax.slice(0, MAX_SYNTAX_ERRORS).forEach((d) => io.err(formatTsDiagnostic(tsApi, d)));
    const more = syntax.length - MAX_SYNTAX_ERRORS;
    io.err(`tsad: ${o.file} has syntax errors${more > 0 ? ` (${more} more not shown)` : ''}; fix them first`);
    return 1;
  }
  const checker = program.getTypeChecker();
  const all = markedFunctions(tsApi, sf, checker);
  const lowerer = new ModuleCompiler(host, checker, tsApi.factory);
  const named = all.map((decl) => ({ decl, name: safeName(() => lowerer.lower(decl).fn.name) ?? '?' }));
  const chosen = o.fn === undefined ? named : named.filter((n) => n.name === o.fn || n.name === o.fn!.replace('.', '_') || n.name.endsWith(`_${o.fn}`));
  if (chosen.length === 0) {
    const have = named.map((n) => n.name).filter((n) => n !== '?');
    throw new InputError(
      o.fn === undefined ? `no marked functions in ${o.file} (mark one with /** @differentiable */)` : `no marked function '${o.fn}' in ${o.file}${have.length ? ` (marked: ${have.join(', ')})` : ''}`,
    );
  }
  let status = 0;
  for (const { decl, name } of chosen) {
    for (const stage of o.stages) {
      try {
        const text = stageText(stage, host, checker, sf, decl).trimEnd();
        io.out(o.stages.length > 1 || chosen.length > 1 ? `// ---- ${name}: ${stage} ----\n${text}\n` : text);
      } catch (e) {
        if (!isTsadDiagnostic(e)) throw e;
        io.err(formatDiagnostic(tsApi, toDiagnostic(tsApi, e, sf)));
        status = 1;
        break;
      }
    }
  }
  return status;
}

function formatTsDiagnostic(tsApi: typeof ts, d: ts.Diagnostic): string {
  const text = tsApi.flattenDiagnosticMessageText(d.messageText, '\n');
  if (!d.file || d.start === undefined) return `error TS${d.code}: ${text}`;
  const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
  return `${d.file.fileName}:${line + 1}:${character + 1} - error TS${d.code}: ${text}`;
}

function safeName(f: () => string): string | undefined {
  try {
    return f();
  } catch (e) {
    if (isTsadDiagnostic(e)) return undefined;
    throw e;
  }
}
