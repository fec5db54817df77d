// The oracle of the front-end fuzzer: a batch of generated functions is compiled as one module
// (the compile is the slow part), and each function must either be refused with coded TSAD
// diagnostics that point into its own text, or build and then agree with itself: the primal of
// valueAndGrad and jvp === the function's own value, the gradient = central finite differences
// (where two step sizes agree, so kinks and jumps are skipped), and the JVP = grad · v.
//
// A NaN derivative where the function, run as plain JavaScript at that point, computes an
// infinite or NaN intermediate (x + Math.min(), a value squared until it overflows) is tsad's
// documented rule, not a finding: derivatives follow IEEE arithmetic there, 0·∞ = NaN, as in
// JAX, PyTorch and TensorFlow (docs/primitives.md). So is a NaN gradient where jvp gives ±∞: the
// derivative itself is infinite at the point. Such cases are counted (Stats.ieee) and reported
// as known with the tag 'ieee-inf'.
import * as fs from 'fs';
import * as path from 'path';
import type * as ts from 'typescript';
import { compile, workDir } from '../plugin/harness';
import { FuzzFunction, fuzzFunction, fuzzModule } from './fuzz';

export interface Finding {
  readonly kind: string;
  readonly detail: string;
  readonly fn: FuzzFunction;
  /** The choices that generate the function (for replay and shrinking). */
  readonly xs: readonly number[];
  /** The function uses a construct of a known issue being fixed elsewhere, or the case is a documented rule. */
  readonly known: boolean;
  /** The documented rule the case falls under: 'ieee-inf' (an intermediate is ±Infinity or NaN). */
  readonly rule?: 'ieee-inf';
}

export interface Stats {
  functions: number;
  refused: number;
  built: number;
  points: number;
  fdChecked: number;
  fdSkipped: number;
  /** NaN derivatives where the function computes an infinite or NaN intermediate (IEEE rule). */
  ieee: number;
  codes: Map<string, number>;
  /** Diagnostics on functions written without a deliberately unsupported construct: code → examples. */
  supportedRefused: Map<string, string[]>;
}

export function newStats(): Stats {
  return { functions: 0, refused: 0, built: 0, points: 0, fdChecked: 0, fdSkipped: 0, ieee: 0, codes: new Map(), supportedRefused: new Map() };
}

let moduleCounter = 0;

function flatten(m: string | ts.DiagnosticMessageChain): string {
  if (typeof m === 'string') return m;
  return [m.messageText, ...(m.next ?? []).map(flatten)].join('\n');
}

const INTERNAL = /IrError|TypeError|RangeError|ReferenceError|internal|Cannot read prop|is not a function|Maximum call stack|TSAD9000|\bat .*\.js:\d+/;

type Arr = number[];
export interface Point {
  readonly x: number;
  readonly y: number;
  readonly a: Arr;
  readonly b: Arr;
  /** A regular point: random coordinates, away from where kinks and guards sit. */
  readonly regular: boolean;
}

/** A small deterministic generator (mulberry32), so points replay from the choices. */
function rng(seed: number): () => number {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

export function pointsFor(xs: readonly number[]): Point[] {
  const r = rng(xs.reduce((h, v) => (Math.imul(h, 31) + v) | 0, 7));
  const u = () => 3 * r() - 1.5;
  const regular = (n: number): Point => ({ x: u(), y: u(), a: Array.from({ length: n }, u), b: Array.from({ length: n }, u), regular: true });
  return [regular(3), regular(1), regular(0), { x: 0, y: 0, a: [0, 1, 0], b: [0, 0, -1], regular: false }, { x: 1, y: 0, a: [0], b: [2], regular: false }];
}

const H1 = 1e-5;
const H2 = 2e-6;

function sameValue(u: unknown, v: number): boolean {
  return u === v || (typeof u === 'number' && Number.isNaN(u) && Number.isNaN(v));
}

function close(u: number, v: number, rel: number, abs = 0): boolean {
  if (Number.isNaN(u) || Number.isNaN(v)) return Number.isNaN(u) && Number.isNaN(v);
  if (!Number.isFinite(u) || !Number.isFinite(v)) return u === v;
  return Math.abs(u - v) <= rel * Math.max(1, Math.abs(u), Math.abs(v)) + abs;
}

type F = (x: number, y: number, a: number[], b: Float64Array) => number;

/** Checks one built function at its points; returns what went wrong, if anything. */
function checkNumbers(
  f: F,
  vg: F,
  jv: (...args: unknown[]) => unknown,
  pts: Point[],
  stats: Stats,
  f32 = false,
): { kind: string; detail: string; at?: Point; infiniteDerivative?: boolean } | undefined {
  for (const p of pts) {
    const n = p.a.length;
    const args = (dx = 0, dy = 0, da?: number[], db?: number[]): [number, number, number[], Float64Array] => [
      p.x + dx,
      p.y + dy,
      da ? p.a.map((v, i) => v + da[i]) : p.a.slice(),
      Float64Array.from(db ? p.b.map((v, i) => v + db[i]) : p.b),
    ];
    let fx: number;
    try {
      fx = f(...args());
    } catch {
      continue; // the function itself throws here (a throw statement): nothing to compare
    }
    stats.points++;
    const at = `at x=${p.x}, y=${p.y}, a=[${p.a}], b=[${p.b}]`;
    let value: unknown;
    let g: unknown;
    try {
      [value, g] = vg(...args()) as unknown as [unknown, unknown];
    } catch (e) {
      return { kind: 'runtime-throw', detail: `valueAndGrad threw ${(e as Error).message?.split('\n')[0]} ${at} (f gives ${fx})` };
    }
    if (!sameValue(value, fx)) return { kind: 'primal-mismatch', detail: `valueAndGrad value ${value} !== f ${fx} ${at}` };
    if (!Array.isArray(g) || g.length !== 4) return { kind: 'grad-shape', detail: `gradient ${String(g)} ${at}` };
    const [gx, gy, ga, gb] = g as [number, number, number[], Float64Array];
    if (typeof gx !== 'number' || typeof gy !== 'number' || !Array.isArray(ga) || ga.length !== n || !(gb instanceof Float64Array) || gb.length !== n) {
      return { kind: 'grad-shape', detail: `gradient [${gx}, ${gy}, ${ga?.constructor?.name}[${ga?.length}], ${gb?.constructor?.name}[${gb?.length}]] for n=${n} ${at}` };
    }
    const dx = 0.3;
    const dy = -0.7;
    const da = p.a.map((_, i) => 0.5 - 0.25 * i);
    const db = p.b.map((_, i) => 0.2 + 0.3 * i);
    let jr: unknown;
    try {
      jr = jv(...args(), dx, dy, da.slice(), Float64Array.from(db));
    } catch (e) {
      return { kind: 'runtime-throw', detail: `jvp threw ${(e as Error).message?.split('\n')[0]} ${at}` };
    }
    const [tv, tt] = jr as [unknown, number];
    if (!sameValue(tv, fx)) return { kind: 'primal-mismatch', detail: `jvp value ${tv} !== f ${fx} ${at}` };
    const terms = [gx * dx, gy * dy, ...ga.map((v, i) => v * da[i]), ...Array.from(gb, (v, i) => v * db[i])];
    const proj = terms.reduce((s, v) => s + v, 0);
    const scale = terms.reduce((s, v) => s + Math.abs(v), 0);
    const nanMismatch = Number.isNaN(proj) !== Number.isNaN(tt);
    if (nanMismatch || (!Number.isNaN(proj) && !(Number.isFinite(proj) ? Math.abs(proj - tt) <= 1e-8 * Math.max(1, scale) : proj === tt))) {
      // An infinite tangent is a derivative that is infinite at the point (Math.sqrt at 0):
      // reverse mode multiplies that ∞ by the zero partials forward mode adds first.
      const infiniteDerivative = Number.isNaN(proj) && typeof tt === 'number' && !Number.isNaN(tt) && !Number.isFinite(tt);
      return {
        kind: Number.isNaN(proj) || Number.isNaN(tt) ? 'jvp-grad-nan' : 'jvp-grad-mismatch',
        detail: `jvp tangent ${tt} vs grad·v ${proj} (grad [${gx}, ${gy}, [${ga}], [${Array.from(gb)}]]) ${at}`,
        at: p,
        infiniteDerivative,
      };
    }
    if (!p.regular || !Number.isFinite(fx) || Math.abs(fx) > 1e6) continue;
    // Finite differences per coordinate, at two step sizes.
    const coords: [string, number, (h: number) => number][] = [
      ['x', gx, (h) => f(...args(h))],
      ['y', gy, (h) => f(...args(0, h))],
      ...p.a.map(
        (_, i) =>
          [
            `a[${i}]`,
            ga[i],
            (h: number) =>
              f(
                ...args(
                  0,
                  0,
                  p.a.map((_, j) => (j === i ? h : 0)),
                ),
              ),
          ] as [string, number, (h: number) => number],
      ),
      ...p.b.map(
        (_, i) =>
          [
            `b[${i}]`,
            gb[i],
            (h: number) =>
              f(
                ...args(
                  0,
                  0,
                  undefined,
                  p.b.map((_, j) => (j === i ? h : 0)),
                ),
              ),
          ] as [string, number, (h: number) => number],
      ),
    ];
    for (const [name, gi, fAt] of coords) {
      const [up, down] = [fAt(H2), fAt(-H2)];
      const d1 = (fAt(H1) - fAt(-H1)) / (2 * H1);
      const d2 = (up - down) / (2 * H2);
      const noise = (1e-15 * Math.max(1, Math.abs(fx))) / H2;
      // One-sided differences too: a jump at the point itself (floor(y · (1/y)) is 0 only there)
      // leaves the central ones agreeing with each other but not with the point's derivative.
      const [forward, backward] = [(up - fx) / H2, (fx - down) / H2];
      const sided = close(forward, d2, 1e-3, 10 * noise) && close(backward, d2, 1e-3, 10 * noise);
      if (!Number.isFinite(d1) || !Number.isFinite(d2) || !close(d1, d2, 1e-4, 10 * noise) || !sided) {
        stats.fdSkipped++;
        continue;
      }
      stats.fdChecked++;
      // A value rounded to float32 inside f makes its differences a staircase of f32 steps (one
      // ulp over 2h, about 0.03·|f| at h = 2e-6) around the straight-through gradient.
      const [rel, abs] = f32 ? [1e-2, (2 ** -23 * Math.max(1, Math.abs(fx))) / H2] : [1e-4, 10 * noise];
      if (!close(gi, d2, rel, abs)) {
        return { kind: Number.isNaN(gi) ? 'grad-nan' : 'grad-vs-fd', detail: `∂f/∂${name}: grad ${gi}, finite differences ${d2} (h=${H2}) and ${d1} (h=${H1}) ${at}`, at: p };
      }
    }
  }
  return undefined;
}

function checkDiagnostic(d: ts.Diagnostic, fileName: string, length: number): string | undefined {
  const text = flatten(d.messageText);
  if (!/^TSAD\d{4}:/.test(text)) return `diagnostic without a TSAD code: ${text}`;
  if (d.code !== 900000 + Number(text.slice(4, 8))) return `diagnostic code ${d.code} does not match ${text.slice(0, 8)}`;
  if (INTERNAL.test(text)) return `internal error text: ${text}`;
  if (!d.file || path.resolve(d.file.fileName) !== path.resolve(fileName)) return `diagnostic in ${d.file?.fileName ?? 'no file'}: ${text}`;
  if (d.start === undefined || d.length === undefined || d.start < 0 || d.start + d.length > length)
    return `diagnostic without a source range in the file (start ${d.start}, length ${d.length}): ${text}`;
  return undefined;
}

/** Compiles and checks one batch; returns the findings (empty when every function is fine). */
export function checkBatch(batch: readonly { fn: FuzzFunction; xs: readonly number[] }[], stats: Stats): Finding[] {
  const findings: Finding[] = [];
  const found = (i: number, kind: string, detail: string) => findings.push({ kind, detail, fn: batch[i].fn, xs: batch[i].xs, known: batch[i].fn.known.size > 0 });
  const { source, ranges } = fuzzModule(batch.map((b) => b.fn));
  const fileName = path.join(workDir(), `fuzz${process.pid}_${moduleCounter++}.ts`);
  let result: ReturnType<typeof compile>;
  try {
    result = compile(source, { throwOnError: false, fileName, compilerOptions: { sourceMap: false } });
  } catch (e) {
    if (batch.length > 1) return batch.flatMap((b) => checkBatch([b], stats));
    const err = e as Error;
    found(0, 'crash', `${err.message}\n${(err.stack ?? '').split('\n').slice(1, 6).join('\n')}`);
    stats.functions++;
    return findings;
  }
  stats.functions += batch.length;
  const owner = (pos: number | undefined) => (pos === undefined ? -1 : ranges.findIndex((r) => pos >= r.start && pos < r.end));
  const refused = new Set<number>();
  for (const d of result.typeErrors) {
    const k = owner(d.start);
    if (k < 0) {
      batch.forEach((_, i) => found(i, 'type-error', `TypeScript error outside the functions: ${flatten(d.messageText)}`));
      return findings;
    }
    refused.add(k);
    found(k, 'type-error', `the generator wrote code TypeScript rejects: ${flatten(d.messageText)}`);
  }
  for (const d of result.diagnostics) {
    const problem = checkDiagnostic(d, fileName, source.length);
    const k = owner(d.start);
    const text = flatten(d.messageText);
    if (problem) {
      if (k >= 0) found(k, 'bad-diagnostic', problem);
      else batch.forEach((_, i) => found(i, 'bad-diagnostic', problem));
      if (k >= 0) refused.add(k);
      else return findings;
      continue;
    }
    if (k < 0) {
      batch.forEach((_, i) => found(i, 'diagnostic-outside', `a diagnostic outside the functions: ${text}`));
      return findings;
    }
    refused.add(k);
    const code = text.slice(0, 8);
    stats.codes.set(code, (stats.codes.get(code) ?? 0) + 1);
    if (!batch[k].fn.tags.has('unsupported')) {
      const examples = stats.supportedRefused.get(code) ?? [];
      stats.supportedRefused.set(code, examples);
      if (examples.length < 3) examples.push(`${text}\n  at: ${source.slice(d.start!, d.start! + Math.min(d.length ?? 0, 200))}\n${batch[k].fn.text}`);
    }
  }
  stats.refused += refused.size;
  const toRun = batch.map((_, i) => i).filter((i) => !refused.has(i));
  for (const i of toRun) if (batch[i].fn.mustReject) found(i, 'accepted-unsupported', 'built without a diagnostic');
  const runnable = toRun.filter((i) => !batch[i].fn.mustReject);
  if (runnable.length === 0) return findings;
  const jsFile = fileName.replace(/\.ts$/, '.js');
  fs.writeFileSync(jsFile, result.outputText);
  let m: Record<string, any>;
  try {
    m = require(jsFile);
  } catch (e) {
    if (batch.length > 1) {
      // One function's emitted code does not load: find which, alone.
      stats.functions -= batch.length;
      stats.refused -= refused.size;
      return batch.flatMap((b) => checkBatch([b], stats));
    }
    runnable.forEach((i) => found(i, 'load-error', (e as Error).message));
    return findings;
  }
  for (const i of runnable) {
    stats.built++;
    const k = batch[i].fn.name.slice(1);
    if (process.env.TSAD_FUZZ_TRACE) fs.writeSync(2, `running ${batch[i].fn.name}\n`);
    let r: ReturnType<typeof checkNumbers>;
    try {
      r = checkNumbers(m[`f${k}`], m[`vg${k}`], m[`j${k}`], pointsFor(batch[i].xs), stats, batch[i].fn.known.has('float32'));
    } catch (e) {
      r = { kind: 'runtime-throw', detail: (e as Error).message };
    }
    if (r?.at && NAN_KINDS.has(r.kind) && (r.infiniteDerivative || computesNonFinite(batch[i].fn, r.at))) {
      stats.ieee++;
      findings.push({ kind: r.kind, detail: r.detail, fn: batch[i].fn, xs: batch[i].xs, known: true, rule: 'ieee-inf' });
    } else if (r) found(i, r.kind, r.detail);
  }
  return findings;
}

const NAN_KINDS = new Set(['grad-nan', 'jvp-grad-nan']);

/**
 * Does the function, run as plain JavaScript at `p`, compute an infinite or NaN value anywhere
 * (an operator's or a call's result, a transform's inside it included)? Its body is compiled
 * again, unmarked, with every arithmetic operation and call wrapped in a check.
 */
export function computesNonFinite(fn: FuzzFunction, p: Point): boolean {
  const marked = `/** @differentiable */\nexport function ${fn.name}(`;
  const { source } = fuzzModule([fn]);
  if (!source.includes(marked)) return false;
  const plain = source
    .replace(marked, `export function ${fn.name}(`)
    .split('\n')
    .filter((l) => !l.startsWith(`export const vg${fn.name.slice(1)} `) && !l.startsWith(`export const j${fn.name.slice(1)} `))
    .join('\n');
  const text = instrument(plain, fn.name);
  if (text === undefined) return false;
  const fileName = path.join(workDir(), `fuzzieee${process.pid}_${moduleCounter++}.ts`);
  const result = compile(text, { throwOnError: false, fileName, compilerOptions: { sourceMap: false } });
  if (result.typeErrors.length > 0 || result.diagnostics.length > 0) return false;
  const jsFile = fileName.replace(/\.ts$/, '.js');
  fs.writeFileSync(jsFile, result.outputText);
  const m = require(jsFile);
  try {
    m[fn.name](p.x, p.y, p.a.slice(), Float64Array.from(p.b));
  } catch {
    return false;
  }
  return m.__nonFinite.count > 0;
}

const ARITHMETIC = new Set(['+', '-', '*', '/', '%', '**', '+=', '-=', '*=', '/=', '%=', '**=']);

/** `source` with every arithmetic operation and call in function `name` wrapped in __check(…). */
function instrument(source: string, name: string): string | undefined {
  const tsApi = require('typescript') as typeof ts;
  const file = tsApi.createSourceFile('fuzz.ts', source, tsApi.ScriptTarget.Latest, true, tsApi.ScriptKind.TS);
  const decl = file.statements.find((st): st is ts.FunctionDeclaration => tsApi.isFunctionDeclaration(st) && st.name?.text === name);
  if (decl === undefined) return undefined;
  const f = tsApi.factory;
  const wrap = (e: ts.Expression) => f.createCallExpression(f.createIdentifier('__check'), undefined, [e]);
  const visit = (node: ts.Node): ts.Node => {
    // A function handed to a transform (grad((t) => …)) stays differentiable: it is not run as written.
    if ((tsApi.isArrowFunction(node) || tsApi.isFunctionExpression(node)) && tsApi.isCallExpression(node.parent) && tsApi.isIdentifier(node.parent.expression)) return node;
    const inner = tsApi.visitEachChild(node, visit, undefined);
    if (tsApi.isBinaryExpression(node) && ARITHMETIC.has(tsApi.tokenToString(node.operatorToken.kind) ?? '')) return wrap(inner as ts.Expression);
    // A transform's call (grad(h) in grad(h)(x)) stays as written: the plugin compiles it there.
    if (tsApi.isCallExpression(node) && !(tsApi.isCallExpression(node.parent) && node.parent.expression === node)) return wrap(inner as ts.Expression);
    return inner;
  };
  const body = tsApi.createPrinter().printNode(tsApi.EmitHint.Unspecified, visit(decl), file);
  const check = "export const __nonFinite = { count: 0 };\nfunction __check<T>(v: T): T { if (typeof v === 'number' && !Number.isFinite(v)) __nonFinite.count++; return v; }\n";
  return `${check}${source.slice(0, decl.getStart(file))}${body}${source.slice(decl.end)}`;
}

/** Does function `xs` alone (as f0) still fail with `kind`? */
function failsAlone(xs: readonly number[], kind: string, rate: number): boolean {
  const fn = fuzzFunction(xs, 0, rate);
  return checkBatch([{ fn, xs }], newStats()).some((f) => f.kind === kind);
}

/**
 * Shrinks a failing function's choices: drops chunks and zeroes entries (an exhausted or zero
 * choice is the simplest option) while the failure keeps its kind, within a time budget.
 */
export function shrink(xs: readonly number[], kind: string, rate: number, budgetMs: number): number[] {
  const end = Date.now() + budgetMs;
  // Only the choices the generator read matter.
  let best = xs.slice(0, fuzzFunction(xs, 0, rate).consumed);
  if (!failsAlone(best, kind, rate)) {
    if (!failsAlone(xs, kind, rate)) return xs.slice();
    best = xs.slice();
  }
  let improved = true;
  while (improved && Date.now() < end) {
    improved = false;
    for (let size = Math.max(1, best.length >> 1); size >= 1 && Date.now() < end; size >>= 1) {
      for (let at = 0; at + size <= best.length && Date.now() < end; ) {
        const cand = [...best.slice(0, at), ...best.slice(at + size)];
        if (failsAlone(cand, kind, rate)) {
          best = cand;
          improved = true;
        } else at += size;
      }
    }
    for (let at = 0; at < best.length && Date.now() < end; at++) {
      if (best[at] === 0) continue;
      for (const v of [0, best[at] >> 1, best[at] - 1]) {
        if (v === best[at] || v < 0) continue;
        const cand = best.slice();
        cand[at] = v;
        if (failsAlone(cand, kind, rate)) {
          best = cand;
          improved = true;
          break;
        }
      }
    }
  }
  return best;
}
