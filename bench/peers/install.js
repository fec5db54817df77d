// Installs bench's devDependencies (jax-js and TensorFlow.js, the peers) from bench/package-lock.json
// when they are missing. Never fails the benchmark: without the registry the peers stay missing
// and compare.js says so. `npm ci` empties bench/node_modules, so the tsad link that
// scripts/link-tsad.js makes there must be made again afterwards (bench:gradbench does).
'use strict';
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

const bench = path.join(__dirname, '..');
const packages = Object.keys(require(path.join(bench, 'package.json')).devDependencies);
const absent = packages.filter((p) => !fs.existsSync(path.join(bench, 'node_modules', p, 'package.json')));
if (absent.length > 0) {
  console.log(`bench: installing ${absent.join(', ')} into bench/node_modules (npm ci --prefix bench)`);
  const r = spawnSync('npm', ['ci', '--prefix', bench, '--no-audit', '--no-fund'], {
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  if (r.status !== 0) console.log('bench: the install failed; the peers will be reported missing.');
}
