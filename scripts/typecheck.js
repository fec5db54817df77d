// Type-checks the project (tests included) and the playground at the same time: two TypeScript
// programs, one core each, where one after the other left a core idle for half a minute of
// `npm test`. Each program's output is printed whole when it ends, never interleaved.
// usage: node scripts/typecheck.js
const { spawn } = require('child_process');

const tsc = require.resolve('typescript/bin/tsc');
const programs = [
  ['-p', 'tsconfig.json', '--noEmit'],
  ['-p', 'playground'],
];

const runs = programs.map(
  (args) =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [tsc, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.on('close', (code) => {
        if (out) process.stdout.write(`tsc ${args.join(' ')}\n${out}`);
        resolve(code);
      });
    }),
);

Promise.all(runs).then((codes) => process.exit(codes.every((c) => c === 0) ? 0 : 1));
