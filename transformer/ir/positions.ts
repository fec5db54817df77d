// Source positions of parsed nodes, kept beside the AST rather than in it: passes build new
// nodes freely and never have to carry positions along, while the checker can still say where
// in the user's file a binder or statement was written.
export interface SourcePos {
  readonly file: string;
  readonly line: number;
  readonly col: number;
}

const positions = new WeakMap<object, SourcePos>();

export function setPos(node: object, pos: SourcePos | undefined): void {
  if (pos) positions.set(node, pos);
}

export function posOf(node: object): SourcePos | undefined {
  return positions.get(node);
}

/** Copies the position of `from` (if any) to `to`; returns `to`. */
export function samePos<T extends object>(from: object, to: T): T {
  const p = positions.get(from);
  if (p) positions.set(to, p);
  return to;
}

export const posText = (p: SourcePos): string => `${p.file}:${p.line}:${p.col}`;
