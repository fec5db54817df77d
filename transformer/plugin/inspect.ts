// `tsad inspect FILE.ts`: every stage between a marked TypeScript function and the code the
// plugin emits for it — the Linear A it lowers to, its JVP, the unzipped primal and linear
// parts, the transposed linear part, and the generated TypeScript. For debugging derivatives and
// for learning how the passes work; it prints exactly what the plugin compiles.
import * as fs from 'fs';
import * as path from 'path';
import type * as ts from 'typescript';
import type { Io } from './cli';
import { ModuleCompiler } from '../compile';
import { Program } from '../ir/syntax';
import { printProgram } from '../ir/print';
import { calleesFirst } from '../ad/program';
import { jvpOf, linearizeOf, vjpOf, valueAndGradOf, DriverOptions } from '../ad/drivers';
import { isTsadDiagnostic } from '../frontend/diagnostics';
import { markerOf, useTypeScript } from '../frontend/markers';
import { formatDiagnostic, toDiagnostic } from './rewrite';
import { runtimeEntry } from './transform';

export const STAGES = ['linear-a', 'jvp', 'linearize', 'transpose', 'grad', 'emit'] as const;
export type Stage = (typeof STAGES)[number];

/** The same simplification the plugin applies before emitting. */
const DRIVER: DriverOptions = { simplify: true, inlinePrimal: true };

interface Options {
  readonly file: string;
  readonly fn?: string;
  readonly stages: readonly Stage[];
}

function parse(argv: readonly string[]): Options | string {
  let file: string | undefined;
  let fn: string | undefined;
  let stage = 'all';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--fn' || a === '--stage') {
      const v = argv[++i];
      if (v === undefined) return `${a} needs a value`;
      if (a === '--fn') fn = v;
      else stage = v;
    } else if (a.startsWith('--')) return `unknown option ${a}`;
    else if (file === undefined) file = a;
    else return `unexpected argument '${a}'`;
  }
  if (!file) return 'tsad inspect needs a FILE.ts';
  if (stage !== 'all' && !(STAGES as readonly string[]).includes(stage)) return `unknown stage '${stage}' (stages: ${STAGES.join(', ')}, all)`;
  return { file, fn, stages: stage === 'all' ? STAGES : [stage as Stage] };
}

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

function only(p: Program, entries: readonly string[]): Program {
  const keep = new Set(calleesFirst(p, entries));
  return { defs: p.defs.filter((d) => keep.has(d.name)) };
}

function stageText(stage: Stage, tsApi: typeof ts, checker: ts.TypeChecker, sf: ts.SourceFile, decl: ts.SignatureDeclaration): string {
  const compiler = new ModuleCompiler(tsApi, checker, tsApi.factory);
  const { program, fn } = compiler.lower(decl);
  switch (stage) {
    case 'linear-a':
      return printProgram(only(program, [fn.name]));
    case 'jvp': {
      const j = jvpOf(program, fn.name, DRIVER);
      return printProgram(only(j.program, [j.jvp]));
    }
    case 'linearize': {
      const l = linearizeOf(program, fn.name, DRIVER);
      return printProgram(only(l.program, [l.fwd, l.lin]));
    }
    case 'transpose': {
      const v = vjpOf(program, fn.name, DRIVER);
      return printProgram(only(v.program, [v.bwd]));
    }
    case 'grad': {
      // The fused value-and-gradient def grad/valueAndGrad compile from (before emission).
      if (fn.result.kind !== 'number') return `// ${fn.name} does not return a number: no gradient`;
      const v = valueAndGradOf(program, fn.name, DRIVER);
      return printProgram(only(v.program, [v.valueAndGrad]));
    }
    case 'emit': {
      // What `grad(f)` (scalar result) or `vjp(f, ...)` (any other result) compiles to.
      const marker = markerOf(decl, checker);
      const names = fn.params.map((p) => p.name);
      const wrt = (marker?.wrt ?? [0]).map((w) => (typeof w === 'number' ? w : names.indexOf(w))).filter((i) => i >= 0);
      compiler.compile({ target: decl, transform: fn.result.kind === 'number' ? 'grad' : 'vjp', wrt: wrt.length ? wrt : [0], callSite: decl });
      const printer = tsApi.createPrinter({ newLine: tsApi.NewLineKind.LineFeed });
      return compiler
        .statements()
        .map((s) => printer.printNode(tsApi.EmitHint.Unspecified, s, sf))
        .join('\n\n');
    }
  }
}

export function inspectMain(argv: readonly string[], io: Io): number {
  const o = parse(argv);
  if (typeof o === 'string') {
    io.err(`tsad: ${o}\nusage: tsad inspect FILE.ts [--fn NAME] [--stage ${STAGES.join('|')}|all]`);
    return 1;
  }
  const file = path.resolve(o.file);
  if (!fs.existsSync(file)) {
    io.err(`tsad: cannot read ${o.file}`);
    return 1;
  }
  const tsApi: typeof ts = require('typescript');
  useTypeScript(tsApi);
  const program = tsApi.createProgram([file], {
    target: tsApi.ScriptTarget.ES2022,
    module: tsApi.ModuleKind.CommonJS,
    strict: true,
    skipLibCheck: true,
    types: [],
    paths: { tsad: [runtimeEntry()] },
  });
  const sf = program.getSourceFile(file)!;
  const checker = program.getTypeChecker();
  const all = markedFunctions(tsApi, sf, checker);
  const lowerer = new ModuleCompiler(tsApi, checker, tsApi.factory);
  const named = all.map((decl) => ({ decl, name: safeName(() => lowerer.lower(decl).fn.name) ?? '?' }));
  const chosen = o.fn === undefined ? named : named.filter((n) => n.name === o.fn || n.name === o.fn!.replace(".", "_") || n.name.endsWith(`_${o.fn}`));
  if (chosen.length === 0) {
    const have = named.map((n) => n.name).filter((n) => n !== '?');
    io.err(o.fn === undefined ? `tsad: no marked functions in ${o.file}` : `tsad: no marked function '${o.fn}' in ${o.file}${have.length ? ` (marked: ${have.join(', ')})` : ''}`);
    return 1;
  }
  let status = 0;
  for (const { decl, name } of chosen) {
    for (const stage of o.stages) {
      try {
        const text = stageText(stage, tsApi, checker, sf, decl).trimEnd();
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

function safeName(f: () => string): string | undefined {
  try {
    return f();
  } catch (e) {
    if (isTsadDiagnostic(e)) return undefined;
    throw e;
  }
}
