// Restoring the usage discipline of Linear A after a pass that references variables freely.
//
// Passes are simpler when they may mention a tangent twice or forget a residual. Lowering, J, U,
// T, E and the simplifier keep usage as they build (usageBuilder.ts, with this file's fix-ups;
// under TSAD_RECHECK=1 the drivers ask this pass whether it would still change their output);
// it still repairs opt/tabulate's rewrite. The fix-ups: a linear variable used k > 1 times gets a chain of k − 1 `dup`s
// right after its binding and each use its own copy; a variable of either sort that is never
// used gets `drop(x)` right after its binding. It replaces the paper's explicit splitting of the
// tangent map Σ at every `let` (JLet) with one generic rewrite; the dups land where the paper
// puts them, at the binding, and cost nothing in the work model.
//
// A construct's body is a scope of its own (closed: it reads only its parameters), so its
// parameters get their dups and drops at the top of the body, and whatever the body binds is
// judged inside it; a linear operand read by a construct counts as one use, whichever body runs.
import { NameSupply, namesIn } from './build';
import { Binder, Block, Expr, FnDef, InternalError, Lambda, Stmt, drop, dup, letS, nvar, lvar } from './syntax';
import { ScopeStack } from './scopeStack';
import { DeepWalk } from './deepWalk';
import { mapChildren, renameOperands, renameStmtOperands, visitDef } from './traverse';

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

export function restoreLinearity(d: FnDef): FnDef {
  const slots = new Map<Binder, Slot>();
  const scopes = new Scopes();

  // Pass 1: count uses per binding occurrence (scopes resolved, so shadowing is respected).
  visitDef(d, {
    bind: (b, linear) => {
      const s: Slot = { name: b.name, linear, type: b.type, uses: 0, copies: [], next: 0 };
      slots.set(b, s);
      scopes.push(s);
    },
    read: (n) => {
      const s = scopes.find(n);
      if (s) s.uses++;
    },
    leave: (_l, bound) => scopes.popMany(bound.length),
  });

  // Most defs need nothing (the passes that build them keep the discipline where they can, and
  // the simplifier's output mostly does): they are returned as they are, not rebuilt.
  let needed = false;
  for (const s of slots.values()) if (s.uses === 0 || (s.linear && s.uses > 1)) needed = true;
  if (!needed) return d;
  // Only now: the copies' names are the one thing that needs every name of the def.
  const names = new NameSupply(namesIn(d.body, new Set([...d.nlParams, ...d.linParams].map((b) => b.name))));

  // Pass 2: rebuild with dups/drops after each binding and uses renamed to their copies.
  const rename = (n: string): string => {
    const s = scopes.find(n);
    if (!s || s.copies.length === 0) return n;
    if (s.next >= s.copies.length) throw new InternalError(`restoreLinearity: more uses of ${n} than counted`);
    return s.copies[s.next++];
  };

  /** Creates the copies of these bindings now, as statements right after them; brings them into scope. */
  const fixUps = (bound: readonly Binder[], out: Stmt[]): void => {
    for (const b of bound) {
      const s = slots.get(b)!;
      // Bound again when a deep walk replays the body (DeepWalk): its copies start over.
      s.copies.length = 0;
      s.next = 0;
      s.copies.push(...usageFixUps(s.name, s.type, s.linear, s.uses, names, out));
    }
    for (const b of bound) scopes.push(slots.get(b)!);
  };

  // Pass 2 recurses once per nested body, walked in stretches (DeepWalk); pass 1 is the iterative
  // visitor.
  const walk = new DeepWalk();
  const rebuildExpr = (e: Expr): Expr => {
    const rebuild = (l: Lambda): Lambda => ({ ...l, body: rebuildBlock(l.body, [...l.nlParams, ...l.linParams]) });
    // A nested block reads the enclosing scope: only a construct's closed bodies can be deferred.
    const inner = mapChildren(e, (l) => (e.tag === 'construct' ? walk.body(l.body, () => rebuild(l)) : rebuild(l)), rebuildExpr);
    return renameOperands(inner, rename);
  };

  function rebuildBlock(body: Block, params: readonly Binder[]): Block {
    const depth = scopes.size;
    try {
      return rebuildIn(body, params);
    } finally {
      scopes.popMany(scopes.size - depth);
    }
  }

  function rebuildIn(body: Block, params: readonly Binder[]): Block {
    const out: Stmt[] = [];
    fixUps(params, out);
    for (const s of body.stmts) {
      if (s.tag === 'let') {
        const rhs = rebuildExpr(s.rhs);
        out.push(rhs === s.rhs ? s : { ...s, rhs });
        fixUps([...s.nl, ...s.lin], out);
      } else {
        out.push(renameStmtOperands(s, rename));
        fixUps(s.names, out);
      }
    }
    return { stmts: out, result: rebuildExpr(body.result) };
  }

  return { ...d, body: walk.run(() => rebuildBlock(d.body, [...d.nlParams, ...d.linParams])) };
}

/**
 * The statements that make `uses` uses of a binding well-typed, appended to `out` (they go right
 * after the binding): `drop(x)` when it is unused; for a linear x used k > 1 times a chain of
 * k − 1 `dup`s. Returns the copies, one per use in order (none when x itself serves).
 */
export function usageFixUps(name: string, type: Binder['type'], linear: boolean, uses: number, names: Pick<NameSupply, 'fresh'>, out: Stmt[]): string[] {
  if (uses === 0) {
    out.push(letS([], [], drop(linear ? lvar(name) : nvar(name))));
    return [];
  }
  if (!linear || uses === 1) return [];
  // x -> (x_1, r1) -> (x_2, r2) ... each dup splits off one copy.
  const copies: string[] = [];
  let source = name;
  for (let k = 1; k < uses; k++) {
    const copy = names.fresh(`${name}_${k}`);
    const rest = k === uses - 1 ? names.fresh(`${name}_${k + 1}`) : names.fresh(`${name}_r`);
    out.push(
      letS(
        [],
        [
          { name: copy, type },
          { name: rest, type },
        ],
        dup(source),
      ),
    );
    copies.push(copy);
    if (k === uses - 1) copies.push(rest);
    source = rest;
  }
  return copies;
}
