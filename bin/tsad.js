#!/usr/bin/env node
'use strict';
// The tsad command line; the implementation is compiled into dist/ by `npm install` (prepare).
// `tsad inspect FILE | head` closes the pipe early; that is not an error.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});
const { main } = require('../dist/transformer/plugin/cli.js');
process.exitCode = main(process.argv.slice(2), {
  out: (s) => process.stdout.write(s + '\n'),
  err: (s) => process.stderr.write(s + '\n'),
});
