// The messages between the page and its compiler worker.
import type { Compiled, PlaygroundDiagnostic } from './compile';

export type Request =
  | { readonly id: number; readonly type: 'compile'; readonly code: string; readonly fn?: string }
  | { readonly id: number; readonly type: 'run'; readonly code: string; readonly fn: string; readonly args: string };

/** A scalar function of its first parameter with its tangent line, or a gradient descent's losses. */
export type Plot =
  | { readonly kind: 'tangent'; readonly xs: readonly number[]; readonly ys: readonly number[]; readonly x0: number; readonly y0: number; readonly slope: number }
  | { readonly kind: 'descent'; readonly losses: readonly number[] };

export interface Ran {
  readonly value: unknown;
  readonly gradient?: unknown;
  /** Why there is no gradient, when there is none. */
  readonly why?: string;
  readonly backend: 'CPU';
  readonly plot?: Plot;
  readonly diagnostics: readonly PlaygroundDiagnostic[];
}

export type Response =
  | { readonly id: number; readonly type: 'compiled'; readonly result: Compiled; readonly ms: number }
  | { readonly id: number; readonly type: 'ran'; readonly result: Ran; readonly ms: number }
  | { readonly id: number; readonly type: 'failed'; readonly message: string };
