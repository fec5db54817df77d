// `npm test`: the build, the type checks, Biome and jest, keeping both cores busy. Jest's tests
// load dist/, so jest starts as soon as dist/ is written, beside the checks that remain. Each
// source file is checked once: the build's emit skips the check (`--noCheck`: the same output)
// while the sources' check (tsconfig.build.json, as `npm run build` checks them) runs on the
// other core; the tests and the playground are then checked against the declarations the emit
// wrote (tsconfig.tests.json, playground/tsconfig.dist.json), where checking them with the
// sources checked the transformer's sources two more times. Each check's output is printed whole
// when it ends; jest's as it runs. Exits 1 if anything failed (jest does not start when the
// emit failed). Arguments go to jest. `npx tsc -p tsconfig.json --noEmit` stays the whole
// project's check in one program, without dist/.
// usage: node scripts/test.js [jest arguments]
const path = require('path');
const { spawn } = require('child_process');
const { lanes, tsc } = require('./lanes');

const biome = path.join(path.dirname(require.resolve('@biomejs/biome/package.json')), 'bin', 'biome');
// The package's bin (its exports leave bin/ out).
const jest = path.join(path.dirname(require.resolve('jest/package.json')), 'bin', 'jest.js');

/** Jest with this terminal, resolving to whether it passed. */
function runJest(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [jest, ...args], { stdio: 'inherit' });
    child.on('error', (e) => {
      console.error(e.message);
      resolve(false);
    });
    child.on('close', (code) => resolve(code === 0));
  });
}

async function main() {
  const sources = lanes([[tsc('-p', 'tsconfig.build.json', '--noEmit'), [process.execPath, biome, 'ci', '.']]]);
  const built = await lanes([[tsc('-p', 'tsconfig.build.json', '--noCheck')]]);
  if (!built) return (await sources, false);
  const checks = lanes([[tsc('-p', 'tsconfig.tests.json')], [tsc('-p', 'playground/tsconfig.dist.json')]]);
  const results = await Promise.all([runJest(process.argv.slice(2)), sources, checks]);
  return results.every(Boolean);
}

main().then((ok) => process.exit(ok ? 0 : 1));
