// The shape of a construct's record: a higher-order construct (a conditional, a loop, a map) is a
// `construct` expression carrying bodies, and what it means lives in one record, beside the
// primitive records (how a backend writes it lives with that backend: backend/ts/constructs). A rule never imports a pass: each pass hands the rule a record
// of the operations it needs to recurse into bodies (the pattern of Futhark's `VjpOps`), so the
// passes stay generic and the construct modules stay leaves of the import graph.
//
// Bodies are closed (JAX's closed sub-jaxprs): a body reads only its parameters, so a rule can
// move a body between functions (U puts one half in f.fwd and the other in f.lin) without
// looking inside it.
import type { Builder, NameSupply } from '../ir/build';
import type { Binder, Expr, Lambda, Stmt, Type } from '../ir/syntax';
import type { Value } from '../ir/value';
import type { Tangent } from '../prims/types';

export type ConstructExpr = Extract<Expr, { tag: 'construct' }>;

/** Something of each sort: operands, parameters, results. */
export interface Sides<T> {
  readonly nl: readonly T[];
  readonly lin: readonly T[];
}

/** How many results of each sort. */
export interface Counts {
  readonly nl: number;
  readonly lin: number;
}

/** A body a type rule asks the checker to check (`yield ops.typeBody(body, params)`). */
export interface BodyToType {
  readonly body: Lambda;
  readonly params: Sides<Type>;
}

/**
 * A type rule that checks bodies: a generator that yields each body to check and is resumed
 * with its result types, so that the checker hands each body to foldBlock's stack (constructs
 * nested thousands deep need no recursion).
 */
export type TypeRun = Generator<BodyToType, Sides<Type>, Sides<Type>>;

/** What the checker offers a type rule. */
export interface CheckOps {
  /**
   * A body whose parameters have these types, to check as a closed scope of its own (linearity
   * included: each linear parameter used exactly once, each non-linear one at least once, no
   * variable of the enclosing function read): `const r = yield ops.typeBody(body, params)`
   * gives its result types.
   */
  typeBody(body: Lambda, params: Sides<Type>): BodyToType;
  /** Reports a type error at the construct; the rule goes on with its best guess. */
  error(message: string): void;
}

/** A body an interpreter rule asks the interpreter to run (`yield ops.bodyRun(body, args)`). */
export interface BodyToRun {
  readonly body: Lambda;
  readonly args: Sides<Value>;
  readonly borrows: boolean;
}

/**
 * An interpreter rule that runs bodies as a generator: it yields each body to run and is resumed
 * with its results, so that the interpreter keeps its own stack of running bodies (conditionals
 * and loops nested thousands deep need no recursion).
 */
export type ImplRun = Generator<BodyToRun, Sides<Value>, Sides<Value>>;

/** What the interpreter offers: running a body charges its work to the program's counter. */
export interface InterpOps {
  /** A body to run, as runBody's, for a rule that is a generator: `const r = yield ops.bodyRun(body, args)`. */
  bodyRun(body: Lambda, args: Sides<Value>, options?: { readonly borrows?: boolean }): BodyToRun;
  /**
   * `borrows`: the body only reads its arguments and keeps none (a while loop's condition), so
   * running it takes no array over: whoever may update one in place still may afterwards.
   */
  runBody(body: Lambda, args: Sides<Value>, options?: { readonly borrows?: boolean }): Sides<Value>;
  /** How many results of each sort a body returns (a loop's carried values). */
  arity(body: Lambda): Counts;
  /** Charges work for what the construct does itself (an array operation's element operations). */
  charge(units: number): void;
  /**
   * In-place updates (constructs/array/accum.ts): whether the running function or body may update
   * this array in place, because it allocated it (`claim`) and nobody else holds it. A value
   * bound by a `let` or a parameter that a finished run returned is taken over by the binding
   * run; what the enclosing scope or a caller holds is not.
   */
  owns(v: Value): boolean;
  claim(v: Value): void;
  /** The value now has two holders (a dup, a share): nobody updates it in place any more. */
  release(v: Value): void;
  /**
   * The construct passes the value on to its bodies and the running scope never reads it again
   * (a loop's carried operand, which was linear): the body run binding it may take it over.
   */
  handOver(v: Value): void;
}

/** What J offers: the builder of the enclosing block, the tangents so far, and J of a body. */
export interface JvpOps {
  readonly b: Builder;
  typeOf(name: string): Type;
  /** The tangent of a primal variable: a linear variable, or null for a symbolic zero. */
  tangentOf(name: string): Tangent;
  /**
   * J of a non-linear body `(p̄ ;) -> (r̄ ;)`: `(p̄ ; p̄_dot) -> (r̄ ; r̄_dot)`, every tangent
   * materialised. The first `constants` parameters (a loop's counter) get no tangent parameter:
   * their tangents are symbolic zeros.
   */
  /** `symbolicZeros[k]`: the operand on parameter `constants + k` has no tangent; its tangent parameter stays (the layout), unused. */
  /** `zeroResults`, when given, gets one flag per result: its tangent was a symbolic zero (materialised). */
  jvpBody(body: Lambda, constants?: number, symbolicZeros?: readonly boolean[], zeroResults?: boolean[]): Lambda;
}

/** The two halves of a mixed body (ops.unzipBody). */
export interface UnzippedBody {
  /** `(p̄ ;) -> (r̄, s̄ ;)`: the body's non-linear results, then its residuals; its result is a `ret`. */
  readonly primal: Lambda;
  /** `(s̄ ; ṗ̄) -> (; ṙ̄)`: the body's linear results from its residuals (typed parameters). */
  readonly tangent: Lambda;
  /** The residuals' types, in order. */
  readonly residuals: readonly Type[];
}

/** What U offers: the split of a mixed body into its non-linear and linear halves. */
export interface UnzipOps {
  readonly b: Builder;
  /**
   * Whether the construct sits in another construct's body (it then runs once per run of that
   * body: an inner loop's residual stacks are allocated that often, so it keeps one record stack).
   */
  readonly nested: boolean;
  /** Whether the policy recomputes cheap bindings (PrimDef.cheap) in the linear half rather than saving them. */
  readonly recomputesCheap: boolean;
  /**
   * Whether the construct's residuals end as numbers of a record, flags as 1 or 0 (the body it sits
   * in is a while's, ConstructRule.bodyResiduals): a flag turned into a number costs nothing more.
   */
  readonly flagsAsNumbers: boolean;
  unzipBody(body: Lambda): UnzippedBody;
  /** The type of a variable of the enclosing def (a map's operands are mapped or invariant by type). */
  typeOf(name: string): Type;
  /** A program-wide alias for a tuple type the rule makes (packed residuals), so it prints as one word. */
  typeName(hint: string): string;
  /** Each name of the body whose length is always that of non-linear parameter k: name -> k (ad/lengths.ts). */
  lengthParams(body: Lambda): ReadonlyMap<string, number>;
}

/** What T offers: the transpose of a linear body. */
export interface TransposeOps {
  readonly b: Builder;
  typeOf(name: string): Type;
  /**
   * T of a linear body `(ū ; v̇̄) -> (; ẇ̄)` whose results have `resultTypes`:
   * `(ū ; w̄_bar) -> (; v̄_bar)`, every cotangent materialised. `zeroResults`, when given, gets
   * one flag per result: its cotangent was a symbolic zero (materialised).
   */
  transposeBody(body: Lambda, resultTypes: readonly Type[], zeroResults?: boolean[]): Lambda;
  /**
   * What a non-linear variable of the enclosing body is bound to (a let of that one result), where
   * known: a loop T made reads its trip count `ceil(n)` this way, to be recognised when transposed
   * again.
   */
  definition(name: string): Expr | undefined;
}

/** What E offers: erasing a construct's bodies. */
export interface EraseOps {
  /** E of a body: every parameter non-linear, the non-linear ones first, then the linear ones. */
  eraseBody(body: Lambda): Lambda;
  /** How many results of each sort a body returns before erasure (a loop's carried values). */
  arity(body: Lambda): Counts;
  /** A name unused in the def. */
  fresh(hint: string): string;
}

/** What the checkpointing pre-pass offers (ad/checkpoint.ts): a builder for the statements before the construct, the segment length and the rewrite of a segment. */
export interface SegmentOps {
  readonly b: Builder;
  /** Binds the length of a segment, given the trip count (a non-linear real variable): a literal k, or ⌈√n⌉ computed at run time. */
  length(b: Builder, count: string): string;
  /** How many results of each sort a body returns (a loop's carried values). */
  arity(body: Lambda): Counts;
  /** The policy's fixed segment length (`{ every: k }`), for loops whose trip count is known only at the end. */
  readonly every?: number;
  /** The construct that runs one segment, checkpointed again at the next level (or as it is). */
  inner(segment: ConstructExpr): Expr;
}

/** Everything about one construct; the registry's record type makes the compiler list what is missing. */
/** What the simplifier offers a fusion of a loop with the loop filling a stack it reads (ConstructRule.fuseFill). */
export interface FillOps {
  readonly names: NameSupply;
  /** The non-linear operand an erased construct only adds to (ConstructRule.accumulatesErased). */
  accumulatesErased(e: Expr): number | undefined;
  /** How an erased construct hands an array on unchanged, only reading it (Threading.unchanged), if it does. */
  readsOnly(e: Expr): { readonly array: number; readonly result: number } | undefined;
  hasEffect(e: Expr): boolean;
}

export interface ConstructRule {
  readonly name: string;
  /**
   * Runs for its effect (a `throw`), not for results: no pass may drop it, hoist it out of the
   * body it is in, run it where the source would not, or merge it with another. Passes ask
   * `hasEffect` (registry.ts), which also counts a construct whose bodies hold such a statement.
   */
  readonly effect?: boolean;
  /** How many results of each sort, given the same for a body (no types needed: passes name results). */
  readonly arity: (e: ConstructExpr, bodyArity: (body: Lambda) => Counts) => Counts;
  /** Result types from the operand types (bodies typed through `ops`). */
  readonly typeRule: (ops: CheckOps, e: ConstructExpr, operands: Sides<Type>) => Sides<Type> | TypeRun;
  /** Reference semantics for the interpreter (the cost model counts the bodies it runs). */
  readonly impl: (ops: InterpOps, e: ConstructExpr, operands: Sides<Value>) => Sides<Value> | ImplRun;
  /**
   * Emits J of a non-linear construct into `ops.b`, binding its primal results to `results`
   * (typed binders); returns their tangents.
   */
  readonly jvp: (ops: JvpOps, e: ConstructExpr, results: readonly Binder[]) => readonly Tangent[];
  /**
   * Emits the non-linear half of a mixed construct into `ops.b`, binding its non-linear results
   * to `results.nl`; returns the linear half, an expression whose linear results are
   * `results.lin`'s, reading only non-linear variables bound by the non-linear half (residuals).
   */
  readonly unzip: (ops: UnzipOps, e: ConstructExpr, results: Sides<Binder>) => Expr;
  /**
   * Emits the transpose of a linear construct into `ops.b`, given its results' cotangents
   * (null: a symbolic zero) and types; returns one cotangent per linear operand.
   */
  readonly transpose: (ops: TransposeOps, e: ConstructExpr, cotangents: readonly Tangent[], resultTypes: readonly Type[]) => readonly Tangent[];
  /**
   * The construct without the non-linear results nobody reads (`keep[k]` false for result k), or
   * undefined where it cannot do without them (a loop's carried values feed its next iteration).
   * The simplifier then removes whatever only those results needed, inside the bodies too.
   */
  readonly pruneResults: (e: ConstructExpr, keep: readonly boolean[]) => ConstructExpr | undefined;
  /**
   * Like pruneResults, for a construct that can drop only some of the unread results (a loop: a
   * carried value that another kept one reads stays): the construct and which results it keeps
   * (a superset of `keep`). Asked first where present. `alive`: whether a statement of its bodies
   * stays though nothing reads it (default keptAlive; the simplifier also keeps calls of functions
   * that throw or check, opt/keptCalls.ts).
   */
  readonly prunePartly?: (e: ConstructExpr, keep: readonly boolean[], alive?: (e: Expr) => boolean) => { readonly expr: ConstructExpr; readonly kept: readonly boolean[] } | undefined;
  /**
   * Runs a body any number of times (a loop). Its derivative holds the body several times over
   * (the forward loop with its stacks, the reversed loop), so the inliner keeps a function that
   * holds one as a call wherever it has more than one call site.
   */
  readonly repeats?: boolean;
  /**
   * A sequential loop over a run-time trip count (loop, while): the stacks of its tape are not
   * differentiated again yet, so a transform that would differentiate one twice is refused
   * (plan/closure.ts, loopIn).
   */
  readonly loop?: boolean;
  /**
   * An array combinator (map, scan, reduce, gather, scatter, reduceByIndex) or a call of taped
   * code (constructs/taped): an IrError from the passes over a program holding one is a rule not
   * built yet, reported at the call site (compile.ts) instead of crashing.
   */
  readonly combinator?: boolean;
  /**
   * It checks lengths or indices at run time and throws a RangeError (an IrError in the
   * interpreter): the wrapper of a transform whose code holds one names the transform in that
   * error (backend/typescript.ts).
   */
  readonly checks?: boolean;
  /**
   * A run-time check with nothing else to do (`atmost`): kept by dead-code removal whether or not
   * its result is read, as an effect is (a check gone with a loop nobody read let a gradient read
   * past an array's end), but unlike an effect it may move and run once for many: out of a loop
   * whose every run checks the same, under the loop's trip guard (opt/checksAlone.ts). Passes ask
   * `holdsCheck` and `keptAlive` (constructs/effect), which also count a construct holding one.
   */
  readonly keptUnread?: boolean;
  /**
   * A body-less read that is cheaper to do again than to store (an element read by index): the
   * `'cheap'` checkpoint policy recomputes it in the linear half (PrimDef.cheap).
   */
  readonly cheap?: boolean;
  /**
   * It runs at most one of its bodies, once (a branch): the `'cheap'` checkpoint policy then
   * recomputes it in the linear half, as it does a cheap primitive, where every statement of its
   * bodies is cheap (a trip guard around index arithmetic that licm hoisted out of a loop): in a
   * loop a tape slot per result costs more than a test and a few adds.
   */
  readonly runsOneBody?: boolean;
  /**
   * Its one result is its non-linear operand at this position, unchanged (a check that throws or
   * passes the value on: `atmost`). A linear half that needs the result reads the operand instead
   * under a recomputing checkpoint policy: a loop's invariant trip count is then passed once, not
   * stacked per iteration because a check of it bound a new name. The check itself stays in the
   * forward half, kept there though nothing reads it (keptUnread).
   */
  readonly passesOn?: number;
  /**
   * Where the residuals of its bodies go, for U (UnzipOps.flagsAsNumbers): `'numbers'`, stored as
   * numbers of one record, flags as 1 or 0 (a while's record, loop/unzip.ts); `'enclosing'`, they
   * are residuals of the body the construct sits in (a cond's slots). Absent: kept as they are.
   */
  readonly bodyResiduals?: 'numbers' | 'enclosing';
  /**
   * Where the construct's loop invariants are, for loop-invariant code motion (opt/licm.ts): the
   * `count` non-linear parameters of body `body` from index `param` are the `count` non-linear
   * operands from index `operand`, the same in every run of the body. Hoisted values join them
   * there. Absent (or undefined for an expression): nothing is hoisted out of the construct.
   */
  readonly invariants?: (e: ConstructExpr, bodyArity: (body: Lambda) => Counts) => InvariantSlots | undefined;
  /**
   * The parameter that counts the runs of a repeating construct: body `body`'s non-linear
   * parameter `param` is 0, 1, 2, … in its successive runs, a different value in each
   * (opt/firstWrites.ts: an index computed from it by unit-coefficient sums, PrimDef.signs, is
   * written at most once by the whole loop).
   */
  readonly counter?: (e: ConstructExpr) => { readonly body: number; readonly param: number } | undefined;
  /**
   * Its one non-linear result is an array of +0s, where an element past the end counts as 0 (as a
   * cotangent's does), given which names are known to be +0 (a real) or such an array:
   * `fill(n, 0)`, `fill(0, x)`, a claim of such an array (opt/firstWrites.ts).
   */
  readonly zeros?: (e: ConstructExpr, isZero: (name: string) => boolean) => boolean;
  /**
   * Checkpointing (optional): the construct rewritten, before J, so that reverse mode saves only
   * what each segment starts from and recomputes the rest (a counted loop strip-mined into an
   * outer loop whose body is a `remat` of one segment); undefined where it does not apply.
   * Statements it needs first go into `ops.b`.
   */
  readonly segment?: (ops: SegmentOps, e: ConstructExpr) => Expr | undefined;
  /**
   * E of the construct: an expression whose results are its results, non-linear ones then linear
   * ones, all non-linear. Optional: without it E appends the linear operands to the non-linear
   * ones and each body's linear parameters to its non-linear ones (ops.eraseBody), which is right
   * unless the order of the operands means something (a loop's carried values come last).
   */
  readonly erase?: (ops: EraseOps, e: ConstructExpr) => Expr;
  /**
   * `ladd(; other, r)` where r is this construct's linear result, as one construct (the
   * simplifier rewrites the pair: a one-hot added to an array becomes an accumulation in place);
   * undefined where it does not apply.
   */
  readonly fuseAdd?: (ops: FuseOps, e: ConstructExpr, other: string, result: number) => Expr | undefined;
  /**
   * The linear operand the construct only adds to (`laccum(i, w ; ā, ẏ)` is ā + e_i·ẏ: operand 0),
   * so that a loop carrying ā through it from zero can start from any value instead.
   */
  readonly accumulates?: number;
  /** `accumulates` of the erased construct (all operands non-linear): the non-linear operand it only adds to. */
  readonly accumulatesErased?: number;
  /**
   * Non-linear code: the statements of a block with the statement at `k` (this construct) fused
   * with the loop filling a stack it reads at its counter (constructs/loop/fuseFill.ts); undefined
   * when it does not apply. Run by the simplifier after dead code is gone.
   */
  readonly fuseFill?: (ops: FillOps, stmts: readonly Stmt[], k: number, result: Expr) => Stmt[] | undefined;
  /**
   * Like `accumulates`, for a construct with several results: the linear operand its result
   * `result` is a sum onto (a loop whose body only adds to a carried value), if any.
   */
  readonly accumulatesResult?: (ops: FuseOps, e: ConstructExpr, result: number) => number | undefined;
  /**
   * A body-less read of its one linear operand, an array, into one real (lindex): the same read
   * as a construct that also hands the array on, given the array (`lpeek(i, w ; ȧ)` gives (ȧ, ȧ_i)),
   * or undefined where there is none. ad/peek.ts puts it in for a dup whose first copy is read
   * this way, so the array keeps one holder and a later update of it stays in place.
   */
  readonly peek?: (e: ConstructExpr, array: string) => Expr | undefined;
  /**
   * A read that takes its element out of a linear array (ltake: the array with element i zeroed,
   * and the element): given `back`, a construct adding the taken value back into the array the
   * take handed on, the one construct that reads without taking and hands the array on (ltake
   * then laccum at the same index is lpeek), or undefined where `back` does not put the value back
   * where it was. ad/untake.ts puts it in where the value added back is a copy of the taken one.
   */
  readonly putBack?: (take: ConstructExpr, back: ConstructExpr) => Expr | undefined;
  /**
   * `second` updating, at the same place, the array `first` handed on (its `threads().array`
   * operand is first's result, read by nothing else) as one construct, or undefined where they do
   * not pair: laccumw's `a[i] += y1; a[i] += y2` read and stored once, `a[i] = a[i] + y1 + y2`,
   * the same additions in the same order (opt/pairedAccums.ts).
   */
  readonly pairs?: (first: ConstructExpr, second: ConstructExpr) => ConstructExpr | undefined;
  /** Updates an operand in place where it may (backend/ts/types.ts, EmitTsOps.owned): the emitter then releases arrays a dup fans out. */
  readonly updatesInPlace?: boolean;
  /**
   * The erased form hands a cotangent array on (laccum, lpeek, ltake, lupdate): see Threading.
   * opt/ownedChains.ts follows a loop's carried array through such constructs to prove it owned
   * once, before the loop.
   */
  readonly threads?: (e: ConstructExpr) => Threading | undefined;
  /**
   * Writes a stack sparsely: positions it skips must read as zero (lpush), so its stack cannot
   * live in a reused tape chunk (backend/emitTs.ts, poolsSlab).
   */
  readonly leavesHoles?: boolean;
  /**
   * Value semantics with an in-place twin (opt/inplace.ts): the construct returns a changed copy of
   * non-linear operand `operand`, and construct `op` (same operands, same value) changes it in
   * place instead, which the backend may run where that operand is unique and never read again.
   */
  readonly inPlace?: { readonly operand: number; readonly op: string };
  /** Its array results are newly allocated (never one of its operands): each is unique where it is bound. */
  readonly fresh?: boolean;
  /**
   * The non-linear operands whose arrays its results may hold (opt/inplace.ts): an operand read
   * only by index is missing, so a loop that reads an array stays out of its sharing. `handsBack(body)`
   * is the set of body nl parameter positions whose arrays that body's results may hold. Linear
   * operands are taken as held always. Without this facet every operand is.
   */
  readonly holds?: (e: ConstructExpr, bodyArity: (body: Lambda) => Counts, handsBack: (body: Lambda) => ReadonlySet<number>) => readonly number[];
  /**
   * The non-linear operands whose arrays the construct (or its in-place twin, or a body it hands
   * them to) may overwrite: U stores reads of them instead of recomputing the reads from the array.
   * `handsOn(body)`, where U offers it, is what a body may overwrite or hand on (its statements'
   * `overwrites`, copies, its results): a construct that only passes operands to a body asks it.
   */
  readonly overwrites?: (e: ConstructExpr, bodyArity: (body: Lambda) => Counts, handsOn?: (body: Lambda) => ReadonlySet<string>) => readonly number[];
  /**
   * Per non-linear result, the non-linear operand whose length it always has (an update's array),
   * or undefined; `source(body, r)` is the parameter whose length body result r has (ad/lengths.ts).
   */
  readonly keepsLength?: (e: ConstructExpr, source: (body: Lambda, result: number) => number | undefined) => readonly (number | undefined)[];
  /** Non-linear operands read only for their length (a witness): U may pass `len` of them instead. */
  readonly lengthOnly?: readonly number[];
  /**
   * Operands a body takes over: operand `operand` (non-linear) binds parameter `param` of body
   * `body`. For a construct that `repeats` (a loop's carried values) the body's non-linear result
   * `result` binds it on the next run and the construct's result `result` is the last value; a
   * construct that runs a body at most once (a branch) gives no result.
   */
  readonly carries?: (e: ConstructExpr, bodyArity: (body: Lambda) => Counts) => readonly CarrySlot[];
  /**
   * Branches (ad/guards.ts): per linear operand, the one body that reads it where every other
   * body only drops it; undefined where several bodies read it, null where none does. T computes
   * what feeds such an operand inside that body, so its backward code runs only when the body
   * does (and never where no body reads it).
   */
  readonly soleReader?: (e: ConstructExpr) => readonly (number | null | undefined)[];
  /**
   * Branches, before J: the non-linear operands (indices into `nl`) that one body reads and the
   * others only drop. In a loop body the code computing them stays next to the construct
   * (opt/licm.ts), where T can move its backward code into that body (soleReader, ad/guards.ts).
   */
  readonly sideOperands?: (e: ConstructExpr) => readonly number[];
  /** The bool operand that picks the body (present with soleReader): the first when it holds, the second when not. */
  readonly branchTest?: (e: ConstructExpr) => string;
  /** The construct with code moved into its bodies (present with soleReader). */
  readonly sink?: (e: ConstructExpr, s: Sunk) => ConstructExpr;
}

/** Code moving into a construct's bodies (ConstructRule.sink). */
export interface Sunk {
  /** New operands, after the construct's own of each sort. */
  readonly operands: Sides<string>;
  /** Per body: its parameters for the new operands, and the statements it runs first (reading them). */
  readonly bodies: readonly { readonly params: Sides<Binder>; readonly stmts: readonly Stmt[] }[];
  /**
   * Linear operands the moved statements compute now, each with the variable they bind in the
   * operand's sole reader: the operand goes, with the other bodies' parameters for it (and drops).
   */
  readonly computed: ReadonlyMap<number, string>;
}

/** What the simplifier offers a fusion (ConstructRule.fuseAdd). */
export interface FuseOps {
  /**
   * Binds `ladd(; x, y)` of this type before the fused construct (fused again where it can be); its
   * name. Where the construct is fused where it stands (it has several results), nothing can be
   * bound before it: the sum is only fused into the construct that binds y, where that stands too,
   * and undefined where it cannot be.
   */
  add(x: string, y: string, type: Type): string | undefined;
  /** Whether a linear variable is a symbolic zero. */
  isZero(name: string): boolean;
  /** Whether a linear variable is a result of a construct of this block that can absorb an addition (`add` onto it fuses there). */
  fusible(name: string): boolean;
  /** The linear operands an expression is a sum of, one term each (ladd's two; a construct's that it `accumulates` into); none for any other. */
  addends(rhs: Expr, result?: number): readonly string[];
  /** Whether an expression is a construct that can absorb an addition (its record has `fuseAdd`). */
  absorbs(rhs: Expr): boolean;
  /** A name unused in the def. */
  fresh(hint: string): string;
}

/**
 * How a construct hands an array on (ConstructRule.threads): non-linear operand `array` comes
 * back as result `result`, the same array, changed in place at most. `dense`: the operand whose
 * length (an array's, or a real itself) the array must have to be changed in place; `owned`: the
 * construct that does the same without checking that the running call owns the array (and that
 * it is that dense), where a pass has proved it; absent where the construct checks nothing.
 */
export interface Threading {
  readonly array: number;
  readonly result: number;
  readonly dense?: number;
  readonly owned?: string;
  /** Where the construct only adds non-linear operand `value` at index operand `index` (laccum): opt/invariantAccums.ts sums such adds at a loop-invariant index in a local. */
  readonly adds?: { readonly index: number; readonly value: number };
  /**
   * The construct `op` (same operands, same value) that stores instead of adding, where the element
   * at index operand `index` is known to be +0 (laccumw: linitw); opt/firstWrites.ts uses it.
   */
  readonly first?: { readonly op: string; readonly index: number };
  /**
   * The array comes back unchanged, only read (lpeek): loop iterations that do nothing else with
   * a carried array commute (constructs/loop/fuseFill.ts).
   */
  readonly unchanged?: boolean;
}

/** An operand a body takes over (ConstructRule.carries); `result` where the body hands it back for its next run (a loop's). */
export interface CarrySlot {
  readonly operand: number;
  readonly body: number;
  readonly param: number;
  readonly result?: number;
}

/** A contiguous run of loop-invariant parameters of one body and the operands they receive. */
export interface InvariantSlots {
  readonly body: number;
  readonly param: number;
  readonly operand: number;
  readonly count: number;
  /**
   * The operand that counts the body's runs: hoisted code that computes something runs under
   * `trip > 0` (constructs/cond/tripGuard.ts). Absent: the body runs at least once.
   */
  readonly trip?: number;
}
