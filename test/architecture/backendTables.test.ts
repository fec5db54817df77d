// Code generation lives with each backend, not in the records (issue 21): the records in prims/
// and constructs/ say what an operation means and load no TypeScript; the TypeScript backend's
// tables (backend/ts/) hold exactly one entry per registry name; facts other layers ask about a
// construct are facets of its record, not name lists kept elsewhere.
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import { PRIMS, LIN_PRIMS } from '../../transformer/prims/registry';
import { CONSTRUCTS } from '../../transformer/constructs/registry';
import { TS_LIN_PRIMS, TS_PRIMS } from '../../transformer/backend/ts/prims';
import { TS_CONSTRUCTS } from '../../transformer/backend/ts/constructs';

const transformer = path.resolve(__dirname, '../../transformer');

function modulesImported(dir: string): { file: string; spec: string }[] {
  const out: { file: string; spec: string }[] = [];
  for (const rel of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const file = path.join(dir, rel);
    if (!file.endsWith('.ts')) continue;
    const sf = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
    for (const s of sf.statements) {
      const spec = ts.isImportDeclaration(s) || ts.isExportDeclaration(s) ? s.moduleSpecifier : undefined;
      if (spec && ts.isStringLiteral(spec)) out.push({ file: path.relative(transformer, file), spec: spec.text });
    }
  }
  return out;
}

test('the primitive and construct records import no typescript, not even its types', () => {
  const loading = [...modulesImported(path.join(transformer, 'prims')), ...modulesImported(path.join(transformer, 'constructs'))].filter((i) => i.spec === 'typescript');
  expect(loading.map((i) => i.file)).toEqual([]);
});

test('the records import nothing from a backend', () => {
  const up = [...modulesImported(path.join(transformer, 'prims')), ...modulesImported(path.join(transformer, 'constructs'))].filter((i) => i.spec.includes('/backend/'));
  expect(up.map((i) => `${i.file} -> ${i.spec}`)).toEqual([]);
});

test("the TypeScript backend's tables have one entry per registry name, and no other", () => {
  const keys = (o: object) => Object.keys(o).sort();
  expect(keys(TS_PRIMS)).toEqual(keys(PRIMS));
  expect(keys(TS_LIN_PRIMS)).toEqual(keys(LIN_PRIMS));
  expect(keys(TS_CONSTRUCTS)).toEqual(keys(CONSTRUCTS));
  for (const table of [TS_PRIMS, TS_LIN_PRIMS, TS_CONSTRUCTS]) for (const entry of Object.values(table)) expect(typeof entry).toBe('function');
});

test('the facts other layers ask about constructs are facets of their records', () => {
  const having = (facet: 'loop' | 'checks' | 'combinator') =>
    Object.entries(CONSTRUCTS)
      .filter(([, r]) => r[facet])
      .map(([name]) => name)
      .sort();
  expect(having('loop')).toEqual(['loop', 'while']);
  expect(having('checks')).toEqual(['atmost', 'gather', 'matmul', 'scatter', 'within']);
  expect(having('combinator')).toEqual(['gather', 'map', 'reduce', 'reduceByIndex', 'scan', 'scatter', 'tapedCall', 'tapedHvp', 'tapedJvp', 'tapedVjp']);
});
