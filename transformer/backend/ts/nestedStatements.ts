// The statement lists nested in a statement (a branch's, a loop's or a labeled statement's body,
// try/catch/finally, a block), rewritten by `list`: the walk that the printer's tidy (fold.ts) and
// the emitter's removal of unread ownership bookkeeping (emitTs.ts) share. Functions and
// for-of/for-in bodies are left alone (the emitter writes neither around its own statements).
import type * as ts from 'typescript';

export function mapNested(t: typeof ts, s: ts.Statement, list: (ss: readonly ts.Statement[]) => readonly ts.Statement[]): ts.Statement {
  const block = (b: ts.Statement): ts.Statement => {
    if (!t.isBlock(b)) return mapNested(t, b, list);
    const inner = list(b.statements);
    return inner === b.statements ? b : t.factory.updateBlock(b, inner);
  };
  if (t.isBlock(s)) return block(s);
  if (t.isIfStatement(s)) {
    const thenS = block(s.thenStatement);
    const elseS = s.elseStatement && block(s.elseStatement);
    return thenS === s.thenStatement && elseS === s.elseStatement ? s : t.factory.updateIfStatement(s, s.expression, thenS, elseS);
  }
  if (t.isForStatement(s)) {
    const b = block(s.statement);
    return b === s.statement ? s : t.factory.updateForStatement(s, s.initializer, s.condition, s.incrementor, b);
  }
  if (t.isWhileStatement(s)) {
    const b = block(s.statement);
    return b === s.statement ? s : t.factory.updateWhileStatement(s, s.expression, b);
  }
  if (t.isDoStatement(s)) {
    const b = block(s.statement);
    return b === s.statement ? s : t.factory.updateDoStatement(s, b, s.expression);
  }
  if (t.isLabeledStatement(s)) {
    const b = mapNested(t, s.statement, list);
    return b === s.statement ? s : t.factory.updateLabeledStatement(s, s.label, b);
  }
  if (t.isTryStatement(s)) {
    const tryB = block(s.tryBlock) as ts.Block;
    const c = s.catchClause && (block(s.catchClause.block) as ts.Block);
    const f = s.finallyBlock && (block(s.finallyBlock) as ts.Block);
    if (tryB === s.tryBlock && c === s.catchClause?.block && f === s.finallyBlock) return s;
    const clause = s.catchClause && c !== s.catchClause.block ? t.factory.updateCatchClause(s.catchClause, s.catchClause.variableDeclaration, c!) : s.catchClause;
    return t.factory.updateTryStatement(s, tryB, clause, f);
  }
  return s;
}
