// Control flow and its joins: `if`, `switch` and `?:`-like conds, in tail position (each arm
// returns) or as statements whose arms' variables join after them.
import type * as ts from 'typescript';
import { Builder } from '../ir/build';
import { binder, construct, lambda, ret } from '../ir/syntax';
import type { Block } from '../ir/syntax';
import { fail } from './diagnostics';
import { Shape, BOOLEAN, irType, describeShape, isScalarShape, isMatrix } from './shapes';
import { alwaysReturns, breakIn, containsReturn, statementsOf } from './exits';
import type { Value } from './values';
import { closeLoop } from './closeLoop';
import { AlreadyReported, ReturningArm } from './loweringState';
import { ExitLowering } from './loopExits';
import { lowerThrow } from './effects';

export abstract class ControlLowering extends ExitLowering {
  protected block(body: ts.Block): Value | undefined {
    const result = this.tail(body.statements);
    if (!result && this.errors.length === 0) fail(1107, body, 'a differentiable function must end with a return statement');
    return result;
  }

  /**
   * Statements in tail position: they end the function (or a branch of an `if` that returns) and
   * give its result, the value of the one return each path ends with.
   *
   * Early returns. An `if` with a `return` anywhere inside it ends the statement list here: the
   * statements after it (`rest`) are appended to each of its branches that can fall through, and
   * the `if` becomes a cond whose one result is the function's value. So
   * `if (c) return a; REST` is `cond(c)[a, REST]`: the rest of the function is the else part, and
   * a nested `if (d) return b;` inside a branch is the same rule one level down. This needs no
   * result flag and no placeholder values, and only the path taken runs. The price: when both
   * branches of such an `if` can fall through (`if (c) { if (d) return a; y = 1; } REST`), REST is
   * lowered into both of them, and with many such `if`s in a row the copies would multiply. So
   * such an `if` (and a switch with a case that can fall through, and a loop with a return
   * inside) is lowered with a result flag instead (`flaggedReturn`): its returns set
   * `returned` and the result value, and the rest follows once, as `returned ? value : REST`.
   * Every statement is then lowered once, and the emitted code stays linear in the source.
   */
  protected tail(statements: readonly ts.Statement[]): Value | undefined {
    const { t } = this;
    // Local function declarations are hoisted: they bind nothing where they are written.
    const stmts = statements.filter((s) => !t.isFunctionDeclaration(s));
    let result: Value | undefined;
    for (let i = 0; i < stmts.length; i++) {
      const s = stmts[i];
      if (t.isReturnStatement(s)) {
        if (i !== stmts.length - 1) {
          this.guard(s, () => fail(1107, s, 'return must be the last statement of a differentiable function'));
          continue;
        }
        if (!s.expression) {
          this.guard(s, () => fail(1107, s, 'a differentiable function must return a value'));
          continue;
        }
        result = this.guard(s, () => this.returned(s.expression!));
        continue;
      }
      // A throw ends its path: what follows never runs, and the path needs no value.
      if (t.isThrowStatement(s)) {
        this.guard(s, () => lowerThrow(t, this.checker, this.effectSite(), s));
        return this.guard(s, () => this.zero(this.resultShape(this.frame.decl)));
      }
      if (t.isIfStatement(s) && containsReturn(t, s)) {
        const rest = stmts.slice(i + 1);
        return this.guard(s, () => this.at(s, () => this.returningIf(s, rest)));
      }
      if (t.isSwitchStatement(s) && containsReturn(t, s)) {
        const rest = stmts.slice(i + 1);
        return this.guard(s, () => this.at(s, () => this.returningSwitch(s, rest)));
      }
      if ((t.isIterationStatement(s, false) || t.isBlock(s)) && containsReturn(t, s)) {
        const rest = stmts.slice(i + 1);
        return this.guard(s, () => this.at(s, () => this.flaggedReturn(s, rest)));
      }
      this.guard(s, () => this.statement(s));
    }
    return result;
  }

  /** `if (c) { …return a… } else { … }` followed by `rest`, in tail position: see `tail`. */
  private returningIf(s: ts.IfStatement, rest: readonly ts.Statement[]): Value {
    const { t } = this;
    if (this.role !== undefined) fail(1101, s, 'an if statement is not supported in a derivative rule yet: write the value with ?: (both sides are computed)');
    const returns = [s.thenStatement, s.elseStatement].map((arm) => arm !== undefined && alwaysReturns(t, statementsOf(t, arm)));
    // Both arms fall through: the rest would be lowered into each of them.
    if (rest.length > 0 && !returns[0] && !returns[1]) return this.flaggedReturn(s, rest);
    const pred = this.predicate(s.expression);
    const arms = [s.thenStatement, s.elseStatement].map((arm, k) => {
      const own = arm ? statementsOf(t, arm) : [];
      return { node: arm ?? s, returns: returns[k], lower: (after: readonly ts.Statement[]) => this.tail([...own, ...after]) };
    });
    return this.returningCond(s, pred, arms, rest);
  }

  /**
   * The cond of an `if` (or of one step of a switch's if chain) in tail position: each arm is
   * lowered in a branch scope with `rest` appended when it can fall through.
   */
  protected returningCond(_s: ts.Node, pred: Value, arms: readonly ReturningArm[], rest: readonly ts.Statement[]): Value {
    if (arms.every((arm) => arm.returns) && rest.length > 0) this.guard(rest[0], () => fail(1107, rest[0], 'this statement is never reached: every branch before it returns'));
    const errors = this.errors.length;
    const lowered = arms.map((arm) =>
      this.branch(() => {
        const value = arm.lower(arm.returns ? [] : rest);
        if (!value && this.errors.length === errors) fail(1107, arm.node, 'a differentiable function must end with a return statement: this path reaches the end of the function without one');
        return value;
      }),
    );
    const [a, b] = lowered.map((l) => l.result);
    if (!a || !b) throw new AlreadyReported();
    this.conform(arms[1].node, b, a.shape, 'the value returned on the else path');
    const blocks = lowered.map((l) => l.scope.b.finish(ret([l.result!.name])));
    return this.cond(pred, blocks, [a.shape], ['result'])[0];
  }

  /**
   * `switch (v)` is the chain `if (v === A) … else if (v === B) … else default`: `v` is computed
   * once, a case's labels (with the empty cases that fall into it) are or-ed, the default (wherever
   * it is written) is the last else, and a case's closing `break` is dropped. Fall-through from a
   * non-empty case and a `break` anywhere else are TSAD1101.
   */
  private switchCases(s: ts.SwitchStatement): { subject: Value; cases: SwitchCase[] } {
    const { t } = this;
    if (this.role !== undefined) fail(1101, s, 'a switch is not supported in a derivative rule yet: write the value with ?: (both sides are computed)');
    const subject = this.expr(s.expression, 'subject');
    if (!isScalarShape(subject.shape)) fail(1105, s.expression, `a switch needs a number, boolean or string, got ${describeShape(subject.shape)}`);
    const clauses = s.caseBlock.clauses;
    const cases: SwitchCase[] = [];
    let labels: ts.Expression[] = [];
    let isDefault = false;
    clauses.forEach((c, i) => {
      if (t.isDefaultClause(c)) isDefault = true;
      else labels.push(c.expression);
      if (c.statements.length === 0 && i < clauses.length - 1) return;
      let body: readonly ts.Statement[] = c.statements.length === 1 && t.isBlock(c.statements[0]) ? c.statements[0].statements : c.statements;
      const last = body[body.length - 1];
      if (last && t.isBreakStatement(last) && !last.label) body = body.slice(0, -1);
      // A case ending in `continue` leaves the switch too (its loop's next iteration starts).
      else if (i < clauses.length - 1 && !alwaysReturns(t, body) && !(last && t.isContinueStatement(last))) {
        fail(1101, c, 'fall-through from a non-empty case is not supported: end the case with break or return, or repeat its statements');
      }
      const early = body.map((x) => breakIn(t, x)).find((b) => b !== undefined);
      if (early) fail(1101, early, 'break is supported only as the last statement of a case: put the rest of the case under an if');
      cases.push({ node: c, labels, isDefault, body });
      labels = [];
      isDefault = false;
    });
    // The default is tested last: without fall-through, that is the same as where it is written.
    const ordered = [...cases.filter((c) => !c.isDefault), ...cases.filter((c) => c.isDefault)];
    return { subject, cases: ordered };
  }

  /** `subject === A || subject === B` for a case's labels (lowered where the test runs). */
  private caseTest(subject: Value, c: SwitchCase): Value {
    let acc: Value | undefined;
    for (const label of c.labels) {
      const v = this.expr(label);
      this.sameScalars(label, subject, v);
      const eq = this.at(label, () => this.op('eq', [subject, v], 'is', BOOLEAN));
      acc = acc ? this.op('or', [acc, eq], 'is', BOOLEAN) : eq;
    }
    return acc!;
  }

  /** A switch with no return inside: the if chain of `switchCases`, one `joinIf` per case. */
  protected switchStatement(s: ts.SwitchStatement): void {
    const { subject, cases } = this.switchCases(s);
    const run = (stmts: readonly ts.Statement[]) => this.sequence(stmts);
    const chain = (k: number): void => {
      const c = cases[k];
      if (!c) return;
      if (c.isDefault) return run(c.body);
      const pred = this.caseTest(subject, c);
      this.joinIf(s, pred, [() => run(c.body), () => chain(k + 1)]);
    };
    chain(0);
  }

  /** A switch with a return inside, followed by `rest`, in tail position: see `tail`. */
  private returningSwitch(s: ts.SwitchStatement, rest: readonly ts.Statement[]): Value {
    const { t } = this;
    // A case that can fall through would get its own copy of the rest.
    const clauses = s.caseBlock.clauses;
    const fallsThrough = clauses.some((c, i) => !(c.statements.length === 0 && i < clauses.length - 1) && !alwaysReturns(t, c.statements));
    if (rest.length > 0 && fallsThrough) return this.flaggedReturn(s, rest);
    const { subject, cases } = this.switchCases(s);
    const chain = (k: number, after: readonly ts.Statement[]): Value | undefined => {
      const c = cases[k];
      if (!c) return this.tail(after);
      if (c.isDefault) return this.tail([...c.body, ...after]);
      const pred = this.caseTest(subject, c);
      const others = cases.slice(k + 1);
      const arms: ReturningArm[] = [
        { node: c.node, returns: alwaysReturns(t, c.body), lower: (r) => this.tail([...c.body, ...r]) },
        { node: cases[k + 1]?.node ?? s, returns: others.some((o) => o.isDefault) && others.every((o) => alwaysReturns(t, o.body)), lower: (r) => chain(k + 1, r) },
      ];
      return this.returningCond(s, pred, arms, after);
    };
    const value = chain(0, rest);
    if (!value) throw new AlreadyReported();
    return value;
  }

  /** `if` with no return inside: a cond whose results are the enclosing variables a branch assigns. */
  protected ifStatement(s: ts.IfStatement): void {
    const { t } = this;
    const pred = this.predicate(s.expression);
    const arms = [s.thenStatement, s.elseStatement].map((arm) => () => {
      if (arm) this.sequence(statementsOf(t, arm));
    });
    this.joinIf(s.elseStatement ?? s, pred, arms);
  }

  /**
   * The cond of two arms lowered as statements: its results are the enclosing variables an arm
   * assigns. With `declared` (a guarded chunk of a statement list, see `sequence`) the variables
   * an arm declares are results too, since the statements after the chunk read them; an arm that
   * does not declare one gives a zero, which nothing reads: the later chunks are skipped as well.
   */
  protected joinIf(at: ts.Node, pred: Value, arms: readonly (() => void)[], declared = false): void {
    const lowered = arms.map((arm) => this.branch(arm));
    // The variables of the enclosing scope that either branch assigns, in declaration order.
    const outer = { env: this.env, unassigned: this.unassigned };
    const joined: { sym: ts.Symbol; values: Value[] }[] = [];
    if (declared) {
      const fresh = new Set<ts.Symbol>();
      for (const l of lowered) for (const sym of l.scope.env.keys()) if (!outer.env.has(sym) && !outer.unassigned.has(sym) && !l.scope.failed.has(sym)) fresh.add(sym);
      // One whose declaration failed in an arm stays failed after it: reading it is no new problem.
      for (const l of lowered) for (const sym of l.scope.failed) if (!outer.env.has(sym) && !outer.unassigned.has(sym)) this.failed.add(sym);
      for (const sym of this.failed) fresh.delete(sym);
      for (const sym of fresh) {
        const shape = lowered.map((l) => l.scope.env.get(sym)).find((v) => v !== undefined)!.shape;
        const values = lowered.map((l) => l.scope.env.get(sym) ?? this.within(l.scope.b, () => this.zero(shape)));
        joined.push({ sym, values });
      }
    }
    for (const sym of [...outer.env.keys(), ...outer.unassigned]) {
      if (lowered.some((l) => l.scope.failed.has(sym))) {
        this.failed.add(sym);
        continue;
      }
      const before = outer.env.get(sym);
      const after = lowered.map((l) => (l.scope.unassigned.has(sym) ? undefined : l.scope.env.get(sym)));
      if (after.every((v) => v?.name === before?.name)) continue;
      // `let y;` assigned on one path only stays unassigned (reading it later is TSAD1115).
      if (after.some((v) => v === undefined)) continue;
      joined.push({ sym, values: after as Value[] });
    }
    const shapes = joined.map(({ sym, values }) => {
      this.conform(at, values[1], values[0].shape, `the value of '${sym.name}' after the else branch`);
      return values[0].shape;
    });
    // Matrices leave the branches as their parts (carriedParts), unpacked in each branch.
    const blocks = lowered.map((l, k) => {
      const saved = this.unpacked;
      this.unpacked = l.scope.unpacked;
      try {
        return l.scope.b.finish(ret(this.within(l.scope.b, () => joined.flatMap((j) => this.carriedParts(j.values[k])))));
      } finally {
        this.unpacked = saved;
      }
    });
    const partShapes = shapes.flatMap((sh) => this.carriedShapes(sh));
    const partHints = joined.flatMap((j, i) =>
      isMatrix(shapes[i])
        ? this.carriedShapes(shapes[i]).map((_, k, all) => `${j.sym.name}_${k === 0 ? 'data' : all.length === 3 ? ['rows', 'cols'][k - 1] : `d${k - 1}`}`)
        : this.carriedShapes(shapes[i]).map(() => j.sym.name),
    );
    const outs = this.cond(pred, blocks, partShapes, partHints);
    let next = 0;
    joined.forEach(({ sym }, i) => {
      const width = this.carriedShapes(shapes[i]).length;
      this.env.set(
        sym,
        this.fromCarried(
          outs.slice(next, next + width).map((o) => o.name),
          shapes[i],
          sym.name,
        ),
      );
      next += width;
      this.unassigned.delete(sym);
    });
  }

  /** A condition of `if` or `?:`: a boolean (comparisons, &&, ||, !), never a number. */
  protected predicate(e: ts.Expression): Value {
    const c = this.expr(e);
    if (c.shape.kind !== 'boolean') {
      const what = c.shape.kind === 'number' ? 'a number' : describeShape(c.shape);
      fail(1116, e, `the condition is ${what}, not a boolean: a derivative cannot branch on the truthiness of a differentiable value`);
    }
    return c;
  }

  /**
   * Runs `f` in a scope of its own (a branch): its own builder, and copies of the environment and
   * of what is known about variables, so nothing it binds or assigns leaks into the enclosing scope.
   */
  protected branch<T>(f: () => T): { result: T; scope: { b: Builder; env: Map<ts.Symbol, Value>; unassigned: Set<ts.Symbol>; failed: Set<ts.Symbol>; unpacked: Map<string, Value[]> } } {
    const saved = { b: this.b, env: this.env, unassigned: this.unassigned, failed: this.failed, unpacked: this.unpacked };
    const scope = { b: this.b.inner(), env: new Map(this.env), unassigned: new Set(this.unassigned), failed: new Set(this.failed), unpacked: new Map(this.unpacked) };
    Object.assign(this, scope);
    try {
      return { result: f(), scope };
    } finally {
      Object.assign(this, saved);
    }
  }

  /**
   * `let (ȳ) = cond(p, x̄)[then, else]` from two blocks lowered in the enclosing scope's names.
   * Bodies are closed: what a block reads from outside (its free variables) becomes an operand,
   * after the predicate, and a parameter of each body, renamed inside it (names are unique in the
   * function, so renaming every occurrence is exact).
   */
  protected cond(pred: Value, blocks: Block[], shapes: readonly Shape[], hints: readonly string[]): Value[] {
    const closed = closeLoop(blocks, new Set(), (n) => this.supply.fresh(n));
    const operands = closed.invariants;
    const bodies = closed.bodies.map(({ inv, body }) => lambda(inv, [], body));
    const results = shapes.map((sh, i) => binder(this.supply.fresh(hints[i]), irType(sh)));
    this.b.bind(results, [], construct('cond', [pred.name, ...operands], [], bodies));
    return results.map((r, i) => ({ name: r.name, shape: shapes[i] }));
  }
}

/** A case of a switch: its labels (with those of the empty cases falling into it), and its body without the closing break. */
interface SwitchCase {
  node: ts.Node;
  labels: ts.Expression[];
  isDefault: boolean;
  body: readonly ts.Statement[];
}
