#!/usr/bin/env node
'use strict';
// The tsad command line; the implementation is compiled into dist/ by `npm install` (prepare).
// `tsad inspect FILE | head` closes the pipe early; that is not an error.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(0);
  process.stderr.write(`tsad: cannot write the output: ${e.message}\n`);
  process.exit(1);
});
let main;
try {
  ({ main } = require('../dist/transformer/plugin/cli.js'));
} catch (e) {
  // A checkout that was never built (or a half-finished build): say how to fix it, not where.
  const missing = e && e.code === 'MODULE_NOT_FOUND';
  process.stderr.write(
    missing ? 'tsad: the compiled command line is missing (dist/); run `npm run build` in the tsad package\n' : `tsad: internal: cannot load the command line: ${e?.message} (this is a bug in tsad)\n`,
  );
  process.exit(missing ? 1 : 70);
}
process.exitCode = main(process.argv.slice(2), {
  out: (s) => process.stdout.write(s + '\n'),
  err: (s) => process.stderr.write(s + '\n'),
});
