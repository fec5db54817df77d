// Every stage between a marked TypeScript function and the code the plugin emits for it, as
// text: the Linear A it lowers to, its JVP, the unzipped primal and linear parts, the transposed
// linear part, the fused gradient, the generated TypeScript and the WGSL. Host-free (a program's
// checker and source file in, text out), so that `tsad inspect` and a page running TypeScript in
// the browser (the playground) show exactly what the plugin compiles.
import type * as ts from 'typescript';
import type { Host } from './host';
import type { Stage } from './stageNames';
import { ModuleCompiler } from './compile';
import { printDef, printProgram } from './ir/print';
import type { Program } from './ir/syntax';
import { jvpOf, linearizeOf, vjpOf, valueAndGradOf, DriverOptions, PassTrace } from './ad/drivers';
import { isTsadDiagnostic, TsadDiagnosticError } from './frontend/diagnostics';
import { markerOf, useTypeScript } from './frontend/markers';
import { DRIVER } from './plan/request';
import { reachable } from './plan/closure';
import { KERNEL_HELPERS } from './backend/wgsl/kernels';
import type { GpuProgram } from '../runtime/webgpu/plan';

export { STAGES, type Stage } from './stageNames';

export interface FunctionStages {
  /** The name tsad gives the function (`Class_method` for a method). */
  readonly name: string;
  readonly decl: ts.SignatureDeclaration;
  /** The stages asked for, in order, up to the first one that cannot be compiled. */
  readonly stages: readonly (readonly [Stage, string])[];
  /** Why the next stage could not be compiled, with its source range. */
  readonly error?: TsadDiagnosticError;
}

export interface StagesOf {
  /** The functions asked for (all marked ones, or those `fn` names). */
  readonly functions: readonly FunctionStages[];
  /** The names of every marked function of the file. */
  readonly marked: readonly string[];
}

/**
 * The stages of the marked functions of SF, or of the one `fn` names (`name`, `Class.method` or
 * tsad's `Class_method`).
 */
export function stagesOf(host: Host, checker: ts.TypeChecker, sf: ts.SourceFile, o: { readonly fn?: string; readonly stages: readonly Stage[] }): StagesOf {
  const tsApi = host.ts;
  useTypeScript(tsApi);
  const lowerer = new ModuleCompiler(host, checker, tsApi.factory);
  const named = markedFunctions(tsApi, sf, checker).map((decl) => ({ decl, name: safeName(() => lowerer.lower(decl).fn.name) ?? sourceName(tsApi, decl) }));
  const fn = o.fn;
  const chosen = fn === undefined ? named : named.filter((n) => n.name === fn || n.name === fn.replace('.', '_') || n.name.endsWith(`_${fn}`));
  const functions = chosen.map(({ decl, name }): FunctionStages => {
    const stages: [Stage, string][] = [];
    for (const stage of o.stages) {
      try {
        stages.push([stage, stageText(stage, host, checker, sf, decl)]);
      } catch (e) {
        if (!isTsadDiagnostic(e)) throw e;
        return { name, decl, stages, error: e };
      }
    }
    return { name, decl, stages };
  });
  return { functions, marked: named.map((n) => n.name) };
}

/** The marked function-like declarations of a file, in source order. */
export function markedFunctions(tsApi: typeof ts, sf: ts.SourceFile, checker: ts.TypeChecker): ts.SignatureDeclaration[] {
  const found: ts.SignatureDeclaration[] = [];
  const visit = (node: ts.Node): void => {
    const fnLike = tsApi.isFunctionDeclaration(node) || tsApi.isMethodDeclaration(node) || tsApi.isArrowFunction(node) || tsApi.isFunctionExpression(node);
    if (fnLike && (node as ts.FunctionLikeDeclaration).body && markerOf(node, checker)) found.push(node as ts.SignatureDeclaration);
    tsApi.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** One stage of one marked function, as text; throws the TsadDiagnosticError of code it cannot compile. */
export function stageText(stage: Stage, host: Host, checker: ts.TypeChecker, sf: ts.SourceFile, decl: ts.SignatureDeclaration): string {
  const tsApi = host.ts;
  const compiler = new ModuleCompiler(host, checker, tsApi.factory);
  const { program, fn } = compiler.lower(decl);
  // The same simplification the plugin applies before emitting.
  const checkpoint = markerOf(decl, checker)?.checkpoint;
  const driver: DriverOptions = { ...DRIVER, recheck: host.recheck, ...(checkpoint ? { checkpoint } : {}) };
  switch (stage) {
    case 'linear-a':
      return printProgram(reachable(program, [fn.name]));
    case 'passes': {
      // Reverse mode pass by pass, as grad (a number out) or vjp (anything else) runs it.
      const { trace, text } = passTrace(program);
      const traced = { ...driver, trace };
      if (fn.result.kind === 'number') valueAndGradOf(program, fn.name, traced);
      else vjpOf(program, fn.name, traced);
      return text();
    }
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

/** What each pass of the pipeline does, for the heading of its section. */
const PASS_TITLES: Readonly<Record<string, string>> = {
  inline: 'inline: the calls of the function inlined',
  tabulate: 'tabulate: what every run of a loop recomputes, once into a table before it',
  licm: 'licm: loop-invariant code moved out of loops',
  checkpoint: 'checkpoint: loops split into recomputed segments',
  jvp: 'jvp (J): primal and tangent together',
  unzip: 'unzip (U): the primal part and the linear part',
  transpose: 'transpose (T): the linear part run backwards',
  erase: 'erase (E): linear types erased',
  fuse: 'fuse: the seeded gradient inlined into one function and simplified',
  flatten: 'flatten: differentiated parameters as scalars',
  simplify: 'simplify: the defs the pass before added, simplified',
};

/**
 * A trace hook for the drivers and the text it collects: after each pass, the defs it added or
 * changed (compared as printed, since annotating types rebuilds defs without changing them).
 */
function passTrace(start: Program): { trace: PassTrace; text: () => string } {
  const sections: string[] = [];
  const printed = new Map(start.defs.map((d) => [d.name, printDef(d)] as const));
  const trace: PassTrace = (pass, program) => {
    const changed: string[] = [];
    for (const d of program.defs) {
      const text = printDef(d);
      if (printed.get(d.name) !== text) changed.push(text);
      printed.set(d.name, text);
    }
    const title = PASS_TITLES[pass] ?? `${pass}: defined from the defs above`;
    sections.push(`// ---- ${title} ----\n${changed.length === 0 ? '// (no change)' : changed.join('\n\n')}`);
  };
  return { trace, text: () => sections.join('\n\n') };
}

/** A device program for reading: its host program and steps, then each kernel without the shared helpers. */
function printGpuProgram(p: GpuProgram): string {
  // Host steps count an object parameter's fields as parameters (runtime/webgpu/objects.ts).
  const params = p.params.flatMap((x) => (x.kind === 'object' ? x.fields.map((f) => ({ name: `${x.name}.${f.name}` })) : [x]));
  const host = p.host.map(
    (s) =>
      `//   h${s.out} = ${s.op === 'lit' ? s.value : s.op === 'arg' || s.op === 'len' ? `${s.op}(${params[s.param].name})` : s.op === 'dim' ? `${s.axis === 0 ? 'rows' : 'cols'}(${params[s.param].name})` : s.op === 'atmost' ? `atmost(h${s.a}, h${s.b})` : s.op === 'heap' ? 'the heap of sequential code (sized per call)' : s.op === 'fn' ? `${s.fn}(${s.args.map((r) => `h${r}`).join(', ')})` : `${s.op}(${s.args.map((r) => `h${r}`).join(', ')})`}`,
  );
  const steps = p.steps.map((s, i) =>
    s.op === 'reduce'
      ? `//   ${i}: reduce of ${s.k} accumulator(s) over h${s.n} elements bound by its first pass ${s.inputs.join(', ')}: kernels ${s.first}, ${s.next}, ${s.firstLast} / ${s.nextLast} (the pass leaving one partial, with the scalar code after; arrays ${s.post.join(', ') || '-'})`
      : s.op === 'scan'
        ? `//   ${i}: scan of ${s.k} accumulator(s) over h${s.n} elements of array(s) ${s.inputs.join(', ')} into ${s.outputs.join(', ')}: kernels ${s.first}, ${s.next} (block totals), ${s.level} (their scan), ${s.final}`
        : s.op === 'map'
          ? `//   ${i}: kernel ${s.kernel} over h${s.threads} elements, arrays ${s.arrays.join(', ') || '-'}`
          : `//   ${i}: kernel ${s.kernel} (one invocation${s.op === 'scalar' && s.sweep ? `, ceil(h${s.sweep.count} / ${s.sweep.per}) times` : ''}), arrays ${s.arrays.join(', ') || '-'}`,
  );
  const kernels = p.kernels.map((k, i) => `// ---- kernel ${i} ----\n${k.startsWith(KERNEL_HELPERS) ? k.slice(KERNEL_HELPERS.length).trimStart() : k}`);
  return [
    `// ${p.where}: ${p.kernels.length} kernels, ${p.slots} scalar slots, ${p.arrays.length} arrays`,
    '// host (lengths, before any kernel):',
    ...host,
    '// device steps (one command encoder):',
    ...steps,
    ...kernels,
  ].join('\n');
}

function safeName(f: () => string): string | undefined {
  try {
    return f();
  } catch (e) {
    if (isTsadDiagnostic(e)) return undefined;
    throw e;
  }
}

/** The name of a function that does not lower, as tsad would name it: `f`, `Class_method`, the variable an arrow is assigned to. */
function sourceName(tsApi: typeof ts, decl: ts.SignatureDeclaration): string {
  const own = decl.name && tsApi.isIdentifier(decl.name) ? decl.name.text : undefined;
  if (own && tsApi.isMethodDeclaration(decl) && tsApi.isClassLike(decl.parent) && decl.parent.name) return `${decl.parent.name.text}_${own}`;
  if (own) return own;
  const holder = decl.parent;
  if (holder && tsApi.isVariableDeclaration(holder) && tsApi.isIdentifier(holder.name)) return holder.name.text;
  return '?';
}
