// `npm test`: the build, the two type checks, Biome and jest, keeping both cores busy. Jest's tests
// load dist/, so jest starts when the build is done, beside the checks that remain; the type
// checks and Biome read no dist/ (the playground's `tsad/vite` resolves to the sources), so they
// need no order. Run as two lanes and then jest (scripts/checks.js), a core idled while the longer
// lane finished. Each check's output is printed whole when it ends; jest's as it runs. Exits 1 if
// anything failed (jest does not start when the build failed). Arguments go to jest.
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
  const checks = lanes([[tsc('-p', 'tsconfig.json', '--noEmit'), [process.execPath, biome, 'ci', '.']]]);
  const built = await lanes([[tsc('-p', 'tsconfig.build.json')]]);
  if (!built) return (await checks, false);
  const playground = lanes([[tsc('-p', 'playground')]]);
  const results = await Promise.all([runJest(process.argv.slice(2)), checks, playground]);
  return results.every(Boolean);
}

main().then((ok) => process.exit(ok ? 0 : 1));
