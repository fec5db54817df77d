// Signature flattening, a generic pass: tuple-typed non-linear parameters and results of a def
// become their scalar leaves. The body rebuilds each parameter tuple from its leaves and unpacks
// each result tuple before returning, so after simplification (unpacking a known tuple is
// renaming) no tuple is built on either side of the call. Callers pass and receive plain
// numbers: in JavaScript that saves an array allocation per structured argument and result.
// Leaves take the names the body already gives them (`p_amplitude` from `let <p_amplitude, ...> = p`).
import { NameSupply, namesIn } from '../ir/build';
import { Binder, Block, Expr, FnDef, InternalError, Stmt, Type, binder, block, blockE, letS, ret, tuple, unpackS } from '../ir/syntax';

/** The names the body's first unpack of `v` (among its own statements) gives its elements, if any. */
function unpackNames(body: Block, v: string): readonly string[] | undefined {
  for (const s of body.stmts) if (s.tag === 'unpack' && s.tuple === v) return s.names.map((b) => b.name);
  return undefined;
}

/** The scalar types of a type, tuples flattened in order. */
export function leafTypes(t: Type): Type[] {
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
    rebuild.push({
      name: v,
      value: tuple(
        false,
        parts.map((p) => p.part),
      ),
    });
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

  // The body's own results come out through one let (of a nested block, unless the body is a
  // single expression), then are unpacked and returned as leaves.
  const outs = d.nlResults.map((t, i) => binder(names.fresh(`result_${i}`), t));
  const flatResults = outs.flatMap((o) => resultLeaves(o.name, o.type!));
  const inner = d.body.stmts.length === 0 ? d.body.result : blockE(d.body);
  // Inner tuples were recorded before outer ones, so build them in that order.
  const stmts: Stmt[] = rebuild.map((r) => letS([binder(r.name)], [], r.value));
  stmts.push(letS(outs, [], inner));
  for (const u of unpacks) stmts.push(unpackS(false, u.names, u.from));
  const body = block(stmts, ret(flatResults));
  return {
    ...d,
    nlParams: flatParams,
    nlResults: d.nlResults.flatMap(leafTypes),
    body,
  };
}
