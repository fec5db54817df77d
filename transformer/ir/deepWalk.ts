// Walking construct bodies nested thousands deep without a JavaScript frame per level, for passes
// whose construct rules call back into them for their bodies (see DeepWalk below, and nesting.ts
// for why this and not a thread with a bigger stack).
import { Block, InternalError } from './syntax';

/**
 * The levels of bodies one stretch of a walk descends before the rest is deferred (DeepWalk);
 * with the handful of frames a level takes in the deepest pass, far below what the JavaScript
 * stack holds.
 */
export const LEVELS_PER_STRETCH = 64;
let levelsPerStretch = LEVELS_PER_STRETCH;

/** Tests set a stretch of a level or two, so that deferral and replay run on programs the interpreter can check. */
export function setLevelsPerStretch(n: number): void {
  levelsPerStretch = n;
}

/** A body request too deep for this stretch, unwound to the walk's loop (never seen outside it). */
class Deferral {
  constructor(
    readonly walk: DeepWalk,
    readonly body: Block,
    readonly run: () => unknown,
    readonly entry: Entry,
  ) {}
}

/** One body request of an attempt, in the order they started; `result` once it finished. */
interface Entry {
  readonly body: Block;
  result?: { readonly value: unknown };
  /** Past the requests it made (its subtree in the log), once it finished. */
  end: number;
}

/**
 * A pass whose construct rules call back into it for their bodies (`ops.jvpBody(body)`), walked
 * at any depth with the rules unchanged. Each body request goes through `body`; past
 * LEVELS_PER_STRETCH levels a request is not run there but unwound (an exception) to `run`'s
 * loop, which runs it at the bottom of the stack and then runs again what it interrupted. The
 * rerun replays: the requests it makes are the same as before, in the same order (a pass is
 * deterministic), and those that had finished, the deferred one included, give their logged
 * results at once instead of running again, so each level runs at most twice in all and a
 * program of normal depth never defers. A pass walked this way builds what it builds inside the
 * request (its own Builder), so a run cut short leaves nothing behind but fresh names it used.
 */
export class DeepWalk {
  /**
   * `fresh` forgets what the pass counted so far (uses of names): each attempt, the walk's and
   * each deferred request's, runs a closed body from its start and counts its own names again.
   */
  constructor(private readonly fresh?: () => void) {}

  private depth = 0;
  /** The requests of the attempt in progress. */
  private log: Entry[] = [];
  /** The log of the attempt being replayed, and the next request in it. */
  private replay: readonly Entry[] = [];
  private cursor = 0;

  /**
   * Runs the request for a construct's body: `run` builds its result. Only a closed body can be
   * deferred (a nested block reads the enclosing scope, which a deferred request no longer has).
   */
  body<T>(l: Block, run: () => T): T {
    if (this.cursor < this.replay.length) {
      const e = this.replay[this.cursor];
      // The same body, or one a rule rebuilt the same way (a pruned loop's): a cheap check of its shape.
      if (e.body !== l && (e.body.stmts.length !== l.stmts.length || e.body.result.tag !== l.result.tag))
        throw new InternalError('a deep walk replayed different requests (a pass that is not deterministic)');
      if (e.result !== undefined) {
        this.cursor = e.end;
        this.log.push({ body: l, result: e.result, end: this.log.length + 1 });
        return e.result.value as T;
      }
      // Interrupted last time: run it again, replaying the requests it made.
      this.cursor++;
    }
    const entry: Entry = { body: l, end: -1 };
    this.log.push(entry);
    if (this.depth >= levelsPerStretch) {
      entry.end = this.log.length;
      throw new Deferral(this, l, run, entry);
    }
    this.depth++;
    try {
      const value = run();
      entry.result = { value };
      entry.end = this.log.length;
      return value;
    } finally {
      this.depth--;
    }
  }

  /** Runs `top`, a walk whose body requests go through `body`. */
  run<T>(top: () => T): T {
    // What is running: the walk itself, then each deferred request, innermost last.
    const pending: { readonly run: () => unknown; readonly entry?: Entry; log: readonly Entry[] }[] = [{ run: top, log: [] }];
    for (;;) {
      const f = pending[pending.length - 1];
      const saved = { depth: this.depth, log: this.log, replay: this.replay, cursor: this.cursor };
      this.depth = 0;
      this.log = [];
      this.replay = f.log;
      this.cursor = 0;
      let value: unknown;
      try {
        this.fresh?.();
        value = f.run();
      } catch (e) {
        if (!(e instanceof Deferral) || e.walk !== this) throw e;
        f.log = this.log;
        pending.push({ run: e.run, entry: e.entry, log: [] });
        continue;
      } finally {
        Object.assign(this, saved);
      }
      pending.pop();
      if (f.entry === undefined) return value as T;
      f.entry.result = { value };
    }
  }
}
