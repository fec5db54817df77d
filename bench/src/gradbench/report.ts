// Side-by-side table of run.sh outputs: one column per tool, one row per (function, size), the
// times being the medians run.sh prints, plus each column's ratio to the last column. Several
// files for one label (comma-separated: repeated runs) give the fastest of their medians, the
// sample least disturbed by other load on a shared machine.
// usage: node bench/dist/gradbench/report.js LABEL=FILE[,FILE...]... > table.md
//   e.g. report.js hand=hand-lse.txt,hand2-lse.txt manual=manual-lse.txt
import * as fs from 'fs';

const ROW = /^(\S+)\s+(.+?)\s+([\d.]+) ms\s+(valid|INVALID.*)$/;

interface Cell {
  ms: number;
  valid: boolean;
}

function parse(files: string[]): Map<string, Cell> {
  const cells = new Map<string, Cell>();
  for (const file of files) {
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      const m = ROW.exec(line.trim());
      if (!m) continue;
      const key = `${m[1]}\t${m[2]}`;
      const cell = { ms: Number(m[3]), valid: m[4] === 'valid' };
      const seen = cells.get(key);
      cells.set(key, seen ? { ms: Math.min(seen.ms, cell.ms), valid: seen.valid && cell.valid } : cell);
    }
  }
  return cells;
}

const columns = process.argv.slice(2).map((arg) => {
  const eq = arg.indexOf('=');
  if (eq < 0) throw new Error(`expected LABEL=FILE, got '${arg}'`);
  return { label: arg.slice(0, eq), cells: parse(arg.slice(eq + 1).split(',')) };
});
if (columns.length === 0) {
  console.error('usage: report.js LABEL=FILE...');
  process.exit(2);
}
const keys: string[] = [];
for (const c of columns) for (const k of c.cells.keys()) if (!keys.includes(k)) keys.push(k);
const last = columns[columns.length - 1];
const ratioCols = columns.slice(0, -1);
const header = ['function', 'size', ...columns.map((c) => `${c.label} (ms)`), ...ratioCols.map((c) => `${c.label} / ${last.label}`)];
const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
const fmt = (cell: Cell | undefined) => (cell ? `${cell.ms.toFixed(3)}${cell.valid ? '' : ' (INVALID)'}` : '–');
for (const key of keys) {
  const [fn, size] = key.split('\t');
  const base = last.cells.get(key);
  const ratios = ratioCols.map((c) => {
    const cell = c.cells.get(key);
    return cell && base && base.ms > 0 ? (cell.ms / base.ms).toFixed(2) : '–';
  });
  lines.push(`| ${[fn, size, ...columns.map((c) => fmt(c.cells.get(key))), ...ratios].join(' | ')} |`);
}
console.log(lines.join('\n'));
