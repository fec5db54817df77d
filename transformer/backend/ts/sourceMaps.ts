// Source maps of generated code: a generated node points at the source node it came from.
import type * as ts from 'typescript';

const mapSources = new WeakMap<ts.SourceFile, ts.SourceMapSource>();

/**
 * Points generated code at a source node, naming the node's file: a marked function imported
 * from another module maps into that module, not to the same offsets of the current one.
 */
export function mapTo(tsApi: typeof ts, generated: ts.Node, origin: ts.Node): void {
  if (origin.pos < 0) return;
  const sf = origin.getSourceFile();
  let source = mapSources.get(sf);
  if (!source) {
    source = tsApi.createSourceMapSource(sf.fileName, sf.text);
    mapSources.set(sf, source);
  }
  tsApi.setSourceMapRange(generated, { pos: origin.getStart(sf), end: origin.end, source });
}
