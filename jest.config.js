// The WebGPU tests run Dawn on the software adapter, whose EGL must not look for a display. A
// test's process.env is a copy the native addon never reads, so it is set here, for the workers.
process.env.EGL_PLATFORM ??= 'surfaceless';

const os = require('os');
const cores = os.availableParallelism?.() ?? os.cpus().length;

/** @type {import('jest').Config} */
module.exports = {
  // One TypeScript per worker, shared by its test files (test/environment.js).
  testEnvironment: '<rootDir>/test/environment.js',
  // Jest's runtime with V8's code cache per worker: a module compiled for one test file is not
  // compiled again for the next (test/codeCache.js).
  runtime: '<rootDir>/test/runtime.js',
  // Jest's default leaves a core to its main process, which only collects results: on two cores
  // that is one worker, and half the machine idle.
  ...(cores <= 2 ? { maxWorkers: 2 } : {}),
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: { warnOnly: false } }] },
  setupFiles: ['<rootDir>/test/setup-env.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/fixtures/', '/dist/'],
  // The GradBench modules (bench/src/tsad) import tsad's runtime by name, as a user's code does;
  // the tests that run them as plain JavaScript get the sources (bench/ has its own link when built).
  // `typescript` is the worker's shared copy (test/typescript.js).
  moduleNameMapper: { '^tsad$': '<rootDir>/runtime/index.ts', '^typescript$': '<rootDir>/test/typescript.js' },
};
