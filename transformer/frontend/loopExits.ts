// Leaving a loop early (docs/frontend.md, "Leaving a loop early"): `break`, `continue` and a
// `return` inside a loop become flags carried like any other variable.
import type * as ts from 'typescript';
import { ret } from '../ir/syntax';
import { fail } from './diagnostics';
import { BOOLEAN } from './shapes';
import { alwaysReturns, anyExit, exitsOf, isJump, loopExits } from './exits';
import type { Value } from './values';
import { ExitFlags, ReturningArm, flagSymbol } from './loweringState';
import { containsCall } from './syntax';
import { LoopLowering } from './loops';

export abstract class ExitLowering extends LoopLowering {
  // ---- Leaving a loop early (docs/frontend.md, "Leaving a loop early") ----
  //
  // The IR has no jumps. `break` assigns true to the loop's `broke` flag, `continue` to its
  // `skip` flag, `return v` to the function's `returned` flag and `v` to its result variable;
  // the flags are variables of the environment under symbols of their own, so the joins of
  // `if`s and the carried values of loops treat them like any `let`. After a statement that may
  // have jumped, the rest of its statement list runs under `if (!(broke || skip || returned))`
  // (`sequence`); a loop that can break or return carries those flags and runs while
  // `!(broke || returned) && c`; `skip` is reset at the start of each iteration.

  /** The flags of a loop with exits, set up before it: `broke` starts false, `returned` and the result as `openReturn` says. */
  protected openLoop(s: ts.IterationStatement): ExitFlags | undefined {
    const exits = loopExits(this.t, s);
    if (!anyExit(exits)) return undefined;
    const flags: ExitFlags = { returns: exits.returns };
    if (exits.breaks) {
      flags.broke = flagSymbol('broke');
      this.env.set(flags.broke, this.literal(false, 'broke'));
    }
    if (exits.continues) flags.skip = flagSymbol('skip');
    if (exits.returns) this.openReturn();
    return flags;
  }

  /**
   * The frame's `returned` flag (false) and result variable (a zero of the result's shape, which
   * no path reads: `returned` is false until a return assigns it), unless they are set up already.
   */
  private openReturn(): void {
    const f = this.frame;
    if (f.returned && this.env.has(f.returned)) return;
    f.returned ??= flagSymbol('returned');
    f.value ??= flagSymbol('result');
    f.shape ??= this.resultShape(f.decl);
    this.env.set(f.returned, this.literal(false, 'returned'));
    this.env.set(f.value, this.zero(f.shape));
  }

  /** The flags a loop carries from one iteration to the next (`skip` is per iteration). */
  protected carriedFlags(flags: ExitFlags | undefined): { sym: ts.Symbol; value: Value }[] {
    if (!flags) return [];
    const f = this.frame;
    const syms = [flags.broke, ...(flags.returns ? [f.returned, f.value] : [])];
    return syms.filter((x): x is ts.Symbol => x !== undefined).map((sym) => ({ sym, value: this.env.get(sym)! }));
  }

  /** True when some flag says the rest of the iteration must not run (`skip` counted only within an iteration). */
  private stopping(flags: ExitFlags, withSkip: boolean): Value | undefined {
    const syms = [flags.broke, withSkip ? flags.skip : undefined, flags.returns ? this.frame.returned : undefined];
    let acc: Value | undefined;
    for (const sym of syms) {
      const v = sym && this.env.get(sym);
      if (!v) continue;
      acc = acc ? this.op('or', [acc, v], 'stop', BOOLEAN) : v;
    }
    return acc;
  }

  /**
   * Statements in order. Inside a loop with exits, the statements after one that may have jumped
   * run under `if (!stop)`, in chunks that each end with the next statement that may jump: the
   * guards follow each other instead of nesting (nested conds would forward each other's
   * residuals, and the reverse pass's code would grow with the square of their number).
   */
  protected sequence(stmts: readonly ts.Statement[]): void {
    const { t } = this;
    const flags = this.exitCtx;
    const run = (chunk: readonly ts.Statement[]) => {
      for (const s of chunk) {
        this.guard(s, () => this.statement(s));
        // What follows a throw never runs (TypeScript flags it as unreachable).
        if (t.isThrowStatement(s)) return;
      }
    };
    if (!flags) return run(stmts);
    let start = 0;
    for (let i = 0; i <= stmts.length; i++) {
      const s = stmts[i] as ts.Statement | undefined;
      if (s && !anyExit(exitsOf(t, s)) && !t.isThrowStatement(s)) continue;
      const chunk = stmts.slice(start, i + 1);
      const first = start === 0;
      start = i + 1;
      if (chunk.length === 0) continue;
      const stop = first ? undefined : this.stopping(flags, true);
      if (stop) this.guard(chunk[0], () => this.joinIf(chunk[0], stop, [() => {}, () => run(chunk)], true));
      else run(chunk);
      // What follows a jump never runs (TypeScript flags it as unreachable).
      if (s && (isJump(t, s) || t.isThrowStatement(s))) return;
    }
  }

  /** One iteration of a loop body: `skip` reset, the body, then the incrementor unless the loop has ended. */
  protected iteration(flags: ExitFlags | undefined, body: readonly ts.Statement[], incrementor?: ts.Expression): void {
    const outer = this.exitCtx;
    this.exitCtx = flags;
    try {
      // An iteration runs only while no flag is set: known false here, the tests of them fold.
      for (const sym of [flags?.skip, flags?.broke, flags?.returns ? this.frame.returned : undefined]) {
        if (sym) this.env.set(sym, this.literal(false, sym.name));
      }
      this.sequence(body);
    } finally {
      this.exitCtx = outer;
    }
    if (!incrementor) return;
    const step = () => this.guard(incrementor, () => this.at(incrementor, () => this.assignment(incrementor)));
    // After a break (or return) the incrementor does not run: the variables keep their values.
    const stop = flags && this.stopping(flags, false);
    if (stop) this.joinIf(incrementor, stop, [() => {}, step]);
    else step();
  }

  /** The condition of a loop with exits: `!(broke || returned) && c`, short-circuit when `c` calls a function. */
  protected loopCondition(condition: ts.Expression | (() => Value) | undefined, flags: ExitFlags | undefined): Value {
    const stop = flags && this.stopping(flags, false);
    if (!condition) return stop ? this.op('not', [stop], 'running', BOOLEAN) : this.literal(true, 'running');
    // A condition built by the front end (for…of's k < n) calls nothing: `and` evaluates it eagerly.
    const evaluate = typeof condition === 'function' ? condition : () => this.predicate(condition);
    if (!stop) return evaluate();
    if (typeof condition === 'function' || !containsCall(this.t, condition)) return this.op('and', [this.op('not', [stop], 'running', BOOLEAN), evaluate()], 'running', BOOLEAN);
    const test = this.branch(() => this.predicate(condition));
    const stopped = this.branch(() => this.b.lit(false, 'running'));
    const blocks = [stopped.scope.b.finish(ret([stopped.result])), test.scope.b.finish(ret([test.result.name]))];
    return this.cond(stop, blocks, [BOOLEAN], ['running'])[0];
  }

  /** `break` / `continue`: the innermost loop's flag becomes true. */
  protected jump(s: ts.BreakStatement | ts.ContinueStatement): void {
    const word = this.t.isBreakStatement(s) ? 'break' : 'continue';
    if (s.label) fail(1101, s, `${word} with a label is not supported: ${word} the innermost loop, and leave an outer loop with a flag that its condition tests`);
    const flag = word === 'break' ? this.exitCtx?.broke : this.exitCtx?.skip;
    if (!flag) fail(1101, s, `${word} is supported inside a for, while or do loop (and as the last statement of a switch case)`);
    this.env.set(flag, this.literal(true, word === 'break' ? 'broke' : 'skip'));
  }

  /** `return v` inside a loop (or a flagged statement): the frame's flag and result. */
  protected flagReturn(s: ts.ReturnStatement): void {
    const f = this.frame;
    if (!this.exitCtx?.returns || !f.returned || !f.value || !f.shape) return fail(1107, s, 'return must be the last statement of a differentiable function, of a branch, or inside a loop');
    if (!s.expression) fail(1107, s, 'a differentiable function must return a value');
    const v = this.expr(s.expression, 'result');
    this.conform(s.expression, v, f.shape, 'the returned value');
    this.env.set(f.returned, this.literal(true, 'returned'));
    this.env.set(f.value, v);
  }

  /**
   * A statement with returns inside (a loop, or an `if`/switch whose rest would be copied) in
   * tail position: lowered once with the result flag, then `returned ? result : REST`.
   */
  protected flaggedReturn(s: ts.Statement, rest: readonly ts.Statement[]): Value {
    this.openReturn();
    // When the rest ends in returns, it is lowered with the flag too: one guard after another,
    // never nested (see `sequence`), and the function's value is the result variable.
    const flat = alwaysReturns(this.t, rest);
    const outer = this.exitCtx;
    this.exitCtx = { returns: true };
    try {
      if (flat) this.sequence([s, ...rest]);
      else this.statement(s);
    } finally {
      this.exitCtx = outer;
    }
    const f = this.frame;
    if (flat) return this.env.get(f.value!)!;
    const returned = this.env.get(f.returned!)!;
    const arms: ReturningArm[] = [
      { node: s, returns: true, lower: () => this.env.get(f.value!) },
      {
        node: rest[0] ?? s,
        returns: false,
        lower: (after) => {
          // Known false here: later tests of the flag fold away.
          this.env.set(f.returned!, this.literal(false, 'returned'));
          return this.tail(after);
        },
      },
    ];
    return this.returningCond(s, returned, arms, rest);
  }
}
