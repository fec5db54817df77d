// `name = value;` for the stack constructs' emitted TypeScript (the caller declared `name`).
import type * as ts from 'typescript';
import type { EmitTsOps } from '../types';

export function assign(ops: EmitTsOps, name: string, value: ts.Expression): ts.Statement {
  const f = ops.factory;
  return f.createExpressionStatement(f.createAssignment(f.createIdentifier(name), value));
}
