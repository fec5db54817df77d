// Linearity erasure E (notes §2.6): forget which variables are linear, so that a linear
// program can be run on concrete seeds (a gradient needs the cotangent 1.0) or differentiated
// again (higher order = E, then J).
//
//   g(ū ; v̇̄) -> (σ̄ ; τ̄)   becomes   g.E(ū, v̄ ;) -> (σ̄, τ̄ ;)
//
// Linear primitives become the non-linear primitive named by their record's `erase`. At a
// tuple type they become a call to a generated helper (one per primitive and type), which
// unpacks, applies the primitive leafwise and repacks; helpers keep the program size linear.
// A construct keeps its op; its operands and its bodies' parameters all become non-linear
// (linear ones after the non-linear ones, as for a def), and its bodies are erased in place;
// a construct whose operand order means something (a loop's carried values come last) says
// where its linear operands go with its record's `erase` facet (constructs/loop/erase.ts). A
// zero stack becomes an empty one (its missing elements read as zeros).
import { Builder, NameSupply, namesIn } from '../ir/build';
import { Binder, Block, Lambda, Expr, FnDef, InternalError, IrError, Program, Type, binder, block, call, construct, lambda, letS, lit, lprim, nvar, prim, ret, tuple, REAL } from '../ir/syntax';
import { mapChildren, visitDef } from '../ir/traverse';
import { LIN_PRIMS } from '../prims/registry';
import { printType } from '../ir/printType';
import { erasedName, role } from '../ir/names';
import { calleesFirst, defMap } from '../ir/program';
import { DeepWalk } from '../ir/deepWalk';
import { emptyArray, emptyStack } from '../constructs/placeholder';
import { constructRule } from '../constructs/registry';
import type { Counts } from '../constructs/types';
import { arityOf, defArity } from '../language/arity';

/** A name-safe spelling of a type: real r, bool b, tuple T…_ (so helper names are stable). */
function typeCode(t: Type): string {
  return t.tag === 'real'
    ? 'r'
    : t.tag === 'bool'
      ? 'b'
      : t.tag === 'str'
        ? 's'
        : t.tag === 'stack'
          ? `S${typeCode(t.elem)}_`
          : t.tag === 'array'
            ? `A${typeCode(t.elem)}_`
            : `T${t.elems.map(typeCode).join('')}_`;
}

/** Whether a value of this type holds an array (which an accumulation may update in place). */
const holdsArray = (t: Type): boolean => t.tag === 'array' || (t.tag === 'tuple' && t.elems.some(holdsArray));

class Eraser {
  /** Helper defs generated so far, keyed by `op:type`, in dependency order. */
  private readonly helpers = new Map<string, FnDef>();
  /** Types of the variables of the def being erased (for a linear leaf ending a body). */
  types = new Map<string, Type>();
  constructor(
    private readonly taken: Set<string>,
    private readonly callee: (fn: string) => Counts | undefined,
  ) {}

  newHelpers(): FnDef[] {
    const out = [...this.helpers.values()].filter((d) => !this.taken.has(d.name));
    out.forEach((d) => this.taken.add(d.name));
    return out;
  }

  /** The helper computing `op` leafwise on type `t` (a tuple). */
  private helperFor(op: string, t: Type): string {
    const key = `${op}:${printType(t)}`;
    const existing = this.helpers.get(key);
    if (existing) return existing.name;
    if (t.tag !== 'tuple') throw new InternalError('erase: helpers are only for tuple types');
    const def = LIN_PRIMS[op];
    const names = new NameSupply();
    const coeffs = def.nlTypes.map((ct, i) => binder(names.fresh(`u${i}`), ct));
    const args = Array.from({ length: def.linArity }, (_, i) => binder(names.fresh(`a${i}`), t));
    const b = new Builder(names);
    const parts = args.map((a) => {
      const ps = t.elems.map((et, j) => binder(names.fresh(`${a.name}_${j}`), et));
      b.unpack(false, ps, a.name);
      return ps;
    });
    const outs = t.elems.map((et, j) => {
      const leafArgs = [...coeffs.map((c) => c.name), ...parts.map((ps) => ps[j].name)];
      if (et.tag === 'tuple') return b.nl('r', call(this.helperFor(op, et), leafArgs), et);
      // An array leaf (an object of Float64Arrays' cotangent) is added elementwise, as at top level.
      if (et.tag === 'array')
        return b.nl(
          'r',
          this.elementwise(
            lprim(
              op,
              coeffs.map((c) => c.name),
              parts.map((ps) => ps[j].name),
            ) as Extract<Expr, { tag: 'lprim' }>,
            et,
            b,
          ),
          et,
        );
      return b.nl('r', prim(def.erase, leafArgs), et);
    });
    const result = b.nl('t', tuple(false, outs), t);
    const name = `${op}.E.${typeCode(t)}`;
    const helper: FnDef = {
      name,
      nlParams: [...coeffs, ...args],
      linParams: [],
      nlResults: [t],
      linResults: [],
      body: b.finish(ret([result])),
    };
    this.helpers.set(key, helper);
    return name;
  }

  private zeroValue(b: Builder, t: Type): string {
    if (t.tag === 'tuple')
      return b.nl(
        'zero',
        tuple(
          false,
          t.elems.map((e) => this.zeroValue(b, e)),
        ),
        t,
      );
    // The zero stack is the empty one: its missing elements read as zeros (constructs/stack/linear.ts).
    if (t.tag === 'stack') return emptyStack(b, t.elem);
    // Likewise the zero array is the empty one (constructs/array/ops.ts).
    if (t.tag === 'array') return emptyArray(b, t.elem);
    return b.nl('zero', lit(0), REAL);
  }

  walk = new DeepWalk();

  private binderType(b: Binder): Type {
    if (!b.type) throw new InternalError(`erase: untyped binder ${b.name} (annotate types first)`);
    return b.type;
  }

  /** Erases a block into a fresh builder; nested blocks recurse (erasure runs on J's and T's flat output). */
  block(body: Block, names: NameSupply): Block {
    const b = new Builder(names);
    for (const s of body.stmts) {
      if (s.tag === 'unpack') {
        b.unpack(false, [...s.names], s.tuple);
        continue;
      }
      const binders = [...s.nl, ...s.lin];
      const special = s.lin.length === 1 && s.nl.length === 0 ? this.leaf(s.rhs, this.binderType(s.lin[0]), b) : null;
      if (special) b.bind([s.lin[0]], [], special);
      else b.bind(binders, [], this.expr(s.rhs, names));
    }
    return b.finish(this.expr(body.result, names));
  }

  /** A right-hand side or a block's result, with linearity forgotten. */
  private expr(e: Expr, names: NameSupply): Expr {
    switch (e.tag) {
      case 'ret':
        return ret([...e.nl, ...e.lin]);
      case 'call':
        return call(erasedName(e.fn), [...e.nl, ...e.lin]);
      case 'var':
        return nvar(e.name);
      case 'tuple':
        return tuple(false, e.elems);
      case 'dup': {
        // Two holders of one array: `share` takes it out of in-place updates (constructs/array/accum.ts).
        const t = this.types.get(e.name);
        return t !== undefined && holdsArray(t) ? construct('share', [e.name], [], []) : ret([e.name, e.name]);
      }
      case 'lprim':
      case 'zero':
        throw new InternalError('erase: a linear leaf in tail position must be let-bound (run after flattening)');
      case 'construct': {
        const eraseBody = (l: Lambda): Lambda =>
          this.walk.body(l.body, () => ({
            nlParams: [...l.nlParams, ...l.linParams],
            linParams: [],
            body: this.block(
              nameTails(l.body, (r) => this.typeOfTail(r), names),
              names,
            ),
          }));
        const rule = constructRule(e, 'erase');
        if (rule.erase) return rule.erase({ eraseBody, arity: (l) => arityOf(l.body.result, this.callee), fresh: (h) => names.fresh(h) }, e);
        return { ...e, nl: [...e.nl, ...e.lin], lin: [], bodies: e.bodies.map(eraseBody) };
      }
      default:
        return mapChildren(
          e,
          (l) => ({ ...l, body: this.block(l.body, names) }),
          (inner) => this.expr(inner, names),
        );
    }
  }

  /** The type of a linear leaf: a zero's own, a linear primitive's that of its linear arguments. */
  private typeOfTail(e: Expr): Type {
    if (e.tag === 'zero') return e.type;
    const t = e.tag === 'lprim' ? this.types.get(e.lin[0]) : undefined;
    if (!t) throw new InternalError(`erase: no type for the result of ${e.tag} (annotate types first)`);
    return t;
  }

  /** Linear leaves that need their result type: lprims and zeros. */
  private leaf(e: Expr, t: Type, b: Builder): Expr | null {
    if (e.tag === 'zero') return nvar(this.zeroValue(b, e.type));
    if (e.tag !== 'lprim') return null;
    const args = [...e.nl, ...e.lin];
    if (t.tag === 'array') return this.elementwise(e, t, b);
    return t.tag === 'tuple' ? call(this.helperFor(e.op, t), args) : prim(LIN_PRIMS[e.op].erase, args);
  }

  /**
   * A linear primitive on arrays of reals, erased: a sparse map (constructs/array/map.ts) of its
   * erasure over the longest operand (tangent arrays are sparse at the end: a missing element
   * reads 0), coefficients invariant.
   *   ladd(; a, b) ↦ smap(max(len a, len b), a, b)[|x, y| add(x, y)]
   */
  private elementwise(e: Extract<Expr, { tag: 'lprim' }>, t: Type, b: Builder): Expr {
    if (t.tag !== 'array' || t.elem.tag !== 'real') throw new IrError(`erase: ${e.op} on ${printType(t)} is not supported (linear operations on arrays of reals only)`);
    const def = LIN_PRIMS[e.op];
    const lens = e.lin.map((a) => b.nl('n', construct('len', [a], [], []), REAL));
    const n = lens.length === 1 ? lens[0] : b.prim('max', lens, 'n');
    const coeffs = def.nlTypes.map((ct, k) => binder(b.fresh(`u${k}`), ct));
    const elems = e.lin.map((_, k) => binder(b.fresh(`x${k}`), REAL));
    const body = lambda(
      [...coeffs, ...elems],
      [],
      block(
        [],
        prim(
          def.erase,
          [...coeffs, ...elems].map((p) => p.name),
        ),
      ),
    );
    return construct('smap', [n, ...e.nl, ...e.lin], [], [body]);
  }
}

/** Gives a linear leaf in result position a name, so erasure always knows its type. */
function nameTails(body: Block, typeOf: (leaf: Expr) => Type, names: NameSupply): Block {
  const e = body.result;
  if (e.tag !== 'lprim' && e.tag !== 'zero') return body;
  const r = names.fresh('r');
  return block([...body.stmts, letS([], [binder(r, typeOf(e))], e)], ret([], [r]));
}

function eraseDef(d: FnDef, eraser: Eraser): FnDef {
  const names = new NameSupply(namesIn(d.body, new Set([...d.nlParams, ...d.linParams].map((x) => x.name))));
  eraser.types = new Map();
  visitDef(d, {
    bind: (b) => {
      if (b.type) eraser.types.set(b.name, b.type);
    },
  });
  // Bodies nested thousands deep are erased in stretches (DeepWalk).
  eraser.walk = new DeepWalk();
  const body = eraser.walk.run(() =>
    eraser.block(
      nameTails(d.body, () => d.linResults[0], names),
      names,
    ),
  );
  // Usage-correct as built: erasure maps a well-typed def statement for statement (its drops
  // stay drops, a dup binds two names to one value), and non-linear values may be read freely.
  return {
    name: erasedName(d.name),
    role: role('erased', d.name),
    nlParams: [...d.nlParams, ...d.linParams],
    linParams: [],
    nlResults: [...d.nlResults, ...d.linResults],
    linResults: [],
    body,
  };
}

/** Appends g.E for each named function and everything it calls (helpers first). */
export function eraseProgram(p: Program, fns: readonly string[]): Program {
  const defs = defMap(p);
  const out = [...p.defs];
  const eraser = new Eraser(new Set(defs.keys()), defArity(defs));
  for (const name of calleesFirst(p, fns)) {
    if (defs.has(erasedName(name))) continue;
    const e = eraseDef(defs.get(name)!, eraser);
    out.push(...eraser.newHelpers(), e);
    defs.set(e.name, e);
  }
  return { ...p, defs: out };
}
