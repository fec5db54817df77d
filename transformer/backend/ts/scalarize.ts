// Scalar replacement of emitted tuples: a `let x;` that is only ever assigned array literals of
// one length k (`x = [a, b, c];`) and only ever read by destructuring (`const [p, q] = x;`)
// becomes k variables, `let x$0, x$1, x$2;`, assigned and read element by element. This is the
// shape a branch's residuals take in a fused derivative (the record a construct's unzip packs
// them into, built in each branch and unpacked by each backward pass): written as an array, it
// is one allocation per call that V8 does not remove (the array comes from two branches). Each
// literal is fresh and nothing else sees x, so its elements are all there is to it.
// Not applied in a function with a `try` (a throw between two element assignments would be
// observable in its catch) or where x is read any other way.
import type * as ts from 'typescript';

export function scalarizeTuples(t: typeof ts, statements: readonly ts.Statement[]): ts.Statement[] {
  const found = candidates(t, statements);
  if (found.size === 0) return statements as ts.Statement[];
  const taken = new Set<string>();
  const collect = (n: ts.Node): void => {
    if (t.isIdentifier(n)) taken.add(n.text);
    t.forEachChild(n, collect);
  };
  statements.forEach(collect);
  const parts = new Map<string, string[]>();
  for (const [x, { length, names }] of found) {
    parts.set(
      x,
      Array.from({ length }, (_, i) => {
        // Named as the first unpacking names the element, when x is not assigned again after it
        // (names are unique per function, and that unpacking's declaration of it goes); else
        // after the tuple, and each unpacking copies (the tidy renames the copies it can).
        if (names[i] !== undefined && !names[i]!.startsWith('unused')) return names[i]!;
        let name = `${x}$${i}`;
        while (taken.has(name)) name = `${name}$`;
        taken.add(name);
        return name;
      }),
    );
  }
  return rewrite(t, statements, parts);
}

/** The variables that qualify, with their length and the names their first unpacking gives. */
function candidates(t: typeof ts, statements: readonly ts.Statement[]): Map<string, { length: number; names: readonly (string | undefined)[] }> {
  const K = t.SyntaxKind;
  /** The longest destructuring of each variable. */
  const read = new Map<string, number>();
  const firstNames = new Map<string, (string | undefined)[]>();
  /** The lengths of the literals assigned to each variable. */
  const built = new Map<string, number[]>();
  const declared = new Set<string>();
  const bad = new Set<string>();
  let hasTry = false;
  // Where, in the order of the text, each variable is last built and first unpacked, and whether
  // either happens in a loop (where an unpacking can come before a build of the next iteration).
  let clock = 0;
  let loops = 0;
  const lastBuilt = new Map<string, number>();
  const firstRead = new Map<string, number>();
  const inLoop = new Set<string>();
  const isLoop = (n: ts.Node) => t.isForStatement(n) || t.isWhileStatement(n) || t.isDoStatement(n) || t.isForOfStatement(n) || t.isForInStatement(n);
  // Factory-made nodes have no parents: a declaration is judged from its list.
  const visit = (n: ts.Node): void => {
    if (t.isTryStatement(n)) hasTry = true;
    if (isLoop(n)) {
      loops++;
      t.forEachChild(n, visit);
      loops--;
      return;
    }
    if (t.isVariableDeclarationList(n)) {
      const isLet = (n.flags & t.NodeFlags.Let) !== 0;
      for (const d of n.declarations) {
        // `let x;`
        if (t.isIdentifier(d.name)) {
          if (isLet && !d.initializer) declared.add(d.name.text);
          else bad.add(d.name.text);
          if (d.initializer) visit(d.initializer);
        } else if (t.isArrayBindingPattern(d.name) && d.initializer && t.isIdentifier(d.initializer)) {
          // `const [p, , q] = x;`
          const x = d.initializer.text;
          const plain = d.name.elements.every((e) => t.isOmittedExpression(e) || (!e.dotDotDotToken && !e.initializer && t.isIdentifier(e.name)));
          if (plain) {
            read.set(x, Math.max(read.get(x) ?? 0, d.name.elements.length));
            if (!firstRead.has(x)) firstRead.set(x, clock++);
            if (loops > 0) inLoop.add(x);
            if (!firstNames.has(x))
              firstNames.set(
                x,
                d.name.elements.map((e) => (t.isBindingElement(e) ? (e.name as ts.Identifier).text : undefined)),
              );
          } else bad.add(x);
        } else t.forEachChild(d, visit);
      }
      return;
    }
    // `x = [a, b];` as a statement of its own.
    if (t.isExpressionStatement(n) && t.isBinaryExpression(n.expression) && n.expression.operatorToken.kind === K.EqualsToken && t.isIdentifier(n.expression.left)) {
      const value = n.expression.right;
      const x = n.expression.left.text;
      if (t.isArrayLiteralExpression(value) && value.elements.every((e) => !t.isSpreadElement(e) && !t.isOmittedExpression(e))) {
        const known = built.get(x) ?? [];
        known.push(value.elements.length);
        built.set(x, known);
        lastBuilt.set(x, clock++);
        if (loops > 0) inLoop.add(x);
      } else bad.add(x);
      visit(value);
      return;
    }
    // Any other mention: a read of the whole array, or a write of another kind.
    if (t.isIdentifier(n)) {
      bad.add(n.text);
      return;
    }
    t.forEachChild(n, visit);
  };
  statements.forEach(visit);
  const out = new Map<string, { length: number; names: readonly (string | undefined)[] }>();
  if (hasTry) return out;
  for (const [x, ks] of built) {
    if (!declared.has(x) || bad.has(x) || ks.some((k) => k !== ks[0]) || (read.get(x) ?? 0) > ks[0]) continue;
    const settled = !inLoop.has(x) && (firstRead.get(x) ?? Infinity) > (lastBuilt.get(x) ?? -1);
    out.set(x, { length: ks[0], names: settled ? (firstNames.get(x) ?? []) : [] });
  }
  return out;
}

function rewrite(t: typeof ts, statements: readonly ts.Statement[], parts: ReadonlyMap<string, readonly string[]>): ts.Statement[] {
  const f = t.factory;
  const K = t.SyntaxKind;
  const visit = (n: ts.Node): ts.VisitResult<ts.Node> => {
    if (t.isVariableDeclarationList(n) && n.declarations.some((d) => t.isIdentifier(d.name) && parts.has(d.name.text))) {
      const decls = n.declarations.flatMap((d) => (t.isIdentifier(d.name) && parts.has(d.name.text) ? parts.get(d.name.text)!.map((p) => f.createVariableDeclaration(p)) : [d]));
      return f.updateVariableDeclarationList(n, decls);
    }
    if (t.isVariableStatement(n)) {
      const d = n.declarationList.declarations;
      if (d.length === 1 && t.isArrayBindingPattern(d[0].name) && d[0].initializer && t.isIdentifier(d[0].initializer) && parts.has(d[0].initializer.text)) {
        const ps = parts.get(d[0].initializer.text)!;
        // One `const` each: the tidy renames a copy that stands alone.
        return d[0].name.elements.flatMap((e, i) => {
          if (!t.isBindingElement(e) || (e.name as ts.Identifier).text === ps[i]) return [];
          const decl = f.createVariableDeclaration(e.name as ts.Identifier, undefined, undefined, f.createIdentifier(ps[i]));
          const out = f.createVariableStatement(n.modifiers, f.createVariableDeclarationList([decl], n.declarationList.flags));
          t.setOriginalNode(out, n);
          t.setSourceMapRange(out, t.getSourceMapRange(n));
          return [out];
        });
      }
    }
    if (
      t.isExpressionStatement(n) &&
      t.isBinaryExpression(n.expression) &&
      n.expression.operatorToken.kind === K.EqualsToken &&
      t.isIdentifier(n.expression.left) &&
      parts.has(n.expression.left.text)
    ) {
      const ps = parts.get(n.expression.left.text)!;
      const elems = (n.expression.right as ts.ArrayLiteralExpression).elements;
      return elems.map((e, i) => {
        const s = f.createExpressionStatement(f.createAssignment(f.createIdentifier(ps[i]), t.visitNode(e, visit) as ts.Expression));
        t.setSourceMapRange(s, t.getSourceMapRange(n));
        return s;
      });
    }
    return t.visitEachChild(n, visit, undefined);
  };
  return statements.flatMap((s) => {
    const r = visit(s);
    return (Array.isArray(r) ? r : r ? [r] : []) as ts.Statement[];
  });
}
