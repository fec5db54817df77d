// A callback's destructured parameter, `ps.map(({ x, y }) => …)`, `pairs.map(([a, b]) => …)`:
// the array layers bind each parameter to a symbol, so a pattern is bound whole to a symbol of
// the front end's own (one per parameter, never a user's name), and its names are bound to the
// value's parts where the callback's body is lowered (expressions.ts's callbackBody, loops.ts's
// .forEach), as a destructuring declaration binds them.
import type * as ts from 'typescript';
import { fail } from './diagnostics';

const patterns = new WeakMap<ts.ParameterDeclaration, ts.Symbol>();

/** The symbol a callback's parameter is bound to: its name's, or its pattern's own. */
export function callbackParamSymbol(t: typeof ts, checker: ts.TypeChecker, p: ts.ParameterDeclaration): ts.Symbol {
  if (p.dotDotDotToken || p.initializer) fail(1121, p, 'callback parameters with a default or a rest (...) are not supported: write plain names or a destructuring pattern');
  if (t.isIdentifier(p.name)) return checker.getSymbolAtLocation(p.name)!;
  let sym = patterns.get(p);
  if (!sym) {
    const name = `${p.name.getText().replace(/\W+/g, '_').replace(/^_|_$/g, '') || 'arg'}`;
    sym = { name, escapedName: name, flags: 0 } as unknown as ts.Symbol;
    patterns.set(p, sym);
  }
  return sym;
}
