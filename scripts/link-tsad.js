// Makes a project folder consume tsad like an installed package: DIR/node_modules/tsad -> this
// repository. Used by the example app and the GradBench tool, which build with tspc.
// usage: node scripts/link-tsad.js DIR...
const fs = require('fs');
const path = require('path');
const root = path.join(__dirname, '..');
for (const dir of process.argv.slice(2)) {
  const link = path.join(path.resolve(dir), 'node_modules', 'tsad');
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.rmSync(link, { recursive: true, force: true });
  fs.symlinkSync(path.relative(path.dirname(link), root), link, 'dir');
}
