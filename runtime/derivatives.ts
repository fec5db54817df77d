// Derivatives that travel with function values (docs/frontend.md, "Functions passed as values"):
// where a marked function or an arrow is passed to a parameter that some function transforms
// (`grad(loss)` in a user's own `minimize(loss, x0)`), the call site registers the derivatives
// compiled for it here, keyed by the function object, and the transform of the parameter looks
// them up when it runs. A function passed from code tsad did not see has none: a TypeError says
// so, naming the parameter, rather than differentiating something else.

type Fn = (...args: never[]) => unknown;

const registry = new WeakMap<Fn, Record<string, unknown>>();

/** `fn` with `derivatives` (by `kind|wrt`) registered for it; returns `fn`. */
export function withDerivatives<F extends Fn>(fn: F, derivatives: Record<string, unknown>): F {
  if (typeof fn !== 'function') return fn;
  const known = registry.get(fn);
  if (known) Object.assign(known, derivatives);
  else registry.set(fn, { ...derivatives });
  return fn;
}

/** The derivative `key` (`grad|0`) registered for `fn`; `what` (`grad(loss)`) names it in the error when there is none. */
export function derivativeOf(fn: Fn, key: string, what: string): unknown {
  const found = typeof fn === 'function' ? registry.get(fn)?.[key] : undefined;
  if (found !== undefined) return found;
  const name = typeof fn === 'function' && fn.name ? `'${fn.name}'` : typeof fn === 'function' ? 'an anonymous function' : `a ${typeof fn}`;
  throw new TypeError(
    `tsad: ${what} was given ${name}, which has no derivative compiled for it: pass a marked function (@differentiable) or an arrow written at the call, to a call tsad compiles (docs/frontend.md, "Functions passed as values")`,
  );
}
