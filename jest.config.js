// The WebGPU tests run Dawn on the software adapter, whose EGL must not look for a display. A
// test's process.env is a copy the native addon never reads, so it is set here, for the workers.
process.env.EGL_PLATFORM ??= 'surfaceless';

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: { warnOnly: false } }] },
  setupFiles: ['<rootDir>/test/setup-env.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/fixtures/', '/dist/'],
  // The GradBench modules (bench/src/tsad) import tsad's runtime by name, as a user's code does;
  // the tests that run them as plain JavaScript get the sources (bench/ has its own link when built).
  moduleNameMapper: { '^tsad$': '<rootDir>/runtime/index.ts' },
};
