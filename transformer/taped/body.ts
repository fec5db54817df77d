// Taped copies of functions: the source transformation of taped reverse mode. A copy runs the
// function's own code, control flow and recursion untouched, with every operation on numbers
// going through the module's taped primitives (prims.ts), which take numbers or tape nodes:
// arithmetic and Math's functions record their partials, comparisons and conditions read
// values, indices are values, and `new Float64Array(n)` is an array that can hold nodes. Which
// operations are on numbers is the type checker's answer; whether a number is active is known
// only when it runs (a constant never gets a node). A function of the module the copy calls or
// passes as a value is copied too, under its taped name.
import type * as ts from 'typescript';
import { operatorTables } from '../frontend/operators';
import { MATH_FUNCTIONS } from '../prims/registry';
import { isBuiltIn, tsadExportName } from '../frontend/markers';
import type { TapedOps } from './prims';
import { LOGIC_TEMPORARY, TapedBoundaries } from './boundaries';
import { TapedRefusal } from './refusal';
import { TapedMethods } from './methods';
import type { TapedArrays } from './arrays';

export { TapedRefusal };

/** A function with a body that a taped copy can be made of: a declaration or a module-level const's arrow. */
export type TapedTarget = ts.FunctionDeclaration | ts.ArrowFunction | ts.FunctionExpression;
/** What gets a taped copy: a target, or a class's method called from taped code (its `this` the copy's first parameter). */
type Copied = TapedTarget | ts.MethodDeclaration;

/** A method copy's `this`. */
const SELF = 'tsad$self';

const TEMPORARY = 'tsad$old';

export class TapedFunctions {
  private readonly names = new Map<Copied, string>();
  private readonly queue: Copied[] = [];
  private readonly out: ts.Statement[] = [];
  private readonly taken = new Set<string>();

  constructor(
    private readonly tsApi: typeof ts,
    private readonly checker: ts.TypeChecker,
    private readonly ctx: ts.TransformationContext,
    private readonly prims: TapedOps,
    /** `tsad$rt.tsad$tape.<member>` */
    private readonly runtime: (member: string) => ts.Expression,
    /** `tsad$taped$` for reverse mode's copies, `tsad$dual$` for forward mode's, `tsad$taped2$` for second order's. */
    private readonly prefix: string,
    /** Reverse mode: the compiled valueAndGrad (every parameter) of a function that runs compiled when taped code calls it, else undefined. */
    private readonly compiledGradient?: (target: TapedTarget, call: ts.CallExpression) => string | undefined,
    /** Reverse mode: arrays as whole operations (one tape entry per map, reduce, sum, dot, prod). */
    private readonly arrays?: TapedArrays,
  ) {
    this.boundaries = new TapedBoundaries(tsApi, checker, ctx.factory, prims, runtime, (e) => this.isNumber(e));
    this.methods = new TapedMethods(tsApi, checker, ctx.factory, runtime, (m) => this.nameOf(m), prefix);
  }

  private readonly boundaries: TapedBoundaries;
  private readonly methods: TapedMethods;

  /** The name of the taped copy of `target` (made by `flush`). */
  nameOf(target: Copied): string {
    const known = this.names.get(target);
    if (known) return known;
    const base = `${this.prefix}${sourceName(this.tsApi, target).replace(/\W/g, '$')}`;
    let name = base;
    for (let k = 1; this.taken.has(name); k++) name = `${base}_${k}`;
    this.taken.add(name);
    this.names.set(target, name);
    this.queue.push(target);
    return name;
  }

  /** Makes the copies asked for so far (and those they need); a refusal leaves none of them. */
  flush(): void {
    const made: ts.Statement[] = [];
    try {
      for (let k = 0; k < this.queue.length; k++) made.push(this.copy(this.queue[k]));
    } catch (e) {
      for (const t of this.queue.splice(0)) this.names.delete(t);
      throw e;
    }
    this.queue.length = 0;
    this.out.push(...made);
  }

  statements(): ts.Statement[] {
    return [...this.methods.statements(), ...this.out];
  }

  /** What a module-level function a taped copy refers to is: a target, or undefined for anything else. */
  targetOf(expr: ts.Expression): TapedTarget | undefined {
    const t = this.tsApi;
    let sym = this.checker.getSymbolAtLocation(expr);
    if (!sym) return undefined;
    if (sym.flags & t.SymbolFlags.Alias) sym = this.checker.getAliasedSymbol(sym);
    const decl = sym.valueDeclaration ?? sym.declarations?.[0];
    if (!decl || isBuiltIn(decl) || decl.getSourceFile().isDeclarationFile) return undefined;
    let found: TapedTarget | undefined;
    if (t.isFunctionDeclaration(decl) && decl.body && t.isSourceFile(decl.parent)) found = decl;
    else if (t.isVariableDeclaration(decl) && decl.initializer && decl.parent.flags & t.NodeFlags.Const && t.isSourceFile(decl.parent.parent.parent)) {
      let init: ts.Expression = decl.initializer;
      while (t.isParenthesizedExpression(init) || t.isAsExpression(init) || t.isSatisfiesExpression(init)) init = init.expression;
      if (t.isCallExpression(init) && tsadExportName(init.expression, this.checker) === 'differentiable' && init.arguments[0]) init = init.arguments[0];
      if (t.isArrowFunction(init) || t.isFunctionExpression(init)) found = init;
    }
    if (found && found.getSourceFile() !== expr.getSourceFile()) {
      throw new TapedRefusal(expr, `taped code calls '${expr.getText()}' of another module, and taped mode takes the functions of one module yet`);
    }
    return found;
  }

  /**
   * Why `target` needs the tape when the compiled path's error did not say so (it stopped at an
   * earlier problem): a cycle of calls through the module's functions from it, in words; undefined
   * where there is none.
   */
  recursionFrom(target: TapedTarget): string | undefined {
    const t = this.tsApi;
    const path: TapedTarget[] = [];
    const done = new Set<TapedTarget>();
    const walk = (fn: TapedTarget): string | undefined => {
      if (path.includes(fn)) return `'${sourceName(t, fn)}' (line ${lineOf(fn)}) calls itself${path.length - path.indexOf(fn) > 1 ? ' through other functions' : ' directly'}`;
      if (done.has(fn)) return undefined;
      path.push(fn);
      let found: string | undefined;
      const visit = (n: ts.Node): void => {
        if (found) return;
        if (t.isCallExpression(n)) {
          let callee: TapedTarget | undefined;
          try {
            callee = this.targetOf(n.expression);
          } catch {
            callee = undefined;
          }
          if (callee) found = walk(callee);
        }
        if (!found) t.forEachChild(n, visit);
      };
      if (fn.body) visit(fn.body);
      path.pop();
      done.add(fn);
      return found;
    };
    return walk(target);
  }

  private copy(target: Copied): ts.FunctionDeclaration {
    const t = this.tsApi;
    const f = this.ctx.factory;
    const state: CopyState = { temporary: false, logic: false, method: t.isMethodDeclaration(target) ? target : undefined };
    const visit = (node: ts.Node): ts.Node => this.visit(node, visit, state);
    const params = target.parameters.map((p) => t.visitNode(p, visit) as ts.ParameterDeclaration);
    if (state.method) params.unshift(f.createParameterDeclaration(undefined, undefined, SELF));
    const body = target.body!;
    let statements: ts.Statement[];
    if (t.isBlock(body)) statements = [...(t.visitNodes(body.statements, visit) as ts.NodeArray<ts.Statement>)];
    else statements = [f.createReturnStatement(t.visitNode(body, visit) as ts.Expression)];
    if (state.temporary) statements.unshift(f.createVariableStatement(undefined, f.createVariableDeclarationList([f.createVariableDeclaration(TEMPORARY)], t.NodeFlags.Let)));
    if (state.logic) statements.unshift(f.createVariableStatement(undefined, f.createVariableDeclarationList([f.createVariableDeclaration(LOGIC_TEMPORARY)], t.NodeFlags.Let)));
    return f.createFunctionDeclaration(undefined, undefined, this.names.get(target)!, undefined, params, undefined, f.createBlock(statements, true));
  }

  private isNumber(e: ts.Node): boolean {
    const t = this.tsApi;
    const type = this.checker.getTypeAtLocation(e);
    const numberLike = (x: ts.Type) => (x.flags & t.TypeFlags.NumberLike) !== 0;
    return numberLike(type) || (type.isUnion() && type.types.every(numberLike));
  }

  /** A condition that is a number is tested by its value (a node object is always truthy). */
  private condition(e: ts.Expression, visit: (n: ts.Node) => ts.Node): ts.Expression {
    const v = this.tsApi.visitNode(e, visit) as ts.Expression;
    return this.isNumber(e) ? this.prims.value(v) : v;
  }

  private visit(node: ts.Node, visit: (n: ts.Node) => ts.Node, state: CopyState): ts.Node {
    const t = this.tsApi;
    const f = this.ctx.factory;
    const K = t.SyntaxKind;
    const sub = (n: ts.Expression) => t.visitNode(n, visit) as ts.Expression;
    const { arith, compare, compound } = operatorTables(t);
    if (node.kind === K.ThisKeyword) {
      // A method copy's `this` is its first parameter, also in the arrows inside it.
      let owner: ts.Node | undefined = node.parent;
      while (owner && !(t.isFunctionLike(owner) && !t.isArrowFunction(owner)) && !t.isClassLike(owner)) owner = owner.parent;
      if (state.method && owner === state.method) return f.createIdentifier(SELF);
      throw new TapedRefusal(node, 'taped code uses this outside a method of a class: taped mode takes functions and class methods');
    }
    if (t.isIdentifier(node)) {
      const target = this.isReference(node) ? this.targetOf(node) : undefined;
      return target ? f.createIdentifier(this.nameOf(target)) : node;
    }
    const boundary = this.boundaries.rewrite(node, sub, state);
    if (boundary) return boundary;
    if (t.isCallExpression(node)) {
      const callee = node.expression;
      const whole = this.arrays?.rewrite(node, sub);
      if (whole) return whole;
      const exported = tsadExportName(callee, this.checker);
      if (exported !== undefined) throw new TapedRefusal(node, `taped code calls tsad's ${exported}, which taped mode does not take yet`);
      if (t.isPropertyAccessExpression(callee) && t.isIdentifier(callee.expression) && callee.expression.text === 'Math' && MATH_FUNCTIONS.has(callee.name.text)) {
        const sym = this.checker.getSymbolAtLocation(callee.expression);
        if (sym?.declarations?.every(isBuiltIn)) return this.prims.apply(callee.name.text, node.arguments.map(sub));
      }
      if (t.isPropertyAccessExpression(callee) && (callee.name.text === 'subarray' || callee.name.text === 'set') && isTypedArray(this.checker.getTypeAtLocation(callee.expression))) {
        throw new TapedRefusal(node, `taped code calls ${callee.name.text} of a typed array: taped arrays are plain arrays of numbers and nodes, and taped mode does not take ${callee.name.text} yet`);
      }
      // A function the compiler takes runs compiled: one tape entry for the whole call.
      const target = t.isIdentifier(callee) && this.compiledGradient ? this.targetOf(callee) : undefined;
      const gradient = target && this.compiledGradient?.(target, node);
      if (gradient) {
        return f.createCallExpression(this.runtime('compiledCall'), undefined, [f.createIdentifier((callee as ts.Identifier).text), f.createIdentifier(gradient), ...node.arguments.map(sub)]);
      }
      if (t.isPropertyAccessExpression(callee)) {
        const dispatched = this.methods.call(node, sub(callee.expression), node.arguments.map(sub));
        if (dispatched) return dispatched;
      }
      return t.visitEachChild(node, visit, this.ctx);
    }
    // `Math.exp` as a value (passed to a function): the taped primitive, which takes nodes.
    if (t.isPropertyAccessExpression(node) && t.isIdentifier(node.expression) && node.expression.text === 'Math' && MATH_FUNCTIONS.has(node.name.text)) {
      const sym = this.checker.getSymbolAtLocation(node.expression);
      const taped = sym?.declarations?.every(isBuiltIn) ? this.prims.reference(node.name.text) : undefined;
      if (taped) return taped;
    }
    if (t.isNewExpression(node) && t.isIdentifier(node.expression) && (node.expression.text === 'Float64Array' || node.expression.text === 'Float32Array')) {
      const [size] = node.arguments ?? [];
      return f.createCallExpression(this.runtime('array'), undefined, size ? [sub(size)] : [f.createNumericLiteral(0)]);
    }
    if (t.isBinaryExpression(node)) {
      const op = node.operatorToken.kind;
      const numbers = () => this.isNumber(node.left) && this.isNumber(node.right);
      const a = arith[op] ?? compare[op];
      if (a && numbers()) return this.prims.apply(a, [sub(node.left), sub(node.right)]);
      const c = compound[op];
      if (c && this.isNumber(node.left)) {
        const left = sub(node.left);
        return f.createParenthesizedExpression(f.createAssignment(left, this.prims.apply(c, [sub(node.left), sub(node.right)])));
      }
      return t.visitEachChild(node, visit, this.ctx);
    }
    if (t.isPrefixUnaryExpression(node) && this.isNumber(node.operand)) {
      const operand = node.operand;
      switch (node.operator) {
        case K.MinusToken:
          return t.isNumericLiteral(operand) ? node : this.prims.apply('neg', [sub(operand)]);
        case K.PlusToken:
          return sub(operand);
        case K.ExclamationToken:
          return f.createLogicalNot(this.prims.value(sub(operand)));
        case K.PlusPlusToken:
        case K.MinusMinusToken:
          return f.createParenthesizedExpression(f.createAssignment(sub(operand), this.prims.apply(node.operator === K.PlusPlusToken ? 'add' : 'sub', [sub(operand), f.createNumericLiteral(1)])));
      }
    }
    if (t.isPostfixUnaryExpression(node) && this.isNumber(node.operand)) {
      const op = node.operator === K.PlusPlusToken ? 'add' : 'sub';
      const p = node.parent;
      const unused = t.isExpressionStatement(p) || (t.isForStatement(p) && p.incrementor === node);
      if (unused) return f.createAssignment(sub(node.operand), this.prims.apply(op, [sub(node.operand), f.createNumericLiteral(1)]));
      state.temporary = true;
      const old = f.createIdentifier(TEMPORARY);
      return f.createParenthesizedExpression(
        f.createCommaListExpression([f.createAssignment(old, sub(node.operand)), f.createAssignment(sub(node.operand), this.prims.apply(op, [old, f.createNumericLiteral(1)])), old]),
      );
    }
    if (t.isElementAccessExpression(node) && this.isNumber(node.argumentExpression) && !t.isNumericLiteral(node.argumentExpression)) {
      return f.updateElementAccessExpression(node, sub(node.expression), this.prims.value(sub(node.argumentExpression)));
    }
    if (t.isIfStatement(node)) {
      return f.updateIfStatement(
        node,
        this.condition(node.expression, visit),
        t.visitNode(node.thenStatement, visit) as ts.Statement,
        node.elseStatement && (t.visitNode(node.elseStatement, visit) as ts.Statement),
      );
    }
    if (t.isConditionalExpression(node)) {
      return f.updateConditionalExpression(node, this.condition(node.condition, visit), node.questionToken, sub(node.whenTrue), node.colonToken, sub(node.whenFalse));
    }
    if (t.isWhileStatement(node)) return f.updateWhileStatement(node, this.condition(node.expression, visit), t.visitNode(node.statement, visit) as ts.Statement);
    if (t.isDoStatement(node)) return f.updateDoStatement(node, t.visitNode(node.statement, visit) as ts.Statement, this.condition(node.expression, visit));
    if (t.isForStatement(node) && node.condition) {
      return f.updateForStatement(
        node,
        node.initializer && (t.visitNode(node.initializer, visit) as ts.ForInitializer),
        this.condition(node.condition, visit),
        node.incrementor && sub(node.incrementor),
        t.visitNode(node.statement, visit) as ts.Statement,
      );
    }
    return t.visitEachChild(node, visit, this.ctx);
  }

  /** An identifier read as a value (not a declaration's name, a property's name or a label). */
  private isReference(node: ts.Identifier): boolean {
    const t = this.tsApi;
    const p = node.parent;
    if (!p) return false;
    // A property's, member's or declaration's own name is no reference.
    if ((p as { name?: ts.Node }).name === node || (t.isQualifiedName(p) && p.right === node)) return false;
    return !(t.isLabeledStatement(p) || t.isBreakOrContinueStatement(p));
  }
}

function lineOf(node: ts.Node): number {
  const sf = node.getSourceFile();
  return sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
}

function isTypedArray(type: ts.Type): boolean {
  const name = type.getSymbol()?.getName();
  return name === 'Float64Array' || name === 'Float32Array';
}

interface CopyState {
  temporary: boolean;
  logic: boolean;
  /** The method being copied, whose `this` is the copy's first parameter. */
  readonly method: ts.MethodDeclaration | undefined;
}

/** The name a target is known by in the source (a method: Class.method). */
export function sourceName(t: typeof ts, target: Copied): string {
  if (t.isFunctionDeclaration(target) && target.name) return target.name.text;
  if (t.isMethodDeclaration(target)) return `${t.isClassLike(target.parent) && target.parent.name ? target.parent.name.text : 'anonymous'}.${target.name.getText()}`;
  let p: ts.Node = target.parent;
  while (p && !t.isVariableDeclaration(p)) p = p.parent;
  return p && t.isIdentifier(p.name) ? p.name.text : 'anonymous';
}
