// A GradBench tool (see ../../../shared/gradbench/protocol): one JSON message per line on stdin,
// one answer per line on stdout. Inputs are parsed outside the timed region; each function runs
// until both `min_runs` and `min_seconds` are met, with one timing per run.
// usage: node bench/dist/gradbench/tool.js [tsad|hand]   (tsad: derivatives by tsad, the default;
//        hand: the hand-written derivatives of bench/src/hand, the reference column)
import * as readline from 'readline';
import type { Fn, Table } from './evals';

// Loaded lazily so that the hand mode runs from a plain transpile of its own files (the jest test
// does that), without the tsad plugin the tsad mode's modules need.
const MODES: Record<string, { name: string; load: () => Table }> = {
  tsad: { name: 'tsad', load: () => require('./tsad').tsad },
  hand: { name: 'hand-written-js', load: () => require('./hand').hand },
};
const modeArg = process.argv[2] ?? 'tsad';
if (!(modeArg in MODES)) {
  console.error(`usage: tool.js [${Object.keys(MODES).join('|')}] (got '${modeArg}')`);
  process.exit(2);
}
const mode = { name: MODES[modeArg].name, table: MODES[modeArg].load() };

function evaluate(fn: Fn, input: any): { output: unknown; timings: { name: string; nanoseconds: number }[] } {
  const prepared = fn.prepare(input);
  const minRuns = typeof input === 'object' && input !== null && 'min_runs' in input ? input.min_runs : 1;
  const minSeconds = typeof input === 'object' && input !== null && 'min_seconds' in input ? input.min_seconds : 0;
  const timings: { name: string; nanoseconds: number }[] = [];
  let result: unknown;
  let total = 0n;
  do {
    const start = process.hrtime.bigint();
    result = fn.run(prepared);
    const ns = process.hrtime.bigint() - start;
    total += ns;
    timings.push({ name: 'evaluate', nanoseconds: Number(ns) });
  } while (timings.length < minRuns || Number(total) / 1e9 < minSeconds);
  return { output: fn.output ? fn.output(result) : result, timings };
}

function answer(message: any): object {
  switch (message.kind) {
    case 'start':
      return { id: message.id, tool: mode.name };
    case 'define':
      return { id: message.id, success: message.module in mode.table };
    case 'evaluate': {
      const fn = mode.table[message.module]?.[message.function];
      if (!fn) return { id: message.id, success: false, error: `${mode.name} has no ${message.module}.${message.function}` };
      try {
        return { id: message.id, success: true, ...evaluate(fn, message.input) };
      } catch (e) {
        return { id: message.id, success: false, error: e instanceof Error ? (e.stack ?? e.message) : String(e) };
      }
    }
    default:
      return { id: message.id };
  }
}

const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line.trim() === '') return;
  process.stdout.write(JSON.stringify(answer(JSON.parse(line))) + '\n');
});
