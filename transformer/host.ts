// What the compiler core takes from the process it runs in; plugin/host.ts builds one for Node
// (the ts-patch plugin, the ts-jest adapter, transform(), the command line). It sits beside
// compile.ts so the core depends on no entry point.
import type * as ts from 'typescript';

export interface Host {
  /** The TypeScript the compiler runs with: the one ts-patch or ts-jest hands over, if any. */
  readonly ts: typeof ts;
  /** Re-check every pass's output (the drivers' `recheck`): a debugging net that costs compile time. */
  readonly recheck: boolean;
  /** An internal error's diagnostic carries its stack (TSAD9000): TSAD_VERBOSE=1 or the plugin option `verbose: true`. */
  readonly verbose: boolean;
  /**
   * Functions compiled code cannot take (recursion, function values) run taped, with a note
   * (default); the plugin option `taped: false` keeps them errors (docs/frontend.md, "Taped mode").
   */
  readonly taped?: boolean;
}
