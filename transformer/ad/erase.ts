// Linearity erasure E (notes §2.6): forget which variables are linear, so that a linear
// program can be run on concrete seeds (a gradient needs the cotangent 1.0) or differentiated
// again (higher order = E, then J).
//
//   g(ū ; v̇̄) -> (σ̄ ; τ̄)   becomes   g.E(ū, v̄ ;) -> (σ̄, τ̄ ;)
//
// Linear primitives become the non-linear primitive named by their record's `erase`. At a
// tuple type they become a call to a generated helper (one per primitive and type), which
// unpacks, applies the primitive leafwise and repacks; helpers keep the program size linear.
import { Builder, NameSupply, namesIn } from '../ir/build';
import {
  Binder,
  Expr,
  FnDef,
  InternalError,
  Program,
  Type,
  binder,
  call,
  lit,
  prim,
  ret,
  tuple,
  REAL,
} from '../ir/syntax';
import { LIN_PRIMS } from '../prims/registry';
import { printType } from '../ir/printType';
import { erasedName } from './names';
import { calleesFirst, defMap } from './program';
import { restoreLinearity } from './linearity';

/** A name-safe spelling of a type: real r, bool b, tuple T…_ (so helper names are stable). */
function typeCode(t: Type): string {
  return t.tag === 'real' ? 'r' : t.tag === 'bool' ? 'b' : t.tag === 'str' ? 's' : `T${t.elems.map(typeCode).join('')}_`;
}

class Eraser {
  /** Helper defs generated so far, keyed by `op:type`, in dependency order. */
  private readonly helpers = new Map<string, FnDef>();
  constructor(private readonly taken: Set<string>) {}

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
      return et.tag === 'tuple' ? b.nl('r', call(this.helperFor(op, et), leafArgs), et) : b.nl('r', prim(def.erase, leafArgs), et);
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
    if (t.tag === 'tuple') return b.nl('zero', tuple(false, t.elems.map((e) => this.zeroValue(b, e))), t);
    return b.nl('zero', lit(0), REAL);
  }

  private binderType(b: Binder): Type {
    if (!b.type) throw new InternalError(`erase: untyped binder ${b.name} (annotate types first)`);
    return b.type;
  }

  expr(start: Expr, b: Builder): Expr {
    // Let chains in a loop: generated code can be thousands of bindings deep.
    let e = start;
    for (;;) {
      if (e.tag === 'let') {
        const binders = [...e.nl, ...e.lin];
        const special = e.lin.length === 1 && e.nl.length === 0 ? this.leaf(e.rhs, this.binderType(e.lin[0]), b) : null;
        if (special) b.bind([e.lin[0]], [], special);
        else if (e.rhs.tag === 'dup') b.bind(binders, [], ret([e.rhs.name, e.rhs.name]));
        else b.bind(binders, [], this.block(e.rhs, b.names));
        e = e.body;
      } else if (e.tag === 'unpack') {
        b.unpack(false, [...e.names], e.tuple);
        e = e.body;
      } else return this.tail(e, b);
    }
  }

  private tail(e: Expr, b: Builder): Expr {
    switch (e.tag) {
      case 'ret':
        return b.finish(ret([...e.nl, ...e.lin]));
      case 'call':
        return b.finish(call(erasedName(e.fn), [...e.nl, ...e.lin]));
      case 'var':
        return b.finish({ tag: 'var', linear: false, name: e.name });
      case 'tuple':
        return b.finish(tuple(false, e.elems));
      case 'dup':
        return b.finish(ret([e.name, e.name]));
      case 'drop':
        return b.finish({ tag: 'drop', expr: this.block(e.expr, b.names) });
      case 'lprim':
      case 'zero':
        throw new InternalError('erase: a linear leaf in tail position must be let-bound (run after flattening)');
      default:
        return b.finish(e);
    }
  }

  /** Linear leaves that need their result type: lprims and zeros. */
  private leaf(e: Expr, t: Type, b: Builder): Expr | null {
    if (e.tag === 'zero') return { tag: 'var', linear: false, name: this.zeroValue(b, e.type) };
    if (e.tag !== 'lprim') return null;
    const args = [...e.nl, ...e.lin];
    return t.tag === 'tuple' ? call(this.helperFor(e.op, t), args) : prim(LIN_PRIMS[e.op].erase, args);
  }

  block(e: Expr, names: NameSupply): Expr {
    return this.expr(e, new Builder(names));
  }
}

/** Gives every linear leaf in tail position a name, so erasure always knows its type. */
function nameTails(start: Expr, resultTypes: readonly Type[], names: NameSupply): Expr {
  const spine: Expr[] = [];
  let e = start;
  while (e.tag === 'let' || e.tag === 'unpack') {
    spine.push(e);
    e = e.body;
  }
  if (e.tag !== 'lprim' && e.tag !== 'zero') return start;
  const r = names.fresh('r');
  let out: Expr = { tag: 'let', nl: [], lin: [binder(r, resultTypes[0])], rhs: e, body: ret([], [r]) };
  for (let i = spine.length - 1; i >= 0; i--) out = { ...(spine[i] as Extract<Expr, { tag: 'let' | 'unpack' }>), body: out };
  return out;
}

function eraseDef(d: FnDef, eraser: Eraser): FnDef {
  const names = new NameSupply(namesIn(d.body, new Set([...d.nlParams, ...d.linParams].map((x) => x.name))));
  const body = eraser.block(nameTails(d.body, d.linResults, names), names);
  return restoreLinearity({
    name: erasedName(d.name),
    nlParams: [...d.nlParams, ...d.linParams],
    linParams: [],
    nlResults: [...d.nlResults, ...d.linResults],
    linResults: [],
    body,
  });
}

/** Appends g.E for each named function and everything it calls (helpers first). */
export function eraseProgram(p: Program, fns: readonly string[]): Program {
  const defs = defMap(p);
  const out = [...p.defs];
  const eraser = new Eraser(new Set(defs.keys()));
  for (const name of calleesFirst(p, fns)) {
    if (defs.has(erasedName(name))) continue;
    const e = eraseDef(defs.get(name)!, eraser);
    out.push(...eraser.newHelpers(), e);
    defs.set(e.name, e);
  }
  return { ...p, defs: out };
}
