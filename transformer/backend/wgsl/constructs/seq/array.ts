// Array operations in sequential code (constructs/array): reads by index (0 outside the array,
// as the parallel kernels read), writes into a heap copy (`update`; `write`, its in-place twin,
// in place when the array is the heap's), in-place accumulation of a cotangent (`laccum`, which
// makes the dense copy once), and the combinators met inside a loop (map, sum, reduce, fill) as
// WGSL loops in the same invocation: a loop body is one thread's work, so a combinator inside it
// runs sequentially too (correct; parallel only outside loops).
import { NotOnGpu } from '../../lowering';
import { type Cap, type SArr, type SNum, type SeqLowering, type SeqLowerings, type SeqOps, type SVal, f32Of, sarr, snum } from '../../seqLowering';

const single = (c: Cap): number | undefined => (c?.size === 1 ? [...c][0] : undefined);
const num = (S: SeqOps, code: string): SNum => ({ kind: 'num', code: S.bind(code), type: 'f32' });
/** A length as an SNum: its host register when exact. */
const lengthOf = (a: SArr): SNum => {
  const reg = a.exact ? single(a.cap) : undefined;
  return { kind: 'num', code: a.len, type: 'f32', ...(reg !== undefined ? { reg } : {}) };
};
const capOf = (n: SNum): Cap => (n.reg !== undefined ? new Set([n.reg]) : undefined);

/** `if (0 ≤ i < len) heap[base + i] = value`: a write inside the array only. */
function writeAt(S: SeqOps, a: SArr, i: string, value: string): void {
  S.line(`if (${i} >= 0.0 && ${i} < ${a.len}) {`);
  S.store(`${a.base} + ${i}`, value);
  S.line('}');
}

/** An array of `n` elements, element k `element(k)`. */
function filled(S: SeqOps, n: SNum, element: (k: string) => string): SArr {
  const out = S.zeros(f32Of(n), capOf(n), n.reg !== undefined, false);
  S.forRange(out.len, (k) => S.store(`${out.base} + ${k}`, element(k)));
  return out;
}

const update: SeqLowering = (S, e, [a, i, v]) => {
  const arr = sarr(a, `an ${e.op}`);
  const out = e.op === 'write' && arr.heap ? arr : { ...S.copy(arr), sparse: false };
  writeAt(S, out, f32Of(snum(i, 'an index')), f32Of(snum(v, 'a written value')));
  return [out];
};

/** `acc` dense of w's length (w: an array or a length), in the heap: the copy (zeros past acc) once, then in place. */
function dense(S: SeqOps, acc: SArr, w: SVal | undefined): SArr {
  const length = w?.kind === 'arr' ? w.len : f32Of(snum(w, 'a length'));
  const wCap = w?.kind === 'arr' ? w.cap : capOf(snum(w, 'a length'));
  const wExact = w?.kind === 'arr' ? w.exact : snum(w, 'a length').reg !== undefined;
  const base = S.fresh('ab');
  const len = S.fresh('al');
  if (acc.heap) {
    S.line(`var ${base}: f32 = ${acc.base};`);
    S.line(`var ${len}: f32 = ${acc.len};`);
    S.line(`if (${len} < ${length}) {`);
    const c = S.copy(acc, length);
    S.line(`${base} = ${c.base};`);
    S.line(`${len} = ${c.len};`);
    S.line('}');
  } else {
    const c = S.copy(acc, `max(${acc.len}, ${length})`);
    S.line(`var ${base}: f32 = ${c.base};`);
    S.line(`var ${len}: f32 = ${c.len};`);
  }
  const exact = acc.exact && wExact && single(acc.cap) !== undefined && single(acc.cap) === single(wCap);
  return { kind: 'arr', buf: S.heap, heap: true, base, len, cap: S.joinCaps(acc.cap, wCap), exact, sparse: true };
}

/** laccum(i, w ; ā, y): ā + e_i·y; lupdate(i, w ; ȧ, v): ȧ with element i set to v (both dense of w's length, in place). */
const accumulate =
  (add: boolean): SeqLowering =>
  (S, e, nl, lin) => {
    const [i, w, a, y] = [...nl, ...lin];
    const out = dense(S, sarr(a, `an ${e.op}`), w);
    const at = f32Of(snum(i, 'an index'));
    const v = f32Of(snum(y, 'a value'));
    writeAt(S, out, at, add ? `${S.load(`${out.base} + ${at}`)} + ${v}` : v);
    return [out];
  };

/** ltake(i, w ; c̄): (c̄ with element i zeroed, c̄_i), in place on a heap array. */
const ltake: SeqLowering = (S, _e, nl, lin) => {
  const [i, , c] = [...nl, ...lin];
  const arr = sarr(c, 'an ltake');
  const at = f32Of(snum(i, 'an index'));
  const taken = num(S, S.elem(arr, at));
  const out = arr.heap ? arr : S.copy(arr);
  writeAt(S, out, at, '0.0');
  return [out, taken];
};

/** lonehot(i[, w] ; y): e_i·y, dense of w's length (i + 1 long without a witness), a cotangent. */
const lonehot: SeqLowering = (S, _e, nl, lin) => {
  const all = [...nl, ...lin];
  const i = f32Of(snum(all[0], 'a one-hot index'));
  const y = f32Of(snum(all[all.length - 1], 'a one-hot value'));
  const w = all.length === 3 ? all[1] : undefined;
  const seed: SArr = { kind: 'arr', buf: S.heap, heap: true, base: '0.0', len: '0.0', cap: new Set([S.L.lit(0)]), exact: true, sparse: true };
  const out = dense(S, seed, w ?? { kind: 'num', code: `(${i} + 1.0)`, type: 'f32' });
  writeAt(S, out, i, y);
  return [out];
};

const fill: SeqLowering = (S, _e, [n, x]) => {
  const v = f32Of(snum(x, 'a fill'));
  return [filled(S, snum(n, 'a fill length'), () => v)];
};

const sum: SeqLowering = (S, e, nl) => {
  const a = sarr(nl[nl.length - 1], `a ${e.op}`);
  const acc = S.fresh('sum');
  S.line(`var ${acc}: f32 = 0.0;`);
  S.forRange(a.len, (k) => S.line(`${acc} = ${acc} + ${S.elem(a, k)};`));
  return [num(S, acc)];
};

/** map/smap: one heap array per result, filled by a WGSL loop over the body. */
const map: SeqLowering = (S, e, nl, lin, env) => {
  if (lin.length > 0) throw new NotOnGpu(`a linear ${e.op}`);
  const [nVal, ...operands] = nl;
  const n = snum(nVal, `a ${e.op} length`);
  const body = e.bodies[0];
  const hasIndex = body.nlParams.length === nl.length;
  const params = body.nlParams.slice(hasIndex ? 1 : 0);
  const results = body.body.result.tag === 'ret' ? body.body.result.nl.length : 1;
  const outs = Array.from({ length: results }, () => S.zeros(f32Of(n), capOf(n), n.reg !== undefined, false));
  S.forRange(f32Of(n), (k) => {
    const args: SVal[] = operands.map((o, j) => {
      if (o.kind !== 'arr' || params[j]?.type?.tag === 'array') return o;
      const x = S.elem(o, k);
      return params[j]?.type?.tag === 'bool' ? { kind: 'num', code: S.bind(`${x} != 0.0`, 'bool'), type: 'bool' } : num(S, x);
    });
    const rs = S.apply(body, [...(hasIndex ? [{ kind: 'num' as const, code: k, type: 'f32' as const }] : []), ...args], env);
    rs.forEach((r, j) => S.store(`${outs[j].base} + ${k}`, f32Of(snum(r, `an element of ${e.op}`))));
  });
  return outs;
};

/** reduce/sreduce with as many results as accumulators: a fold, in index order. */
const reduce: SeqLowering = (S, e, nl, lin, env) => {
  if (lin.length > 0) throw new NotOnGpu(`a linear ${e.op}`);
  const [nVal, ...rest] = nl;
  const k = rest.length / 2;
  const body = e.bodies[0];
  const r = body.body.result;
  if (r.tag !== 'ret' || r.nl.length !== k) throw new NotOnGpu(`a ${e.op} with per-element outputs inside a loop`);
  const accs = rest.slice(0, k).map((v) => {
    const name = S.fresh('acc');
    S.line(`var ${name}: f32 = ${f32Of(snum(v, 'a neutral element'))};`);
    return name;
  });
  const xs = rest.slice(k).map((v) => sarr(v, `an operand of ${e.op}`));
  S.forRange(f32Of(snum(nVal, `a ${e.op} length`)), (i) => {
    const rs = S.apply(body, [...accs.map((a) => ({ kind: 'num' as const, code: a, type: 'f32' as const })), ...xs.map((x) => num(S, S.elem(x, i)))], env);
    const temps = rs.map((v) => S.bind(f32Of(snum(v, `a result of ${e.op}`))));
    temps.forEach((t, j) => S.line(`${accs[j]} = ${t};`));
  });
  return accs.map((a) => num(S, a));
};

export const arraySeqs = {
  len: (_S, _e, [a]) => [lengthOf(sarr(a, 'the length of a value'))],
  index: (S, _e, [a, j]) => [num(S, S.elem(sarr(a, 'an element read'), f32Of(snum(j, 'an index'))))],
  lindex: (S, _e, nl, lin) => {
    const all = [...nl, ...lin];
    return [num(S, S.elem(sarr(all[all.length - 1], 'an element read'), f32Of(snum(all[0], 'an index'))))];
  },
  update,
  write: update,
  laccum: accumulate(true),
  lupdate: accumulate(false),
  ltake,
  lonehot,
  lpeek: (S, _e, nl, lin) => {
    const [i, , a] = [...nl, ...lin];
    const arr = sarr(a, 'a read');
    return [arr, num(S, S.elem(arr, f32Of(snum(i, 'an index'))))];
  },
  // E of a dup of an array: the second holder gets its own copy (laccum writes in place).
  share: (S, _e, [a]) => {
    const arr = sarr(a, 'a share');
    return [arr, arr.heap ? S.copy(arr) : arr];
  },
  fill,
  lfill: fill,
  atmost: (S, _e, [n, limit, what]) => {
    const a = snum(n, 'a length check');
    const b = snum(limit, 'a length check');
    const message = what?.kind === 'str' ? what.text : 'tsad: array lengths differ';
    if (a.reg !== undefined && b.reg !== undefined) return [S.hostNum(S.L.reg({ op: 'atmost', a: a.reg, b: b.reg, message }))];
    S.line(`if (${f32Of(a)} > ${f32Of(b)}) { ${S.L.failCheck(message, b.reg ?? a.reg ?? S.L.lit(0))} }`);
    return [a];
  },
  // within(lo, hi, limit[, runs]) in one invocation's code (constructs/ops.ts says the rest).
  within: (S, _e, [lo, hi, limit, what, runs]) => {
    const said = what?.kind === 'str' ? what.text : 'tsad: reads an element outside its array';
    const [a, z, n] = [lo, hi, limit].map((v) => f32Of(snum(v, 'an element check')));
    const r = runs === undefined ? undefined : snum(runs, 'an element check');
    const when = r === undefined ? '' : `(${r.type === 'bool' ? r.code : `${r.code} != 0.0`}) && `;
    S.line(`if (${when}!(${a} >= 0.0 && ${a} == floor(${a}) && ${z} + 1.0 <= ${n})) { ${S.L.failCheck(`${said} outside the array`, snum(limit, 'an element check').reg ?? -1)} }`);
    return [snum(lo, 'an element check')];
  },
  sum,
  lsum: sum,
  map,
  smap: map,
  reduce,
  sreduce: reduce,
} satisfies SeqLowerings;
