// The transformer's import graph (type-only imports included) has no circle and no arrow that
// runs up a floor (issue 20): a floor may import from its own floor and the floors below it.
// Read from the files themselves, so a new import against the layering fails here with the file
// and the specifier, not in a review.
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';

const root = path.resolve(__dirname, '../..');
const transformer = path.join(root, 'transformer');

/**
 * The floors, lowest first; a file's floor is the first whose pattern matches its path (relative
 * to transformer/). The IR as a language (language/: its parser, type checker, interpreter and
 * arities) consults the registries of primitives and constructs, so it stands above them.
 */
const FLOORS: readonly (readonly [string, RegExp])[] = [
  ['language', /^language\//],
  ['ir', /^ir\//],
  ['host interface', /^host\.ts$/],
  ['prims', /^prims\//],
  ['constructs', /^constructs\//],
  ['opt', /^opt\//],
  ['ad', /^ad\//],
  ['plan', /^plan\//],
  ['backend', /^backend\//],
  ['frontend', /^frontend\//],
  ['taped', /^taped\//],
  ['compile', /^compile\.ts$/],
  ['stages', /^stage(s|Names)\.ts$/],
  ['plugin', /^plugin\//],
];
// Listed top-down in FLOORS for matching; their order from the ground up:
const ORDER = ['ir', 'host interface', 'prims', 'constructs', 'language', 'opt', 'ad', 'plan', 'backend', 'frontend', 'taped', 'compile', 'stages', 'plugin'];

function floorOf(file: string): string {
  const rel = path.relative(transformer, file).replace(/\\/g, '/');
  const hit = FLOORS.find(([, re]) => re.test(rel));
  if (!hit) throw new Error(`${rel} is on no floor: add it to FLOORS`);
  return hit[0];
}

function sourceFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(dir, f))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
}

function resolve(from: string, spec: string): string {
  const base = path.resolve(path.dirname(from), spec);
  const found = [`${base}.ts`, path.join(base, 'index.ts')].find((f) => fs.existsSync(f));
  if (!found) throw new Error(`${from}: cannot resolve '${spec}'`);
  return found;
}

/** Every relative import and re-export of a file, type-only ones included. */
function importsOf(file: string): string[] {
  const sf = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const out: string[] = [];
  for (const s of sf.statements) {
    const spec = ts.isImportDeclaration(s) || ts.isExportDeclaration(s) ? s.moduleSpecifier : undefined;
    if (spec && ts.isStringLiteral(spec) && spec.text.startsWith('.')) out.push(resolve(file, spec.text));
  }
  return out;
}

const rel = (f: string) => path.relative(root, f).replace(/\\/g, '/');

function graph(): Map<string, string[]> {
  return new Map(sourceFiles(transformer).map((f) => [f, importsOf(f)]));
}

/** Strongly connected components with more than one file (Tarjan, with an explicit stack). */
function circles(g: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  let next = 0;
  for (const start of g.keys()) {
    if (index.has(start)) continue;
    const work: [string, number][] = [[start, 0]];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const top = work[work.length - 1];
      const [v, i] = top;
      const succ = g.get(v) ?? [];
      if (i < succ.length) {
        top[1]++;
        const w = succ[i];
        if (!index.has(w)) {
          index.set(w, next);
          low.set(w, next++);
          stack.push(w);
          onStack.add(w);
          work.push([w, 0]);
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const u = work[work.length - 1][0];
        low.set(u, Math.min(low.get(u)!, low.get(v)!));
      }
      if (low.get(v) === index.get(v)) {
        const scc: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          scc.push(w);
        } while (w !== v);
        if (scc.length > 1) found.push(scc.map(rel).sort());
      }
    }
  }
  return found;
}

function upwardArrows(g: ReadonlyMap<string, readonly string[]>): string[] {
  const out: string[] = [];
  for (const [from, tos] of g) {
    const a = ORDER.indexOf(floorOf(from));
    for (const to of tos) {
      if (!to.startsWith(transformer)) continue;
      if (ORDER.indexOf(floorOf(to)) > a) out.push(`${rel(from)} (${floorOf(from)}) -> ${rel(to)} (${floorOf(to)})`);
    }
  }
  return out.sort();
}

/** What remains, to be emptied, never grown (issue 19 emptied it: the front end's circle is split). */
const KNOWN_CIRCLES: readonly string[] = [];
const KNOWN_UPWARD: readonly string[] = [];

test('the transformer has no import circle', () => {
  expect(circles(graph()).map((c) => c.join(' '))).toEqual(KNOWN_CIRCLES);
});

test('no import runs up a floor', () => {
  expect(upwardArrows(graph())).toEqual(KNOWN_UPWARD);
});

test('the circle finder and the floors see what they should', () => {
  const a = path.join(transformer, 'ir/a.ts');
  const b = path.join(transformer, 'ir/b.ts');
  const c = path.join(transformer, 'ad/c.ts');
  expect(
    circles(
      new Map([
        [a, [b]],
        [b, [a, c]],
        [c, []],
      ]),
    ),
  ).toEqual([['transformer/ir/a.ts', 'transformer/ir/b.ts']]);
  expect(
    upwardArrows(
      new Map([
        [a, [c]],
        [c, [a]],
      ]),
    ),
  ).toEqual(['transformer/ir/a.ts (ir) -> transformer/ad/c.ts (ad)']);
  expect(floorOf(path.join(transformer, 'language/check.ts'))).toBe('language');
});
