// Statements that bind or change variables: declarations, destructuring, assignments (of names,
// elements and matrix entries), `push`, and the returned value. A reassigned variable gets a
// new SSA version (`a`, `a_1`, ...).
import type * as ts from 'typescript';
import { tuple } from '../ir/syntax';
import { fail, reportedByTypeScript } from './diagnostics';
import { Shape, NUMBER, shapeOfType, describeShape, isMatrix, isRecords, tensorRank } from './shapes';
import { changedInPlace, pushedArray, writtenArray } from './writes';
import { ARRAY_METHODS, WRITES } from './arrayMethods';
import { concat } from './arrayOrder';
import { writtenRecord } from './recordWrites';
import { recordAccess, resolveAccess } from './recordAccess';
import { declaresLocalFunction, localFunctionOf } from './exits';
import type { Value } from './values';
import type { ViewInfo } from './views';
import type { OpenView } from './viewLowering';
import { AlreadyReported } from './loweringState';
import { storedValue } from './arraySite';
import { operatorTables } from './operators';
import { assignedValues } from './aliasing';
import { CallLowering } from './calls';
import { EffectSite, consoleMethod, lowerLog, lowerThrow, statementWord } from './effects';
import { assignedSymbols, calledLocalFunction } from './syntax';

const skipParentheses = (t: typeof ts, e: ts.Expression): ts.Expression => {
  while (t.isParenthesizedExpression(e)) e = e.expression;
  return e;
};

export abstract class StatementLowering extends CallLowering {
  /** The returned expression; for a VJP rule, `[value, (ct) => [...cotangents]]`. */
  protected returned(e: ts.Expression): Value {
    const { t } = this;
    const primal = this.vjpOf;
    if (!primal || this.inPullback) return this.expr(e);
    const pair = t.isParenthesizedExpression(e) ? e.expression : e;
    const pullback = t.isArrayLiteralExpression(pair) && pair.elements.length === 2 ? pair.elements[1] : undefined;
    if (!pullback || !(t.isArrowFunction(pullback) || t.isFunctionExpression(pullback)) || pullback.parameters.length !== 1 || !t.isIdentifier(pullback.parameters[0].name)) {
      return fail(1111, e, 'a VJP rule returns [value, (cotangent) => [one cotangent per parameter]]');
    }
    const value = this.expr((pair as ts.ArrayLiteralExpression).elements[0], 'value');
    const ctName = this.supply.fresh(pullback.parameters[0].name.text);
    this.pullbackParam = { name: ctName, shape: primal.result };
    this.env.set(this.checker.getSymbolAtLocation(pullback.parameters[0].name)!, { name: ctName, shape: primal.result });
    // The pullback's body reads the rule's locals directly: they become residuals.
    this.inPullback = true;
    let cotangents: Value | undefined;
    try {
      cotangents = t.isBlock(pullback.body) ? this.block(pullback.body) : this.expr(pullback.body);
    } finally {
      this.inPullback = false;
    }
    if (!cotangents) return fail(1111, pullback, 'the pullback must return its cotangents');
    const expected: Shape = { kind: 'tuple', elems: primal.params.map((p) => p.shape) };
    this.conform(pullback.body, cotangents, expected, 'the cotangents returned by the pullback');
    const shape: Shape = { kind: 'tuple', elems: [value.shape, expected] };
    return { name: this.b.nl('rule', tuple(false, [value.name, cotangents.name])), shape };
  }

  /** What a throw or a console call needs from here (frontend/effects.ts): the builder read when used, `within` may swap it. */
  protected effectSite(): EffectSite {
    return { value: (e, hint) => this.expr(e, hint), lit: (v, hint) => this.b.lit(v, hint), emit: (x) => this.b.bind([], [], x) };
  }

  protected statement(s: ts.Statement): void {
    this.at(s, () => this.statementAt(s));
  }

  private statementAt(s: ts.Statement): void {
    const { t } = this;
    if (t.isVariableStatement(s)) return this.declarations(s.declarationList);
    if (t.isExpressionStatement(s)) return this.assignment(s.expression);
    if (t.isEmptyStatement(s)) return;
    if (t.isIfStatement(s)) {
      if (this.role !== undefined) fail(1101, s, 'an if statement is not supported in a derivative rule yet: write the value with ?: (both sides are computed)');
      return this.ifStatement(s);
    }
    if (t.isIterationStatement(s, false)) {
      if (this.role !== undefined) fail(1101, s, 'a loop is not supported in a derivative rule yet: write the rule without one, or differentiate the function itself');
      return this.loopStatement(s);
    }
    if (t.isBlock(s)) return this.sequence(s.statements);
    if (t.isBreakStatement(s) || t.isContinueStatement(s)) return this.jump(s);
    if (t.isReturnStatement(s)) return this.flagReturn(s);
    if (t.isThrowStatement(s)) return lowerThrow(t, this.checker, this.effectSite(), s);
    if (t.isSwitchStatement(s)) return this.switchStatement(s);
    // Hoisted: its calls are inlined where they are made.
    if (t.isFunctionDeclaration(s) && localFunctionOf(t, s.name && this.checker.getSymbolAtLocation(s.name), this.decl)) return;
    if (t.isLabeledStatement(s)) {
      fail(1101, s, 'labeled statements (break label, continue label) are not supported: break or continue the innermost loop, and leave an outer loop with a flag that its condition tests');
    }
    fail(1101, s, `this statement is not supported in differentiable functions: ${statementWord(t, s)}`);
  }

  /** `const`/`let` declarations (a statement's, or a `for` loop's initializer). */
  protected declarations(list: ts.VariableDeclarationList): void {
    const { t } = this;
    for (const d of list.declarations) {
      // `const h = (t: number) => …`: its calls are inlined where they are made.
      if (declaresLocalFunction(t, d, this.decl, this.checker)) continue;
      const view = t.isIdentifier(d.name) ? this.viewInfos.get(this.owner.checker.getSymbolAtLocation(d.name)!) : undefined;
      if (view?.decl === d) {
        this.declareView(view);
        continue;
      }
      if (!d.initializer) {
        // `let y;` then `y = ...`: the first assignment gives y its value and shape.
        if (!t.isIdentifier(d.name)) fail(1101, d, 'a destructuring declaration needs an initializer');
        this.unassigned.add(this.checker.getSymbolAtLocation(d.name)!);
        continue;
      }
      const hint = t.isIdentifier(d.name) ? d.name.text : undefined;
      try {
        let v = this.expr(d.initializer, hint);
        // `const c = [x, y, 1]` is a tuple in the IR, but TypeScript says number[]: one that is
        // written into is an array from the start (also as a carried or joined value).
        if (t.isIdentifier(d.name) && v.shape.kind === 'tuple' && this.writtenArrays.has(this.checker.getSymbolAtLocation(d.name)!)) {
          const declared = shapeOfType(t, this.checker, this.checker.getTypeAtLocation(d.name), d.name);
          if (declared.kind === 'array' && !isMatrix(declared)) v = this.coerce(d.initializer, v, declared);
        }
        this.bindPattern(d.name, v);
      } catch (e) {
        // The initializer or the pattern is the problem: the names it binds are not a second one.
        this.markFailed(d.name);
        throw e;
      }
    }
  }

  /** `const c = m[j].subarray(k)` whose base is written: a view (views.ts, viewLowering.ts), no array of its own. */
  private declareView(v: ViewInfo): void {
    const sym = this.owner.checker.getSymbolAtLocation(v.decl.name)!;
    try {
      const base = this.env.get(v.baseSym);
      if (this.failed.has(v.baseSym)) throw new AlreadyReported();
      if (!base) fail(1123, v.decl, `'${v.decl.name.text}' is a view of '${v.base.text}', which is not a local array of this function: copy its elements instead, ${v.base.text}.slice(…)`);
      const rows = v.rows.map((r) => this.expr(r, 'j'));
      const positions = v.call.arguments.map((a) => this.expr(a, 'position'));
      this.numbers(v.call, ...rows, ...positions);
      const what = `'${v.decl.name.text}' (${v.call.getText().replace(/\s+/g, ' ')})`;
      this.openViews.set(sym, this.views.open(v.baseSym, base, rows, positions[0], positions[1], what, v.decl));
    } catch (e) {
      this.failed.add(sym);
      throw e;
    }
  }

  /** Every name a failed declaration binds: later reads of them are not new problems. */
  private markFailed(name: ts.BindingName): void {
    const { t } = this;
    if (t.isIdentifier(name)) {
      const sym = this.checker.getSymbolAtLocation(name);
      if (sym) this.failed.add(sym);
      return;
    }
    for (const el of name.elements) if (!t.isOmittedExpression(el)) this.markFailed(el.name);
  }

  protected bindPattern(name: ts.BindingName, v: Value): void {
    const { t } = this;
    if (t.isIdentifier(name)) {
      this.env.set(this.checker.getSymbolAtLocation(name)!, v);
      return;
    }
    if (t.isArrayBindingPattern(name)) {
      if (v.shape.kind === 'array') {
        // `const [update, reset] = gates`: each name the element at its position, read as xs[k] reads it.
        if (name.elements.some((el) => !t.isOmittedExpression(el) && (el.dotDotDotToken || el.initializer))) {
          fail(
            1121,
            name,
            `destructuring ${describeShape(v.shape)} is not supported with a rest element or a default: its length is known only at run time; read the elements by index (const a = xs[0])`,
          );
        }
        name.elements.forEach((el, k) => {
          if (t.isOmittedExpression(el)) return;
          this.bindPattern(el.name, this.arrays.read(v, this.literal(k, 'k'), t.isIdentifier(el.name) ? el.name.text : undefined, el));
        });
        return;
      }
      if (v.shape.kind !== 'tuple') fail(1102, name, 'array destructuring needs a tuple');
      const parts = this.unpack(v);
      name.elements.forEach((el, i) => {
        if (t.isOmittedExpression(el)) return;
        if (el.dotDotDotToken || el.initializer) fail(1102, el, 'rest elements and defaults are not supported in destructuring');
        this.bindPattern(el.name, parts[i]);
      });
      return;
    }
    if (v.shape.kind !== 'object') fail(1102, name, 'object destructuring needs an object');
    const parts = this.unpack(v);
    const fields = v.shape.fields;
    for (const el of name.elements) {
      if (el.dotDotDotToken || el.initializer) fail(1102, el, 'rest elements and defaults are not supported in destructuring');
      const key = el.propertyName ? el.propertyName.getText() : (el.name as ts.Identifier).text;
      const i = fields.findIndex(([f]) => f === key);
      this.bindPattern(el.name, parts[i]);
    }
  }

  protected assignment(e: ts.Expression): void {
    const { t } = this;
    const K = t.SyntaxKind;
    if (pushedArray(t, e)) return this.push(e as ts.CallExpression);
    if (changedInPlace(t, e)) return this.changeInPlace(e as ts.CallExpression);
    const record = writtenRecord(t, this.checker, e);
    if (record) return this.recordAssignment(e, record);
    if (writtenArray(t, e)) return this.elementAssignment(e);
    const target = (node: ts.Expression): ts.Symbol => {
      if (t.isElementAccessExpression(node)) this.arrays.write(node);
      if (!t.isIdentifier(node)) fail(1108, node, 'only local variables can be assigned in a differentiable function');
      const sym = this.checker.getSymbolAtLocation(node);
      if (!sym) reportedByTypeScript(node, 1108, `cannot assign to '${node.text}': it is not declared`);
      const decl = sym.valueDeclaration;
      // A name bound by destructuring (`let [a, b] = …`) is a binding element: its let is the declaration list's.
      const isLet = decl && (t.isVariableDeclaration(decl) || t.isBindingElement(decl)) && (t.getCombinedNodeFlags(decl) & t.NodeFlags.Let) !== 0;
      const local = this.env.has(sym) || this.unassigned.has(sym) || this.failed.has(sym);
      if (!local || !isLet) fail(1108, node, `cannot assign to '${node.text}': only local let variables can be reassigned`);
      const callback = callbackAround(t, node);
      if (callback && decl && !isInsideNode(decl, callback))
        fail(
          1108,
          node,
          `the callback assigns '${node.text}', a variable of the function around it: a callback of .map, .reduce, .filter, Array.from … is lowered as one function of its element, so the assignment would not carry to the next element; write a for loop (or .forEach)`,
        );
      return sym;
    };
    if (t.isBinaryExpression(e) && e.operatorToken.kind === K.EqualsToken && t.isArrayLiteralExpression(skipParentheses(t, e.left))) {
      return this.literalAssignment(skipParentheses(t, e.left) as ts.ArrayLiteralExpression, e.right, target);
    }
    if ((t.isPrefixUnaryExpression(e) || t.isPostfixUnaryExpression(e)) && (e.operator === K.PlusPlusToken || e.operator === K.MinusMinusToken)) {
      const sym = target(e.operand);
      const cur = this.current$(sym, e.operand as ts.Identifier);
      const one = this.b.lit(1, 'one');
      const op = e.operator === K.PlusPlusToken ? 'add' : 'sub';
      this.env.set(sym, { name: this.b.prim(op, [cur.name, one], cur.name), shape: NUMBER });
      return;
    }
    if (t.isBinaryExpression(e)) {
      const compound = operatorTables(t).compound;
      if (e.operatorToken.kind === K.EqualsToken) {
        const sym = target(e.left);
        const name = (e.left as ts.Identifier).text;
        let value: Value;
        try {
          value = this.expr(e.right, name);
        } catch (err) {
          // Whatever y was before, its value from here on is unknown: no follow-up diagnostics.
          this.failed.add(sym);
          throw err;
        }
        this.assignName(sym, name, value, e.right);
        return;
      }
      const op = compound[e.operatorToken.kind];
      if (op) {
        const sym = target(e.left);
        const cur = this.current$(sym, e.left as ts.Identifier);
        const rhs = this.expr(e.right);
        this.numbers(e, cur, rhs);
        this.env.set(sym, { name: this.b.prim(op, [cur.name, rhs.name], cur.name), shape: NUMBER });
        return;
      }
    }
    if (t.isBinaryExpression(e) && (e.operatorToken.kind === K.AmpersandAmpersandToken || e.operatorToken.kind === K.BarBarToken)) {
      fail(
        1101,
        e,
        `'${e.operatorToken.getText()}' as a statement has no effect: a differentiable function has no side effects, so its value would be discarded; write if (…) { … } to assign conditionally`,
      );
    }
    if (t.isCallExpression(e) && t.isPropertyAccessExpression(e.expression) && this.arrays.isArrayValued(e.expression.expression)) {
      if (e.expression.name.text === 'forEach') {
        if (this.role !== undefined) fail(1101, e, 'a loop (.forEach) is not supported in a derivative rule yet: write the rule without one, or differentiate the function itself');
        return this.forEachCall(e);
      }
      // pop, shift, splice, …: a method that changes the array (a pure one falls through: "does nothing").
      if (ARRAY_METHODS.get(e.expression.name.text) === WRITES) this.arrays.write(e);
    }
    if (t.isCallExpression(e) && consoleMethod(t, this.checker, e)) return lowerLog(t, this.checker, this.effectSite(), e);
    // `step(h);` of a local function that assigns the caller's variables (calls.ts): run for them.
    if (t.isCallExpression(e) && calledLocalFunction(t, this.checker, e) && assigns(t, this.checker, e)) {
      this.expr(e);
      return;
    }
    if (t.isCallExpression(e))
      fail(
        1101,
        e,
        "a call as a statement does nothing here: a differentiable function's calls have no side effects, so the value would be discarded; assign it to a variable (console.log and throw are the statements run for their effect)",
      );
    fail(1101, e, 'an expression statement in a differentiable function must be an assignment, ++ or --');
  }

  /** `name = value`: the variable's new version, in the shape it was declared with. */
  private assignName(sym: ts.Symbol, name: string, value: Value, right: ts.Expression): void {
    const { t } = this;
    const previous = this.env.get(sym);
    if (previous && !this.failed.has(sym)) value = this.coerce(right, value, previous.shape);
    if (previous && !this.failed.has(sym)) this.conform(right, value, previous.shape, `the value assigned to '${name}'`);
    else {
      // The first value of `let y: T;` (or a new value after a failed one): T gives the shape.
      const declared = sym.valueDeclaration && t.isVariableDeclaration(sym.valueDeclaration) ? sym.valueDeclaration.type : undefined;
      if (declared) this.conform(right, value, shapeOfType(t, this.checker, this.checker.getTypeAtLocation(declared), declared), `the value assigned to '${name}'`);
    }
    this.unassigned.delete(sym);
    this.failed.delete(sym);
    this.env.set(sym, value);
  }

  /**
   * `[a, b] = [b, a]`, `[m[p], m[c]] = [m[c], m[p]]`: every value on the right first, then each
   * target in order, as JavaScript does (frontend/aliasing.ts says when the arrays may trade names).
   */
  private literalAssignment(left: ts.ArrayLiteralExpression, rightSide: ts.Expression, target: (node: ts.Expression) => ts.Symbol): void {
    const { t } = this;
    const right = skipParentheses(t, rightSide);
    const plain = (l: ts.ArrayLiteralExpression): boolean => l.elements.every((x) => !t.isSpreadElement(x) && !t.isOmittedExpression(x));
    if (!t.isArrayLiteralExpression(right) || right.elements.length !== left.elements.length || !plain(left) || !plain(right)) {
      fail(1108, left, 'a destructuring assignment needs an array literal of as many values on the right: [a, b] = [b, a]');
    }
    const values = right.elements.map((x) => this.expr(x));
    left.elements.forEach((x, k) => {
      const el = skipParentheses(t, x);
      if (t.isElementAccessExpression(el)) return this.writeElement(el, values[k]);
      const sym = target(el);
      this.assignName(sym, (el as ts.Identifier).text, values[k], right.elements[k]);
    });
  }

  /** `a[i] = v`, `m[i][j] = v` or a whole row `m[i] = r`, with v already lowered. */
  private writeElement(target: ts.ElementAccessExpression, value: Value): void {
    const { t } = this;
    const inner = skipParentheses(t, target.expression);
    const indices = elementIndices(t, target);
    const base = indices.root;
    const view = indices.at.length === 1 ? this.viewNamed(base) : undefined;
    if (view) {
      const i = this.expr(target.argumentExpression, 'i');
      this.numbers(target, i, value);
      return void this.env.set(view.base, this.views.write(view, this.viewBase(view), i, this.stored(view, value), target));
    }
    if (!t.isIdentifier(base)) return fail(1122, target, 'only local arrays can be written into by index');
    const sym = this.checker.getSymbolAtLocation(base)!;
    const a = this.current$(sym, base);
    if (t.isElementAccessExpression(inner)) {
      if (!isMatrix(a.shape)) fail(1122, target, `'${base.text}' is not a matrix`);
      if (indices.at.length !== tensorRank(a.shape)) fail(1122, target, `'${base.text}' is ${describeShape(a.shape)}: write its elements, one index per dimension`);
      const at = indices.at.map((x, q) => this.expr(x, 'ijkl'[q] ?? 'i'));
      return void this.env.set(sym, this.arrays.matrices.update(a, at, value, target));
    }
    const i = this.expr(target.argumentExpression, 'i');
    if (isMatrix(a.shape)) return void this.env.set(sym, this.arrays.matrices.updateRow(a, i, value, target, this.mayHaveHoles(sym)));
    if (a.shape.kind !== 'array') fail(1122, target, `only arrays can be written into by index, '${base.text}' is ${describeShape(a.shape)}`);
    this.env.set(sym, this.arrays.update(a, i, value, target));
  }

  /**
   * `a[i] = v`, `a[i] op= v`, `a[i]++`: a becomes `update(a, i, v)`. checkArrayWrites has made
   * sure a is a local array with one name, so the new version is all the function can see.
   */
  private elementAssignment(e: ts.Expression): void {
    const { t } = this;
    const id = writtenArray(t, e)!;
    const sym = this.checker.getSymbolAtLocation(id)!;
    let access: ts.Expression = t.isBinaryExpression(e) ? e.left : (e as ts.PrefixUnaryExpression | ts.PostfixUnaryExpression).operand;
    while (t.isParenthesizedExpression(access)) access = access.expression;
    const target = access as ts.ElementAccessExpression;
    const view = this.viewNamed(target.expression);
    if (view) {
      const i = this.expr(target.argumentExpression, 'i');
      this.numbers(target, i);
      const stored = this.writtenValue(e, `${id.text}_i`, 'an array element', () => this.views.read(view, this.viewBase(view), i, `${id.text}_i`, target));
      return void this.env.set(view.base, this.views.write(view, this.viewBase(view), i, this.stored(view, stored), target));
    }
    const a = this.current$(sym, id);
    if (isMatrix(a.shape)) return this.matrixAssignment(e, sym, id, a, target);
    if (a.shape.kind !== 'array') fail(1122, target, `only arrays can be written into by index, '${id.text}' is ${describeShape(a.shape)}`);
    const i = this.expr(target.argumentExpression, 'i');
    let value = this.writtenValue(e, `${id.text}_i`, 'an array element', () => this.arrays.read(a, i, `${id.text}_i`, target));
    // An Int32Array (indices, a constant) stores the value as a 32-bit integer, as JavaScript
    // does; no derivative flows through an index.
    value = { name: storedValue(this.b, a.shape, value.name, `${id.text}_i`), shape: value.shape };
    this.env.set(sym, this.arrays.update(a, i, value, target));
  }

  /** What a write through a view stores: into an Int32Array, the value as a 32-bit integer (a constant), as for the array itself. */
  private stored(view: OpenView, v: Value): Value {
    return { name: storedValue(this.b, this.viewBase(view).shape, v.name, 'stored'), shape: v.shape };
  }

  /**
   * The value an element write stores: the right side of `=`, or `old op right` for a compound
   * assignment, `++` and `--` (`old` reads the element, only then).
   */
  private writtenValue(e: ts.Expression, hint: string, what: string, old: () => Value): Value {
    const { t } = this;
    const K = t.SyntaxKind;
    if (t.isBinaryExpression(e) && e.operatorToken.kind === K.EqualsToken) return this.expr(e.right, hint);
    const before = old();
    const op = t.isBinaryExpression(e) ? operatorTables(t).compound[e.operatorToken.kind] : (e as ts.PrefixUnaryExpression).operator === K.PlusPlusToken ? 'add' : 'sub';
    if (!op) fail(1108, e, `'${(e as ts.BinaryExpression).operatorToken.getText()}' is not supported on ${what}`);
    const rhs = t.isBinaryExpression(e) ? this.expr(e.right) : { name: this.b.lit(1, 'one'), shape: NUMBER };
    this.numbers(e, before, rhs);
    return { name: this.b.prim(op, [before.name, rhs.name], hint), shape: NUMBER };
  }

  /**
   * `ps[i].x = v`, `ps[i].pos[0] += v`, `ps[i].vel[j]++` on a local array of records
   * (frontend/records.ts): one update of the columns written (checkArrayWrites and
   * recordWrites.ts have made sure no other name sees the record).
   */
  private recordAssignment(e: ts.Expression, id: ts.Identifier): void {
    const { t } = this;
    let target: ts.Expression = t.isBinaryExpression(e) ? e.left : (e as ts.PrefixUnaryExpression | ts.PostfixUnaryExpression).operand;
    while (t.isParenthesizedExpression(target)) target = target.expression;
    const access = recordAccess(t, this.checker, target)!;
    const sym = this.checker.getSymbolAtLocation(id)!;
    const ps = this.current$(sym, id);
    if (!isRecords(ps.shape)) return fail(1122, target, `only arrays of records can be written into by field, '${id.text}' is ${describeShape(ps.shape)}`);
    const i = this.expr(access.index, 'i');
    const { path, tail, rest } = resolveAccess(ps.shape.elem, access.steps, target, true);
    const records = this.arrays.records;
    const hint = `${id.text}_${path.join('_')}`;
    if (!tail && !rest) {
      const value = this.writtenValue(e, hint, 'a field of a record', () => records.at(ps, i, path, target));
      return void this.env.set(sym, records.write(ps, i, path, value, target));
    }
    const steps = rest ?? [tail!];
    if (steps.some((s) => 'field' in s)) return fail(1108, target, 'the length of an array inside a record cannot be assigned');
    const js = steps.map((s) => ('literal' in s ? this.literal(s.literal, 'j') : this.expr((s as { index: ts.Expression }).index, 'j')));
    const value = this.writtenValue(e, hint, 'an element of an array of a record', () => records.elementAt(ps, i, path, js, target));
    this.env.set(sym, records.writeLeafElement(ps, i, path, js, value, target));
  }

  /** May this matrix variable hold `new Array(n)`, rows not written yet (matrices.ts, widen)? */
  private mayHaveHoles(sym: ts.Symbol): boolean {
    const { t } = this;
    const values = assignedValues(t, this.checker, sym, this.decl);
    return (
      !values ||
      values.some((v) => {
        const e = skipParentheses(t, v);
        return t.isNewExpression(e) && t.isIdentifier(e.expression) && e.expression.text === 'Array';
      })
    );
  }

  /** `m[i][j] = v`, `m[i][j] op= v`, `m[i][j]++` on a local matrix: one update of its data. */
  private matrixAssignment(e: ts.Expression, sym: ts.Symbol, id: ts.Identifier, m: Value, target: ts.ElementAccessExpression): void {
    const { t } = this;
    const { at } = elementIndices(t, target);
    if (at.length === 1) {
      // `m[p] = r`: a whole row (a swap, or a new row: checkArrayWrites allows only those).
      if (!t.isBinaryExpression(e) || e.operatorToken.kind !== t.SyntaxKind.EqualsToken) fail(1122, target, `'${id.text}' is a matrix: write its elements, ${id.text}[i][j] op= v`);
      const row = this.expr(target.argumentExpression, 'i');
      return void this.env.set(sym, this.arrays.matrices.updateRow(m, row, this.expr(e.right, `${id.text}_row`), target, this.mayHaveHoles(sym)));
    }
    if (at.length !== tensorRank(m.shape)) fail(1122, target, `'${id.text}' is ${describeShape(m.shape)}: write its elements, one index per dimension`);
    const indices = at.map((x, q) => this.expr(x, 'ijkl'[q] ?? 'i'));
    this.numbers(target, ...indices);
    const value = this.writtenValue(e, `${id.text}_ij`, 'a matrix element', () => this.arrays.matrices.element(m, indices, `${id.text}_ij`));
    if (value.shape.kind !== 'number') fail(1120, target, `a matrix holds numbers: cannot write ${describeShape(value.shape)}`);
    this.env.set(sym, this.arrays.matrices.update(m, indices, value, target));
  }

  /**
   * `s.sort(f)`, `s.reverse()`, `s.fill(v)` as a statement on a local array (checked by
   * checkArrayWrites, as writes are): s becomes the sorted, reversed or filled array.
   */
  private changeInPlace(e: ts.CallExpression): void {
    const id = changedInPlace(this.t, e)!;
    const sym = this.checker.getSymbolAtLocation(id)!;
    const a = this.current$(sym, id);
    const method = (e.expression as ts.PropertyAccessExpression).name.text;
    this.env.set(sym, ARRAY_METHODS.get(method)!.change!(this.arrays, a, e, id.text));
  }

  /** `b.push(x, y)` as a statement: b becomes `append(append(b, x), y)` (checked by checkArrayWrites, as writes are). */
  protected abstract forEachCall(e: ts.CallExpression): void;

  protected push(e: ts.CallExpression): void {
    const id = pushedArray(this.t, e)!;
    const sym = this.checker.getSymbolAtLocation(id)!;
    let a = this.current$(sym, id);
    if (a.shape.kind !== 'array') fail(1122, e, `only arrays can be pushed onto, '${id.text}' is ${describeShape(a.shape)}`);
    for (const arg of e.arguments) {
      if (this.t.isSpreadElement(arg)) {
        a = concat(this.arrays, a, [{ kind: 'all', value: this.arrays.arrayOf(arg.expression) }], a.shape, arg);
        continue;
      }
      const v = this.expr(arg, `${id.text}_last`);
      a = this.arrays.append(a, v, arg);
    }
    this.env.set(sym, a);
  }
}

/** The indices of `a[i][j][k]`, outermost array first, and the expression they index. */
function elementIndices(t: typeof ts, target: ts.ElementAccessExpression): { at: ts.Expression[]; root: ts.Expression } {
  const at: ts.Expression[] = [];
  let cur: ts.Expression = target;
  while (t.isElementAccessExpression(cur)) {
    at.unshift(cur.argumentExpression);
    cur = skipParentheses(t, cur.expression);
  }
  return { at, root: cur };
}

/** Whether a piece of code assigns a variable (through the local functions it calls, too). */
function assigns(t: typeof ts, checker: ts.TypeChecker, n: ts.Node): boolean {
  const out = new Set<ts.Symbol>();
  assignedSymbols(t, checker, n, out);
  return out.size > 0;
}

/** The innermost callback around a node (a function written as an argument), unless it is .forEach's, whose body runs as a loop. */
function callbackAround(t: typeof ts, n: ts.Node): ts.Node | undefined {
  for (let p = n.parent; p; p = p.parent) {
    if (!t.isArrowFunction(p) && !t.isFunctionExpression(p)) continue;
    const call = p.parent;
    if (!t.isCallExpression(call) || !call.arguments.includes(p)) return undefined;
    const forEach = t.isPropertyAccessExpression(call.expression) && call.expression.name.text === 'forEach';
    return forEach ? undefined : p;
  }
  return undefined;
}

function isInsideNode(n: ts.Node, owner: ts.Node): boolean {
  for (let p: ts.Node | undefined = n.parent; p; p = p.parent) if (p === owner) return true;
  return false;
}
