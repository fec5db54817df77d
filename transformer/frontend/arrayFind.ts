// `xs.find(f) ?? fallback` (docs/frontend.md, "Arrays"): the first element f accepts, else the
// fallback, as JavaScript means it. `.find` is `.findIndex` (a constant index, arrayQueries.ts)
// and a read of that element; its value alone may be `undefined`, which a differentiable function
// cannot hold, so it is a diagnostic unless `??` gives the value for that case. The element is
// read, and the fallback computed, only on the path taken (a cond).
import type * as ts from 'typescript';
import { fail } from './diagnostics';
import type { ArrayLowering } from './arrays';
import { callbackArg } from './arrayCallbacks';
import { findIndex } from './arrayQueries';
import type { Value } from './values';
import { BOOLEAN } from './shapes';

/** `xs.find(f)` (or `xs.findLast(f)`) when e is one, with f written in place or passed by name. */
export function findCall(t: typeof ts, e: ts.Expression): ts.CallExpression | undefined {
  while (t.isParenthesizedExpression(e)) e = e.expression;
  return t.isCallExpression(e) && t.isPropertyAccessExpression(e.expression) && e.expression.name.text === 'find' ? e : undefined;
}

/** `.find`'s value on its own: refused (it is undefined where nothing is found). */
export function bareFind(e: ts.CallExpression): never {
  return fail(
    1121,
    e,
    ".find's value is undefined where no element is found, and a differentiable function holds no undefined: give the value for that case, xs.find(f) ?? fallback, or test the index, const k = xs.findIndex(f); if (k < 0) throw …; xs[k]",
  );
}

/**
 * The search of `xs.find(f)`: the array, the index of the first element f accepts (−1 for none,
 * a constant) and whether one was found. The caller reads the element on the path where it was.
 */
export function findFirst(arrays: ArrayLowering, call: ts.CallExpression): { xs: Value; k: Value; found: Value } {
  if (call.arguments.length !== 1) fail(1121, call, '.find takes one argument here, the callback (a thisArg is not supported)');
  const xs = arrays.arrayOf((call.expression as ts.PropertyAccessExpression).expression);
  const cb = callbackArg(arrays, call, 0, '.find', ['value', 'index', 'array']);
  const k = findIndex(arrays, xs, cb, call, 'found_at');
  const b = arrays.site.b();
  return { xs, k, found: { name: b.test('ge', [k.name, b.lit(0, 'zero')], 'found'), shape: BOOLEAN } };
}
