// The suite's jest transform (test/transform.js): esbuild strips the types of one file, keeps its
// lines for stack traces (a source map), fails on a syntax error, and gives a cache key that
// changes with the file's text. Type errors are the suite's `tsc --noEmit` check's to report.
const transformer = require('../transform.js');

const source = `import * as path from 'path';\ninterface P { a: number }\nexport class C { declare d: P; x = 1; }\nexport const f = (p: P): string => path.join(String(p.a), 'x');\n`;

test('types stripped, CommonJS out, with a source map; the key follows the text', () => {
  const { code, map } = transformer.process(source, '/virtual/a.ts');
  expect(code).not.toMatch(/interface|: P|: string/);
  expect(code).toMatch(/require\("path"\)/);
  const module = { exports: {} as Record<string, any> };
  new Function('exports', 'require', 'module', code)(module.exports, require, module);
  const exports = module.exports;
  expect(exports.f({ a: 3 })).toBe('3/x');
  expect(Object.keys(new exports.C())).toEqual(['x']);
  expect(JSON.parse(map).sources).toEqual(['/virtual/a.ts']);
  const key = transformer.getCacheKey(source, '/virtual/a.ts');
  expect(transformer.getCacheKey(source, '/virtual/a.ts')).toBe(key);
  expect(transformer.getCacheKey(`${source} `, '/virtual/a.ts')).not.toBe(key);
});

test('a syntax error fails the file', () => {
  expect(() => transformer.process('const a = ;\n', '/virtual/b.ts')).toThrow(/Unexpected ";"/);
});

test('the config names it for TypeScript files', () => {
  expect(require('../../jest.config.js').transform).toEqual({ '^.+\\.ts$': '<rootDir>/test/transform.js' });
});
