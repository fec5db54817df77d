// What tsad takes from the process it runs in, in one place. The entries (the ts-patch plugin,
// the ts-jest adapter, transform(), the command line) build a Host here and hand it down: below
// this layer nothing reads the environment, loads `typescript` itself, or asks where files are.
import * as path from 'path';
import type * as ts from 'typescript';
import type { Host } from '../host';

export type { Host } from '../host';

/** TSAD_RECHECK=1 turns `recheck` on; the test suite sets it, also for the builds it spawns. */
export function recheckRequested(): boolean {
  return process.env.TSAD_RECHECK === '1';
}

/**
 * The Host of a Node process; `tsApi` when the caller was handed one, else the installed
 * `typescript`; `config` the plugin's entry in compilerOptions.plugins, if any.
 */
export function nodeHost(tsApi?: typeof ts, config?: unknown): Host {
  const options = typeof config === 'object' && config !== null ? (config as { verbose?: unknown; taped?: unknown }) : {};
  return {
    ts: tsApi ?? (require('typescript') as typeof ts),
    recheck: recheckRequested(),
    verbose: options.verbose === true || process.env.TSAD_VERBOSE === '1',
    taped: options.taped !== false,
  };
}

/** The tsad runtime module, which the programs transform() and `tsad inspect` compile import. */
export function runtimeEntry(): string {
  // transformer/plugin -> runtime/index (.ts in the repository, .d.ts/.js in dist).
  return path.resolve(__dirname, '../../runtime/index');
}
