// The primitives of taped code: one function per primitive and arity, emitted once per module,
// that computes the primitive on numbers or tape nodes and records its partials. Nothing here
// knows a derivative: the value is the primitive record's `emitTs`, and each partial ∂y/∂xᵢ is
// the compiled path's own reverse mode (valueAndGradOf, hence the record's JVP rule, unzipped and
// transposed) of the one-primitive function `p(x̄) = op(x̄)`, emitted by the TypeScript backend.
// A partial that folds to the literal 0 (floor, sign, comparisons) is never recorded: such a
// primitive gives a constant.
import type * as ts from 'typescript';
import { valueAndGradOf } from '../ad/drivers';
import { emitDefs } from '../backend/emitTs';
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
    const program = { defs: [p] };
    const partials = args.map((_, i) => {
      const { program: q, valueAndGrad } = valueAndGradOf(program, 'p', { wrt: [i], value: false, simplify: true });
      const d = q.defs.find((x) => x.name === valueAndGrad)!;
      return isZero(d) ? undefined : d;
    });
    found = partials.every((d) => d === undefined) ? 'constant' : partials;
  }
  derived.set(key, found);
  return found;
}

/** `let z = 0 ... (z ;)`: the partial is the constant zero. */
function isZero(d: FnDef): boolean {
  const [result] = d.body.result.tag === 'ret' ? d.body.result.nl : [];
  return d.body.stmts.some((s) => s.tag === 'let' && s.nl.length === 1 && s.nl[0].name === result && s.rhs.tag === 'lit' && s.rhs.value === 0);
}

/** The module's taped primitives and the helpers they need. */
export class TapedPrims {
  private readonly names = new Map<string, string>();
  private readonly out: ts.Statement[] = [];

  constructor(
    private readonly tsApi: typeof ts,
    private readonly f: ts.NodeFactory,
  ) {}

  /** `tsad$v(x)`: the value of a number or a node (for indices, tests and conditions). */
  value(x: ts.Expression): ts.Expression {
    if (!this.names.has('$v')) {
      this.names.set('$v', 'tsad$v');
      const a = this.f.createIdentifier('x');
      this.out.push(this.fn('tsad$v', ['x'], [this.f.createReturnStatement(this.valueOf(a))]));
    }
    return this.f.createCallExpression(this.f.createIdentifier('tsad$v'), undefined, [x]);
  }

  /** A call of the taped `op` on `args` (taped expressions). */
  apply(op: string, args: readonly ts.Expression[]): ts.Expression {
    return this.f.createCallExpression(this.f.createIdentifier(this.use(op, args.length)), undefined, [...args]);
  }

  statements(): ts.Statement[] {
    return this.out;
  }

  private use(op: string, arity: number): string {
    const key = `${op}/${arity}`;
    const known = this.names.get(key);
    if (known) return known;
    const name = `tsad$taped_${op}${primDef(op).arity.max === Infinity ? `_${arity}` : ''}`;
    this.names.set(key, name);
    const partials = partialsOf(op, arity);
    const f = this.f;
    const args = Array.from({ length: arity }, (_, i) => `a${i}`);
    const values = args.map((_, i) => `v${i}`);
    const id = (n: string) => f.createIdentifier(n);
    const emit = (xs: readonly string[]) => primDef(op).emitTs(xs.map(id), f);
    const consts = (names: readonly string[], inits: readonly ts.Expression[]) =>
      f.createVariableStatement(
        undefined,
        f.createVariableDeclarationList(
          names.map((n, i) => f.createVariableDeclaration(n, undefined, undefined, inits[i])),
          this.tsApi.NodeFlags.Const,
        ),
      );
    if (partials === 'constant') {
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
    const partialNames = partials.map((d, i) => (d ? `${name}$d${i}` : undefined));
    partials.forEach((d, i) => {
      if (d) this.out.push(...emitDefs([d], { factory: f, tsApi: this.tsApi, fnName: () => partialNames[i]! }));
    });
    const isNumber = (a: string) => f.createStrictEquality(f.createTypeOfExpression(id(a)), f.createStringLiteral('number'));
    const constant = args.map((_, i) => `c${i}`);
    const allConstant = constant.map((c): ts.Expression => id(c)).reduce((acc, c) => f.createLogicalAnd(acc, c));
    // The partial of an argument that is a constant is never computed: nothing reads it.
    const partialOf = (i: number): ts.Expression => {
      const p = partialNames[i];
      const computed = p ? f.createCallExpression(id(p), undefined, values.map(id)) : f.createNumericLiteral(0);
      return f.createConditionalExpression(id(constant[i]), undefined, f.createNumericLiteral(0), undefined, computed);
    };
    // The tape: that of any argument that is a node (one is, once all-constant has returned).
    const tape = args.slice(0, -1).reduceRight<ts.Expression>((rest, a, i) => f.createConditionalExpression(id(constant[i]), undefined, rest, undefined, id(a)), id(args[args.length - 1]));
    const record =
      arity === 1
        ? f.createCallExpression(f.createPropertyAccessExpression(f.createPropertyAccessExpression(id(args[0]), 'tape'), 'record1'), undefined, [emit(values), id(args[0]), partialOf(0)])
        : arity === 2
          ? f.createCallExpression(f.createPropertyAccessExpression(f.createPropertyAccessExpression(f.createParenthesizedExpression(tape), 'tape'), 'record2'), undefined, [
              emit(values),
              id(args[0]),
              partialOf(0),
              id(args[1]),
              partialOf(1),
            ])
          : f.createCallExpression(f.createPropertyAccessExpression(f.createPropertyAccessExpression(f.createParenthesizedExpression(tape), 'tape'), 'recordN'), undefined, [
              emit(values),
              f.createArrayLiteralExpression(args.map(id)),
              f.createArrayLiteralExpression(args.map((_, i) => partialOf(i))),
            ]);
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
        f.createReturnStatement(record),
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
    const f = this.f;
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
}
