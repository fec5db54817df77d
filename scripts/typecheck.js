// Type-checks the project (tests included) and the playground at the same time: two TypeScript
// programs, one core each, where one after the other left a core idle for half a minute of
// `npm test`. Each program's output is printed whole when it ends, never interleaved.
// usage: node scripts/typecheck.js
const { lanes, tsc } = require('./lanes');

lanes([[tsc('-p', 'tsconfig.json', '--noEmit')], [tsc('-p', 'playground')]]).then((ok) => process.exit(ok ? 0 : 1));
