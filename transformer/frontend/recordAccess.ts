// Where an expression reads into an array of records (frontend/records.ts): `ps[i].x`,
// `ps[i].pos[0]`, `ps[i][1]`, `ps[i].vel[j]`, `ps[i].vel.length`. Found syntactically, from
// the outside in, down to the element access whose object TypeScript types as an array of
// records; then resolved against the element's shape.
import type * as ts from 'typescript';
import { fail } from './diagnostics';
import { Shape, describeShape, typedArrayName } from './shapes';
import type { RecordKey } from './records';

/** One step of an access, as written: `.name`, `[2]`, `[j]`. */
export type AccessStep = { readonly field: string } | { readonly literal: number } | { readonly index: ts.Expression };

export interface RecordAccess {
  /** `ps` */
  readonly base: ts.Expression;
  /** `i` */
  readonly index: ts.Expression;
  /** What follows `ps[i]`, outermost last; never empty. */
  readonly steps: readonly AccessStep[];
}

/** Does TypeScript type `e` as an array of records or tuples? */
export function isRecordsTyped(t: typeof ts, checker: ts.TypeChecker, e: ts.Expression): boolean {
  const type = checker.getTypeAtLocation(e);
  if (!checker.isArrayType(type)) return false;
  const elem = checker.getTypeArguments(type as ts.TypeReference)[0];
  if (!elem) return false;
  if (checker.isTupleType(elem)) return true;
  return !!(elem.flags & t.TypeFlags.Object) && !checker.isArrayType(elem) && typedArrayName(t, elem) === undefined && elem.getCallSignatures().length === 0;
}

/** The access `e` makes into an element of an array of records, if it is one (and more than `ps[i]` itself). */
export function recordAccess(t: typeof ts, checker: ts.TypeChecker, e: ts.Expression): RecordAccess | undefined {
  const steps: AccessStep[] = [];
  let cur = e;
  for (;;) {
    while (t.isParenthesizedExpression(cur)) cur = cur.expression;
    if (t.isPropertyAccessExpression(cur)) {
      steps.unshift({ field: cur.name.text });
      cur = cur.expression;
    } else if (t.isElementAccessExpression(cur)) {
      if (isRecordsTyped(t, checker, cur.expression)) {
        return steps.length > 0 ? { base: cur.expression, index: cur.argumentExpression, steps } : undefined;
      }
      const arg = cur.argumentExpression;
      steps.unshift(t.isNumericLiteral(arg) ? { literal: Number(arg.text) } : { index: arg });
      cur = cur.expression;
    } else return undefined;
  }
}

/**
 * The steps resolved against the element's shape: the path to a part of the record, then at
 * most one more step into an array leaf (`[j]` or `.length`), or `.length` of a tuple; with
 * `deeper`, more steps into an array leaf come back as `rest`, after the path to the leaf.
 */
export function resolveAccess(elem: Shape, steps: readonly AccessStep[], node: ts.Node, deeper = false): { path: RecordKey[]; tail?: AccessStep; shape: Shape; rest?: readonly AccessStep[] } {
  let shape = elem;
  const path: RecordKey[] = [];
  for (const [k, step] of steps.entries()) {
    const last = k === steps.length - 1;
    const isLength = 'field' in step && step.field === 'length';
    if (shape.kind === 'array' || (isLength && shape.kind === 'tuple')) {
      // `ps[i].W[j][k]`: where the caller reads the leaf as a value (`deeper`), the rest follows it.
      if (!last && deeper && shape.kind === 'array') return { path, shape, rest: steps.slice(k) };
      if (!last) fail(1121, node, `only one index or .length can follow an array inside a record here (${describeShape(shape)})`);
      if ('field' in step && !isLength) fail(1102, node, `'.${step.field}' of an array is not supported here`);
      return { path, tail: step, shape };
    }
    if ('field' in step && shape.kind === 'object') {
      const f = shape.fields.find(([name]) => name === step.field);
      if (!f) return fail(1102, node, `no field ${step.field}`);
      path.push(step.field);
      shape = f[1];
    } else if ('literal' in step && shape.kind === 'tuple') {
      if (!(step.literal >= 0 && step.literal < shape.elems.length)) fail(1102, node, `index ${step.literal} is outside the tuple`);
      path.push(step.literal);
      shape = shape.elems[step.literal];
    } else if ('index' in step && shape.kind === 'tuple') {
      return fail(1121, node, `a tuple inside an array of records is indexed by a number literal ([0], [1]), not by a computed index`);
    } else return fail(1102, node, `${describeShape(shape)} has no part ${'field' in step ? `.${step.field}` : '[…]'}`);
  }
  return { path, shape };
}
