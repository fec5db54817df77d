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
  /** The gradient on `backend` (f32 on WebGPU). */
  readonly gradient?: unknown;
  /** The gradient on the CPU (f64), whichever backend ran. */
  readonly cpuGradient?: unknown;
  /** Why there is no gradient, when there is none. */
  readonly why?: string;
  readonly backend: 'CPU' | 'WebGPU';
  /** Why the gradient ran on the CPU. */
  readonly backendWhy?: string;
  readonly plot?: Plot;
  readonly diagnostics: readonly PlaygroundDiagnostic[];
}

export type Response =
  | { readonly id: number; readonly type: 'compiled'; readonly result: Compiled; readonly ms: number }
  | { readonly id: number; readonly type: 'ran'; readonly result: Ran; readonly ms: number }
  | { readonly id: number; readonly type: 'failed'; readonly message: string };
