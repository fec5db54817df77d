// Short variable names for an emitted function. The passes make every name unique in the program
// they transform, and each adds a counter where a name is taken (`x` → `x_1` inlined → `x_1_1` as
// a residual → `x_1_1_dot_8` its tangent), so a name ends up with a counter per pass it went
// through: bytes and noise in the printed code (issue 22, item 6). Names only have to be unique
// within the function they are printed in, so each local is renamed here to the first free name of
// its stem, the name without its counters: `x_1_1_1_dot_8` → `x_dot` (or `x_dot_1`, … when taken).
// A number in a name is not always a counter: `p_0`, `p_1` are the elements of a tuple `p` (and
// `p_dot_1` the tangent of one). Counters start at 1, elements at 0, so a number is read as an
// element index when the function has a local whose name goes on from the same text with `_0`.
// A name that is already its own stem (the source's `x`, `x_dot`, `p_1`) keeps it, so the code
// still reads in the source's names. The renaming is one-to-one and no local takes the name of
// anything else the function mentions (a global, a helper, another function), so what the
// function computes is unchanged; only its text is shorter.
import type * as ts from 'typescript';

/** A `_<digits>` segment somewhere in a name. */
const COUNTER = /_\d+(_|$)/;

/** The texts that a local's name continues with `_0` (`p` for `p_0`, `p_0_bar`): tuples' names. */
export function elementPrefixes(names: Iterable<string>): Set<string> {
  const prefixes = new Set<string>();
  for (const n of names) {
    if (!n.includes('_0')) continue;
    for (const m of n.matchAll(/_0(?=_|$)/g)) if (m.index > 0) prefixes.add(n.slice(0, m.index));
  }
  return prefixes;
}

/**
 * `x_dot` for `x_1_1_1_dot_8`: the name without its counters, the `_<digits>` segments that are
 * not element indices (whose text before them is not in `elements`, see elementPrefixes).
 */
export function stemOf(name: string, elements: ReadonlySet<string>): string {
  if (!COUNTER.test(name)) return name;
  const stem = name.replace(/_\d+(?=_|$)/g, (segment, at: number) => (elements.has(name.slice(0, at)) ? segment : ''));
  // A name that is all counters after its first segment (`_1`) keeps it.
  return stem.length > 0 ? stem : name;
}

/**
 * Renames the locals of a function (parameters and declared variables, `$` names excepted: they
 * are the emitter's own) to the shortest free names of their stems, in `body` itself; returns the
 * parameters' new names. The body's identifiers are nodes this emit made (synthesized, each used
 * in this function only), and they are renamed where they stand: rebuilding every statement
 * around them cost 2-3 % of a project's build (bench/build), the walk that finds them a tenth of
 * that. An identifier that is not synthesized, or the key of a `{ x }` literal, keeps its name.
 */
export function shortNames(t: typeof ts, params: readonly string[], body: readonly ts.Statement[]): string[] {
  const locals: string[] = [...params];
  const declared = new Set<string>(params);
  // Every other name the function mentions: a local must not take it.
  const taken = new Set<string>();
  // Locals that keep their names whatever their stems.
  const fixed = new Set<string>();
  const ids = new Set<ts.Identifier>();
  const collect = (n: ts.Node, parent: ts.Node | undefined): void => {
    if (t.isIdentifier(n)) {
      if (parent && isPropertyName(t, n, parent)) return;
      if (parent && isDeclared(t, n, parent)) {
        if (!declared.has(n.text)) {
          declared.add(n.text);
          locals.push(n.text);
        }
      } else taken.add(n.text);
      if (n.pos !== -1 || (parent && t.isShorthandPropertyAssignment(parent))) fixed.add(n.text);
      ids.add(n);
      return;
    }
    t.forEachChild(n, (c) => collect(c, n));
  };
  for (const s of body) collect(s, undefined);
  for (const x of declared) taken.delete(x);

  const elements = elementPrefixes(locals);
  const stems = new Map(locals.map((x) => [x, stemOf(x, elements)]));
  const keeps = (x: string) => x.startsWith('$') || stems.get(x) === x || fixed.has(x);
  // The names that keep theirs first, so no other takes them.
  for (const x of locals) if (keeps(x)) taken.add(x);
  const renamed = new Map<string, string>();
  const next = new Map<string, number>();
  const free = (name: string) => !taken.has(name) && !RESERVED.has(name);
  for (const x of locals) {
    if (keeps(x)) continue;
    const stem = stems.get(x)!;
    let name = stem;
    if (!free(name)) {
      let k = next.get(stem) ?? 1;
      while (!free(`${stem}_${k}`)) k++;
      next.set(stem, k + 1);
      name = `${stem}_${k}`;
    }
    taken.add(name);
    if (name !== x) renamed.set(x, name);
  }
  for (const id of ids) {
    const to = renamed.get(id.text);
    if (to !== undefined) (id as { escapedText: ts.__String }).escapedText = t.escapeLeadingUnderscores(to);
  }
  return params.map((p) => renamed.get(p) ?? p);
}

/** Words that may not name a variable in a module (strict code). */
const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof new null ' +
    'return super switch this throw true try typeof var void while with yield let static implements interface package private protected public await arguments eval'
  ).split(' '),
);

/** A name a declaration introduces: a variable, a destructured element, a parameter, a function. */
function isDeclared(t: typeof ts, id: ts.Identifier, parent: ts.Node): boolean {
  return (t.isVariableDeclaration(parent) || t.isBindingElement(parent) || t.isParameter(parent)) && parent.name === id;
}

/** A property's name (`a.n`, `{ n: … }`, `{ n: x } = …`): not a variable. */
function isPropertyName(t: typeof ts, id: ts.Identifier, parent: ts.Node): boolean {
  return (
    (t.isPropertyAccessExpression(parent) && parent.name === id) ||
    (t.isPropertyAssignment(parent) && parent.name === id) ||
    (t.isBindingElement(parent) && parent.propertyName === id) ||
    (t.isMethodDeclaration(parent) && parent.name === id)
  );
}
