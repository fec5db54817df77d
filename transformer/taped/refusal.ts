import type * as ts from 'typescript';

/** Code taped mode cannot take yet: the reason, where. */
export class TapedRefusal extends Error {
  constructor(
    readonly node: ts.Node,
    message: string,
  ) {
    super(message);
  }
}
