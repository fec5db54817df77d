// cond in sequential code (constructs/cond): a WGSL if/else, the results in `var`s declared
// before it. An array result lives in the heap (a branch returning one of the program's arrays
// copies it), so both branches hand back a base and a length of the same buffer.
import { NotOnGpu } from '../../lowering';
import { type SArr, type SeqLowerings, type SVal, boolOf, f32Of, snum } from '../../seqLowering';

export const condSeqs = {
  cond: (S, e, nl, lin, env) => {
    if (lin.length > 0 || e.bodies.length !== 2) throw new NotOnGpu('a cond with linear operands or more than two branches');
    const [p, ...operands] = nl;
    const pred = S.bind(boolOf(snum(p, 'a condition')), 'bool');
    const branches = e.bodies.map((b) => S.capture(() => S.apply(b, operands, env).map((r) => (r.kind === 'arr' && !r.heap ? S.copy(r) : r))));
    const [a, b] = branches.map((x) => x.value);
    const assigns: string[][] = [[], []];
    const outs: SVal[] = a.map((ra, j) => {
      const rb = b[j];
      if (ra.kind === 'num' && rb?.kind === 'num') {
        const type = ra.type === rb.type ? ra.type : 'f32';
        const v = S.fresh('r');
        S.line(`var ${v}: ${type};`);
        [ra, rb].forEach((r, k) => assigns[k].push(`${v} = ${type === 'bool' ? boolOf(r) : f32Of(r)};`));
        return { kind: 'num', code: v, type };
      }
      if (ra.kind === 'arr' && rb?.kind === 'arr') {
        const base = S.fresh('rb');
        const len = S.fresh('rl');
        S.line(`var ${base}: f32;`);
        S.line(`var ${len}: f32;`);
        [ra, rb].forEach((r, k) => assigns[k].push(`${base} = ${r.base};`, `${len} = ${r.len};`));
        const single = (r: SArr) => (r.cap?.size === 1 ? [...r.cap][0] : undefined);
        const exact = ra.exact && rb.exact && single(ra) !== undefined && single(ra) === single(rb);
        return { kind: 'arr', buf: S.heap, heap: true, base, len, cap: S.joinCaps(ra.cap, rb.cap), exact, sparse: ra.sparse || rb.sparse };
      }
      if (ra.kind === 'str' && rb?.kind === 'str' && ra.text === rb.text) return ra;
      throw new NotOnGpu('a cond inside a loop whose branches return tuples, strings or different kinds of values');
    });
    S.line(`if (${pred}) {`);
    for (const l of [...branches[0].lines, ...assigns[0]]) S.line(`  ${l}`);
    S.line('} else {');
    for (const l of [...branches[1].lines, ...assigns[1]]) S.line(`  ${l}`);
    S.line('}');
    return outs;
  },
} satisfies SeqLowerings;
