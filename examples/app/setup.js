// Makes this example consume tsad like an installed package: node_modules/tsad -> the repository.
const fs = require('fs');
const path = require('path');
const link = path.join(__dirname, 'node_modules', 'tsad');
fs.mkdirSync(path.dirname(link), { recursive: true });
try {
  fs.rmSync(link, { recursive: true, force: true });
} catch {}
fs.symlinkSync(path.relative(path.dirname(link), path.join(__dirname, '..', '..')), link, 'dir');
