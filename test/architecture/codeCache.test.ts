// The worker's code cache (test/codeCache.js, installed by test/runtime.js): a module compiled
// again for another test file reuses the first compile, runs afresh (no state shared), keeps its
// line numbers, and a changed source is compiled anew.
import * as vm from 'vm';

const { codeCache } = require('../codeCache.js');

function cacheFor(context: vm.Context, compiled = new Map()) {
  const fallbacks: string[] = [];
  const cache = codeCache({
    compiled,
    params: () => ['module', 'exports'],
    context: () => context,
    dynamicImport: () => Promise.reject(new Error('no dynamic import here')),
    fallback: (source: string) => {
      fallbacks.push(source);
      return null;
    },
  });
  return { cache, compiled, fallbacks };
}

const source = `"use strict";\nlet count = 0;\nexports.next = () => ++count;\nexports.fail = () => { throw new Error('here'); };\n`;

function load(fn: (...a: unknown[]) => void): { next(): number; fail(): void } {
  const module = { exports: {} as any };
  fn.call(module.exports, module, module.exports);
  return module.exports;
}

test("a second compile of the same module takes the first one's code cache and runs with fresh state", () => {
  const { cache, compiled } = cacheFor(vm.createContext({}));
  const first = load(cache.compile(source, '/virtual/counter.js'));
  expect([first.next(), first.next()]).toEqual([1, 2]);
  expect(compiled.get('/virtual/counter.js').cache).toBeUndefined();
  // Another test file's context, the same worker's map.
  const { cache: next } = cacheFor(vm.createContext({}), compiled);
  const second = load(next.compile(source, '/virtual/counter.js'));
  const entry = compiled.get('/virtual/counter.js');
  expect(entry.cache).toBeInstanceOf(Buffer);
  expect(entry.cache.length).toBeGreaterThan(0);
  expect(second.next()).toBe(1);
  // The cache was accepted: the entry was not replaced by a fresh compile.
  expect(compiled.get('/virtual/counter.js')).toBe(entry);
});

test("line numbers in stack traces are the module's own", () => {
  const { cache } = cacheFor(vm.createContext({}));
  const m = load(cache.compile(source, '/virtual/lines.js'));
  let stack = '';
  try {
    m.fail();
  } catch (e) {
    stack = String((e as Error).stack);
  }
  expect(stack).toContain('/virtual/lines.js:4:');
});

test("a changed source is compiled anew, and a syntax error goes to jest's own compile", () => {
  const { cache, compiled, fallbacks } = cacheFor(vm.createContext({}));
  load(cache.compile(source, '/virtual/edit.js'));
  load(cache.compile(source, '/virtual/edit.js'));
  const changed = source.replace('++count', 'count += 10');
  const m = load(cache.compile(changed, '/virtual/edit.js'));
  expect(m.next()).toBe(10);
  expect(compiled.get('/virtual/edit.js').cache).toBeUndefined();
  expect(cache.compile('exports.x = (;', '/virtual/broken.js')).toBeNull();
  expect(fallbacks).toEqual(['exports.x = (;']);
});

test('the suite runs on the caching runtime', () => {
  expect(require('../../jest.config.js').runtime).toBe('<rootDir>/test/runtime.js');
});
