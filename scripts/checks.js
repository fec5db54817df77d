// What `npm test` runs before jest: the build, the two type checks and Biome, on two cores. None
// reads dist/ (the playground's `tsad/vite` resolves to the sources), so they need no order: the
// project's type check (tests included), the longest, has a core; the build, the playground's
// check and Biome take turns on the other. One after the other, a core idled for the build and
// for half the checks.
// usage: node scripts/checks.js
const path = require('path');
const { lanes, tsc } = require('./lanes');

const biome = path.join(path.dirname(require.resolve('@biomejs/biome/package.json')), 'bin', 'biome');

lanes([[tsc('-p', 'tsconfig.json', '--noEmit')], [tsc('-p', 'tsconfig.build.json'), tsc('-p', 'playground'), [process.execPath, biome, 'ci', '.']]]).then((ok) => process.exit(ok ? 0 : 1));
