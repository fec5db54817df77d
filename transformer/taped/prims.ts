// The primitives of taped code: one function per primitive and arity, emitted once per module,
// that computes the primitive on numbers or tape nodes and records its partials. Nothing here
// knows a derivative: the value is the TypeScript backend's entry for the primitive (backend/ts/prims), and each partial ∂y/∂xᵢ is
// the compiled path's own reverse mode (valueAndGradOf, hence the record's JVP rule, unzipped and
// transposed) of the one-primitive function `p(x̄) = op(x̄)`, emitted by the TypeScript backend.
// A partial that folds to the literal 0 (floor, sign, comparisons) is never recorded: such a
// primitive gives a constant.
import type * as ts from 'typescript';
import { valueAndGradOf } from '../ad/drivers';
import { emitDefs } from '../backend/emitTs';
import { primTs } from '../backend/ts/prims';
import { FnDef, REAL, binder, block, letS, prim, ret } from '../ir/syntax';
import { primDef } from '../prims/registry';

/** The partials of `op` at `arity`, as IR defs (undefined where one is a constant zero), shared by every module. */
const derived = new Map<string, readonly (FnDef | undefined)[] | 'constant'>();

function partialsOf(op: string, arity: number): readonly (FnDef | undefined)[] | 'constant' {
  const key = `${op}/${arity}`;
  const known = derived.get(key);
  if (known) return known;
  const def = primDef(op);
  const args = Array.from({ length: arity }, (_, i) => `a${i}`);
  let found: readonly (FnDef | undefined)[] | 'constant';
  if (def.typeRule(args.map(() => REAL)) !== REAL) found = 'constant';
  else {
    const p: FnDef = {
      name: 'p',
      nlParams: args.map((a) => binder(a, REAL)),
      linParams: [],
      nlResults: [REAL],
      linResults: [],
      body: block([letS([binder('y', REAL)], [], prim(op, args))], ret(['y'])),
    };
    const partials = gradientsOf(p, arity);
    found = partials.every((d) => d === undefined) ? 'constant' : partials;
  }
  derived.set(key, found);
  return found;
}

/** The derivatives of each partial of `op` at `arity` (second order): [i][j] is ∂ⱼ∂ᵢ op, undefined where zero. */
const derivedSecond = new Map<string, readonly (readonly (FnDef | undefined)[] | undefined)[]>();

function secondPartialsOf(op: string, arity: number): readonly (readonly (FnDef | undefined)[] | undefined)[] {
  const key = `${op}/${arity}`;
  const known = derivedSecond.get(key);
  if (known) return known;
  const first = partialsOf(op, arity);
  const found = first === 'constant' ? [] : first.map((d) => (d ? gradientsOf(d, arity) : undefined));
  derivedSecond.set(key, found);
  return found;
}

/** Each argument's partial of the scalar function `d` of `arity` reals, by the compiled path (undefined where zero). */
function gradientsOf(d: FnDef, arity: number): readonly (FnDef | undefined)[] {
  const program = { defs: [{ ...d, name: 'p' }] };
  return Array.from({ length: arity }, (_, i) => {
    const { program: q, valueAndGrad } = valueAndGradOf(program, 'p', { wrt: [i], value: false, simplify: true });
    const g = q.defs.find((x) => x.name === valueAndGrad)!;
    return isZero(g) ? undefined : g;
  });
}

/** `let z = 0 ... (z ;)`: the partial is the constant zero. */
function isZero(d: FnDef): boolean {
  const [result] = d.body.result.tag === 'ret' ? d.body.result.nl : [];
  return d.body.stmts.some((s) => s.tag === 'let' && s.nl.length === 1 && s.nl[0].name === result && s.rhs.tag === 'lit' && s.rhs.value === 0);
}

/** What a taped copy's operations on numbers become (body.ts): one mode's primitives. */
export interface TapedOps {
  /** The value of a number or a node (for indices, tests and conditions). */
  value(x: ts.Expression): ts.Expression;
  /** `op` applied to numbers or nodes. */
  apply(op: string, args: readonly ts.Expression[]): ts.Expression;
  /** `op` as a function value (`Math.exp` passed to a function), for a primitive of one arity. */
  reference(op: string): ts.Expression | undefined;
}

/** The module's binding of the runtime's Forward class. */
const FORWARD = 'tsad$Forward';

const MODE_PREFIX: Record<Mode, string> = { reverse: 'taped', forward: 'dual', second: 'taped2' };

/** Reverse mode records partials; forward runs dual numbers; second records partials and their tangents (forward over reverse). */
type Mode = 'reverse' | 'forward' | 'second';

/**
 * The module's taped primitives and the helpers they need, in two modes sharing the partials:
 * reverse mode records them on the tape of a node argument; forward mode (dual numbers, for jvp)
 * sums them times the arguments' tangents.
 */
export class TapedPrims implements TapedOps {
  private readonly names = new Map<string, string>();
  private readonly out: ts.Statement[] = [];
  /** The same primitives in forward mode. */
  readonly forward: TapedOps = this.inMode('forward');
  /** Second order (hvp, hessian): nodes that carry tangents, partials recorded with theirs. */
  readonly second: TapedOps = this.inMode('second');

  constructor(
    private readonly tsApi: typeof ts,
    private readonly f: ts.NodeFactory,
    /** `tsad$rt.tsad$tape.<member>` */
    private readonly runtime: (member: string) => ts.Expression,
  ) {}

  value(x: ts.Expression): ts.Expression {
    if (!this.names.has('$v')) {
      this.names.set('$v', 'tsad$v');
      const a = this.f.createIdentifier('x');
      this.out.push(this.fn('tsad$v', ['x'], [this.f.createReturnStatement(this.valueOf(a))]));
    }
    return this.f.createCallExpression(this.f.createIdentifier('tsad$v'), undefined, [x]);
  }

  apply(op: string, args: readonly ts.Expression[]): ts.Expression {
    return this.call(op, args, 'reverse');
  }

  reference(op: string): ts.Expression | undefined {
    return this.referenceIn(op, 'reverse');
  }

  statements(): ts.Statement[] {
    return this.out;
  }

  /** Whether a forward primitive was emitted: the module then binds the runtime's Forward once. */
  forwardUsed = false;

  /**
   * `const tsad$Forward = tsad$rt.tsad$tape.Forward`, for the module's top, after the runtime's
   * import: each dual-number operation reads the binding, not the runtime's re-export getter (a
   * call per operation that cost about 40% of a map's partials).
   */
  forwardBinding(): ts.Statement[] {
    if (!this.forwardUsed) return [];
    const f = this.f;
    return [f.createVariableStatement(undefined, f.createVariableDeclarationList([f.createVariableDeclaration(FORWARD, undefined, undefined, this.runtime('Forward'))], this.tsApi.NodeFlags.Const))];
  }

  private inMode(mode: Mode): TapedOps {
    return { value: (x) => this.value(x), apply: (op, args) => this.call(op, args, mode), reference: (op) => this.referenceIn(op, mode) };
  }

  private referenceIn(op: string, mode: Mode): ts.Expression | undefined {
    const { min, max } = primDef(op).arity;
    return min === max ? this.f.createIdentifier(this.use(op, max, mode)) : undefined;
  }

  private call(op: string, args: readonly ts.Expression[], mode: Mode): ts.Expression {
    return this.f.createCallExpression(this.f.createIdentifier(this.use(op, args.length, mode)), undefined, [...args]);
  }

  /** The names of the emitted partials of `op` at `arity` (undefined for a zero one), or 'constant'. */
  private partials(op: string, arity: number): readonly (string | undefined)[] | 'constant' {
    const defs = partialsOf(op, arity);
    if (defs === 'constant') return 'constant';
    const base = `tsad$partial_${op}${primDef(op).arity.max === Infinity ? `_${arity}` : ''}`;
    return defs.map((d, i) => {
      if (!d) return undefined;
      const name = `${base}$d${i}`;
      if (!this.names.has(name)) {
        this.names.set(name, name);
        this.out.push(...emitDefs([d], { factory: this.f, tsApi: this.tsApi, fnName: () => name }));
      }
      return name;
    });
  }

  /** The names of the emitted derivatives of each partial of `op` ([i][j]: ∂ⱼ of partial i; undefined where zero). */
  private secondPartials(op: string, arity: number): readonly (readonly (string | undefined)[] | undefined)[] {
    const base = `tsad$partial_${op}${primDef(op).arity.max === Infinity ? `_${arity}` : ''}`;
    return secondPartialsOf(op, arity).map((row, i) =>
      row?.map((d, j) => {
        if (!d) return undefined;
        const name = `${base}$d${i}$d${j}`;
        if (!this.names.has(name)) {
          this.names.set(name, name);
          this.out.push(...emitDefs([d], { factory: this.f, tsApi: this.tsApi, fnName: () => name }));
        }
        return name;
      }),
    );
  }

  private use(op: string, arity: number, mode: Mode): string {
    const partialNames = this.partials(op, arity);
    const variadic = primDef(op).arity.max === Infinity ? `_${arity}` : '';
    const name = partialNames === 'constant' ? `tsad$constant_${op}${variadic}` : `tsad$${MODE_PREFIX[mode]}_${op}${variadic}`;
    if (this.names.has(name)) return name;
    this.names.set(name, name);
    const f = this.f;
    const args = Array.from({ length: arity }, (_, i) => `a${i}`);
    const values = args.map((_, i) => `v${i}`);
    const id = (n: string) => f.createIdentifier(n);
    const emit = (xs: readonly string[]) => primTs(op)(xs.map(id), f);
    const consts = (names: readonly string[], inits: readonly ts.Expression[]) =>
      f.createVariableStatement(
        undefined,
        f.createVariableDeclarationList(
          names.map((n, i) => f.createVariableDeclaration(n, undefined, undefined, inits[i])),
          this.tsApi.NodeFlags.Const,
        ),
      );
    if (partialNames === 'constant') {
      // A constant of the values: no node, whatever the arguments are.
      this.out.push(
        this.fn(name, args, [
          consts(
            values,
            args.map((a) => this.valueOf(id(a))),
          ),
          f.createReturnStatement(emit(values)),
        ]),
      );
      return name;
    }
    const isNumber = (a: string) => f.createStrictEquality(f.createTypeOfExpression(id(a)), f.createStringLiteral('number'));
    const constant = args.map((_, i) => `c${i}`);
    const allConstant = constant.map((c): ts.Expression => id(c)).reduce((acc, c) => f.createLogicalAnd(acc, c));
    const computed = (i: number): ts.Expression => {
      const p = partialNames[i];
      return p ? f.createCallExpression(id(p), undefined, values.map(id)) : f.createNumericLiteral(0);
    };
    // The partial of an argument that is a constant is never computed: nothing reads it.
    const partialOf = (i: number): ts.Expression => f.createConditionalExpression(id(constant[i]), undefined, f.createNumericLiteral(0), undefined, computed(i));
    let result: ts.Expression;
    const prelude: ts.Statement[] = [];
    if (mode === 'second') {
      // Forward over reverse: the node's tangent ẏ = Σᵢ ∂ᵢ·ẋᵢ and each partial's tangent
      // (∂ᵢ)˙ = Σⱼ ∂ⱼ∂ᵢ·ẋⱼ, from the partials' own partials (no second rule table either).
      const second = this.secondPartials(op, arity);
      const tangentOf = (i: number) => f.createConditionalExpression(id(constant[i]), undefined, f.createNumericLiteral(0), undefined, f.createPropertyAccessExpression(id(args[i]), 'd'));
      const sum = (terms: ts.Expression[]) => (terms.length === 0 ? f.createNumericLiteral(0) : terms.reduce((acc, t) => f.createAdd(acc, t)));
      const partialName = (i: number) => `p${i}`;
      const tangentName = (i: number) => `t${i}`;
      const partialTangent = (i: number): ts.Expression => {
        const row = second[i];
        const terms = args.flatMap((_, j) => {
          const h = row?.[j];
          return h
            ? [
                f.createConditionalExpression(
                  id(constant[j]),
                  undefined,
                  f.createNumericLiteral(0),
                  undefined,
                  f.createMultiply(f.createCallExpression(id(h), undefined, values.map(id)), id(tangentName(j))),
                ),
              ]
            : [];
        });
        return f.createConditionalExpression(id(constant[i]), undefined, f.createNumericLiteral(0), undefined, sum(terms));
      };
      prelude.push(
        consts(
          args.map((_, i) => tangentName(i)),
          args.map((_, i) => tangentOf(i)),
        ),
        consts(
          args.map((_, i) => partialName(i)),
          args.map((_, i) => partialOf(i)),
        ),
      );
      const tape = args.slice(0, -1).reduceRight<ts.Expression>((rest, a, i) => f.createConditionalExpression(id(constant[i]), undefined, rest, undefined, id(a)), id(args[args.length - 1]));
      const tangent = sum(args.map((_, i) => f.createMultiply(id(partialName(i)), id(tangentName(i)))));
      result = f.createCallExpression(f.createPropertyAccessExpression(f.createPropertyAccessExpression(f.createParenthesizedExpression(tape), 'tape'), 'recordWithTangent'), undefined, [
        emit(values),
        tangent,
        f.createArrayLiteralExpression(args.map(id)),
        f.createArrayLiteralExpression(args.map((_, i) => id(partialName(i)))),
        f.createArrayLiteralExpression(args.map((_, i) => partialTangent(i))),
      ]);
    } else if (mode === 'forward') {
      // ẏ = Σᵢ ∂ᵢ · ẋᵢ over the arguments that carry a tangent.
      const terms = args.map((a, i) =>
        f.createConditionalExpression(id(constant[i]), undefined, f.createNumericLiteral(0), undefined, f.createMultiply(computed(i), f.createPropertyAccessExpression(id(a), 'd'))),
      );
      const tangent = (terms as ts.Expression[]).reduce((acc, t) => f.createAdd(acc, t));
      this.forwardUsed = true;
      result = f.createNewExpression(f.createIdentifier(FORWARD), undefined, [emit(values), tangent]);
    } else {
      // The tape: that of any argument that is a node (one is, once all-constant has returned).
      const tape = args.slice(0, -1).reduceRight<ts.Expression>((rest, a, i) => f.createConditionalExpression(id(constant[i]), undefined, rest, undefined, id(a)), id(args[args.length - 1]));
      const on = (method: string) => f.createPropertyAccessExpression(f.createPropertyAccessExpression(f.createParenthesizedExpression(tape), 'tape'), method);
      result =
        arity === 1
          ? f.createCallExpression(on('record1'), undefined, [emit(values), id(args[0]), partialOf(0)])
          : arity === 2
            ? f.createCallExpression(on('record2'), undefined, [emit(values), id(args[0]), partialOf(0), id(args[1]), partialOf(1)])
            : f.createCallExpression(on('recordN'), undefined, [emit(values), f.createArrayLiteralExpression(args.map(id)), f.createArrayLiteralExpression(args.map((_, i) => partialOf(i)))]);
    }
    this.out.push(
      this.fn(name, args, [
        consts(
          constant,
          args.map((a) => isNumber(a)),
        ),
        f.createIfStatement(allConstant, f.createReturnStatement(emit(args))),
        consts(
          values,
          args.map((a, i) => f.createConditionalExpression(id(constant[i]), undefined, id(a), undefined, f.createPropertyAccessExpression(id(a), 'v'))),
        ),
        ...prelude,
        f.createReturnStatement(result),
      ]),
    );
    return name;
  }

  /** `typeof x === "number" ? x : x.v` */
  private valueOf(x: ts.Identifier): ts.Expression {
    const f = this.f;
    return f.createConditionalExpression(f.createStrictEquality(f.createTypeOfExpression(x), f.createStringLiteral('number')), undefined, x, undefined, f.createPropertyAccessExpression(x, 'v'));
  }

  private fn(name: string, params: readonly string[], body: ts.Statement[]): ts.FunctionDeclaration {
    return functionDeclaration(this.f, name, params, body);
  }
}

/** `function name(params) { body }`, as the taped code's generated functions are written. */
export function functionDeclaration(f: ts.NodeFactory, name: string, params: readonly string[], body: ts.Statement[]): ts.FunctionDeclaration {
  return f.createFunctionDeclaration(
    undefined,
    undefined,
    name,
    undefined,
    params.map((p) => f.createParameterDeclaration(undefined, undefined, p)),
    undefined,
    f.createBlock(body, true),
  );
}
