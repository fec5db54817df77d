// Runs commands in lanes: the lanes at the same time, the commands of a lane one after the other
// (a lane stops at its first failure). Each command's output is printed whole when it ends,
// never interleaved with another's. Resolves to true when every command succeeded.
const { spawn } = require('child_process');

/** One command, its output kept until it ends; resolves to its exit status. */
function run([cmd, ...args]) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', (e) => (out += `${e.message}\n`));
    child.on('close', (code) => {
      const name = [cmd === process.execPath ? 'node' : cmd, ...args].join(' ');
      if (out || code !== 0) process.stdout.write(`> ${name}${code === 0 ? '' : ` (exit status ${code})`}\n${out}`);
      resolve(code);
    });
  });
}

/** LANES: arrays of commands, each command an array [program, ...arguments]. */
async function lanes(list) {
  const results = await Promise.all(
    list.map(async (lane) => {
      for (const command of lane) if ((await run(command)) !== 0) return false;
      return true;
    }),
  );
  return results.every(Boolean);
}

const tsc = (...args) => [process.execPath, require.resolve('typescript/bin/tsc'), ...args];

module.exports = { lanes, tsc };
