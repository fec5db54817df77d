// Expressions of a marked function: names, literals, operators, element and property reads, and
// the places where arrays.ts takes over. Each becomes IR statements in A-normal form.
import type * as ts from 'typescript';
import { ret, tuple } from '../ir/syntax';
import { fail, isTsadDiagnostic, reportedByTypeScript } from './diagnostics';
import { callbackParamSymbol } from './callbackParams';
import { findCall, findFirst } from './arrayFind';
import { Shape, NUMBER, BOOLEAN, STRING, shapeOfType, typedArrayName, irType, componentShapes, describeShape, isScalarShape, isMatrix, isNumberArray, isRecords, tensorRank } from './shapes';
import { spreadLiteral } from './arrayOrder';
import { AccessStep, RecordAccess, recordAccess, resolveAccess } from './recordAccess';
import { localFunctionOf } from './exits';
import type { StateSource, Value } from './values';
import type { OpenView } from './viewLowering';
import { isFixed, moduleVariable } from './moduleState';
import { thisField } from './methods';
import { AlreadyReported, LoweringState } from './loweringState';
import { BINARY_ARITH, BINARY_COMPARE, BINARY_LOGIC, MATH_CONSTANTS } from './operators';
import { containsCall, runsInOrder } from './syntax';
import { NUMBER_CONSTANTS, isGlobalNumber } from './numberBuiltins';

const skipOuter = (t: typeof ts, e: ts.Expression): ts.Expression => {
  while (t.isParenthesizedExpression(e) || t.isAsExpression(e)) e = e.expression;
  return e;
};

export abstract class ExpressionLowering extends LoweringState {
  /**
   * `c ? a : b`. A side that calls a function (a Math function or a marked function) makes it a
   * cond, so only the side taken runs and is differentiated: such a side can be costly, and its
   * derivative can be infinite or NaN where it is not taken (`x > 0 ? Math.log(x) : 0` at 0).
   * Sides without calls (arithmetic on variables and literals, field access, nested cheap `?:`)
   * stay a `select` of two scalars, both computed: that is cheaper than a branch, and T guards
   * the untaken side's backward code with the same test (ad/guards.ts: `x !== 0 ? 1 / x : 0` has
   * derivative 0 at 0). Tuples and objects, which `select` does not take, become a cond whose bodies return the
   * sides already computed.
   */
  private conditional(e: ts.ConditionalExpression, hint?: string): Value {
    const { t } = this;
    const c = this.predicate(e.condition);
    const sides = [e.whenTrue, e.whenFalse];
    // `c ? f(x) : []`: a literal side is an array when the other side (or the whole) is one.
    const array =
      this.arrayShapeOf(e) ??
      (t.isArrayLiteralExpression(skipOuter(t, e.whenFalse)) ? this.arrayShapeOf(e.whenTrue) : undefined) ??
      (t.isArrayLiteralExpression(skipOuter(t, e.whenTrue)) ? this.arrayShapeOf(e.whenFalse) : undefined);
    const side = (x: ts.Expression): Value => {
      const v = this.expr(x);
      return array && v.shape.kind === 'tuple' ? this.coerce(x, v, array) : v;
    };
    // In a derivative rule `c ? dx : dy` is a linear select of tangents (ad/customJvp.ts): always a select.
    if (this.role !== undefined || !sides.some((side) => containsCall(t, side))) {
      // Both sides are computed; an element read is checked only where its side is taken.
      const checks = this.arrays.checks;
      const a = checks.under(c.name, () => side(sides[0]));
      const b2 = checks.under(this.b.test('not', [c.name], 'otherwise'), () => side(sides[1]));
      if (isScalarShape(a.shape) || isScalarShape(b2.shape) || this.role !== undefined) {
        this.sameScalars(e, a, b2);
        return this.op('select', [c, a, b2], hint, a.shape);
      }
      this.conform(e.whenFalse, b2, a.shape, 'the second side of ?:');
      return this.cond(
        c,
        [a, b2].map((v) => ({ stmts: [], result: ret([v.name]) })),
        [a.shape],
        [hint ?? 'cond'],
      )[0];
    }
    const lowered = sides.map((x) => this.branch(() => side(x)));
    const [a, b2] = lowered.map((l) => l.result);
    if (isScalarShape(a.shape) || isScalarShape(b2.shape)) this.sameScalars(e, a, b2);
    else this.conform(e.whenFalse, b2, a.shape, 'the second side of ?:');
    const blocks = lowered.map((l) => l.scope.b.finish(ret([l.result.name])));
    return this.cond(c, blocks, [a.shape], [hint ?? 'cond'])[0];
  }

  /** `xs.find(f) ?? fallback` (arrayFind.ts): the element found, else the fallback, each only on its path. */
  private findOr(call: ts.CallExpression, fallback: ts.Expression, hint?: string): Value {
    const { xs, k, found } = findFirst(this.arrays, call);
    const hit = this.branch(() => this.arrays.read(xs, k, hint ?? 'found', call));
    const miss = this.branch(() => this.expr(fallback, hint ?? 'fallback'));
    this.conform(fallback, miss.result, hit.result.shape, 'the fallback of .find');
    const blocks = [hit, miss].map((l) => l.scope.b.finish(ret([l.result.name])));
    return this.cond(found, blocks, [hit.result.shape], [hint ?? 'found'])[0];
  }

  /** The shape TypeScript gives an expression when it is an array of numbers (not a tuple). */
  private arrayShapeOf(e: ts.Expression): Shape | undefined {
    const type = this.checker.getTypeAtLocation(e);
    if (this.checker.isTupleType(type) || !(this.checker.isArrayType(type) || typedArrayName(this.t, type) !== undefined)) return undefined;
    try {
      const shape = shapeOfType(this.t, this.checker, type, e);
      return shape.kind === 'array' && !isMatrix(shape) ? shape : undefined;
    } catch {
      return undefined;
    }
  }

  /** The value of a local now; reading a `let y;` before its first assignment is an error. */
  protected current$(sym: ts.Symbol, at: ts.Identifier): Value {
    if (this.failed.has(sym)) return this.standIn(at);
    if (this.unassigned.has(sym)) fail(1115, at, `'${at.text}' is read before it is assigned a value`);
    return this.env.get(sym)!;
  }

  /**
   * A value of the right shape for a variable whose definition failed: lowering goes on, so
   * independent problems later in the function are still found, while nothing is reported about
   * the variable itself. The function has an error already, so this value is never emitted.
   */
  private standIn(e: ts.Expression): Value {
    let shape: Shape;
    try {
      shape = shapeOfType(this.t, this.checker, this.checker.getTypeAtLocation(e), e);
    } catch {
      throw new AlreadyReported();
    }
    const make = (s: Shape): Value => {
      if (s.kind === 'array') return this.arrays.zero(s);
      if (isScalarShape(s)) return { name: this.b.lit(s.kind === 'number' ? 0 : s.kind === 'boolean' ? false : '', 'failed'), shape: s };
      const parts = componentShapes(s).map(make);
      return {
        name: this.b.nl(
          'failed',
          tuple(
            false,
            parts.map((p) => p.name),
          ),
          irType(s),
        ),
        shape: s,
      };
    };
    return make(shape);
  }

  /** Lowers an expression; every IR name created meanwhile (not by a sub-expression) maps to it. */
  expr(e: ts.Expression, hint?: string): Value {
    const v = this.at(e, () => this.exprAt(e, hint));
    this.shapes.set(v.name, v.shape);
    return v;
  }

  /** The value of a callback written in place (`.map((x) => …)`): its expression, or its statements with a frame of their own. */
  protected callbackBody(fn: ts.ArrowFunction | ts.FunctionExpression, hint?: string): Value {
    const { t } = this;
    // `({ x, y }) => …`: the pattern's names bound to the parts of the value bound for it (callbackParams.ts).
    for (const p of fn.parameters) {
      const whole = t.isIdentifier(p.name) ? undefined : this.env.get(callbackParamSymbol(t, this.checker, p));
      if (whole) this.bindPattern(p.name, whole);
    }
    const body = fn.body;
    if (!t.isBlock(body)) return this.expr(body, hint);
    const saved = { frame: this.frame, exitCtx: this.exitCtx };
    this.frame = { decl: fn };
    this.exitCtx = undefined;
    try {
      const errors = this.errors.length;
      const value = this.tail(body.statements);
      if (!value) {
        if (this.errors.length > errors) throw new AlreadyReported();
        return fail(1107, fn, 'the callback must end with a return statement');
      }
      return value;
    } finally {
      this.frame = saved.frame;
      this.exitCtx = saved.exitCtx;
    }
  }

  /**
   * `++steps` (its new value) or `i++` (its old one) where the expression runs once, in order
   * (`if (++steps > max) throw …`): the assignment, as its statement, then the value.
   */
  private updated(e: ts.PrefixUnaryExpression | ts.PostfixUnaryExpression, hint?: string): Value {
    if (!this.t.isIdentifier(e.operand) || !runsInOrder(this.t, e)) {
      fail(
        1108,
        e,
        '++ and -- of a local variable are values only where they run once, in order (an if condition, a declaration, an operand of arithmetic or a comparison): write them as statements here',
      );
    }
    const before = this.expr(e.operand, hint);
    this.numbers(e, before);
    this.assignment(e);
    return this.t.isPrefixUnaryExpression(e) ? this.expr(e.operand, hint) : before;
  }

  private exprAt(e: ts.Expression, hint?: string): Value {
    const { t } = this;
    const K = t.SyntaxKind;
    if (t.isParenthesizedExpression(e) || t.isAsExpression(e) || t.isNonNullExpression(e) || t.isSatisfiesExpression(e) || t.isTypeAssertionExpression(e)) {
      return this.expr(e.expression, hint);
    }
    if (t.isNumericLiteral(e)) return { name: this.b.lit(Number(e.text), hint ?? 'c'), shape: NUMBER };
    if (t.isStringLiteral(e) || t.isNoSubstitutionTemplateLiteral(e)) return { name: this.b.lit(e.text, hint ?? 's'), shape: STRING };
    if (e.kind === K.TrueKeyword || e.kind === K.FalseKeyword) return { name: this.b.lit(e.kind === K.TrueKeyword, hint ?? 'c'), shape: BOOLEAN };
    if (t.isIdentifier(e)) return this.identifier(e, hint);
    if (e.kind === K.ThisKeyword) fail(1102, e, "'this' is supported only as this.field (read when the derivative runs) and this.method(...) in an instance method; pass the value as a parameter");
    if (e.kind === K.NullKeyword || t.isVoidExpression(e)) this.noValue(e);
    if ((t.isPrefixUnaryExpression(e) || t.isPostfixUnaryExpression(e)) && (e.operator === K.PlusPlusToken || e.operator === K.MinusMinusToken)) return this.updated(e, hint);
    if (t.isPrefixUnaryExpression(e)) {
      if (e.operator === K.MinusToken) {
        if (t.isNumericLiteral(e.operand)) return { name: this.b.lit(-Number(e.operand.text), hint ?? 'c'), shape: NUMBER };
        const v = this.expr(e.operand);
        this.numbers(e, v);
        return this.op('neg', [v], hint);
      }
      if (e.operator === K.PlusToken) return this.expr(e.operand, hint);
      if (e.operator === K.ExclamationToken) return this.op('not', [this.expr(e.operand)], hint, BOOLEAN);
      if (e.operator === K.TildeToken) {
        const v = this.expr(e.operand);
        this.numbers(e, v);
        return this.op('bitnot', [v], hint);
      }
    }
    if (t.isBinaryExpression(e) && e.operatorToken.kind === K.QuestionQuestionToken && findCall(t, e.left)) return this.findOr(findCall(t, e.left)!, e.right, hint);
    if (t.isBinaryExpression(e)) return this.binary(e, hint);
    if (t.isConditionalExpression(e)) return this.conditional(e, hint);
    // `c[i]` of a view (viewLowering.ts): its base's number at the view's start + i.
    const view = t.isElementAccessExpression(e) ? this.viewNamed(e.expression) : undefined;
    if (view) return this.viewRead(view, e as ts.ElementAccessExpression, hint);
    if ((t.isPropertyAccessExpression(e) || t.isElementAccessExpression(e)) && !this.isGlobalMath(e.expression)) {
      const access = recordAccess(t, this.checker, e);
      if (access) return this.recordRead(access, e, hint);
    }
    if (t.isPropertyAccessExpression(e)) return this.property(e, hint);
    if (t.isElementAccessExpression(e)) {
      return this.matrixElement(e, hint) ?? this.elementOf(e, this.expr(e.expression), hint);
    }
    if (t.isCallExpression(e)) return this.call(e, hint);
    if (t.isNewExpression(e)) return this.arrays.newArray(e, hint);
    // `[...a, x]` is an array (TypeScript types it number[]) unless a is a tuple.
    if (t.isArrayLiteralExpression(e) && e.elements.some((el) => t.isSpreadElement(el)) && (this.arrays.wantsArray(e) || !this.checker.isTupleType(this.checker.getTypeAtLocation(e)))) {
      const type = this.arrays.wantsArray(e) ? this.checker.getContextualType(e)! : this.checker.getTypeAtLocation(e);
      const shape = shapeOfType(t, this.checker, type, e);
      if (!isNumberArray(shape)) fail(1121, e, `spreading into ${describeShape(shape)} is not supported: build it row by row (push, or Array.from({ length: n }, …))`);
      return spreadLiteral(this.arrays, e.elements, shape, e, hint);
    }
    if (t.isArrayLiteralExpression(e) && this.arrays.wantsArray(e)) return this.arrays.literal(e, shapeOfType(t, this.checker, this.checker.getContextualType(e)!, e), hint);
    if (t.isArrayLiteralExpression(e)) {
      const parts = e.elements.flatMap((el) => {
        if (t.isOmittedExpression(el)) fail(1102, el, 'holes ([a, , b]) are not supported in tuples: write each element');
        if (!t.isSpreadElement(el)) return [this.expr(el)];
        // `[...t, x]` of a tuple t: its elements.
        const v = this.expr(el.expression);
        if (v.shape.kind !== 'tuple')
          fail(1121, el, `spreading ${describeShape(v.shape)} into a tuple is not supported: its length is known only at run time (type the result as number[] to build an array)`);
        return this.unpack(v);
      });
      return {
        name: this.b.nl(
          hint ?? 't',
          tuple(
            false,
            parts.map((p) => p.name),
          ),
        ),
        shape: { kind: 'tuple', elems: parts.map((p) => p.shape) },
      };
    }
    if (t.isObjectLiteralExpression(e)) {
      const fields: [string, Value][] = e.properties.map((p) => {
        if (t.isPropertyAssignment(p)) return [p.name.getText().replace(/^['"]|['"]$/g, ''), this.expr(p.initializer, p.name.getText())];
        if (t.isShorthandPropertyAssignment(p)) {
          // `{ vel }`: the name is the property's symbol to the checker; the variable is its value symbol.
          const sym = this.checker.getShorthandAssignmentValueSymbol(p);
          const v = sym && !this.failed.has(sym) ? this.env.get(sym) : undefined;
          return [p.name.text, v ?? this.identifier(p.name)];
        }
        return fail(1102, p, 'only plain properties are supported in object literals');
      });
      fields.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return {
        name: this.b.nl(
          hint ?? 'o',
          tuple(
            false,
            fields.map(([, v]) => v.name),
          ),
        ),
        shape: { kind: 'object', fields: fields.map(([k, v]) => [k, v.shape] as const) },
      };
    }
    if (t.isSpreadElement(e)) fail(1121, e, 'a spread (...a) is supported in array literals ([...a, x]), .concat, .push and Math.max/Math.min: pass the arguments one by one here');
    return fail(1102, e, `${t.SyntaxKind[e.kind]} is not supported in differentiable functions`);
  }

  // ---- Arrays: arrays.ts recognises and lowers them ----

  /** A tuple of numbers where an array is expected becomes one; anything else is left to `conform`. */
  protected coerce(node: ts.Node, v: Value, expected: Shape): Value {
    if (expected.kind === 'array' && v.shape.kind === 'tuple') return this.arrays.asArray(node, v);
    if (expected.kind === 'array' && v.shape.kind === 'array') return { name: v.name, shape: expected };
    return v;
  }

  /** `c[i]` of a view. */
  private viewRead(view: OpenView, e: ts.ElementAccessExpression, hint?: string): Value {
    const i = this.expr(e.argumentExpression, 'i');
    if (i.shape.kind !== 'number') fail(1121, e.argumentExpression, `an array index must be a number, got ${describeShape(i.shape)}`);
    return this.views.read(view, this.viewBase(view), i, hint, e);
  }

  private identifier(e: ts.Identifier, hint?: string): Value {
    const { t } = this;
    // A view used whole (an argument, a method's receiver): a copy of its numbers now.
    const view = this.viewNamed(e);
    if (view) return this.views.copy(view, this.viewBase(view), hint ?? e.text);
    // `{ lu }`: the name's symbol is the property's; its value is the variable's.
    const sym = t.isShorthandPropertyAssignment(e.parent) && e.parent.name === e ? this.checker.getShorthandAssignmentValueSymbol(e.parent) : this.checker.getSymbolAtLocation(e);
    if (sym && this.failed.has(sym)) return this.standIn(e);
    const v = sym && this.env.get(sym);
    if (v) return v;
    if (localFunctionOf(t, sym, this.decl)) {
      fail(1117, e, `'${e.text}' is a local function used as a value: tsad inlines the calls of a local function, so it can only be called here, not returned, stored or passed on`);
    }
    if (e.text === 'NaN' || e.text === 'Infinity') return { name: this.b.lit(e.text === 'NaN' ? NaN : Infinity, hint ?? 'c'), shape: NUMBER };
    if (e.text === 'undefined' && sym && !sym.valueDeclaration) this.noValue(e);
    // An unknown name is TypeScript's error ("Cannot find name"), and a failed local was ours.
    if (!sym) reportedByTypeScript(e, 1106, `'${e.text}' is not declared`);
    if (this.failed.has(sym) || this.unassigned.has(sym)) return this.current$(sym, e);
    const target = sym && sym.flags & t.SymbolFlags.Alias ? this.checker.getAliasedSymbol(sym) : sym;
    const decl = target?.valueDeclaration;
    // Module state is read when the function runs; only a const primitive is folded.
    const variable = moduleVariable(t, this.checker, sym);
    if (variable && !isFixed(t, this.checker, variable.decl)) return this.stateValue(variable, e);
    if (decl && t.isVariableDeclaration(decl) && decl.initializer && t.isSourceFile(decl.parent.parent.parent) && (decl.parent.flags & t.NodeFlags.Const) !== 0) {
      // A module-level constant (`const TWO_PI = 2 * Math.PI`, also imported): its initializer is
      // pure, so computing it in place gives the same value, and as a constant it has no tangent.
      if (this.inlining.has(decl)) fail(1106, e, `'${e.text}' is defined in terms of itself`);
      this.inlining.add(decl);
      try {
        return this.at(e, () => this.expr(decl.initializer!, hint ?? e.text));
      } catch (err) {
        if (!isTsadDiagnostic(err)) throw err;
        // Computed by code tsad cannot lower (`Math.random()`, a call of a plain function): read it when the function runs.
        if (variable) return this.stateValue(variable, e);
        fail(1106, e, `'${e.text}' is a module-level constant, but its initializer is outside the differentiable subset (${err.message.split('\n')[0]})`);
      } finally {
        this.inlining.delete(decl);
      }
    }
    return fail(1106, e, `'${e.text}' is not a parameter or local variable of this differentiable function`);
  }

  /** The parameter that holds a module-level variable's (or a field of this's) value when the function runs. */
  protected stateValue(variable: StateSource, at: ts.Node): Value {
    const v = this.state.read(variable, at);
    this.shapes.set(v.name, v.shape);
    return v;
  }

  /** `undefined` and `null` are values a differentiable function cannot hold (there is no optional value in the subset). */
  private noValue(e: ts.Node): never {
    return fail(
      1102,
      e,
      `'${e.getText()}' is not supported in differentiable functions: every variable holds a number, boolean, string, array, tuple or object; give it a value of its type (0, NaN, false), or test a boolean flag instead of comparing with ${e.getText()}`,
    );
  }

  protected isGlobalMath(e: ts.Expression): boolean {
    if (!this.t.isIdentifier(e) || e.text !== 'Math') return false;
    const decl = this.checker.getSymbolAtLocation(e)?.declarations?.[0];
    return !!decl && decl.getSourceFile().hasNoDefaultLib;
  }

  /**
   * `m[i][j]` of a matrix, `t[i][j][k]` of a tensor: one read of its flat data, no row built;
   * `t[i][j]` short of an element one gather of the block; undefined for one index.
   */
  private matrixElement(e: ts.ElementAccessExpression, hint?: string): Value | undefined {
    const { chain, root } = this.accessChain(e);
    if (chain.length < 2 || !this.arrays.isArrayValued(root)) return undefined;
    return this.indexChain(this.expr(root), chain, hint);
  }

  /** The accesses of a chain applied to the value they index: a matrix's or tensor's indices together. */
  private indexChain(root: Value, chain: readonly ts.ElementAccessExpression[], hint?: string): Value {
    let v = root;
    for (let k = 0; k < chain.length; ) {
      const take = isMatrix(v.shape) ? Math.min(tensorRank(v.shape), chain.length - k) : 1;
      const last = k + take === chain.length ? hint : undefined;
      if (take < 2) {
        // Not a matrix (a tuple of arrays): read it the ordinary way.
        v = this.elementOf(chain[k++], v, last);
        continue;
      }
      const indices = chain.slice(k, k + take).map((a, q) => {
        const x = this.expr(a.argumentExpression, 'ijkl'[q] ?? 'i');
        if (x.shape.kind !== 'number') fail(1121, a.argumentExpression, `a matrix index must be a number, got ${describeShape(x.shape)}`);
        return x;
      });
      // The innermost access of the run names the read in a message; each index is checked within its own dimension.
      v = take === tensorRank(v.shape) ? this.arrays.matrices.element(v, indices, last, chain[k + take - 1]) : this.arrays.matrices.sub(v, indices, last, chain[k + take - 1]);
      k += take;
    }
    return v;
  }

  /** `a[i][j][k]` as its accesses, innermost first, and what they index (parentheses skipped). */
  private accessChain(e: ts.ElementAccessExpression): { chain: ts.ElementAccessExpression[]; root: ts.Expression } {
    const { t } = this;
    const chain: ts.ElementAccessExpression[] = [];
    let cur: ts.Expression = e;
    while (t.isElementAccessExpression(cur)) {
      chain.unshift(cur);
      cur = cur.expression;
      while (t.isParenthesizedExpression(cur)) cur = cur.expression;
    }
    return { chain, root: cur };
  }

  /** `ps[i].x`, `ps[i].pos[0]`, `ps[i].vel[j]`, `ps[i].vel.length` of an array of records (frontend/records.ts): only the columns it needs are read. */
  private recordRead(access: RecordAccess, e: ts.Expression, hint?: string): Value {
    const ps = this.expr(access.base);
    if (!isRecords(ps.shape)) fail(1121, access.base, `this needs an array of records, got ${describeShape(ps.shape)}`);
    const i = this.expr(access.index, 'i');
    const { path, tail, shape, rest } = resolveAccess(ps.shape.elem, access.steps, e, true);
    const records = this.arrays.records;
    if (rest) return this.stepsInto(records.at(ps, i, path, e), rest, e, hint);
    if (!tail) return records.at(ps, i, path, e, hint);
    if ('field' in tail) return shape.kind === 'tuple' ? this.literal(shape.elems.length, hint ?? 'n') : records.leafLength(ps, i, path, e);
    const j = 'literal' in tail ? this.literal(tail.literal, 'j') : this.expr(tail.index, 'j');
    return records.elementOfLeaf(ps, i, path, j, e, hint);
  }

  /** `ps[i].W[j][k]`, `ps[i].W[j].length` after the leaf `ps[i].W` was read as a value: a matrix's or tensor's indices together. */
  private stepsInto(leaf: Value, steps: readonly AccessStep[], node: ts.Expression, hint?: string): Value {
    const indices: Value[] = [];
    for (const [k, step] of steps.entries()) {
      if ('field' in step) {
        if (step.field !== 'length' || k !== steps.length - 1) fail(1102, node, `'.${step.field}' of an array is not supported here`);
        return isMatrix(leaf.shape) && indices.length < tensorRank(leaf.shape) ? this.arrays.matrices.dim(leaf, indices.length) : this.arrays.length(this.readAt(leaf, indices, node), hint ?? 'n');
      }
      indices.push('literal' in step ? this.literal(step.literal, 'j') : this.expr(step.index, 'j'));
    }
    return this.readAt(leaf, indices, node, hint);
  }

  /** Indices into an array, matrix or tensor value: one read, or one gather short of an element. */
  private readAt(v: Value, indices: readonly Value[], node: ts.Expression, hint?: string): Value {
    if (indices.length === 0) return v;
    for (const x of indices) if (x.shape.kind !== 'number') fail(1121, node, `an array index must be a number, got ${describeShape(x.shape)}`);
    if (!isMatrix(v.shape)) {
      if (indices.length > 1) fail(1102, node, `${describeShape(v.shape)} has one dimension`);
      return this.arrays.readChecked(v, indices[0], node, hint);
    }
    if (indices.length > tensorRank(v.shape)) fail(1102, node, `${describeShape(v.shape)} has ${tensorRank(v.shape)} dimensions`);
    if (indices.length === 1) return this.arrays.read(v, indices[0], hint, node);
    return indices.length === tensorRank(v.shape) ? this.arrays.matrices.element(v, indices, hint, node) : this.arrays.matrices.sub(v, indices, hint);
  }

  /** `v[index]` for an already lowered v: an array element or a tuple's part. */
  private elementOf(e: ts.ElementAccessExpression, value: Value, hint?: string): Value {
    const { t } = this;
    let v = value;
    if (v.shape.kind === 'tuple' && !t.isNumericLiteral(e.argumentExpression)) v = this.arrays.asArray(e.expression, v);
    if (v.shape.kind === 'array') {
      const i = this.expr(e.argumentExpression, 'i');
      if (i.shape.kind !== 'number') fail(1121, e.argumentExpression, `an array index must be a number, got ${describeShape(i.shape)}`);
      return this.arrays.readChecked(v, i, e, hint);
    }
    if (v.shape.kind !== 'tuple' || !t.isNumericLiteral(e.argumentExpression)) fail(1102, e, 'only tuples and arrays can be indexed (tuples by a number literal)');
    const i = Number(e.argumentExpression.text);
    if (!(i >= 0 && i < v.shape.elems.length)) fail(1102, e.argumentExpression, `index ${i} is outside the tuple`);
    return this.unpack(v)[i];
  }

  private property(e: ts.PropertyAccessExpression, hint?: string): Value {
    if (this.isGlobalMath(e.expression)) {
      const c = MATH_CONSTANTS[e.name.text];
      if (c === undefined) fail(1102, e, `Math.${e.name.text} is not a number constant`);
      return { name: this.b.lit(c, hint ?? e.name.text), shape: NUMBER };
    }
    if (isGlobalNumber(this.t, this.checker, e.expression) && Object.hasOwn(NUMBER_CONSTANTS, e.name.text))
      return { name: this.b.lit(NUMBER_CONSTANTS[e.name.text], hint ?? e.name.text), shape: NUMBER };
    if (e.name.text === 'length' && this.t.isElementAccessExpression(e.expression)) {
      // `m[i].length` of a matrix is its column count, `t[i][j].length` a tensor's dimension 2: no row is built.
      const { chain, root } = this.accessChain(e.expression);
      if (this.arrays.isArrayValued(root)) {
        const m = this.expr(root);
        if (isMatrix(m.shape) && chain.length < tensorRank(m.shape)) return this.arrays.matrices.dim(m, chain.length);
        return this.arrays.length(this.indexChain(m, chain), hint ?? 'n');
      }
    }
    if (e.expression.kind === this.t.SyntaxKind.ThisKeyword) return this.stateValue(thisField(this.t, this.checker, this.decl, e), e);
    const view = e.name.text === 'length' ? this.viewNamed(e.expression) : undefined;
    if (view) return view.count;
    const v = this.expr(e.expression);
    if (e.name.text === 'length' && v.shape.kind === 'array') return this.arrays.length(v, hint ?? 'n');
    if (e.name.text === 'length' && v.shape.kind === 'tuple') return this.literal(v.shape.elems.length, hint ?? 'n');
    if (v.shape.kind === 'array') fail(1121, e.name, `'.${e.name.text}' of an array is not supported here`);
    if (v.shape.kind !== 'object') fail(1102, e, `property access needs an object, got a ${v.shape.kind}`);
    const i = v.shape.fields.findIndex(([f]) => f === e.name.text);
    if (i < 0) fail(1102, e.name, `no field ${e.name.text}`);
    return this.unpack(v)[i];
  }

  /**
   * A chain like `a + b + c + ...` nests to the left as deep as it is long: walk the left spine
   * in a loop (innermost first, the order JavaScript evaluates it) instead of recursing.
   */
  private binary(e: ts.BinaryExpression, hint?: string): Value {
    const spine: ts.BinaryExpression[] = [e];
    let left = e.left;
    while (this.t.isBinaryExpression(left) && this.binaryOperator(left)) {
      spine.push(left);
      left = left.left;
    }
    let acc = this.expr(left);
    for (let i = spine.length - 1; i >= 0; i--) {
      const step = spine[i];
      const left = acc;
      acc = this.at(step, () => this.binaryStep(step, left, i === 0 ? hint : undefined));
    }
    return acc;
  }

  private binaryOperator(e: ts.BinaryExpression): { name: string; kind: 'arith' | 'compare' | 'logic' } | undefined {
    const k = e.operatorToken.kind;
    const arith = BINARY_ARITH(this.t)[k];
    if (arith) return { name: arith, kind: 'arith' };
    const compare = BINARY_COMPARE(this.t)[k];
    if (compare) return { name: compare, kind: 'compare' };
    const logic = BINARY_LOGIC(this.t)[k];
    return logic ? { name: logic, kind: 'logic' } : undefined;
  }

  private binaryStep(e: ts.BinaryExpression, a: Value, hint?: string): Value {
    const K = this.t.SyntaxKind;
    const k = e.operatorToken.kind;
    const op = this.binaryOperator(e);
    if (!op) fail(k >= K.FirstAssignment && k <= K.LastAssignment ? 1108 : 1102, e.operatorToken, `operator '${e.operatorToken.getText()}' is not supported here`);
    if (op.kind === 'logic' && a.shape.kind === 'number' && this.role === undefined) return this.numberLogic(e, op.name, a, hint);
    if (op.kind === 'logic' && this.role === undefined && containsCall(this.t, e.right)) return this.shortCircuit(e, op.name, a, hint);
    // `i < x.length && x[i] > 0`: both sides are computed, so a read on the right is checked only
    // where the left lets JavaScript evaluate it.
    const b =
      op.kind === 'logic' && a.shape.kind === 'boolean'
        ? this.arrays.checks.under(op.name === 'and' ? a.name : this.b.test('not', [a.name], 'otherwise'), () => this.expr(e.right))
        : this.expr(e.right);
    if (op.kind === 'logic') {
      if (a.shape.kind !== 'boolean' || b.shape.kind !== 'boolean') fail(1105, e, `'${e.operatorToken.getText()}' needs booleans`);
      return this.op(op.name, [a, b], hint, BOOLEAN);
    }
    if (op.kind === 'compare') {
      this.sameScalars(e, a, b);
      if (a.shape.kind === 'boolean' && op.name !== 'eq' && op.name !== 'ne') fail(1105, e, `'${e.operatorToken.getText()}' does not order booleans`);
      return this.op(op.name, [a, b], hint, BOOLEAN);
    }
    this.numbers(e, a, b);
    return this.op(op.name, [a, b], hint, NUMBER);
  }

  /**
   * `a && b` / `a || b` whose right side calls a function: short-circuit, as `a ? b : false` /
   * `a ? true : b` lowered by `conditional`, a cond whose branch not taken never runs (so
   * `x > 0 && Math.log(x) > 1` never computes log(x) where x ≤ 0). Cheap operands stay `and`/`or`.
   */
  private shortCircuit(e: ts.BinaryExpression, op: string, a: Value, hint?: string): Value {
    if (a.shape.kind !== 'boolean') fail(1105, e, `'${e.operatorToken.getText()}' needs booleans`);
    const right = this.branch(() => {
      const b = this.expr(e.right);
      if (b.shape.kind !== 'boolean') fail(1105, e, `'${e.operatorToken.getText()}' needs booleans`);
      return b;
    });
    const constant = this.branch(() => this.b.lit(op === 'or'));
    const blocks = [right.scope.b.finish(ret([right.result.name])), constant.scope.b.finish(ret([constant.result]))];
    return this.cond(a, op === 'and' ? blocks : [blocks[1], blocks[0]], [BOOLEAN], [hint ?? op])[0];
  }

  /**
   * `a || b`, `a && b` of numbers, as JavaScript means them: a is true unless it is 0 or NaN,
   * `a || b` is `a` where a is true, else b, and `a && b` the other way round (`v[0] || 1`). The
   * right side runs only where it is the value, as for `?:`: a cond when it calls a function,
   * else a select.
   */
  private numberLogic(e: ts.BinaryExpression, op: string, a: Value, hint?: string): Value {
    const b = this.b;
    const truthy = { name: b.nl('truthy', { tag: 'prim', op: 'and', args: [b.test('ne', [a.name, b.lit(0, 'zero')]), b.test('eq', [a.name, a.name])] }, { tag: 'bool' }), shape: BOOLEAN };
    const right = (): Value => {
      const v = this.expr(e.right);
      if (v.shape.kind !== 'number') fail(1105, e, `'${e.operatorToken.getText()}' of a number needs a number on its right too, got ${describeShape(v.shape)}`);
      return v;
    };
    if (!containsCall(this.t, e.right)) {
      const other = right();
      return this.op('select', op === 'or' ? [truthy, a, other] : [truthy, other, a], hint, NUMBER);
    }
    const taken = this.branch(right);
    const kept = this.branch(() => a);
    const blocks = [taken.scope.b.finish(ret([taken.result.name])), kept.scope.b.finish(ret([kept.result.name]))];
    return this.cond(truthy, op === 'or' ? [blocks[1], blocks[0]] : blocks, [NUMBER], [hint ?? op])[0];
  }

  /** stopGradient: the value, with every real leaf passed through stop_gradient. */
  protected stop(v: Value, hint?: string): Value {
    if (v.shape.kind === 'number') return this.op('stop_gradient', [v], hint ?? `${v.name}_const`);
    if (v.shape.kind === 'boolean' || v.shape.kind === 'string') return v;
    if (v.shape.kind === 'array') return this.arrays.stop(v, hint);
    const parts = this.unpack(v).map((p) => this.stop(p));
    return {
      name: this.b.nl(
        hint ?? v.name,
        tuple(
          false,
          parts.map((p) => p.name),
        ),
        irType(v.shape),
      ),
      shape: v.shape,
    };
  }
}
