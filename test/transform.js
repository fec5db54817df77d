// Jest's transform for the suite's TypeScript: esbuild, types stripped and nothing checked. The
// suite's type check is `tsc -p tsconfig.json --noEmit` beside jest in `npm test` (scripts/test.js),
// which fails the run on any type error in a test; tsconfig.json sets isolatedModules, so every
// file compiles on its own. ts-jest did the same (isolatedModules: transpileModule per file), at
// ~20 ms of TypeScript per module on a cold cache, which a fresh clone has: some 700 modules.
// A syntax error still fails the file that has it.
const crypto = require('crypto');
const fs = require('fs');
const esbuild = require('esbuild');

// The options of tsconfig.json that change emitted JavaScript.
const tsconfigRaw = { compilerOptions: { target: 'ES2022', useDefineForClassFields: true, esModuleInterop: true, verbatimModuleSyntax: false } };
const self = crypto.createHash('sha256').update(fs.readFileSync(__filename)).update(esbuild.version).digest('hex');

module.exports = {
  process(source, filename) {
    const { code, map } = esbuild.transformSync(source, {
      loader: 'ts',
      format: 'cjs',
      target: 'es2022',
      platform: 'node',
      sourcemap: 'external',
      sourcesContent: false,
      sourcefile: filename,
      tsconfigRaw,
    });
    return { code, map };
  },
  getCacheKey(source, filename) {
    return crypto.createHash('sha256').update(self).update('\0').update(filename).update('\0').update(source).digest('hex');
  },
};
