// Closing the body of a map or a loop that array code builds: statements that read nothing of
// the body move before it, arrays read at the map's index become mapped operands (a zip, or a
// gather), and the remaining free variables become invariant operands.
import type * as ts from 'typescript';
import { Binder, Block, REAL, Stmt, binder, block, construct, lambda, ret } from '../ir/syntax';
import { freeVars } from '../ir/freeVars';
import { renameOperands, renameStmtOperands, rewriteBlock } from '../ir/traverse';
import { isConstruct } from '../constructs/registry';
import { underTripGuard } from '../constructs/cond/tripGuard';
import { fail } from './diagnostics';
import { callbackParamSymbol } from './callbackParams';
import { Shape, NUMBER, describeShape, irType } from './shapes';
import type { Value } from './values';
import { REAL_ARRAY_TYPE, elemShape, userName } from './arraySite';
import { closeLoop } from './closeLoop';
import { ArrayBasics } from './arrayBasics';

export abstract class ArrayClosures extends ArrayBasics {
  /**
   * Statements of a body that read nothing bound inside it (its parameters or earlier inner
   * statements) move before the construct: they run once (where the body runs at all, `trip` > 0),
   * and a free tuple's unpacking or a free array's length becomes a free scalar, which a map can
   * take as an invariant.
   */
  protected moveInvariantsOut(body: Block, own: ReadonlySet<string>, trip: string): Block {
    const inner = new Set(own);
    const kept: Stmt[] = [];
    const moved: Stmt[] = [];
    for (const s of body.stmts) {
      const reads = freeVars(block([s], ret([]))).nl;
      const bound = s.tag === 'let' ? [...s.nl, ...s.lin] : s.names;
      const linear = s.tag === 'let' ? s.lin.length > 0 : s.linear;
      if (!linear && ![...reads].some((r) => inner.has(r))) {
        moved.push(s);
        for (const x of bound) if (x.type) this.hoistedTypes.set(x.name, x.type);
        continue;
      }
      kept.push(s);
      for (const x of bound) inner.add(x.name);
    }
    // The body may run zero times: what moved runs only where it would have run.
    const rest = { stmts: kept, result: body.result };
    for (const s of underTripGuard(trip, moved, freeVars(rest).nl, this.b.names)) this.b.stmt(s);
    return rest;
  }

  /** Arrays read only as `w[i]` at the map's own index become mapped operands (a zip). */
  /**
   * Arrays the body reads as `w[i]` at the map's own index become mapped operands (a zip, whose
   * lengths are checked); reads at an index computed from i and free numbers only (`w[i + 1]`,
   * `w[n - 1 - i]`) become a gather of w at those indices before the map, itself a mapped
   * operand (when the IR has gather). Any other read of a free array is TSAD1121.
   */
  protected zip(body: Block, i: string, own: ReadonlySet<string>, n: Value, node: ts.Node, exact: boolean): { body: Block; arrays: { operand: string; param: Binder; direct: boolean }[] } {
    const free = [...freeVars(body).nl].filter((x) => !own.has(x));
    const arrays: { operand: string; param: Binder; direct: boolean }[] = [];
    const rename = new Map<string, string>();
    const dropped = new Set<Stmt>();
    const isRead = (st: Stmt, w: string): st is Extract<Stmt, { tag: 'let' }> => st.tag === 'let' && st.rhs.tag === 'construct' && st.rhs.op === 'index' && st.rhs.nl[0] === w;
    const refuse = (w: string): never =>
      fail(
        1121,
        node,
        `the callback reads the array '${userName(w)}' other than at an index computed from the map's own: a map may read another array as w[i] or w[f(i)]; write a for loop that accumulates, or map over the indices you need`,
      );
    for (const w of free) {
      const shape = this.shapeOfFree(w);
      if (shape?.kind !== 'array') continue;
      const reads = body.stmts.filter((st) => isRead(st, w));
      const others = body.stmts.filter((st) => !reads.includes(st as never) && freeVars(block([st], ret([]))).nl.has(w));
      if (reads.length === 0 || others.length > 0 || freeVars(body.result).nl.has(w)) refuse(w);
      // One mapped operand per distinct index: w itself at i, a gather of w elsewhere. A w also
      // read elsewhere (`H[i] + H[i + 2]`) is longer than the map, as JavaScript allows: gathered at i too.
      const offset = reads.some((st) => (st.rhs as Extract<typeof st.rhs, { tag: 'construct' }>).nl[1] !== i);
      const byIndex = new Map<string, Binder>();
      for (const st of reads) {
        const at = (st.rhs as Extract<typeof st.rhs, { tag: 'construct' }>).nl[1];
        let param = byIndex.get(at);
        if (!param) {
          param = binder(this.b.fresh(`${userName(w)}_${at === i ? 'i' : 'at'}`), irType(elemShape(shape)));
          byIndex.set(at, param);
          // Over an array, w[i] zips w (same length, checked); over indices only, w may be longer.
          if (at === i && ((exact && !offset) || !isConstruct('gather'))) arrays.push({ operand: w, param, direct: true });
          else {
            const slice = isConstruct('gather') ? this.indexSlice(body, at, i, own) : undefined;
            if (!slice) refuse(w);
            // Read only under a test (`i + 1 < x.length ? v * x[i + 1] : v`): JavaScript reads no
            // element where the test fails, so the gather reads w[0] there, and the read's own
            // check stays in the body under its test (readChecks.ts).
            const lenient = reads.every((st) => (st.rhs as Extract<typeof st.rhs, { tag: 'construct' }>).nl[1] !== at || this.checks.guarded(st.nl[0].name));
            arrays.push({ operand: this.gatherAt(w, slice!, at, i, n, node, lenient), param, direct: false });
          }
        }
        dropped.add(st);
        rename.set(st.nl[0].name, param.name);
      }
    }
    if (arrays.length === 0) return { body, arrays };
    const kept = { stmts: body.stmts.filter((st) => !dropped.has(st)), result: body.result };
    const r = (x: string) => rename.get(x) ?? x;
    return { body: rewriteBlock(kept, { expr: (e) => renameOperands(e, r), stmt: (st, emit) => emit(renameStmtOperands(st, r)) }), arrays };
  }

  /**
   * The statements of the body that compute `target` from the index i and free numbers only (no
   * array read, no other parameter, no construct), in order; undefined when there are others.
   */
  private indexSlice(body: Block, target: string, i: string, own: ReadonlySet<string>): Stmt[] | undefined {
    const defs = new Map<string, Stmt>();
    for (const st of body.stmts) for (const x of st.tag === 'let' ? [...st.nl, ...st.lin] : st.names) defs.set(x.name, st);
    const need = new Set<Stmt>();
    const todo = [target];
    while (todo.length > 0) {
      const x = todo.pop()!;
      if (x === i) continue;
      if (own.has(x)) return undefined;
      const st = defs.get(x);
      if (!st || need.has(st)) continue;
      if (st.tag === 'let' && (st.lin.length > 0 || st.rhs.tag === 'construct' || st.rhs.tag === 'call' || st.rhs.tag === 'block')) return undefined;
      need.add(st);
      todo.push(...freeVars(block([st], ret([]))).nl);
    }
    return body.stmts.filter((st) => need.has(st));
  }

  /** gather(w, idx) with idx the map over i < n of the slice's value: its binders renamed. */
  private gatherAt(w: string, slice: readonly Stmt[], target: string, i: string, n: Value, node: ts.Node, lenient = false): string {
    const b = this.b;
    const length = lenient ? b.nl(`${userName(w)}_n`, construct('len', [w], [], []), REAL) : undefined;
    const j = binder(b.fresh('j'), REAL);
    const fresh = new Map<string, string>([[i, j.name]]);
    const r = (x: string) => fresh.get(x) ?? x;
    const copied = slice.map((st): Stmt => {
      const rebind = (x: Binder) => {
        fresh.set(x.name, b.fresh(x.name));
        return binder(fresh.get(x.name)!, x.type);
      };
      if (st.tag === 'unpack') {
        const tuple = r(st.tuple);
        return { ...st, tuple, names: st.names.map(rebind) };
      }
      const rhs = renameOperands(st.rhs, r);
      return { ...st, rhs, nl: st.nl.map(rebind), lin: st.lin.map(rebind) };
    });
    let result = r(target);
    if (length !== undefined) {
      // An index of w where it is one, else 0 (never read: the test that guards the read fails there).
      const part = b.inner();
      for (const st of copied) part.stmt(st);
      const index = part.test(
        'and',
        [
          part.test('eq', [part.prim('floor', [result], 'whole'), result], 'whole'),
          part.test('and', [part.test('ge', [result, part.lit(0, 'zero')], 'after'), part.test('lt', [result, length], 'before')], 'inside'),
        ],
        'index',
      );
      result = part.prim('select', [index, result, part.lit(0, 'zero')], 'at');
      copied.splice(0, copied.length, ...part.since(0));
    }
    const closed = this.close({ stmts: copied, result: ret([result]) }, new Set([j.name]), node, 'map');
    const slots = this.indices(n);
    const at = b.nl(`${userName(w)}_index`, construct('map', [n.name, slots.operand, ...closed.operands], [], [lambda([j, slots.param, ...closed.params], [], closed.body)]), REAL_ARRAY_TYPE);
    return b.nl(`${userName(w)}_at`, construct('gather', [w, at], [], []), REAL_ARRAY_TYPE);
  }

  /**
   * The body's free variables become operands with parameters of their own (renamed inside): a
   * loop's typed as they are, a map's as scalars.
   */
  close(body: Block, own: ReadonlySet<string>, node: ts.Node, op: 'map' | 'loop'): { operands: string[]; params: Binder[]; body: Block } {
    const fresh = (n: string) => this.b.fresh(n);
    if (op === 'loop') {
      const closed = closeLoop([body], own, fresh, (n) => this.freeType(n, this.shapeOfFree(n)));
      return { operands: closed.invariants, params: closed.bodies[0].inv, body: closed.bodies[0].body };
    }
    const {
      invariants: free,
      bodies: [{ inv, body: renamed }],
    } = closeLoop([body], own, fresh);
    // A map's invariants are scalars: a free tuple or object (a parameter passed on to a call,
    // `xs.map((x) => model(p, x))`) goes in as its numbers, and is rebuilt at the top of the body.
    // The parameters are typed: a map tells mapped from invariant operands by them.
    const operands: string[] = [];
    const params: Binder[] = [];
    const rebuild: Stmt[] = [];
    for (const [k, n] of free.entries()) {
      const known = this.shapeOfFree(n);
      const shape = known ?? NUMBER;
      const type = this.freeType(n, known);
      if (hasArrayIn(shape) || type?.tag === 'array') {
        fail(1121, node, `the callback of .map uses '${userName(n)}' (${describeShape(shape)}) other than by reading it at the map's index: a map reads another array only as w[i]; write a for loop`);
      }
      if (shape.kind === 'tuple' || shape.kind === 'object') {
        const leaves = this.scalarLeaves(n, shape);
        operands.push(...leaves.map((l) => l.name));
        const inside = leaves.map((l) => binder(this.b.fresh(l.name), irType(l.shape)));
        params.push(...inside);
        rebuild.push(
          ...this.rebuilt(
            inv[k].name,
            shape,
            inside.map((b) => b.name),
          ),
        );
        continue;
      }
      operands.push(n);
      params.push(binder(inv[k].name, type ?? REAL));
    }
    return { operands, params, body: { stmts: [...rebuild, ...renamed.stmts], result: renamed.result } };
  }

  /** The scalars of a tuple value, unpacked before the construct, in order. */
  private scalarLeaves(name: string, shape: Shape): Value[] {
    if (shape.kind !== 'tuple' && shape.kind !== 'object') return [{ name, shape }];
    const parts = shape.kind === 'tuple' ? shape.elems : shape.fields.map(([, f]) => f);
    const names = parts.map((p, k) => binder(this.b.fresh(`${name}_${k}`), irType(p)));
    this.b.unpack(false, names, name);
    return parts.flatMap((p, k) => this.scalarLeaves(names[k].name, p));
  }

  /** Statements binding `name` to the tuple of a shape built from its scalar leaves, in order. */
  private rebuilt(name: string, shape: Shape, leaves: readonly string[]): Stmt[] {
    const out: Stmt[] = [];
    let next = 0;
    const go = (s: Shape, into?: string): string => {
      if (s.kind !== 'tuple' && s.kind !== 'object') return leaves[next++];
      const parts = (s.kind === 'tuple' ? s.elems : s.fields.map(([, f]) => f)).map((p) => go(p));
      const target = into ?? this.b.fresh(`${name}_part`);
      out.push({ tag: 'let', nl: [binder(target, irType(s))], lin: [], rhs: { tag: 'tuple', linear: false, elems: parts } });
      return target;
    };
    go(shape, name);
    return out;
  }

  protected paramSymbol(p: ts.ParameterDeclaration): ts.Symbol {
    return callbackParamSymbol(this.site.t, this.site.checker, p);
  }
}

function hasArrayIn(s: Shape): boolean {
  return s.kind === 'array' || (s.kind === 'tuple' && s.elems.some(hasArrayIn)) || (s.kind === 'object' && s.fields.some(([, f]) => hasArrayIn(f)));
}
