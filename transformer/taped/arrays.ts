// Arrays as whole operations in taped reverse mode (runtime/tapeArrays.ts): `xs.map(f)`,
// `xs.reduce(f, init)` and tsad's sum, dot and prod over arrays of numbers, where the callback is
// arithmetic and Math's functions of its element (accumulator, index), of other arrays read at
// the same index (streams) and of numbers from outside (captures), become one runtime call that
// records ONE tape entry. Beside the taped callback (which still runs where a whole operation
// does not apply) it gets the callback on dual numbers, built from the forward-mode primitives:
// the partials are the registry's, as on the per-element path. Any other callback stays per
// element.
import type * as ts from 'typescript';
import { operatorTables } from '../frontend/operators';
import { isBuiltIn, tsadExportName } from '../frontend/markers';
import { MATH_FUNCTIONS } from '../prims/registry';
import type { TapedOps } from './prims';

/** The operators a whole-array callback may use (the others stay per element). */
const ARITHMETIC = new Set(['add', 'sub', 'mul', 'div', 'mod', 'pow']);

/** What a callback reads besides its own parameters: other arrays at its index, and numbers from outside. */
interface Reads {
  readonly streams: ts.Expression[];
  readonly captures: ts.Expression[];
  readonly keys: Map<string, ts.Identifier>;
}

export class TapedArrays {
  constructor(
    private readonly tsApi: typeof ts,
    private readonly checker: ts.TypeChecker,
    private readonly f: ts.NodeFactory,
    /** Reverse mode's primitives (the callbacks tsad's helpers fall back to). */
    private readonly reverse: TapedOps,
    /** Forward mode's primitives: the callback on dual numbers. */
    private readonly forward: TapedOps,
    /** `tsad$rt.tsad$tape.<member>` */
    private readonly runtime: (member: string) => ts.Expression,
  ) {}

  /** The whole-array form of `node`, its parts visited by `sub`; undefined where none applies. */
  rewrite(node: ts.CallExpression, sub: (e: ts.Expression) => ts.Expression): ts.Expression | undefined {
    const t = this.tsApi;
    const callee = node.expression;
    const helper = tsadExportName(callee, this.checker);
    if (helper !== undefined) return this.helper(helper, node.arguments, sub);
    if (!t.isPropertyAccessExpression(callee) || !this.isNumbers(callee.expression)) return undefined;
    const method = callee.name.text;
    const [callback, init, ...rest] = node.arguments;
    if (rest.length > 0 || !callback || !(t.isArrowFunction(callback) || t.isFunctionExpression(callback))) return undefined;
    if (method === 'map' && init === undefined) return this.whole('map', sub(callee.expression), callback, sub, ['element', 'index'], []);
    if (method === 'reduce' && this.isNumber(node)) {
      return this.whole('fold', sub(callee.expression), callback, sub, ['accumulator', 'element', 'index'], init ? [sub(init)] : []);
    }
    return undefined;
  }

  /** `rt.map|fold(xs, tapedCallback, callbackOnDuals, [streams], [captures], ...init)`, or undefined where the callback is not elementwise arithmetic. */
  private whole(
    kind: 'map' | 'fold',
    xs: ts.Expression,
    callback: ts.ArrowFunction | ts.FunctionExpression,
    sub: (e: ts.Expression) => ts.Expression,
    roles: readonly string[],
    init: ts.Expression[],
  ): ts.Expression | undefined {
    const t = this.tsApi;
    const f = this.f;
    const params = callback.parameters;
    if (params.length > roles.length || params.length < roles.length - 1 || params.some((p) => !t.isIdentifier(p.name) || p.initializer || p.dotDotDotToken)) return undefined;
    const body = returned(t, callback.body);
    if (!body) return undefined;
    const names = new Map<ts.Symbol, ts.Identifier>();
    params.forEach((p, k) => {
      const sym = this.checker.getSymbolAtLocation(p.name);
      if (sym) names.set(sym, f.createIdentifier(`tsad$${roles[k]}`));
    });
    const index = params[roles.length - 1] && this.checker.getSymbolAtLocation(params[roles.length - 1].name);
    const reads: Reads = { streams: [], captures: [], keys: new Map() };
    const onDuals = this.onDuals(body, names, index, reads, sub);
    if (!onDuals) return undefined;
    const parameter = (n: string) => f.createParameterDeclaration(undefined, undefined, n);
    const forwardParams = [...roles.map((r) => parameter(`tsad$${r}`)), ...reads.streams.map((_, q) => parameter(`tsad$s${q}`)), ...reads.captures.map((_, q) => parameter(`tsad$c${q}`))];
    const forwardBody = f.createArrowFunction(undefined, undefined, forwardParams, undefined, undefined, onDuals);
    return f.createCallExpression(this.runtime(kind), undefined, [
      xs,
      sub(callback),
      forwardBody,
      f.createArrayLiteralExpression(reads.streams),
      f.createArrayLiteralExpression(reads.captures),
      ...init,
    ]);
  }

  /** The callback's result on dual numbers, or undefined where it is not arithmetic of its inputs. */
  private onDuals(e: ts.Expression, names: Map<ts.Symbol, ts.Identifier>, index: ts.Symbol | undefined, reads: Reads, sub: (e: ts.Expression) => ts.Expression): ts.Expression | undefined {
    const t = this.tsApi;
    const K = t.SyntaxKind;
    const again = (x: ts.Expression) => this.onDuals(x, names, index, reads, sub);
    if (t.isParenthesizedExpression(e)) return again(e.expression);
    if (t.isNumericLiteral(e)) return e;
    if (!this.isNumber(e)) return undefined;
    if (t.isIdentifier(e)) {
      const sym = this.checker.getSymbolAtLocation(e);
      const own = sym && names.get(sym);
      if (own) return own;
    }
    // A number from outside the callback (a variable, a field): read once, before the loop.
    if (this.isOutside(e, names)) return this.read(reads, 'captures', 'c', e, sub);
    // `ys[i]` at the callback's own index: another array walked alongside.
    if (t.isElementAccessExpression(e) && t.isIdentifier(e.argumentExpression) && index && this.checker.getSymbolAtLocation(e.argumentExpression) === index) {
      if (this.isOutside(e.expression, names) && this.isNumbers(e.expression)) return this.read(reads, 'streams', 's', e.expression, sub);
      return undefined;
    }
    if (t.isPrefixUnaryExpression(e)) {
      const operand = again(e.operand);
      if (!operand) return undefined;
      if (e.operator === K.PlusToken) return operand;
      return e.operator === K.MinusToken ? this.forward.apply('neg', [operand]) : undefined;
    }
    if (t.isBinaryExpression(e)) {
      const op = operatorTables(t).arith[e.operatorToken.kind];
      if (!op || !ARITHMETIC.has(op) || !this.isNumber(e.left) || !this.isNumber(e.right)) return undefined;
      const [l, r] = [again(e.left), again(e.right)];
      return l && r ? this.forward.apply(op, [l, r]) : undefined;
    }
    if (t.isCallExpression(e) && t.isPropertyAccessExpression(e.expression) && t.isIdentifier(e.expression.expression) && e.expression.expression.text === 'Math') {
      const sym = this.checker.getSymbolAtLocation(e.expression.expression);
      if (!MATH_FUNCTIONS.has(e.expression.name.text) || !sym?.declarations?.every(isBuiltIn)) return undefined;
      const args = e.arguments.map(again);
      return args.every((a) => a !== undefined) ? this.forward.apply(e.expression.name.text, args as ts.Expression[]) : undefined;
    }
    return undefined;
  }

  /** The parameter of the callback on duals that stands for `e`, read once (the same text once). */
  private read(reads: Reads, kind: 'streams' | 'captures', prefix: string, e: ts.Expression, sub: (e: ts.Expression) => ts.Expression): ts.Identifier {
    const key = `${kind}:${e.getText()}`;
    const known = reads.keys.get(key);
    if (known) return known;
    const name = this.f.createIdentifier(`tsad$${prefix}${reads[kind].length}`);
    reads[kind].push(sub(e));
    reads.keys.set(key, name);
    return name;
  }

  /** Whether `e` is a name or a chain of fields (no call, nothing the callback binds): safe to read once outside. */
  private isOutside(e: ts.Expression, names: Map<ts.Symbol, ts.Identifier>): boolean {
    const t = this.tsApi;
    if (e.kind === t.SyntaxKind.ThisKeyword) return true;
    if (t.isIdentifier(e)) {
      const sym = this.checker.getSymbolAtLocation(e);
      return sym !== undefined && !names.has(sym) && !(sym.flags & t.SymbolFlags.Function);
    }
    if (t.isPropertyAccessExpression(e)) return this.isOutside(e.expression, names);
    return false;
  }

  /** tsad's sum, prod and dot: folds of add and mul. */
  private helper(name: string, args: readonly ts.Expression[], sub: (e: ts.Expression) => ts.Expression): ts.Expression | undefined {
    const f = this.f;
    const names = new Map<ts.Symbol, ts.Identifier>();
    const id = (n: string) => f.createIdentifier(n);
    const arrow = (params: string[], body: ts.Expression) =>
      f.createArrowFunction(
        undefined,
        undefined,
        params.map((p) => f.createParameterDeclaration(undefined, undefined, p)),
        undefined,
        undefined,
        body,
      );
    if ((name === 'sum' || name === 'prod') && args.length === 1 && this.isNumbers(args[0])) {
      const op = name === 'sum' ? 'add' : 'mul';
      const [a, x] = ['tsad$accumulator', 'tsad$element'];
      return f.createCallExpression(this.runtime('fold'), undefined, [
        sub(args[0]),
        arrow([a, x], this.reverse.apply(op, [id(a), id(x)])),
        arrow([a, x], this.forward.apply(op, [id(a), id(x)])),
        f.createArrayLiteralExpression([]),
        f.createArrayLiteralExpression([]),
        f.createNumericLiteral(name === 'sum' ? 0 : 1),
      ]);
    }
    if (name === 'dot' && args.length === 2 && args.every((a) => this.isNumbers(a) && this.isOutside(a, names))) {
      const [a, x, i, y] = ['tsad$accumulator', 'tsad$element', 'tsad$index', 'tsad$s0'];
      const other = sub(args[1]);
      const fallback = this.reverse.apply('add', [id(a), this.reverse.apply('mul', [id(x), f.createElementAccessExpression(sub(args[1]), id(i))])]);
      return f.createCallExpression(this.runtime('fold'), undefined, [
        f.createCallExpression(this.runtime('sameLength'), undefined, [sub(args[0]), other]),
        arrow([a, x, i], fallback),
        arrow([a, x, i, y], this.forward.apply('add', [id(a), this.forward.apply('mul', [id(x), id(y)])])),
        f.createArrayLiteralExpression([sub(args[1])]),
        f.createArrayLiteralExpression([]),
        f.createNumericLiteral(0),
      ]);
    }
    return undefined;
  }

  private isNumber(e: ts.Node): boolean {
    const t = this.tsApi;
    const type = this.checker.getTypeAtLocation(e);
    const numberLike = (x: ts.Type) => (x.flags & t.TypeFlags.NumberLike) !== 0;
    return numberLike(type) || (type.isUnion() && type.types.every(numberLike));
  }

  /** Whether `e` is an array (or typed array) of numbers. */
  private isNumbers(e: ts.Expression): boolean {
    const type = this.checker.getTypeAtLocation(e);
    const name = type.getSymbol()?.getName();
    if (name === 'Float64Array' || name === 'Float32Array') return true;
    if (!this.checker.isArrayType(type)) return false;
    const [element] = this.checker.getTypeArguments(type as ts.TypeReference);
    return element !== undefined && (element.flags & this.tsApi.TypeFlags.NumberLike) !== 0;
  }
}

/** The expression a callback returns: its expression body, or a block of one return. */
function returned(t: typeof ts, body: ts.ConciseBody): ts.Expression | undefined {
  if (!t.isBlock(body)) return body;
  const [only] = body.statements;
  return body.statements.length === 1 && t.isReturnStatement(only) && only.expression ? only.expression : undefined;
}
