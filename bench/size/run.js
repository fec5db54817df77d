// Emitted-size benchmark (issue 22, item 6): how many bytes of JavaScript tsad adds per byte and
// per line of the marked source it differentiates. Each project is built twice with tspc, with
// the plugin and without it (then the transform calls stay calls); the difference is what tsad
// emitted. Marked source: the text of every marked function (JSDoc, decorator or wrapper), found
// with the same marker rules as the plugin. Run after `npm run build`: node bench/size/run.js
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { generate } = require('../build/generate');

const root = path.resolve(__dirname, '../..');
const tspc = path.join(root, 'node_modules', 'ts-patch', 'bin', 'tspc.js');
const ts = require('typescript');
const { markedFunctions } = require(path.join(root, 'dist', 'transformer', 'stages.js'));
const { useTypeScript } = require(path.join(root, 'dist', 'transformer', 'frontend', 'markers.js'));

function link(dir) {
  const nm = path.join(dir, 'node_modules');
  fs.mkdirSync(nm, { recursive: true });
  fs.rmSync(path.join(nm, 'tsad'), { recursive: true, force: true });
  fs.symlinkSync(root, path.join(nm, 'tsad'), 'dir');
}

/** Builds PROJECT's tsconfig into OUT, with or without the plugin; returns the emitted .js bytes. */
function build(project, out, withPlugin) {
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  // Beside the project's own, so that type libraries and the plugin resolve from the project.
  const config = path.join(project, `tsconfig.size-${withPlugin ? 'with' : 'without'}.json`);
  fs.writeFileSync(
    config,
    JSON.stringify({ extends: './tsconfig.json', compilerOptions: { outDir: path.join(out, 'dist'), sourceMap: false, declaration: false, ...(withPlugin ? {} : { plugins: [] }) } }),
  );
  const r = spawnSync(process.execPath, [tspc, '-p', config], { cwd: project, encoding: 'utf8' });
  fs.rmSync(config);
  if (r.status !== 0) throw new Error(`build of ${project} failed:\n${`${r.stdout}${r.stderr}`.slice(0, 2000)}`);
  let bytes = 0;
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.js')) bytes += fs.statSync(p).size;
    }
  };
  walk(path.join(out, 'dist'));
  return bytes;
}

/** The bytes and lines of the marked functions in PROJECT's program. */
function markedSource(project) {
  const parsed = ts.getParsedCommandLineOfConfigFile(path.join(project, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  const program = ts.createProgram(parsed.fileNames, { ...parsed.options, noEmit: true });
  const checker = program.getTypeChecker();
  useTypeScript(ts);
  let bytes = 0;
  let lines = 0;
  for (const sf of program.getSourceFiles()) {
    if (sf.isDeclarationFile || sf.fileName.includes('node_modules')) continue;
    for (const decl of markedFunctions(ts, sf, checker)) {
      const text = decl.getText(sf);
      bytes += text.length;
      lines += text.split('\n').length;
    }
  }
  return { bytes, lines };
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tsad-size-'));
const generated = path.join(scratch, 'generated');
fs.mkdirSync(generated);
generate(generated, true);
const projects = [
  ['demo (examples/app)', path.join(root, 'examples', 'app')],
  ['GradBench tool (bench/)', path.join(root, 'bench')],
  ['generated project (bench/build)', generated],
];

const rows = [];
for (const [label, dir] of projects) {
  link(dir);
  const withTsad = build(dir, path.join(scratch, `${rows.length}-with`), true);
  const without = build(dir, path.join(scratch, `${rows.length}-without`), false);
  const marked = markedSource(dir);
  const added = withTsad - without;
  rows.push({ label, marked, added, ratio: added / marked.bytes });
}
fs.rmSync(scratch, { recursive: true, force: true });

console.log('| project | marked source | JavaScript tsad adds | bytes added per marked byte | per marked line |');
console.log('|---|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(
    `| ${r.label} | ${r.marked.bytes.toLocaleString('en')} B, ${r.marked.lines} lines | ${r.added.toLocaleString('en')} B | ${r.ratio.toFixed(1)} | ${Math.round(r.added / r.marked.lines)} B |`,
  );
}
const demoAndTool = rows.slice(0, 2);
console.log(`\naverage over the demo and the GradBench tool: ${(demoAndTool.reduce((a, r) => a + r.ratio, 0) / demoAndTool.length).toFixed(1)} bytes per marked byte (goal: <= 10)`);
