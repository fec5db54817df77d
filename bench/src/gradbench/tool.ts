// A GradBench tool (see ../../../shared/gradbench/protocol): one JSON message per line on stdin,
// one answer per line on stdout. Inputs are parsed outside the timed region; each function runs
// until both `min_runs` and `min_seconds` are met, with one timing per run.
import * as readline from 'readline';
import { hello } from './hello';

interface Fn {
  prepare(input: any): any;
  run(prepared: any): any;
}

const MODULES: Record<string, Record<string, Fn>> = { hello };

function evaluate(fn: Fn, input: any): { output: any; timings: { name: string; nanoseconds: number }[] } {
  const prepared = fn.prepare(input);
  const minRuns = typeof input === 'object' && input !== null && 'min_runs' in input ? input.min_runs : 1;
  const minSeconds = typeof input === 'object' && input !== null && 'min_seconds' in input ? input.min_seconds : 0;
  const timings: { name: string; nanoseconds: number }[] = [];
  let output: any;
  let total = 0n;
  do {
    const start = process.hrtime.bigint();
    output = fn.run(prepared);
    const ns = process.hrtime.bigint() - start;
    total += ns;
    timings.push({ name: 'evaluate', nanoseconds: Number(ns) });
  } while (timings.length < minRuns || Number(total) / 1e9 < minSeconds);
  return { output, timings };
}

function answer(message: any): object {
  switch (message.kind) {
    case 'start':
      return { id: message.id, tool: 'tsad' };
    case 'define':
      return { id: message.id, success: message.module in MODULES };
    case 'evaluate': {
      const fn = MODULES[message.module]?.[message.function];
      if (!fn) return { id: message.id, success: false, error: `tsad has no ${message.module}.${message.function}` };
      return { id: message.id, success: true, ...evaluate(fn, message.input) };
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
