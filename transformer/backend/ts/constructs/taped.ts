// Calls of a function that runs taped from compiled code (constructs/taped) in TypeScript: the
// function itself, or the runtime's jvp, vjp and hvp over its generated copies
// (runtime/tapedCalls.ts), reached through the module's import of the runtime (transformer/taped).
import type * as ts from 'typescript';
import { IrError } from '../../../ir/syntax';
import type { ConstructExpr } from '../../../constructs/types';
import { TAPED_RUNTIME, calleeNames, tapedOperands } from '../../../constructs/taped';
import type { ConstructTsRule, EmitTsOps } from '../types';

/** `into = value` for a number, `[into₀, …] = value` for the cotangents (one per argument, an array even of one). */
function assignAll(ops: EmitTsOps, into: readonly string[], value: ts.Expression, several = false): ts.Statement {
  const f = ops.factory;
  const target = several ? f.createArrayLiteralExpression(into.map((n) => f.createIdentifier(n))) : f.createIdentifier(into[0]);
  return f.createExpressionStatement(f.createAssignment(target, value));
}

function callee(ops: EmitTsOps, e: ConstructExpr) {
  const literal = ops.ref(tapedOperands(e).callee);
  if (!ops.ts.isStringLiteral(literal)) throw new IrError(`${e.op}: the function's names must be a str literal`);
  return calleeNames(literal.text);
}

/** `tsad$rt.tsad$tape.<member>(…)` */
function runtime(ops: EmitTsOps, member: string, args: ts.Expression[]): ts.Expression {
  const f = ops.factory;
  return f.createCallExpression(f.createPropertyAccessExpression(f.createPropertyAccessExpression(f.createIdentifier(TAPED_RUNTIME), 'tsad$tape'), member), undefined, args);
}

const list = (ops: EmitTsOps, names: readonly string[]) => ops.factory.createArrayLiteralExpression(names.map((n) => ops.ref(n)));

// y = f(x̄)
const tapedCall: ConstructTsRule = (ops, e, into) => {
  const { args } = tapedOperands(e);
  return [
    assignAll(
      ops,
      into,
      ops.factory.createCallExpression(
        ops.factory.createIdentifier(callee(ops, e).plain),
        undefined,
        args.map((a) => ops.ref(a)),
      ),
    ),
  ];
};

// ẏ = tapedJvp(f$dual, [x̄], [ẋ̄])
const tapedJvp: ConstructTsRule = (ops, e, into) => {
  const { args, dargs } = tapedOperands(e);
  return [assignAll(ops, into, runtime(ops, 'tapedJvp', [ops.factory.createIdentifier(callee(ops, e).dual), list(ops, args), list(ops, dargs)]))];
};

/** Which arguments get a cotangent, `[true, false]`, where some do not (else nothing: all do). */
function liftedFlags(ops: EmitTsOps, lifted: readonly boolean[]): ts.Expression[] {
  if (lifted.every((l) => l)) return [];
  const f = ops.factory;
  return [f.createArrayLiteralExpression(lifted.map((l) => (l ? f.createTrue() : f.createFalse())))];
}

// [x̄̄…] = tapedVjp(f$taped, [x̄], ȳ, lifted?)
const tapedVjp: ConstructTsRule = (ops, e, into) => {
  const { args, ct, lifted } = tapedOperands(e);
  return [assignAll(ops, into, runtime(ops, 'tapedVjp', [ops.factory.createIdentifier(callee(ops, e).taped), list(ops, args), ops.ref(ct[0]), ...liftedFlags(ops, lifted)]), true)];
};

// [x̄̄˙…] = tapedHvp(f$taped2, [x̄], ȳ, [ẋ̄], ȳ˙, kept?)
const tapedHvp: ConstructTsRule = (ops, e, into) => {
  const { args, ct, dargs, dct, lifted } = tapedOperands(e);
  return [
    assignAll(
      ops,
      into,
      runtime(ops, 'tapedHvp', [ops.factory.createIdentifier(callee(ops, e).second), list(ops, args), ops.ref(ct[0]), list(ops, dargs), ops.ref(dct[0]), ...liftedFlags(ops, lifted)]),
      true,
    ),
  ];
};

export const tapedTs = { tapedCall, tapedJvp, tapedVjp, tapedHvp };
