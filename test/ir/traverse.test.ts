// The traversal (ir/traverse.ts): the visitor's events in evaluation order with scopes, the
// rewriter's default recursion, and the folds built on them, checked against hand-worked
// expectations and against an independent recursive walk on generated programs.
import fc from 'fast-check';
import { parseProgram } from '../../transformer/language/parse';
import { printProgram } from '../../transformer/ir/print';
import { Block, Expr, FnDef, Lambda, binder, block, blockE, letS, prim, ret } from '../../transformer/ir/syntax';
import { calleesOf, forEachOperand, namesIn, rewriteBlock, rewriteDef, rewriteLambda, visitDef } from '../../transformer/ir/traverse';
import { freeVars } from '../../transformer/ir/freeVars';
import { nonLinearProgram, linearProgram, choices } from '../gen/programs';
import { jvpOf, vjpOf } from '../gen/drivers';

const def = (src: string): FnDef => parseProgram(src).defs.at(-1)!;

test('the visitor reports reads, binders and scopes in evaluation order', () => {
  const d = def(`
def f(x: real ; u: real) -> (real ; real) {
  let a = { let b = sin(x) in mul(b, x) }
  let t = <a, x>
  let <p, q> = t
  let (; v) = scale(p ; u)
  drop(q)
  (a ; v)
}`);
  const events: string[] = [];
  visitDef(d, {
    read: (n, linear) => events.push(`read ${n}${linear ? '!' : ''}`),
    bind: (b, linear) => events.push(`bind ${b.name}${linear ? '!' : ''}`),
    enter: () => events.push('enter'),
    leave: (_l, bound) => events.push(`leave ${bound.join(',')}`),
  });
  expect(events).toEqual([
    'enter',
    'bind x',
    'bind u!',
    'enter',
    'read x',
    'bind b',
    'read b',
    'read x',
    'leave b',
    'bind a',
    'read a',
    'read x',
    'bind t',
    'read t',
    'bind p',
    'bind q',
    'read p',
    'read u!',
    'bind v!',
    'read q',
    'read a',
    'read v!',
    'leave x,u,a,t,p,q,v',
  ]);
});

test('free variables respect inner scopes and sorts', () => {
  const d = def('def f(x: real, y: real ; u: real) -> (real ; real) { let a = { let x = sin(y) in mul(x, y) } in let (; v) = scale(a ; u) in (a ; v) }');
  const body: Block = { stmts: d.body.stmts, result: d.body.result };
  const fv = freeVars(body);
  expect([...fv.nl].sort()).toEqual(['y']);
  expect([...fv.lin]).toEqual(['u']);
});

/** An independent recursive walk: every name read or bound, every callee. */
function reference(d: FnDef): { names: Set<string>; callees: Set<string> } {
  const names = new Set<string>();
  const callees = new Set<string>();
  const lambda = (l: Lambda) => {
    [...l.nlParams, ...l.linParams].forEach((b) => names.add(b.name));
    block(l.body);
  };
  const block = (b: Block) => {
    for (const s of b.stmts) {
      if (s.tag === 'unpack') {
        names.add(s.tuple);
        s.names.forEach((x) => names.add(x.name));
      } else {
        expr(s.rhs);
        [...s.nl, ...s.lin].forEach((x) => names.add(x.name));
      }
    }
    expr(b.result);
  };
  const expr = (e: Expr) => {
    if (e.tag === 'call') callees.add(e.fn);
    forEachOperand(e, (n) => names.add(n));
    if (e.tag === 'drop') expr(e.expr);
    if (e.tag === 'block') block(e.block);
    if (e.tag === 'construct') e.bodies.forEach(lambda);
  };
  lambda(d);
  return { names, callees };
}

test('namesIn and calleesOf agree with a recursive walk on every pass output (property)', () => {
  fc.assert(
    fc.property(choices, (xs) => {
      const p = nonLinearProgram(xs);
      const f = p.defs[p.defs.length - 1].name;
      for (const q of [p, linearProgram(xs), jvpOf(p, f).program, vjpOf(p, f).program]) {
        for (const d of q.defs) {
          const ref = reference(d);
          expect([...namesIn(d)].sort()).toEqual([...ref.names].sort());
          expect([...calleesOf(d.body)].sort()).toEqual([...ref.callees].sort());
        }
      }
    }),
    { numRuns: 100 },
  );
});

test('the rewriter recurses into nested blocks by default and rewrites only what a case names', () => {
  const p = parseProgram('def f(x: real ;) -> (real ;) {\n  let a = { let b = sin(x) in cos(b) }\n  let c = sin(a)\n  (c ;)\n}');
  const d = rewriteDef(p.defs[0], { expr: (e) => (e.tag === 'prim' && e.op === 'sin' ? { ...e, op: 'tanh' } : e) });
  expect(printProgram({ defs: [d] })).toBe('def f(x: real ;) -> (real ;) {\n  let a = {\n    let b = tanh(x)\n    cos(b)\n  }\n  let c = tanh(a)\n  (c ;)\n}\n');
});

test('the rewriter returns the same block, body and def when nothing changed, and a new one when something did', () => {
  const p = parseProgram('def f(x: real ;) -> (real ;) {\n  let a = { let b = sin(x) in cos(b) }\n  let c = sin(a)\n  (c ;)\n}');
  const d = p.defs[0];
  expect(rewriteDef(d, { expr: (e) => e })).toBe(d);
  expect(rewriteLambda(d, {})).toBe(d);
  const changed = rewriteDef(d, { expr: (e) => (e.tag === 'prim' && e.op === 'cos' ? { ...e, op: 'tanh' } : e) });
  expect(changed).not.toBe(d);
  // The statement after the nested block is kept as it was.
  expect(changed.body.stmts[1]).toBe(d.body.stmts[1]);
});

test('the rewriter takes blocks nested 20 000 deep without a frame per level, with scope events paired', () => {
  const depth = 20000;
  let inner: Block = block([letS([binder('y')], [], prim('sin', ['x']))], ret(['y']));
  for (let i = 0; i < depth; i++) inner = block([letS([binder(`a${i}`)], [], blockE(inner))], ret([`a${i}`]));
  let open = 0;
  let most = 0;
  const out = rewriteBlock(inner, {
    enter: () => {
      open++;
      most = Math.max(most, open);
    },
    leave: () => open--,
    expr: (e) => (e.tag === 'prim' ? { ...e, op: 'cos' } : e),
  });
  expect(open).toBe(0);
  expect(most).toBe(depth);
  let b = out;
  for (let i = 0; i < depth; i++) {
    const s = b.stmts[0];
    if (s.tag !== 'let' || s.rhs.tag !== 'block') throw new Error('not nested');
    b = s.rhs.block;
  }
  const s = b.stmts[0];
  expect(s.tag === 'let' && s.rhs.tag === 'prim' && s.rhs.op).toBe('cos');
});
