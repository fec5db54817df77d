// Loops: `for` loops counted up to a bound become the IR's `loop`, others `while`; `for...of`
// walks an array. The variables a loop assigns are carried through it as the construct's
// parameters and results.
import type * as ts from 'typescript';
import { REAL, arrayType, binder, construct, lambda, ret, tuple } from '../ir/syntax';
import type { Binder, Block, Lambda } from '../ir/syntax';
import { fail } from './diagnostics';
import { callbackParamSymbol } from './callbackParams';
import { Shape, NUMBER, BOOLEAN, irType, isMatrix, isRecords, recordColumns, flatShape, tensorRank } from './shapes';
import { userName } from './arraySite';
import type { Value } from './values';
import { closeLoop } from './closeLoop';
import { ExitFlags, flagSymbol } from './loweringState';
import { assignedSymbols, readSymbols } from './syntax';
import { StatementLowering } from './statements';
import { blockHasEffect } from './effects';
import type { Builder } from '../ir/build';
import type { CheckedRange } from './readChecks';

export abstract class LoopLowering extends StatementLowering {
  /**
   * Loops. A counted `for (let i = a; i < n; i++)` (also `<=`, `++i`, `i += 1`, `i = i + 1`) is
   * the IR's counted `loop`: the trip count is computed once before it (`n`, `n - a`, or
   * `floor(n - a) + 1` for `<=`) and `i` is `a + k` inside, k the loop's counter. Every other
   * `for`, `while` and `do … while` is the IR's `while`: a `for` runs its initializer before the
   * loop and its incrementor at the end of the step, a `do` loop runs its body once and then
   * loops (the body is lowered twice). The carried values are the variables declared before the
   * loop that its body (or incrementor) assigns, found syntactically, in declaration order; the
   * body is lowered once in a scope of its own where they are parameters. What the bodies read
   * from outside becomes the invariant operands (before the carried ones), as for `cond`.
   */
  protected loopStatement(s: ts.IterationStatement): void {
    const { t } = this;
    if (t.isForOfStatement(s) && (this.arrays.isArrayValued(s.expression) || this.entriesOf(s.expression))) return this.forOf(s);
    if (t.isForInStatement(s) || t.isForOfStatement(s)) {
      fail(1101, s, `for…${t.isForOfStatement(s) ? 'of' : 'in'} is not supported: tuples and objects have a fixed shape; write a counted loop for (let i = 0; i < n; i++)`);
    }
    if (t.isWhileStatement(s)) return this.whileLoop(s.expression, [s.statement], undefined, this.openLoop(s));
    if (t.isDoStatement(s)) {
      // `do B while (c)` is `B; while (c) B`.
      const flags = this.openLoop(s);
      this.iteration(flags, [s.statement]);
      return this.whileLoop(s.expression, [s.statement], undefined, flags);
    }
    const f = s as ts.ForStatement;
    if (f.initializer) {
      if (t.isVariableDeclarationList(f.initializer)) this.declarations(f.initializer);
      else this.assignment(f.initializer);
    }
    const flags = this.openLoop(s);
    const leaves = flags !== undefined && (flags.broke !== undefined || flags.returns);
    if (!f.condition && !leaves) fail(1101, f, 'a for loop without a condition, break or return never ends: write the condition between the semicolons');
    // A loop that can stop early is a while loop: a counted loop would go on to its last trip.
    if (leaves || !this.countedFor(f, flags)) this.whileLoop(f.condition, [f.statement], f.incrementor, flags);
  }

  /** `for (const x of xs) body`: a counted loop over xs's length with x = xs[k]. */
  private forOf(s: ts.ForOfStatement): void {
    const { t } = this;
    const init = s.initializer;
    const decl = t.isVariableDeclarationList(init) && init.declarations.length === 1 ? init.declarations[0] : undefined;
    const iterated = this.entriesOf(s.expression);
    const source = iterated?.array;
    // `for (const [i, x] of xs.entries())`: the index and the element; `xs.keys()` the index, `xs.values()` the element.
    const entries = iterated?.method === 'entries';
    const keys = iterated?.method === 'keys';
    const pattern = entries && decl && t.isArrayBindingPattern(decl.name) && decl.name.elements.length <= 2 ? decl.name.elements : undefined;
    const names = pattern?.map((el) =>
      t.isBindingElement(el) && t.isIdentifier(el.name) && !el.dotDotDotToken && !el.initializer
        ? el.name
        : t.isOmittedExpression(el)
          ? undefined
          : fail(1121, el, 'for…of over xs.entries() binds [index, element] as plain names'),
    );
    if (entries && !pattern) fail(1121, init, 'for…of over xs.entries() needs one new pair: for (const [i, x] of xs.entries())');
    // `for (const { x, y } of ps)`, `for (const [a, b] of ps)`: the element destructured.
    const plainOrPattern = (n: ts.BindingName) => t.isIdentifier(n) || (!keys && (t.isObjectBindingPattern(n) || t.isArrayBindingPattern(n)));
    if (!decl || (!entries && !plainOrPattern(decl.name))) fail(1121, init, 'for…of over an array needs one new variable: for (const x of xs)');
    const one = decl!.name;
    const indexName = names ? names[0] : keys ? (one as ts.Identifier) : undefined;
    const elementName: ts.BindingName | undefined = names ? names[1] : keys ? undefined : one;
    const flags = this.openLoop(s);
    const xs = this.arrays.arrayOf(source ?? s.expression, 'xs');
    const n = this.arrays.length(xs);
    const sym = elementName && t.isIdentifier(elementName) ? this.checker.getSymbolAtLocation(elementName)! : undefined;
    const indexSym = indexName ? this.checker.getSymbolAtLocation(indexName) : undefined;
    const hint = elementName && t.isIdentifier(elementName) ? elementName.text : 'x';
    const bindAt = (k: Value): void => {
      if (elementName) {
        const v = this.arrays.read(xs, k, hint, s.expression);
        if (sym) this.env.set(sym, v);
        else this.bindPattern(elementName, v);
      }
      if (indexSym) this.env.set(indexSym, k);
    };
    if (flags) return this.forOfWithExits(s, bindAt, sym, n, flags);
    const carried = this.carriedBy([s.statement], sym).filter((c) => c.sym !== indexSym);
    const counter = binder(this.supply.fresh('k'), REAL);
    this.arrays.naturals.add(counter.name);
    const body = this.loopScope(carried, () => {
      bindAt({ name: counter.name, shape: NUMBER });
      this.iteration(undefined, [s.statement]);
      return this.carriedNow(carried);
    });
    if (carried.length === 0 && !blockHasEffect(body.block)) return this.b.discard(body.block);
    this.hoistChecks(body, counter.name, n, carried);
    const { invariants, bodies } = this.closeBodies([body], counter);
    this.bindCarried(carried, 'loop', [n.name, ...invariants, ...carried.flatMap((c) => this.carriedParts(c.value))], [lambda([counter, ...bodies[0].inv, ...body.params], [], bodies[0].body)]);
  }

  /**
   * `xs.forEach((x, i) => { … })` as a statement: the loop `for (const x of xs)` with i its
   * counter, the callback's body the loop's (it may assign the function's variables, as a
   * closure does). A `return` in the callback, JavaScript's `continue`, is refused.
   */
  protected forEachCall(e: ts.CallExpression): void {
    const { t } = this;
    let fn = e.arguments[0];
    while (fn && t.isParenthesizedExpression(fn)) fn = fn.expression;
    if (e.arguments.length !== 1 || !fn || !(t.isArrowFunction(fn) || t.isFunctionExpression(fn))) {
      fail(1121, e.arguments[0] ?? e, '.forEach takes one callback written in place, (x, i) => { … } (a function passed by name has no effect here: a differentiable function has none)');
    }
    const cb = fn as ts.ArrowFunction | ts.FunctionExpression;
    if (cb.parameters.length > 2) fail(1121, cb.parameters[2], 'the callback of .forEach takes (value, index): the array argument is not supported (read the array by its own name)');
    const [x, i] = cb.parameters.map((p) => callbackParamSymbol(t, this.checker, p));
    const visit = (n: ts.Node): void => {
      if (t.isReturnStatement(n)) fail(1121, n, 'a return in the callback of .forEach (which goes on with the next element) is not supported: write for (const x of xs) and continue');
      if (!t.isFunctionLike(n)) t.forEachChild(n, visit);
    };
    t.forEachChild(cb.body, visit);
    let body: ts.Node = cb.body;
    while (t.isParenthesizedExpression(body)) body = body.expression;
    const xs = this.arrays.arrayOf((e.expression as ts.PropertyAccessExpression).expression, 'xs');
    const n = this.arrays.length(xs);
    const carried = this.carriedBy([body]);
    const counter = binder(this.supply.fresh(i?.name ?? 'k'), REAL);
    this.arrays.naturals.add(counter.name);
    const lowered = this.loopScope(carried, () => {
      const k = { name: counter.name, shape: NUMBER };
      if (x) this.env.set(x, this.arrays.read(xs, k, x.name, e.expression));
      if (i) this.env.set(i, k);
      // `({ x, y }) => …`: the names of a pattern bound to the element's parts.
      cb.parameters.forEach((p, q) => {
        if (!t.isIdentifier(p.name)) this.bindPattern(p.name, this.env.get(q === 0 ? x : i)!);
      });
      if (t.isBlock(body)) this.iteration(undefined, body.statements);
      else this.assignment(body as ts.Expression);
      return this.carriedNow(carried);
    });
    if (carried.length === 0 && !blockHasEffect(lowered.block)) return this.b.discard(lowered.block);
    this.hoistChecks(lowered, counter.name, n, carried);
    const { invariants, bodies } = this.closeBodies([lowered], counter);
    this.bindCarried(carried, 'loop', [n.name, ...invariants, ...carried.flatMap((c) => this.carriedParts(c.value))], [lambda([counter, ...bodies[0].inv, ...lowered.params], [], bodies[0].body)]);
  }

  /**
   * `for (const x of xs)` that may break, continue or return: a while loop over a hidden counter k,
   * running while no flag stops it and k < xs.length, with x = xs[k] at the start of each step.
   */
  private forOfWithExits(s: ts.ForOfStatement, bindAt: (k: Value) => void, sym: ts.Symbol | undefined, n: Value, flags: ExitFlags): void {
    const counter = flagSymbol('k');
    this.env.set(counter, this.literal(0, 'k'));
    const carried = [...this.carriedBy([s.statement], sym), { sym: counter, value: this.env.get(counter)! }, ...this.carriedFlags(flags)];
    const more = () => this.op('lt', [this.env.get(counter)!, n], 'more', BOOLEAN);
    this.whileConstruct(
      carried,
      () => this.loopCondition(more, flags),
      () => {
        const k = this.env.get(counter)!;
        bindAt(k);
        this.iteration(flags, [s.statement]);
        // After a break the condition fails whatever k is, so k steps unconditionally.
        this.env.set(counter, this.op('add', [k, this.literal(1, 'one')], 'k'));
      },
    );
  }

  /** `xs.entries()`, `xs.keys()`, `xs.values()` of an array: xs, and which. */
  private entriesOf(e: ts.Expression): { array: ts.Expression; method: string } | undefined {
    const { t } = this;
    if (!t.isCallExpression(e) || e.arguments.length > 0 || !t.isPropertyAccessExpression(e.expression)) return undefined;
    const method = e.expression.name.text;
    if (method !== 'entries' && method !== 'keys' && method !== 'values') return undefined;
    return this.arrays.isArrayValued(e.expression.expression) ? { array: e.expression.expression, method } : undefined;
  }

  /** The variables declared before a loop (in this scope) that its code assigns, in declaration order. */
  private carriedBy(nodes: readonly (ts.Node | undefined)[], exclude?: ts.Symbol): { sym: ts.Symbol; value: Value }[] {
    const assigned = new Set<ts.Symbol>();
    for (const n of nodes) if (n) assignedSymbols(this.t, this.checker, n, assigned);
    const out: { sym: ts.Symbol; value: Value }[] = [];
    for (const [sym, value] of this.env) if (assigned.has(sym) && sym !== exclude && !this.failed.has(sym)) out.push({ sym, value });
    return out;
  }

  /**
   * Lowers loop code in a scope of its own where each carried variable is a fresh parameter;
   * `result` gives the block's result (the carried values' new values, or a condition).
   */
  private loopScope(carried: readonly { sym: ts.Symbol; value: Value }[], lower: () => string[]): { block: Block; params: Binder[]; inner: Builder } {
    const perVariable = carried.map((c) => this.carriedBinders(c.sym.name, c.value.shape));
    const params = perVariable.flat();
    const { result, scope } = this.branch(() => {
      this.setCarried(carried, perVariable);
      return lower();
    });
    for (const c of carried) if (scope.failed.has(c.sym)) this.failed.add(c.sym);
    return { block: scope.b.finish(ret(result)), params, inner: scope.b };
  }

  /**
   * The element checks a counted loop's body makes at every iteration, over an index affine in
   * its counter, move before the loop (readChecks.ts); `covered` says the trip count's own check
   * (checkedTrips) does one already.
   */
  private hoistChecks(
    body: { block: Block; params: Binder[]; inner: Builder },
    counter: string,
    trips: Value,
    carried: readonly { sym: ts.Symbol; value: Value }[],
    covered?: (r: CheckedRange) => boolean,
  ): void {
    const inits = carried.flatMap((c) => this.carriedParts(c.value));
    const shapes = carried.flatMap((c) => this.carriedShapes(c.value.shape));
    const typed = (s: Shape | undefined) => s?.kind === 'array' && s.container !== 'Array';
    this.arrays.checks.hoist(
      body.inner,
      body.block,
      counter,
      trips,
      body.params.map((p, i) => ({ param: p.name, init: inits[i], typed: typed(shapes[i]) })),
      covered,
    );
  }

  /** The carried variables' values at the end of a loop body (in the body's scope). */
  private carriedNow(carried: readonly { sym: ts.Symbol; value: Value }[]): string[] {
    return carried.flatMap((c) => this.carriedParts(this.failed.has(c.sym) ? c.value : this.env.get(c.sym)!));
  }

  /**
   * The IR values a variable travels as through a loop or a branch: a matrix as its data and
   * dimensions, so that the data stays an array of its own that a write may change in place
   * (opt/inplace.ts follows arrays, not arrays inside tuples); anything else as itself.
   */
  protected carriedParts(v: Value): string[] {
    // An array of records travels as its columns' parts (each column an array of its own).
    if (isRecords(v.shape)) return this.unpack(v).flatMap((c) => this.carriedParts(c));
    if (!isMatrix(v.shape)) return [v.name];
    return this.unpack(v).map((p) => p.name);
  }

  private carriedBinders(hint: string, shape: Shape): Binder[] {
    if (isRecords(shape)) return recordColumns(shape).flatMap((c, k) => this.carriedBinders(`${hint}_${k}`, c));
    return isMatrix(shape) ? this.matrixBinders(hint, tensorRank(shape)) : [binder(this.supply.fresh(hint), irType(shape))];
  }

  /** Fresh binders for a matrix's parts: `m_data`, `m_rows`, `m_cols` (a tensor's: `t_data`, `t_d0`, `t_d1`, …). */
  protected matrixBinders(base: string, rank: number): Binder[] {
    const dims = rank === 2 ? ['rows', 'cols'] : Array.from({ length: rank }, (_, k) => `d${k}`);
    return [binder(this.supply.fresh(`${base}_data`), arrayType(REAL)), ...dims.map((d) => binder(this.supply.fresh(`${base}_${d}`), REAL))];
  }

  /** The variable's value from the parts it travelled as (in the current scope). */
  /** The shapes of the parts a value of this shape travels as (carriedParts). */
  protected carriedShapes(shape: Shape): Shape[] {
    if (isRecords(shape)) return recordColumns(shape).flatMap((c) => this.carriedShapes(c));
    return isMatrix(shape) ? [flatShape(shape), ...Array.from({ length: tensorRank(shape) }, () => NUMBER)] : [shape];
  }

  protected fromCarried(names: readonly string[], shape: Shape, hint: string): Value {
    if (isRecords(shape)) {
      let next = 0;
      const columns = recordColumns(shape).map((c, k) => {
        const width = this.carriedShapes(c).length;
        const column = this.fromCarried(names.slice(next, next + width), c, `${hint}_${k}`);
        next += width;
        return column;
      });
      const v = this.arrays.records.make(columns, shape, hint);
      this.unpacked.set(v.name, columns);
      return v;
    }
    if (!isMatrix(shape)) return { name: names[0], shape };
    const parts = names.map((n, k) => ({ name: n, shape: k === 0 ? flatShape(shape) : NUMBER }));
    const v = { name: this.b.nl(hint, tuple(false, [...names]), irType(shape)), shape };
    this.unpacked.set(v.name, parts);
    return v;
  }

  /** Closes loop bodies over what they read from outside (closeLoop.ts); their own parameters and the counter are their own. */
  private closeBodies(blocks: readonly { block: Block; params: Binder[] }[], counter?: Binder): { invariants: string[]; bodies: { inv: Binder[]; body: Block }[] } {
    const own = new Set(blocks.flatMap((b) => b.params.map((p) => p.name)));
    if (counter) own.add(counter.name);
    return closeLoop(
      blocks.map((b) => b.block),
      own,
      (n) => this.supply.fresh(n),
    );
  }

  /** Each carried variable becomes the value its binders hold (in the current scope). */
  private setCarried(carried: readonly { sym: ts.Symbol; value: Value }[], perVariable: readonly Binder[][]): void {
    carried.forEach((c, i) =>
      this.env.set(
        c.sym,
        this.fromCarried(
          perVariable[i].map((p) => p.name),
          c.value.shape,
          c.sym.name,
        ),
      ),
    );
  }

  /** Binds a loop construct's results to the carried variables. */
  private bindCarried(carried: readonly { sym: ts.Symbol; value: Value }[], op: 'loop' | 'while', nl: string[], bodies: Lambda[]): void {
    const perVariable = carried.map((c) => this.carriedBinders(c.sym.name, c.value.shape));
    this.b.bind(perVariable.flat(), [], construct(op, nl, [], bodies));
    this.setCarried(carried, perVariable);
  }

  /**
   * `while (c) body` (and the general `for`, with its incrementor at the end of the step). With
   * exits, the break and return flags are carried too, and the condition is `running && c`.
   */
  private whileLoop(condition: ts.Expression | undefined, body: readonly ts.Statement[], incrementor: ts.Expression | undefined, flags: ExitFlags | undefined): void {
    const carried = [...this.carriedBy([condition, ...body, incrementor]), ...this.carriedFlags(flags)];
    this.whileConstruct(
      carried,
      () => this.loopCondition(condition, flags),
      () => this.iteration(flags, body, incrementor),
    );
  }

  /** The IR's `while` over the carried variables: `test` lowers the condition, `advance` one step (both in the loop's scope). */
  private whileConstruct(carried: readonly { sym: ts.Symbol; value: Value }[], test: () => Value, advance: () => void): void {
    const cond = this.loopScope(carried, () => [test().name]);
    const step = this.loopScope(carried, () => {
      advance();
      return this.carriedNow(carried);
    });
    // A loop that assigns nothing declared before it has no effect, unless it may throw or log.
    if (carried.length === 0 && !blockHasEffect(step.block)) {
      this.b.discard(cond.block);
      this.b.discard(step.block);
      return;
    }
    const { invariants, bodies } = this.closeBodies([cond, step]);
    const lambdas = [cond, step].map((b, k) => lambda([...bodies[k].inv, ...b.params], [], bodies[k].body));
    this.bindCarried(carried, 'while', [...invariants, ...carried.flatMap((c) => this.carriedParts(c.value))], lambdas);
  }

  /**
   * `for (let i = a; i < n; i++) body` as a counted loop, when it is one: a fresh `let` counter
   * the body does not assign, stepped by one, and a bound that reads nothing the body assigns
   * (so evaluating it once is the same as evaluating it before each iteration). False otherwise.
   */
  private countedFor(f: ts.ForStatement, flags: ExitFlags | undefined): boolean {
    const { t, checker } = this;
    const K = t.SyntaxKind;
    const init = f.initializer;
    if (!init || !t.isVariableDeclarationList(init) || (init.flags & t.NodeFlags.Let) === 0 || init.declarations.length !== 1) return false;
    const decl = init.declarations[0];
    if (!t.isIdentifier(decl.name) || !decl.initializer) return false;
    const sym = checker.getSymbolAtLocation(decl.name);
    const cond = f.condition;
    if (!sym || !cond || !t.isBinaryExpression(cond) || (cond.operatorToken.kind !== K.LessThanToken && cond.operatorToken.kind !== K.LessThanEqualsToken)) return false;
    if (!t.isIdentifier(cond.left) || checker.getSymbolAtLocation(cond.left) !== sym) return false;
    const isI = (e: ts.Expression) => t.isIdentifier(e) && checker.getSymbolAtLocation(e) === sym;
    const isOne = (e: ts.Expression) => t.isNumericLiteral(e) && Number(e.text) === 1;
    const inc = f.incrementor;
    const stepsByOne =
      !!inc &&
      (((t.isPostfixUnaryExpression(inc) || t.isPrefixUnaryExpression(inc)) && inc.operator === K.PlusPlusToken && isI(inc.operand)) ||
        (t.isBinaryExpression(inc) && isI(inc.left) && inc.operatorToken.kind === K.PlusEqualsToken && isOne(inc.right)) ||
        (t.isBinaryExpression(inc) &&
          isI(inc.left) &&
          inc.operatorToken.kind === K.EqualsToken &&
          t.isBinaryExpression(inc.right) &&
          inc.right.operatorToken.kind === K.PlusToken &&
          ((isI(inc.right.left) && isOne(inc.right.right)) || (isOne(inc.right.left) && isI(inc.right.right)))));
    if (!stepsByOne) return false;
    const assigned = new Set<ts.Symbol>();
    assignedSymbols(t, checker, f.statement, assigned);
    if (assigned.has(sym)) return false;
    const read = new Set<ts.Symbol>();
    readSymbols(t, checker, cond.right, read);
    if (read.has(sym) || [...read].some((r) => assigned.has(r))) return false;
    const start = this.env.get(sym);
    if (start?.shape.kind !== 'number') return false;
    const bound = this.expr(cond.right, 'n');
    this.numbers(cond.right, bound);
    const fromZero = t.isNumericLiteral(decl.initializer) && Number(decl.initializer.text) === 0;
    const count = this.at(cond, () => {
      const span = fromZero ? bound : this.op('sub', [bound, start], 'span');
      if (cond.operatorToken.kind === K.LessThanToken) return span;
      // i <= n runs floor(n - a) + 1 times (none when n < a: the count is then ≤ 0).
      return this.op('add', [this.op('floor', [span], 'span'), { name: this.b.lit(1, 'one'), shape: NUMBER }], 'trips');
    });
    const carried = this.carriedBy([f.statement], sym);
    const counter = binder(this.supply.fresh(fromZero ? decl.name.text : 'k'), REAL);
    this.arrays.naturals.add(counter.name);
    const body = this.loopScope(carried, () => {
      const i = fromZero ? counter.name : this.b.prim('add', [start.name, counter.name], decl.name.getText());
      this.env.set(sym, { name: i, shape: NUMBER });
      this.iteration(flags, [f.statement]);
      return this.carriedNow(carried);
    });
    if (carried.length === 0 && !blockHasEffect(body.block)) {
      this.b.discard(body.block);
      return true;
    }
    // checkedTrips checks each read at the counter itself against its array's length (not a
    // record array's columns, nor a matrix's dimensions: their reads' own checks stay).
    const atCounter = fromZero ? this.checkedTrips(count, body.block, counter.name, cond.right, body.params) : new Set<string>();
    this.hoistChecks(body, counter.name, count, carried, fromZero ? (r) => r.direct === true && r.lo[0] === counter.name && atCounter.has(r.source) : undefined);
    const { invariants, bodies } = this.closeBodies([body], counter);
    this.bindCarried(carried, 'loop', [count.name, ...invariants, ...carried.flatMap((c) => this.carriedParts(c.value))], [lambda([counter, ...bodies[0].inv, ...body.params], [], bodies[0].body)]);
    return true;
  }

  /**
   * The arrays from outside a loop's body that the body reads at its counter itself on every
   * iteration (not under a test): checkedTrips checks the trip count against their lengths.
   */
  private readAtCounter(body: Block, counter: string, bodyNames: ReadonlySet<string>): Set<string> {
    const arrays = new Set<string>();
    for (const st of body.stmts) {
      if (st.tag === 'let' && st.rhs.tag === 'construct' && st.rhs.op === 'index' && st.rhs.nl[1] === counter && !bodyNames.has(st.rhs.nl[0]) && !st.nl.some((x) => this.arrays.checks.guarded(x.name)))
        arrays.add(st.rhs.nl[0]);
    }
    return arrays;
  }

  /**
   * The trip count of a counted loop from 0 that reads `a[i]` at its counter on every iteration
   * (a statement of the body itself, not of a branch in it): checked once against a's length, so
   * a read past the end is a RangeError, not an `undefined` that becomes NaN. The check is of the
   * count where the loop runs and 0 where it does not (`0 < d ? d : 0`, as readChecks.ts places
   * its checks): a NaN count runs no iteration in JavaScript, and `atmost` fails on NaN
   * (fuzz13-findings P4). The loop takes the count itself; the checks stand alone before it.
   * Gives back the arrays so checked.
   */
  private checkedTrips(count: Value, body: Block, counter: string, bound: ts.Expression, carried: readonly Binder[]): Set<string> {
    // An array the loop carries (one it writes into) is the body's own; it has no name outside.
    const bodyNames = new Set([...carried.map((p) => p.name), ...body.stmts.flatMap((st) => (st.tag === 'let' ? [...st.nl, ...st.lin] : st.names).map((x) => x.name))]);
    const arrays = this.readAtCounter(body, counter, bodyNames);
    // An array's length is never NaN (nor below 0): checked as it is.
    let runs: Value | undefined = this.arrays.isLength(count.name) ? count : undefined;
    const whenRuns = (): Value => {
      const zero = this.b.lit(0, 'zero');
      return (runs ??= { name: this.b.prim('select', [this.b.test('gt', [count.name, zero], 'runs'), count.name, zero], 'checked'), shape: NUMBER });
    };
    for (const a of arrays) {
      if (this.arrays.isLengthOf(count.name, a)) continue;
      const what = `the loop for (… i < ${bound.getText()} …) reads '${userName(a)}[i]' past its end`;
      this.arrays.atMost(whenRuns(), this.arrays.length({ name: a, shape: { kind: 'array', container: 'Float64Array', elem: NUMBER } }), what);
    }
    // m[i][j] of a matrix from outside the loop, at the counter: the counter stays below the
    // matrix's rows (i) or columns (j); a column past the end would read the next row.
    const checked = new Set<string>();
    for (const st of body.stmts) {
      const read = st.tag === 'let' && st.nl.length === 1 ? this.arrays.matrices.readOf(st.nl[0].name) : undefined;
      if (!read || bodyNames.has(read.matrix.name) || !read.at.includes(counter) || (st.tag === 'let' && this.arrays.checks.guarded(st.nl[0].name))) continue;
      const m = userName(read.matrix.name);
      const dims = read.at.length === 2 ? ['rows', 'columns'] : read.at.map((_, k) => `dimension ${k}`);
      for (const [at, dim, limit] of read.at.map((at, k) => [at, dims[k], () => this.arrays.matrices.dim(read.matrix, k)] as const)) {
        if (at !== counter || checked.has(`${read.matrix.name}:${dim}`)) continue;
        checked.add(`${read.matrix.name}:${dim}`);
        if (limit().name === count.name) continue;
        const what = `the loop for (… < ${bound.getText()} …) reads '${m}' past its ${dim}`;
        this.arrays.atMost(whenRuns(), limit(), what);
      }
    }
    return arrays;
  }
}
