// Long and deeply nested IR programs (issue 7, item 5), as text, with independent references:
// each generator also returns f and f' computed by plain JavaScript dual numbers.

export interface LongProgram {
  readonly text: string;
  readonly fn: string;
  /** f(x) and f'(x) by forward-mode dual numbers in JavaScript. */
  readonly reference: (x: number) => { value: number; derivative: number };
}

/** `2n` lets in one straight line: a ← sin(a + x) · ½, n times. */
export function straightLine(n: number): LongProgram {
  const lines = ['def f(x: real ;) -> (real ;) {', '  let half = 0.5', '  let a0 = x'];
  for (let i = 0; i < n; i++) {
    lines.push(`  let s${i} = add(a${i}, x)`);
    lines.push(`  let t${i} = sin(s${i})`);
    lines.push(`  let a${i + 1} = mul(t${i}, half)`);
  }
  lines.push(`  (a${n} ;)`, '}');
  return {
    text: lines.join('\n') + '\n',
    fn: 'f',
    reference: (x) => {
      let a = x;
      let da = 1;
      for (let i = 0; i < n; i++) {
        const s = a + x;
        const ds = da + 1;
        da = Math.cos(s) * ds * 0.5;
        a = Math.sin(s) * 0.5;
      }
      return { value: a, derivative: da };
    },
  };
}

/** Blocks nested `depth` deep: the innermost is sin(x), each level returns (inner + x) · ½. */
export function nestedBlocks(depth: number): LongProgram {
  const out: string[] = ['def g(x: real ;) -> (real ;) {', 'let half = 0.5'];
  for (let i = 0; i < depth; i++) out.push(`let b${i} = {`);
  out.push('sin(x)');
  for (let i = depth - 1; i >= 0; i--) {
    out.push('}');
    out.push(`let c${i} = add(b${i}, x)`);
    out.push(i === 0 ? `let r = mul(c${i}, half)` : `mul(c${i}, half)`);
  }
  out.push('(r ;)', '}');
  return {
    text: out.join('\n') + '\n',
    fn: 'g',
    reference: (x) => {
      let v = Math.sin(x);
      let dv = Math.cos(x);
      for (let i = 0; i < depth; i++) {
        v = (v + x) * 0.5;
        dv = (dv + 1) * 0.5;
      }
      return { value: v, derivative: dv };
    },
  };
}

/** `n` functions, each calling the previous one: h_k(x) = sin(h_{k-1}(x)) · ½ + x. */
export function callChain(n: number): LongProgram {
  const defs = ['def h0(x: real ;) -> (real ;) {\n  let y = sin(x)\n  (y ;)\n}'];
  for (let k = 1; k < n; k++) {
    defs.push(`def h${k}(x: real ;) -> (real ;) {\n  let half = 0.5\n  let a = h${k - 1}(x)\n  let s = sin(a)\n  let m = mul(s, half)\n  let y = add(m, x)\n  (y ;)\n}`);
  }
  return {
    text: defs.join('\n\n') + '\n',
    fn: `h${n - 1}`,
    reference: (x) => {
      let v = Math.sin(x);
      let dv = Math.cos(x);
      for (let k = 1; k < n; k++) {
        dv = Math.cos(v) * dv * 0.5 + 1;
        v = Math.sin(v) * 0.5 + x;
      }
      return { value: v, derivative: dv };
    },
  };
}

/** The reference of nestedConds and nestedLoops: sin(x), then + x `depth` times (no contraction: every level shows). */
function additions(depth: number): LongProgram['reference'] {
  return (x) => ({ value: Math.sin(x) + depth * x, derivative: Math.cos(x) + depth });
}

/** Around the construct at each level: the level's result r, then r + a. */
function closeLevel(out: string[], k: number, last: boolean): void {
  out.push(last ? `let y = add(r${k}, a${k})` : `add(r${k}, a${k})`);
}

/**
 * Conditionals nested `depth` deep, each in the then branch of the one around it (taken for
 * x > 0): the innermost is sin(x), each level returns inner + x; else branches are sin.
 */
export function nestedConds(depth: number): LongProgram {
  const out: string[] = ['def f(a0: real ;) -> (real ;) {'];
  for (let k = 0; k < depth; k++) {
    out.push(`let z${k} = 0`, `let p${k} = gt(a${k}, z${k})`, `let r${k} = cond(p${k}, a${k}) [|a${k + 1}: real ;| {`);
  }
  out.push(`sin(a${depth})`);
  for (let k = depth - 1; k >= 0; k--) {
    out.push(`}, |e${k}: real ;| {`, `sin(e${k})`, '}]');
    closeLevel(out, k, k === 0);
  }
  out.push('(y ;)', '}');
  return { text: out.join('\n') + '\n', fn: 'f', reference: additions(depth) };
}

/**
 * Counted loops nested `depth` deep, each running once in the body of the one around it and
 * carrying one value: the innermost body is sin(x), each level returns inner + x.
 */
export function nestedLoops(depth: number): LongProgram {
  const out: string[] = ['def f(a0: real ;) -> (real ;) {'];
  for (let k = 0; k < depth; k++) {
    out.push(`let n${k} = 1`, `let r${k} = loop(n${k}, a${k}) [|i${k + 1}: real, a${k + 1}: real ;| {`, `drop(i${k + 1})`);
  }
  out.push(`sin(a${depth})`);
  for (let k = depth - 1; k >= 0; k--) {
    out.push('}]');
    closeLevel(out, k, k === 0);
  }
  out.push('(y ;)', '}');
  return { text: out.join('\n') + '\n', fn: 'f', reference: additions(depth) };
}
