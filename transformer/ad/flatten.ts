// Signature flattening, a generic pass: tuple-typed non-linear parameters and results of a def
// become their scalar leaves. The body rebuilds each parameter tuple from its leaves and unpacks
// each result tuple before returning, so after simplification (unpacking a known tuple is
// renaming) no tuple is built on either side of the call. Callers pass and receive plain
// numbers: in JavaScript that saves an array allocation per structured argument and result.
// Leaves take the names the body already gives them (`p_amplitude` from `let <p_amplitude, ...> = p`).
import { NameSupply, namesIn } from '../ir/build';
import { Binder, Expr, FnDef, InternalError, Type, binder, letE, ret, tuple, unpack } from '../ir/syntax';

/** The names the body's first unpack of `v` (on the main chain) gives its elements, if any. */
function unpackNames(body: Expr, v: string): readonly string[] | undefined {
  for (let e = body; ; ) {
    if (e.tag === 'unpack') {
      if (e.tuple === v) return e.names.map((b) => b.name);
      e = e.body;
    } else if (e.tag === 'let') e = e.body;
    else return undefined;
  }
}

/** Number of scalar leaves of a type. */
export function leafCount(t: Type): number {
  return t.tag === 'tuple' ? t.elems.reduce((n, e) => n + leafCount(e), 0) : 1;
}

function leafTypes(t: Type): Type[] {
  return t.tag === 'tuple' ? t.elems.flatMap(leafTypes) : [t];
}

/** Flattens the parameters at the given indices (default all) and every result. */
export function flattenSignature(d: FnDef, params: readonly number[] = d.nlParams.map((_, i) => i)): FnDef {
  if (d.linParams.length > 0 || d.linResults.length > 0) throw new InternalError(`flattenSignature: ${d.name} is linear`);
  const names = new NameSupply(namesIn(d.body, new Set(d.nlParams.map((b) => b.name))));
  const rebuild: { name: string; value: Expr }[] = [];

  /** Leaves for a value of type t that the body calls `v`; records how to rebuild v from them. */
  const leavesOf = (v: string, t: Type): Binder[] => {
    if (t.tag !== 'tuple') return [binder(v, t)];
    const hinted = unpackNames(d.body, v);
    const parts = t.elems.map((et, i) => {
      // The body's own unpack rebinds the same names to the same values, which the simplifier
      // folds away; any other name is fresh.
      const part = hinted?.[i] ?? names.fresh(`${v}_${i}`);
      return { part, type: et };
    });
    const leaves = parts.flatMap(({ part, type }) => leavesOf(part, type));
    rebuild.push({ name: v, value: tuple(false, parts.map((p) => p.part)) });
    return leaves;
  };
  const flatParams = d.nlParams.flatMap((p, i) => (params.includes(i) ? leavesOf(p.name, p.type!) : [p]));

  // Results: unpack every tuple result down to its leaves.
  const unpacks: { names: Binder[]; from: string }[] = [];
  const resultLeaves = (v: string, t: Type): string[] => {
    if (t.tag !== 'tuple') return [v];
    const parts = t.elems.map((et, i) => binder(names.fresh(`${v}_${i}`), et));
    unpacks.push({ names: parts, from: v });
    return parts.flatMap((p) => resultLeaves(p.name, p.type!));
  };

  // The body's own results come out through one let, then are unpacked and returned as leaves.
  const outs = d.nlResults.map((t, i) => binder(names.fresh(`result_${i}`), t));
  const flatResults = outs.flatMap((o) => resultLeaves(o.name, o.type!));
  let tail: Expr = ret(flatResults);
  for (let i = unpacks.length - 1; i >= 0; i--) tail = unpack(false, unpacks[i].names, unpacks[i].from, tail);
  let body: Expr = letE(outs, [], d.body, tail);
  // Inner tuples were recorded before outer ones, so build them in that order.
  for (let i = rebuild.length - 1; i >= 0; i--) body = letE([binder(rebuild[i].name)], [], rebuild[i].value, body);
  return {
    ...d,
    nlParams: flatParams,
    nlResults: d.nlResults.flatMap(leafTypes),
    body,
  };
}
