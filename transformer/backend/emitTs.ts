// Linear A -> TypeScript. Each IR def becomes a plain function of `const` declarations: tuples
// are arrays, a multi-value result is an array (a single one is returned bare), `dup` is an alias,
// `drop` disappears (everything is pure), primitives and constructs print through this backend's
// tables (backend/ts/prims, backend/ts/constructs).
// Straight-line code stays straight-line. A nested block becomes a JavaScript block whose results
// are assigned to `let` variables declared before it, the shape a construct's `if` or `for` takes
// too (its rule emits the statements, see constructs/types.ts); what a block binds, aliases or
// computes ends with it. Names are unique per def, so an inner declaration never shadows a
// variable the block assigns.
import { prepareForBackend } from '../opt/afterAd';
import type * as ts from 'typescript';
import { Block, Expr, FnDef, InternalError, Stmt, Type } from '../ir/syntax';
import { foldBlock, forEachOperand, namesIn, visitLambda } from '../ir/traverse';
import { NameSupply } from '../ir/build';
import { linPrimTs, primTs } from './ts/prims';
import { constructRule, isConstruct, CONSTRUCTS, type ConstructName } from '../constructs/registry';
import type { ConstructExpr, Counts } from '../constructs/types';
import type { CheckHelperName, EmitTsOps, OwnHelperName, StackHelperName } from './ts/types';
import { stackHelperName } from './ts/constructs/stackEmit';
import { TS_CONSTRUCTS } from './ts/constructs';
import { tidyBody } from './ts/fold';
import { mergeAdjacentLets } from './ts/mergeLets';
import { scalarizeTuples } from './ts/scalarize';
import { shortNames } from './ts/shortNames';
import { sharedBases } from './ts/sharedBases';
import { sameLets } from './ts/sameLets';
import { foldStrings } from './ts/stringFolds';
import { arityOf, defArity } from '../language/arity';
import { literalFloat64ArrayLength } from './ts/nodeFacts';
import { withoutBookkeeping } from './ts/ownedBookkeeping';
import { mapTo } from './ts/sourceMaps';

export interface EmitOptions {
  readonly factory: ts.NodeFactory;
  readonly tsApi: typeof ts;
  /** The identifier an IR def is emitted under. */
  readonly fnName: (irName: string) => string;
  /** Source node for source maps, per IR def. */
  readonly original?: (irName: string) => ts.Node | undefined;
  /** Source node per variable of a def, for statement-level source maps. */
  readonly originOf?: (irName: string, variable: string) => ts.Node | undefined;
  /** A function the module shares, where the caller emits one (EmitTsOps.moduleHelper). */
  readonly moduleHelper?: (name: StackHelperName | OwnHelperName | CheckHelperName) => ts.Identifier;
  /** Result counts of the defs a construct's body may end with a call to (emitDefs fills it from its defs). */
  readonly calleeArity?: (irName: string) => Counts | undefined;
}

const NAMED_CONSTANTS = new Map<number, string>((['PI', 'E', 'LN2', 'LN10', 'LOG2E', 'LOG10E', 'SQRT2', 'SQRT1_2'] as const).map((k) => [Math[k], k]));

export function mangle(irName: string): string {
  return irName.replace(/\./g, '$');
}

/** Where a block's results go: returned from the function, or assigned to variables declared before it. */
type Into = 'return' | readonly string[];

/** A block being emitted; blocks nest as deep as the IR does, so they are kept on an explicit stack. */
interface Frame {
  readonly out: ts.Statement[];
  readonly into: Into;
  /** The undo log's length when the block was entered. */
  readonly mark: number;
  /** Where the finished JavaScript block goes (the outermost block's statements are the caller's). */
  readonly parent?: ts.Statement[];
}

class DefEmitter {
  /** Fan-outs and renames are aliases, not copies. */
  private readonly alias = new Map<string, string>();
  /** Literal bindings are printed at their uses: `x - 1`, not `const c = 1; x - c`. */
  private readonly literal = new Map<string, ts.Expression>();
  /** Variables released before the body being emitted runs, which it cannot change (EmitTsOps.emitBody). */
  private readonly releasedHere = new Map<string, true>();
  private lastOrigin: ts.Node | undefined;
  /** Emitted operations by operator and resolved operands, for reuse (all code is pure). */
  private readonly computed = new Map<string, string>();
  /**
   * Restores the three maps above as they were when a JavaScript block ends: what was recorded
   * inside it may name a variable that does not exist after it.
   */
  private readonly undo: (() => void)[] = [];
  /** Temporaries for a construct's results (made on first use: most defs have none). */
  private temps: NameSupply | undefined;
  /**
   * The arrays this call allocated and may update in place (EmitTsOps.owned), declared at the
   * top of the function when a construct first asks.
   */
  private ownedSet: ts.Identifier | undefined;
  /** Variables bound to an empty Float64Array this call made (`const z = new Float64Array(0)`; EmitTsOps.freshZero). */
  private readonly zeroArrays = new Set<string>();
  private inPlace: boolean | undefined;

  /** The writing form's array and offset parameters (emitWriterDefs): the results are stored into the array from the offset on, not returned. */
  readonly writes: { readonly out: ts.Identifier; readonly at: ts.Identifier } | undefined;

  constructor(
    private readonly o: EmitOptions,
    private readonly def: FnDef,
    writing = false,
  ) {
    this.writes = writing ? { out: this.own('$out'), at: this.own('$at') } : undefined;
  }

  /**
   * The names the emitter declares itself (`$slab`, `$own`, `$out`, …), one per stem. They start
   * with `$`, which the passes' names never do, but a user's variable may (`let $out`), and its
   * name reaches the IR as it is: a stem the def already uses gets a counter (`$out_1`).
   */
  private readonly ownNames = new Map<string, string>();

  private own(stem: string): ts.Identifier {
    let name = this.ownNames.get(stem);
    if (name === undefined) this.ownNames.set(stem, (name = this.names().fresh(stem)));
    return this.f.createIdentifier(name);
  }

  /** Every name of the def and each one the emitter has made: temporaries and its own names are fresh against it. */
  private names(): NameSupply {
    return (this.temps ??= new NameSupply(namesIn(this.def)));
  }

  private get f(): ts.NodeFactory {
    return this.o.factory;
  }

  /**
   * `const $own = new Set(); let $gen = 0; let $hot, $hg, $hot_1, $hg_1, …;` when the function
   * updates arrays in place, else nothing. Each update site has a slot holding the array it last
   * found owned and the release count then: a loop accumulating into one or several arrays finds
   * each by two comparisons instead of a set lookup per element (EmitTsOps.hotSlot).
   */
  get prologue(): ts.Statement[] {
    const f = this.f;
    const take = this.poolsSlab() ? this.o.moduleHelper?.('take') : undefined;
    const slab = take
      ? [
          f.createVariableStatement(
            undefined,
            f.createVariableDeclarationList([f.createVariableDeclaration(this.slabName!, undefined, undefined, f.createCallExpression(take, undefined, []))], this.o.tsApi.NodeFlags.Const),
          ),
        ]
      : this.slabName
        ? [
            f.createVariableStatement(
              undefined,
              f.createVariableDeclarationList(
                [
                  f.createVariableDeclaration(
                    this.slabName,
                    undefined,
                    undefined,
                    f.createObjectLiteralExpression([
                      f.createPropertyAssignment('chunk', f.createNewExpression(f.createIdentifier('Float64Array'), undefined, [f.createNumericLiteral(0)])),
                      f.createPropertyAssignment('top', f.createNumericLiteral(0)),
                    ]),
                  ),
                ],
                this.o.tsApi.NodeFlags.Const,
              ),
            ),
          ]
        : [];
    if (!this.ownedSet || !this.readsOwnedSet()) return slab;
    const init = f.createNewExpression(f.createIdentifier('Set'), undefined, []);
    const set = f.createVariableStatement(undefined, f.createVariableDeclarationList([f.createVariableDeclaration(this.ownedSet, undefined, undefined, init)], this.o.tsApi.NodeFlags.Const));
    // Only the slots read the release count (a claim's helper asks the set itself).
    if (this.slots.length === 0) return [...slab, set];
    return [
      ...slab,
      set,
      f.createVariableStatement(
        undefined,
        f.createVariableDeclarationList([f.createVariableDeclaration(this.generation(), undefined, undefined, f.createNumericLiteral(0))], this.o.tsApi.NodeFlags.Let),
      ),
      ...(this.slots.length > 0
        ? [
            f.createVariableStatement(
              undefined,
              f.createVariableDeclarationList(
                this.slots.flatMap((s) => [f.createVariableDeclaration(s.slot), f.createVariableDeclaration(s.gen)]),
                this.o.tsApi.NodeFlags.Let,
              ),
            ),
          ]
        : []),
    ];
  }

  /**
   * The statements without the owned set's bookkeeping (`$own.add(r)`, `$own.delete(x); $gen++;`)
   * when no site of the function asks the set (a site with a slot, hotSlot, or a claim's helper,
   * tsad$claim): then nothing reads it, and a `tsad$fresh($own, n)` is a plain allocation. A
   * gradient whose cotangent arrays all start from the zero array allocates them owned without
   * asking (emitOwnedDense) and so keeps no set at all. Where only claims ask it, no slot reads
   * the release count, and only `$gen++` goes.
   */
  withoutUnreadOwnership(statements: ts.Statement[]): ts.Statement[] {
    if (!this.ownedSet || this.slots.length > 0) return this.bindingOwnHelpers(statements);
    // Claims' helpers ask the set but no slot reads the release count: only `$gen++` goes.
    const setRead = this.readsOwnedSet();
    const kept = withoutBookkeeping(this.o.tsApi, statements, { own: this.ownedSet, generation: this.generation().text, setRead, freshCalls: this.freshCalls });
    return setRead ? this.bindingOwnHelpers(kept) : kept;
  }

  /** The statements, the owned-array helpers they call now bound in the module (it binds only what it calls). */
  private bindingOwnHelpers(statements: ts.Statement[]): ts.Statement[] {
    for (const name of this.ownHelpers) this.o.moduleHelper?.(name);
    return statements;
  }

  /** The owned-array helpers the def's sites called (EmitTsOps.ownHelper); a claim asks the set. */
  private readonly ownHelpers = new Set<OwnHelperName>();

  private ownHelper(name: OwnHelperName): ts.Identifier | undefined {
    if (!this.o.moduleHelper) return undefined;
    this.owned();
    this.ownHelpers.add(name);
    // Not bound yet: a `fresh` call goes where the set is unread (withoutUnreadOwnership binds what stays).
    const id = this.f.createIdentifier(stackHelperName(name));
    if (name === 'fresh') this.freshCalls.add(id);
    return id;
  }

  /** The callee identifiers of the `tsad$fresh` calls made so far (one object per call). */
  private readonly freshCalls = new Set<ts.Node>();

  /** Whether some site asks the owned set: one with a slot (hotSlot) or a claim's helper. */
  private readsOwnedSet(): boolean {
    return this.slots.length > 0 || this.ownHelpers.has('claim');
  }

  /** The update sites' slots (EmitTsOps.hotSlot), declared in the prologue. */
  private readonly slots: { slot: ts.Identifier; gen: ts.Identifier }[] = [];

  private hotSlot(): { slot: ts.Identifier; gen: ts.Identifier; now: ts.Identifier } {
    this.owned();
    const k = this.slots.length;
    const s = { slot: this.own(k === 0 ? '$hot' : `$hot_${k}`), gen: this.own(k === 0 ? '$hg' : `$hg_${k}`) };
    this.slots.push(s);
    return { ...s, now: this.generation() };
  }

  /** `$gen`: how many releases this call has made (a slot filled before one is stale). */
  private generation(): ts.Identifier {
    return this.own('$gen');
  }

  /** `$slab`, declared in the prologue when a construct first asks (EmitTsOps.slab). */
  private slabName: ts.Identifier | undefined;

  private slab(): ts.Identifier {
    return (this.slabName ??= this.own('$slab'));
  }

  /**
   * Whether this call's slab can go back to the runtime's pool when it returns (runtime/emitted.ts,
   * tsad$take and tsad$give): a stack among the parameters may have been grown into it and is the caller's,
   * one among the results (a tape handed out) outlives the call, and a sparse stack (`lpush`
   * leaves holes that must read as zeros) cannot live in a reused chunk.
   */
  poolsSlab(): boolean {
    this.pools ??= this.slabCanReturn();
    return this.pools;
  }

  private pools: boolean | undefined;

  private slabCanReturn(): boolean {
    if (!this.slabName || !this.o.moduleHelper) return false;
    const d = this.def;
    const params = [...d.nlParams, ...d.linParams].map((p) => p.type ?? this.typeOf(p.name));
    if ([...params, ...d.nlResults, ...d.linResults].some(holdsStack)) return false;
    let sparse = false;
    visitLambda(d, { expr: (e) => void (e.tag === 'construct' && isConstruct(e.op) && constructRule(e, 'emit').leavesHoles && (sparse = true)) });
    return !sparse;
  }

  /** `return tsad$give($slab, value)` for the function's final `return value` (pooled slabs only). */
  giveBack(statements: ts.Statement[]): ts.Statement[] {
    const give = this.poolsSlab() ? this.o.moduleHelper?.('give') : undefined;
    const last = statements[statements.length - 1];
    if (!give || !last || !this.o.tsApi.isReturnStatement(last)) return statements;
    const f = this.f;
    const value = last.expression ?? f.createIdentifier('undefined');
    return [...statements.slice(0, -1), f.createReturnStatement(f.createCallExpression(give, undefined, [this.slabName!, value]))];
  }

  private owned(): ts.Identifier {
    return (this.ownedSet ??= this.own('$own'));
  }

  /** Whether some construct of the def updates arrays in place (then a fan-out of an array must release it). */
  private updatesInPlace(): boolean {
    if (this.inPlace === undefined) {
      let found = false;
      visitLambda(this.def, { expr: (e) => void (e.tag === 'construct' && isConstruct(e.op) && CONSTRUCTS[e.op].updatesInPlace && (found = true)) });
      this.inPlace = found;
    }
    return this.inPlace;
  }

  /** The def's parameters: the caller's arrays, which this call never owns (its `$own` starts empty and only gets arrays it allocates). */
  private params: Set<string> | undefined;

  /** `$own.delete(x); $gen++;`: x has two holders now (and no slot may vouch for it). */
  private release(x: ts.Expression): ts.Statement[] {
    if (!this.updatesInPlace()) return [];
    // Releasing what was never owned is a no-op, and its `$gen++` would only make every slot miss.
    this.params ??= new Set([...this.def.nlParams, ...this.def.linParams].map((p) => p.name));
    if (this.o.tsApi.isIdentifier(x) && this.params.has(x.text)) return [];
    // An enclosing loop released it and every iteration sees the same array: it was never
    // owned again since (only fresh arrays join $own), so deleting it would only bump $gen.
    if (this.o.tsApi.isIdentifier(x) && this.releasedHere.has(x.text)) return [];
    const f = this.f;
    return [
      f.createExpressionStatement(f.createCallExpression(f.createPropertyAccessExpression(this.owned(), 'delete'), undefined, [x])),
      f.createExpressionStatement(f.createPostfixIncrement(this.generation())),
    ];
  }

  private set<V>(map: Map<string, V>, key: string, value: V): void {
    const had = map.has(key);
    const old = map.get(key);
    this.undo.push(had ? () => map.set(key, old as V) : () => map.delete(key));
    map.set(key, value);
  }

  private rollback(mark: number): void {
    while (this.undo.length > mark) this.undo.pop()!();
  }

  private resolve(name: string): string {
    let n = name;
    while (this.alias.has(n)) n = this.alias.get(n)!;
    return n;
  }

  /** True (and `name` aliased) when the operation was emitted before with the same operands. */
  private reuse(name: string, rhs: Extract<Expr, { tag: 'prim' | 'lprim' }>): boolean {
    const operands: string[] = [];
    forEachOperand(rhs, (n, linear) => operands.push(`${linear ? ';' : ''}${this.literalKey(n) ?? this.resolve(n)}`));
    const key = `${rhs.tag}:${rhs.op}(${operands.join(',')})`;
    const seen = this.computed.get(key);
    if (seen !== undefined) {
      this.set(this.alias, name, seen);
      return true;
    }
    this.set(this.computed, key, name);
    return false;
  }

  private literalKey(name: string): string | undefined {
    const lit = this.literal.get(this.resolve(name));
    return lit && this.o.tsApi.isNumericLiteral(lit) ? `#${lit.text}` : undefined;
  }

  private id(name: string): ts.Identifier {
    return this.f.createIdentifier(this.resolve(name));
  }

  /** A use of a variable: its alias target, or its literal value. */
  private ref(name: string): ts.Expression {
    const n = this.resolve(name);
    return this.literal.get(n) ?? this.f.createIdentifier(n);
  }

  private number(v: number): ts.Expression {
    const f = this.f;
    if (Number.isNaN(v)) return this.id('NaN');
    if (v === Infinity) return this.id('Infinity');
    // Negative literals keep their parentheses: the factory does not add them for `(-2) ** x`.
    if (v === -Infinity) return f.createParenthesizedExpression(f.createPrefixUnaryExpression(this.o.tsApi.SyntaxKind.MinusToken, this.id('Infinity')));
    const named = NAMED_CONSTANTS.get(v);
    if (named) return f.createPropertyAccessExpression(f.createIdentifier('Math'), named);
    if (v < 0 || Object.is(v, -0)) return f.createParenthesizedExpression(f.createPrefixUnaryExpression(this.o.tsApi.SyntaxKind.MinusToken, f.createNumericLiteral(-v)));
    return f.createNumericLiteral(v);
  }

  private zero(t: Type): ts.Expression {
    // A stack's zero is a fresh empty array (tangent stacks are sparse and pushed in place).
    if (t.tag === 'stack') return this.f.createArrayLiteralExpression([]);
    // The zero array is empty: its missing elements read as zeros (constructs/array/ops.ts).
    if (t.tag === 'array') return t.elem.tag === 'real' ? this.f.createNewExpression(this.f.createIdentifier('Float64Array'), undefined, [this.number(0)]) : this.f.createArrayLiteralExpression([]);
    return t.tag === 'tuple' ? this.f.createArrayLiteralExpression(t.elems.map((e) => this.zero(e))) : this.number(0);
  }

  /**
   * Maps a statement to the source of the variable it defines. Helpers a derivative rule
   * introduced (`dcos`, `slope`) have no source variable: they map to the statement before
   * them, the operation whose derivative they belong to.
   */
  private mapped(out: ts.Statement[], name: string | undefined, stmt: ts.Statement): void {
    const origin = (name === undefined ? undefined : this.o.originOf?.(this.def.name, name)) ?? this.lastOrigin;
    if (origin) mapTo(this.o.tsApi, stmt, origin);
    this.lastOrigin = origin;
    out.push(stmt);
  }

  /** `const a = …` or `const [a, b] = …`; `destructure` keeps the array pattern for one name (a one-element tuple). */
  private constDecl(out: ts.Statement[], names: readonly string[], init: ts.Expression, destructure = false): void {
    const f = this.f;
    const binding: ts.BindingName = names.length === 1 && !destructure ? this.id(names[0]) : f.createArrayBindingPattern(names.map((n) => f.createBindingElement(undefined, undefined, this.id(n))));
    const decl = f.createVariableDeclarationList([f.createVariableDeclaration(binding, undefined, undefined, init)], this.o.tsApi.NodeFlags.Const);
    this.mapped(out, names[0], f.createVariableStatement(undefined, decl));
    if (names.length === 1 && !destructure && literalFloat64ArrayLength(this.o.tsApi, init) === 0) this.zeroArrays.add(names[0]);
  }

  /** `let a, b;`: the variables a nested block or a construct assigns its results to. */
  private letDecl(out: ts.Statement[], names: readonly string[]): void {
    if (names.length === 0) return;
    const f = this.f;
    const decl = f.createVariableDeclarationList(
      names.map((n) => f.createVariableDeclaration(n)),
      this.o.tsApi.NodeFlags.Let,
    );
    this.mapped(out, names[0], f.createVariableStatement(undefined, decl));
  }

  private assign(out: ts.Statement[], into: readonly string[], value: ts.Expression): void {
    const f = this.f;
    const target = into.length === 1 ? f.createIdentifier(into[0]) : f.createArrayLiteralExpression(into.map((n) => f.createIdentifier(n)));
    this.mapped(out, into[0], f.createExpressionStatement(f.createAssignment(target, value)));
  }

  /** The value of a leaf expression (one result, or an array of several). */
  private leaf(e: Expr): ts.Expression {
    const f = this.f;
    const ids = (ns: readonly string[]) => ns.map((n) => this.ref(n));
    switch (e.tag) {
      case 'var':
        return this.ref(e.name);
      case 'lit':
        return typeof e.value === 'boolean' ? (e.value ? f.createTrue() : f.createFalse()) : typeof e.value === 'string' ? f.createStringLiteral(e.value) : this.number(e.value);
      case 'tuple':
        return f.createArrayLiteralExpression(ids(e.elems));
      case 'prim':
        return primTs(e.op)(ids(e.args), f);
      case 'lprim':
        return linPrimTs(e.op)(ids(e.nl), ids(e.lin), f);
      case 'zero':
        return this.zero(e.type);
      case 'call':
        return f.createCallExpression(this.id(this.o.fnName(e.fn)), undefined, ids([...e.nl, ...e.lin]));
      case 'ret': {
        const all = [...e.nl, ...e.lin];
        return all.length === 1 ? this.ref(all[0]) : f.createArrayLiteralExpression(ids(all));
      }
      case 'dup':
        return f.createArrayLiteralExpression(ids([e.name, e.name]));
      default:
        throw new InternalError(`emitTs: ${e.tag} is not a leaf`);
    }
  }

  /** A linear primitive at a tuple type: applied leaf by leaf (records describe one leaf). */
  private leafwise(e: Extract<Expr, { tag: 'lprim' }>, t: Type, path: readonly number[] = []): ts.Expression {
    const f = this.f;
    if (t.tag === 'tuple') return f.createArrayLiteralExpression(t.elems.map((el, i) => this.leafwise(e, el, [...path, i])));
    const at = (n: string) => path.reduce<ts.Expression>((acc, i) => f.createElementAccessExpression(acc, i), this.ref(n));
    // An array inside the tuple (a matrix's data beside its dimensions) is added element by element.
    if (t.tag === 'array') return this.elementwise(e, e.lin.map(at));
    return linPrimTs(e.op)(
      e.nl.map((n) => this.ref(n)),
      e.lin.map(at),
      f,
    );
  }

  /** Binder types of the def (names are unique per def), built when a construct first asks. */
  private types: Map<string, Type> | undefined;

  private typeOf(name: string): Type | undefined {
    if (!this.types) {
      const types = new Map<string, Type>();
      visitLambda(this.def, { bind: (b) => b.type && types.set(b.name, b.type) });
      this.types = types;
    }
    return this.types.get(name);
  }

  /**
   * A linear primitive on arrays of reals (tangent arrays are sparse at the end, a missing
   * element reads 0): `((a0, a1) => { const n = Math.max(a0.length, a1.length); const r = new
   * Float64Array(n); for (let k = 0; k < n; k++) r[k] = op(u, a0[k] ?? 0, a1[k] ?? 0); return r; })(x, y)`.
   */
  private elementwise(e: Extract<Expr, { tag: 'lprim' }>, operands: readonly ts.Expression[] = e.lin.map((x) => this.ref(x))): ts.Expression {
    const f = this.f;
    const SK = this.o.tsApi.SyntaxKind;
    // The emitter's own names, free in the def: the coefficients the body reads are never shadowed.
    const ps = e.lin.map((_, j) => this.own(`$a${j}`));
    const [n, r, k] = ['$n', '$r', '$k'].map((x) => this.own(x));
    const constD = (name: ts.Identifier, init: ts.Expression) =>
      f.createVariableStatement(undefined, f.createVariableDeclarationList([f.createVariableDeclaration(name, undefined, undefined, init)], this.o.tsApi.NodeFlags.Const));
    const lengths = ps.map((p) => f.createPropertyAccessExpression(p, 'length'));
    const elem = (p: ts.Expression) => f.createParenthesizedExpression(f.createBinaryExpression(f.createElementAccessExpression(p, k), SK.QuestionQuestionToken, f.createNumericLiteral(0)));
    const value = linPrimTs(e.op)(
      e.nl.map((x) => this.ref(x)),
      ps.map(elem),
      f,
    );
    const loop = f.createForStatement(
      f.createVariableDeclarationList([f.createVariableDeclaration(k, undefined, undefined, f.createNumericLiteral(0))], this.o.tsApi.NodeFlags.Let),
      f.createBinaryExpression(k, SK.LessThanToken, n),
      f.createPostfixIncrement(k),
      f.createExpressionStatement(f.createAssignment(f.createElementAccessExpression(r, k), value)),
    );
    const body = f.createBlock(
      [
        constD(n, lengths.length === 1 ? lengths[0] : f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier('Math'), 'max'), undefined, lengths)),
        constD(r, f.createNewExpression(f.createIdentifier('Float64Array'), undefined, [n])),
        loop,
        f.createReturnStatement(r),
      ],
      true,
    );
    const fn = f.createArrowFunction(
      undefined,
      undefined,
      ps.map((p) => f.createParameterDeclaration(undefined, undefined, p)),
      undefined,
      undefined,
      body,
    );
    return f.createCallExpression(f.createParenthesizedExpression(fn), undefined, [...operands]);
  }

  /** The construct's statements, its results assigned to `into` (declared by the caller). */
  private construct(out: ts.Statement[], e: ConstructExpr, into: readonly string[], resultTypes: readonly (Type | undefined)[] = []): void {
    constructRule(e, 'emitTs');
    const emit = TS_CONSTRUCTS[e.op as ConstructName];
    // What a rule may ask of the emitter: its operands and its bodies' code. A body's bindings
    // end with it, as a nested block's do.
    const ops: EmitTsOps = {
      factory: this.f,
      ts: this.o.tsApi,
      ref: (name) => this.ref(name),
      emitBody: (body, args, into, released = []) => {
        const stmts: ts.Statement[] = [];
        const mark = this.undo.length;
        for (const v of released) this.set(this.releasedHere, v, true);
        [...body.nlParams, ...body.linParams].forEach((p, i) => {
          const a = args[i];
          if ('alias' in a) this.set(this.alias, p.name, a.alias);
          // A string constant handed to a body stays a literal there, as a literal operand is
          // outside: a rule that reads static data from its operands (a raise's error class, a
          // log's layout) finds it whether or not a pass moved the literal out of the body.
          else if (this.o.tsApi.isStringLiteral(a)) this.set(this.literal, p.name, a);
          else this.constDecl(stmts, [p.name], a);
        });
        this.run(body.body, into, stmts);
        this.rollback(mark);
        return stmts;
      },
      arity: (body) => arityOf(body.body.result, this.o.calleeArity ?? (() => undefined)),
      fresh: (hint) => this.names().fresh(hint),
      resultTypes,
      typeOf: (name) => this.typeOf(name),
      owned: () => this.owned(),
      hotSlot: () => this.hotSlot(),
      freshZero: (name) => this.zeroArrays.has(this.resolve(name)),
      slab: () => this.slab(),
      moduleHelper: (name) => this.o.moduleHelper?.(name),
      ownHelper: (name) => this.ownHelper(name),
      release: (x) => this.release(x),
    };
    out.push(...emit(ops, e, into));
  }

  /** Emits one statement; a nested block is returned for the caller to emit (after `let` targets). */
  private stmt(out: ts.Statement[], s: Stmt): Block | undefined {
    if (s.tag === 'unpack') {
      this.constDecl(
        out,
        s.names.map((b) => b.name),
        this.ref(s.tuple),
        true,
      );
      return undefined;
    }
    const names = [...s.nl, ...s.lin].map((b) => b.name);
    const rhs = s.rhs;
    if (rhs.tag === 'drop') {
      // Everything in Linear A is pure: discarding a value is doing nothing.
    } else if (rhs.tag === 'lit' && names.length === 1) {
      this.set(this.literal, names[0], this.leaf(rhs));
    } else if (rhs.tag === 'dup' || (rhs.tag === 'ret' && names.length > 1)) {
      // Aliases: no array is built for a fan-out or a multi-value rename. A fanned-out array has
      // two holders, so it is no longer updated in place.
      const src = rhs.tag === 'dup' ? [rhs.name, rhs.name] : [...rhs.nl, ...rhs.lin];
      if (rhs.tag === 'dup' && s.lin[0]?.type?.tag === 'array') out.push(...this.release(this.ref(rhs.name)));
      names.forEach((n, i) => this.set(this.alias, n, src[i]));
    } else if ((rhs.tag === 'var' || rhs.tag === 'ret') && names.length === 1) {
      this.set(this.alias, names[0], rhs.tag === 'var' ? rhs.name : [...rhs.nl, ...rhs.lin][0]);
    } else if (rhs.tag === 'block') {
      this.letDecl(out, names);
      return rhs.block;
    } else if (rhs.tag === 'construct') {
      const stmts: ts.Statement[] = [];
      this.construct(
        stmts,
        rhs,
        names,
        [...s.nl, ...s.lin].map((b) => b.type),
      );
      const only = names.length === 1 && stmts.length === 1 ? assignedTo(this.o.tsApi, stmts[0], names[0]) : undefined;
      // A construct that is one assignment to its one result (an empty stack, a read) is a const.
      if (only) this.constDecl(out, names, only);
      else {
        this.letDecl(out, names);
        out.push(...stmts);
      }
    } else if (rhs.tag === 'lprim' && s.lin[0]?.type?.tag === 'array') {
      this.constDecl(out, names, this.elementwise(rhs));
    } else if (rhs.tag === 'lprim' && s.lin[0]?.type?.tag === 'tuple') {
      this.constDecl(out, names, this.leafwise(rhs, s.lin[0].type));
    } else if (names.length === 1 && (rhs.tag === 'prim' || rhs.tag === 'lprim') && this.reuse(names[0], rhs)) {
      // The same operation on the same values was already computed (cotangents of a
      // fan-out alias one name, so the linear part repeats itself): reuse it.
    } else if (names.length > 0) {
      this.constDecl(out, names, this.leaf(rhs));
    }
    return undefined;
  }

  /** A block's result (not a nested block: that one is entered instead). */
  private result(out: ts.Statement[], into: Into, e: Expr): void {
    const f = this.f;
    if (into === 'return' && this.writes) return this.store(out, this.writes.out, this.writes.at, e);
    if (into === 'return') {
      if (e.tag === 'drop') out.push(f.createReturnStatement(undefined));
      else if (e.tag !== 'construct') out.push(f.createReturnStatement(this.leaf(e)));
      else {
        // A construct in the def's result position returns what the def returns.
        const count = this.def.nlResults.length + this.def.linResults.length;
        const names = Array.from({ length: count }, () => this.names().fresh('result'));
        this.letDecl(out, names);
        this.construct(out, e, names, [...this.def.nlResults, ...this.def.linResults]);
        const value = names.length === 1 ? f.createIdentifier(names[0]) : f.createArrayLiteralExpression(names.map((n) => f.createIdentifier(n)));
        out.push(f.createReturnStatement(value));
      }
      return;
    }
    if (e.tag === 'drop' || into.length === 0) return;
    if (e.tag === 'construct') return this.construct(out, e, into);
    if (e.tag === 'ret' || e.tag === 'dup' || e.tag === 'var') {
      const src = e.tag === 'ret' ? [...e.nl, ...e.lin] : e.tag === 'dup' ? [e.name, e.name] : [e.name];
      into.forEach((n, i) => this.assign(out, [n], this.ref(src[i])));
      return;
    }
    this.assign(out, into, this.leaf(e));
  }

  /**
   * The writing form's result: `$out[$at] = r0; $out[$at + 1] = r1; …; return;`. Every value is
   * computed before the first store and tidyBody moves no read of an array past a store, so an
   * `$out` that is also one of the arguments is read as the call found it.
   */
  private store(out: ts.Statement[], into: ts.Identifier, at: ts.Identifier, e: Expr): void {
    const f = this.f;
    const d = this.def;
    if (d.linResults.length > 0 || d.nlResults.some((t) => t.tag !== 'real')) throw new InternalError(`emitTs: ${d.name} returns more than numbers and has no writing form`);
    const count = d.nlResults.length;
    const temp = (hint: string) => this.names().fresh(hint);
    let values: ts.Expression[];
    if (e.tag === 'drop') values = [];
    else if (e.tag === 'ret') values = e.nl.map((n) => this.ref(n));
    else if (e.tag === 'construct') {
      const names = Array.from({ length: count }, () => temp('result'));
      this.letDecl(out, names);
      this.construct(out, e, names, d.nlResults);
      values = names.map((n) => f.createIdentifier(n));
    } else if (count === 1) values = [this.leaf(e)];
    else {
      const all = temp('results');
      this.constDecl(out, [all], this.leaf(e));
      values = Array.from({ length: count }, (_, k) => f.createElementAccessExpression(f.createIdentifier(all), k));
    }
    const index = (k: number) => (k === 0 ? at : f.createBinaryExpression(at, this.o.tsApi.SyntaxKind.PlusToken, f.createNumericLiteral(k)));
    values.forEach((v, k) => out.push(f.createExpressionStatement(f.createAssignment(f.createElementAccessExpression(into, index(k)), v))));
    out.push(f.createReturnStatement(undefined));
  }

  /** Emits a block's statements, then its result, into `out`. */
  run(block: Block, into: Into, out: ts.Statement[]): void {
    const stack: Frame[] = [];
    const top = () => stack[stack.length - 1];
    foldBlock<void>(block, {
      // `drop({ … })` is discarded whole (Linear A is pure).
      nested: (_node, drops) => drops.length === 0,
      enter: (_b, site) => {
        // A let's targets are declared (stmt) before its block is entered.
        if (site.k === 'let') this.stmt(top().out, site.s);
        const mark = this.undo.length;
        if (site.k === 'root') stack.push({ out, into, mark });
        else if (site.k === 'let') stack.push({ out: [], into: [...site.s.nl, ...site.s.lin].map((b) => b.name), mark, parent: top().out });
        else stack.push({ out: [], into: top().into, mark, parent: top().out });
      },
      unpack: (s) => {
        this.stmt(top().out, s);
      },
      leaf: (e, s) => {
        if (s !== null) this.stmt(top().out, s);
        else this.result(top().out, top().into, e);
      },
      let: () => {},
      leave: () => {
        const fr = stack.pop()!;
        this.rollback(fr.mark);
        if (fr.parent) fr.parent.push(this.f.createBlock(fr.out, true));
      },
    });
  }
}

/** Whether a value of type t holds a stack (or may: an unknown type). */
function holdsStack(t: Type | undefined): boolean {
  // An unknown type might.
  if (!t || t.tag === 'stack') return true;
  if (t.tag === 'tuple') return t.elems.some(holdsStack);
  return t.tag === 'array' && holdsStack(t.elem);
}

/** One function declaration per IR def, in the given order. */
export function emitDefs(defs: readonly FnDef[], options: EmitOptions): ts.FunctionDeclaration[] {
  return emitForm(defs, options);
}

/**
 * Each def (whose results are all numbers) in its writing form, named `name(def)`: two more
 * parameters, the Float64Array its results are stored into and the index the first goes to, and
 * no value returned. A caller that keeps its results in an array it reuses (a flat Jacobian's
 * `out`) then allocates nothing per call, where the returning form builds an array of n numbers
 * for it to copy.
 */
export function emitWriterDefs(defs: readonly FnDef[], options: EmitOptions, name: (irName: string) => string): ts.FunctionDeclaration[] {
  return emitForm(defs, options, name);
}

function emitForm(defs: readonly FnDef[], options: EmitOptions, writerName?: (irName: string) => string): ts.FunctionDeclaration[] {
  const f = options.factory;
  const byName = new Map(defs.map((d) => [d.name, d]));
  const own = defArity(byName);
  const o: EmitOptions = { ...options, calleeArity: (fn) => own(fn) ?? options.calleeArity?.(fn) };
  return defs.map((source) => {
    // Invariants leave loops, writes run in place, accumulations are proved owned (opt/afterAd.ts).
    const d = prepareForBackend(source, o.calleeArity ?? (() => undefined));
    const statements: ts.Statement[] = [];
    const emitter = new DefEmitter(o, d, writerName !== undefined);
    const written = emitter.writes;
    emitter.run(d.body, 'return', statements);
    const body = emitter.withoutUnreadOwnership(statements);
    // One operation per `const` is how the IR reads; the printed function nests single uses
    // (ts/fold.ts). Tuples that are only built and unpacked become their elements (ts/scalarize.ts),
    // which the tidy folds once more: a tuple is built from a `const` only that tidy inlines.
    const tidy = tidyBody(o.tsApi, [...emitter.prologue, ...body]);
    const scalar = scalarizeTuples(o.tsApi, tidy);
    const paramNames = [...d.nlParams, ...d.linParams].map((p) => p.name);
    // A tape record's repeated slab address, bound once per run of statements (ts/sharedBases.ts).
    // Variables that always hold the same value are one (ts/sameLets.ts).
    // A message's literals next to each other are one (ts/stringFolds.ts).
    let stmts = [...foldStrings(o.tsApi, sameLets(o.tsApi, sharedBases(o.tsApi, mergeAdjacentLets(o.tsApi, emitter.giveBack(scalar === tidy ? tidy : tidyBody(o.tsApi, scalar))), paramNames)))];
    const last = stmts[stmts.length - 1];
    // The writing form's final `return;` says nothing.
    if (written && last && o.tsApi.isReturnStatement(last) && !last.expression) stmts = stmts.slice(0, -1);
    // Names unique in the function are enough (ts/shortNames.ts): the passes' counters go.
    const names = shortNames(o.tsApi, paramNames, stmts);
    const params = names.map((p) => f.createParameterDeclaration(undefined, undefined, p));
    if (written) params.push(f.createParameterDeclaration(undefined, undefined, written.out), f.createParameterDeclaration(undefined, undefined, written.at));
    const fn = f.createFunctionDeclaration(undefined, undefined, writerName ? writerName(d.name) : o.fnName(d.name), undefined, params, undefined, f.createBlock(stmts, true));
    const original = o.original?.(d.name);
    if (original) {
      o.tsApi.setOriginalNode(fn, original);
      mapTo(o.tsApi, fn, original);
    }
    return fn;
  });
}

/** The value of `name = value;`, or undefined for any other statement. */
function assignedTo(t: typeof ts, s: ts.Statement, name: string): ts.Expression | undefined {
  if (!t.isExpressionStatement(s) || !t.isBinaryExpression(s.expression)) return undefined;
  const { left, operatorToken, right } = s.expression;
  return operatorToken.kind === t.SyntaxKind.EqualsToken && t.isIdentifier(left) && left.text === name ? right : undefined;
}
