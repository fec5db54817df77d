// Restoring the usage discipline of Linear A after a pass that references variables freely.
//
// J, U and T are simpler when they may mention a tangent twice or forget a residual. This pass
// makes their output well-typed: a linear variable used k > 1 times gets a chain of k − 1 `dup`s
// right after its binding and each use its own copy; a variable of either sort that is never
// used gets `drop(x)` right after its binding. It replaces the paper's explicit splitting of the
// tangent map Σ at every `let` (JLet) with one generic rewrite; the dups land where the paper
// puts them, at the binding, and cost nothing in the work model.
import { NameSupply, namesIn } from '../ir/build';
import { Binder, Expr, FnDef, InternalError, drop, dup, letE, nvar, lvar } from '../ir/syntax';
import { ScopeStack } from '../ir/scopeStack';
import { forEachOperand, renameOperands } from '../ir/operands';

interface Slot {
  readonly name: string;
  readonly linear: boolean;
  readonly type: Binder['type'];
  uses: number;
  copies: string[];
  next: number;
}

class Scopes extends ScopeStack<Slot> {
  popMany(n: number): void {
    for (let i = 0; i < n; i++) this.pop();
  }
}

/** Pass 1: count uses per binding occurrence (scopes resolved, so shadowing is respected). */
function countUses(e: Expr, scopes: Scopes, slots: Map<Binder | string, Slot>, fresh: (b: Binder, linear: boolean) => Slot): void {
  const use = (n: string) => {
    const s = scopes.find(n);
    if (s) s.uses++;
  };
  // Let chains are walked in a loop, not by recursion: generated code can be thousands deep.
  let pushed = 0;
  for (;;) {
    if (e.tag === 'let') {
      countUses(e.rhs, scopes, slots, fresh);
      const bound = [...e.nl.map((b) => fresh(b, false)), ...e.lin.map((b) => fresh(b, true))];
      bound.forEach((s) => scopes.push(s));
      pushed += bound.length;
      e = e.body;
      continue;
    }
    if (e.tag === 'unpack') {
      use(e.tuple);
      const linear = e.linear;
      const bound = e.names.map((b) => fresh(b, linear));
      bound.forEach((s) => scopes.push(s));
      pushed += bound.length;
      e = e.body;
      continue;
    }
    break;
  }
  if (e.tag === 'drop') countUses(e.expr, scopes, slots, fresh);
  else forEachOperand(e, use);
  scopes.popMany(pushed);
}

export function restoreLinearity(d: FnDef): FnDef {
  const names = new NameSupply(namesIn(d.body, new Set([...d.nlParams, ...d.linParams].map((b) => b.name))));
  const slots = new Map<Binder | string, Slot>();
  const fresh = (b: Binder, linear: boolean): Slot => {
    const s: Slot = { name: b.name, linear, type: b.type, uses: 0, copies: [], next: 0 };
    slots.set(b, s);
    return s;
  };
  const scopes = new Scopes();
  const params = [...d.nlParams.map((b) => fresh(b, false)), ...d.linParams.map((b) => fresh(b, true))];
  params.forEach((s) => scopes.push(s));
  countUses(d.body, scopes, slots, fresh);
  scopes.popMany(params.length);

  // Pass 2: rebuild with dups/drops after each binding and uses renamed to their copies.
  const rename = (n: string): string => {
    const s = scopes.find(n);
    if (!s || s.copies.length === 0) return n;
    if (s.next >= s.copies.length) throw new InternalError(`restoreLinearity: more uses of ${n} than counted`);
    return s.copies[s.next++];
  };

  /** Creates the copies of these slots now; returns the wrappers to put around their scope. */
  const fixUps = (bound: Slot[]): ((inner: Expr) => Expr)[] => {
    const wrappers: ((inner: Expr) => Expr)[] = [];
    for (const s of bound) {
      if (s.uses === 0) {
        wrappers.push((inner) => letE([], [], drop(s.linear ? lvar(s.name) : nvar(s.name)), inner));
      } else if (s.linear && s.uses > 1) {
        // x -> (x_1, r1) -> (x_2, r2) ... each dup splits off one copy.
        let source = s.name;
        for (let k = 1; k < s.uses; k++) {
          const copy = names.fresh(`${s.name}_${k}`);
          const rest = k === s.uses - 1 ? names.fresh(`${s.name}_${k + 1}`) : names.fresh(`${s.name}_r`);
          const from = source;
          wrappers.push((inner) => letE([], [{ name: copy, type: s.type }, { name: rest, type: s.type }], dup(from), inner));
          s.copies.push(copy);
          if (k === s.uses - 1) s.copies.push(rest);
          source = rest;
        }
      }
    }
    bound.forEach((s) => scopes.push(s));
    return wrappers;
  };

  const wrap = (wrappers: ((inner: Expr) => Expr)[], inner: Expr): Expr => {
    let result = inner;
    for (let i = wrappers.length - 1; i >= 0; i--) result = wrappers[i](result);
    return result;
  };

  const rebuildLeaf = (e: Expr): Expr => {
    return e.tag === 'drop' ? { ...e, expr: rebuild(e.expr) } : renameOperands(e, rename);
  };

  /** Rebuilds a let chain in a loop (generated code can be thousands of bindings deep). */
  function rebuild(e: Expr): Expr {
    const frames: { node: Expr; part: Expr | string; wrappers: ((inner: Expr) => Expr)[]; pushed: number }[] = [];
    for (;;) {
      if (e.tag === 'let') {
        const rhs = rebuild(e.rhs);
        const bound = [...e.nl, ...e.lin].map((b) => slots.get(b)!);
        frames.push({ node: e, part: rhs, wrappers: fixUps(bound), pushed: bound.length });
        e = e.body;
      } else if (e.tag === 'unpack') {
        const tuple = rename(e.tuple);
        const bound = e.names.map((b) => slots.get(b)!);
        frames.push({ node: e, part: tuple, wrappers: fixUps(bound), pushed: bound.length });
        e = e.body;
      } else break;
    }
    let result = rebuildLeaf(e);
    for (let i = frames.length - 1; i >= 0; i--) {
      const f = frames[i];
      scopes.popMany(f.pushed);
      const body = wrap(f.wrappers, result);
      result = f.node.tag === 'let' ? { ...f.node, rhs: f.part as Expr, body } : { ...(f.node as Extract<Expr, { tag: 'unpack' }>), tuple: f.part as string, body };
    }
    return result;
  }

  const paramWrappers = fixUps(params);
  const body = wrap(paramWrappers, rebuild(d.body));
  scopes.popMany(params.length);

  return { ...d, body };
}
