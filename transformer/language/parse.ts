// Parser for the Linear A text format (docs/linear-a.md). Hand-written lexer; statements, nested
// blocks and construct bodies are parsed with an explicit stack of open blocks, so a def of any
// length or nesting depth parses without deep recursion. The parser tracks scopes so that a bare
// variable gets the sort of its binder, and it knows primitives from the registry and functions
// from earlier definitions.
//
// Blocks come out in one normal form: a block without statements is its result expression, and a
// nested block in result position is spliced into its parent (nothing follows it, so its scope
// ends where the parent's does). The printer prints that form back to the same text.
//
// Names are made unique per definition: a binder that reuses a name already bound in the def
// (`let x = sin(x)`, `let (x, y) = (y, x)`, the same name in two sibling blocks) is renamed to a
// fresh `x_1`, and later references follow. Every pass may then assume one binding per name.
import { Binder, Block, Expr, FnDef, IrError, Lambda, Program, Role, RoleKind, ROLE_KINDS, Stmt, Type, REAL, BOOL, STR, stackType, storedArrayType, tupleType } from '../ir/syntax';
import { isPrim, isLinPrim } from '../prims/registry';
import { ScopeStack } from '../ir/scopeStack';
import { SourcePos, samePos, setPos } from '../ir/positions';

interface Token {
  readonly kind: 'name' | 'num' | 'str' | 'punct' | 'eof';
  readonly text: string;
  readonly line: number;
  readonly col: number;
  /** A newline separates this token from the previous one. */
  readonly newlineBefore: boolean;
}

const PUNCT = ['->', '(', ')', '<', '>', '{', '}', '[', ']', '|', ',', ';', ':', '='];
const NAME = /[A-Za-z_][A-Za-z0-9_']*(?:\.[A-Za-z0-9_']+)*/y;
const NUMBER = /-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;

function lex(text: string, file: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  let newline = true;
  while (i < text.length) {
    const c = text[i];
    if (c === '\n') {
      i++;
      line++;
      lineStart = i;
      newline = true;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    if (text.startsWith('//', i)) {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    const col = i - lineStart + 1;
    const push = (kind: Token['kind'], t: string) => {
      tokens.push({ kind, text: t, line, col, newlineBefore: newline });
      newline = false;
      i += t.length;
    };
    if (c === '"') {
      // JSON string syntax, so the printer's JSON.stringify round-trips.
      const m = /"(?:[^"\\\n]|\\.)*"/y;
      m.lastIndex = i;
      const str = m.exec(text);
      if (!str) throw new IrError(`${file}:${line}:${col}: unterminated string`);
      push('str', str[0]);
      continue;
    }
    if (text.startsWith('-Infinity', i)) {
      push('num', '-Infinity');
      continue;
    }
    NUMBER.lastIndex = i;
    const num = NUMBER.exec(text);
    if (num && (c !== '-' || /[\d.]/.test(text[i + 1] ?? ''))) {
      push('num', num[0]);
      continue;
    }
    NAME.lastIndex = i;
    const name = NAME.exec(text);
    if (name) {
      push(name[0] === 'Infinity' || name[0] === 'NaN' ? 'num' : 'name', name[0]);
      continue;
    }
    const p = PUNCT.find((q) => text.startsWith(q, i));
    if (p) {
      push('punct', p);
      continue;
    }
    throw new IrError(`${file}:${line}:${col}: unexpected character '${c}'`);
  }
  tokens.push({ kind: 'eof', text: '<end of input>', line, col: i - lineStart + 1, newlineBefore: true });
  return tokens;
}

interface FnInfo {
  readonly nlResults: number;
  readonly linResults: number;
}

/** A name in scope: what the source calls it, what the AST calls it, and its sort. */
interface Scoped {
  readonly name: string;
  readonly actual: string;
  readonly linear: boolean;
}

type ConstructExpr = Extract<Expr, { tag: 'construct' }>;

/** A construct whose head `op(v̄ ; v̇̄) [` is read and whose bodies are being parsed. */
interface OpenConstruct {
  readonly op: string;
  readonly nl: string[];
  readonly lin: string[];
  readonly bodies: Lambda[];
  readonly at: Token;
}

/** What an open block's value becomes in its parent once the block closes. */
interface Waiting {
  /** Binders of the pending `let` (null: an expression statement or the final expression). */
  readonly binders: { nl: Binder[]; lin: Binder[] } | null;
  /** `drop(` wrappers opened around the block, each closed by a ')'. */
  readonly drops: Token[];
  readonly at: Token;
  /** Set when the open block is a body of this construct rather than a nested block. */
  readonly construct?: OpenConstruct;
}

interface OpenBlock {
  readonly stmts: Stmt[];
  /** Scope entries this block pushed. */
  pushed: number;
  wait?: Waiting;
  /** The parameters, when the block is a construct's body. */
  readonly params?: { readonly nl: Binder[]; readonly lin: Binder[] };
}

/** An expression, or the note that a block or a construct's first body was opened. */
type ExprOrOpen = { expr: Expr } | { open: true; drops: Token[]; construct?: OpenConstruct };

class Parser {
  private pos = 0;
  private readonly scope = new ScopeStack<Scoped>();
  private readonly fns = new Map<string, FnInfo>();
  private readonly aliases = new Map<string, Type>();
  /** Every name token in the file: fresh names avoid them all. */
  private readonly taken: Set<string>;
  /** Names bound so far in the current def (parameters included). */
  private bound = new Set<string>();
  /** Per name rebound in the current def, the suffix to try first for its next renaming. */
  private suffixes = new Map<string, number>();
  private block: OpenBlock | undefined;

  constructor(
    private readonly tokens: Token[],
    private readonly file: string,
  ) {
    this.taken = new Set(tokens.filter((t) => t.kind === 'name').map((t) => t.text));
  }

  private get tok(): Token {
    return this.tokens[this.pos];
  }

  private at(t: Token): SourcePos {
    return { file: this.file, line: t.line, col: t.col };
  }

  private fail(msg: string, t: Token = this.tok): never {
    throw new IrError(`${this.file}:${t.line}:${t.col}: ${msg}`);
  }

  private is(text: string): boolean {
    return this.tok.kind !== 'num' && this.tok.text === text && this.tok.kind !== 'eof';
  }

  private accept(text: string): boolean {
    if (this.is(text)) {
      this.pos++;
      return true;
    }
    return false;
  }

  private expect(text: string, what = `'${text}'`): Token {
    if (!this.is(text)) this.fail(`expected ${what}, found '${this.tok.text}'`);
    return this.tokens[this.pos++];
  }

  private name(what = 'a name'): Token {
    if (this.tok.kind !== 'name') this.fail(`expected ${what}, found '${this.tok.text}'`);
    return this.tokens[this.pos++];
  }

  // ---- scopes ----

  /** Brings a binder into scope, renaming it if its name is already bound in this def. */
  private bind(b: Binder, linear: boolean): Binder {
    let actual = b.name;
    if (this.bound.has(actual)) {
      // The search goes on from the last suffix this name got: N loops rebinding `i` cost N, not N².
      for (let k = this.suffixes.get(b.name) ?? 1; ; k++) {
        actual = `${b.name}_${k}`;
        if (!this.taken.has(actual) && !this.bound.has(actual)) {
          this.suffixes.set(b.name, k + 1);
          break;
        }
      }
      this.taken.add(actual);
    }
    this.bound.add(actual);
    this.scope.push({ name: b.name, actual, linear });
    if (this.block) this.block.pushed++;
    if (actual === b.name) return b;
    const renamed: Binder = b.type ? { name: actual, type: b.type } : { name: actual };
    return renamed;
  }

  private resolve(t: Token): Scoped {
    const s = this.scope.find(t.text);
    if (!s) this.fail(`unbound variable ${t.text}`, t);
    return s;
  }

  private varName(): string {
    return this.resolve(this.name('a variable')).actual;
  }

  // ---- program ----

  program(): Program {
    const defs: FnDef[] = [];
    while (this.tok.kind !== 'eof') {
      if (this.accept('type')) this.typeAlias();
      else if (this.is('def')) defs.push(this.def());
      else this.fail(`expected 'def' or 'type', found '${this.tok.text}'`);
    }
    return { defs };
  }

  private typeAlias(): void {
    const n = this.name('a type name');
    this.expect('=');
    const t = this.type();
    if (t.tag !== 'tuple') this.fail(`type alias ${n.text} must name a tuple type`, n);
    this.aliases.set(n.text, tupleType(t.elems, n.text));
  }

  private type(): Type {
    const t = this.tok;
    if (this.accept('<')) {
      const elems: Type[] = [];
      if (!this.is('>')) {
        do elems.push(this.type());
        while (this.accept(','));
      }
      this.expect('>', "'>' or ','");
      return tupleType(elems);
    }
    const n = this.name('a type');
    if (n.text === 'real') return REAL;
    if (n.text === 'bool') return BOOL;
    if (n.text === 'str') return STR;
    if (n.text === 'stack' || n.text === 'array') {
      this.expect('<', "'<'");
      const elem = this.type();
      // `array<real; int32>`: an array whose elements are 32-bit integers (ir/types.ts).
      const store = n.text === 'array' && this.accept(';') ? this.name("'int32'") : undefined;
      if (store && store.text !== 'int32') this.fail(`unknown array store ${store.text} (int32 is the one there is)`, store);
      this.expect('>', "'>'");
      return n.text === 'stack' ? stackType(elem) : storedArrayType(elem, store ? 'int32' : undefined);
    }
    const alias = this.aliases.get(n.text);
    if (!alias) this.fail(`unknown type ${n.text}`, t);
    return alias;
  }

  private def(): FnDef {
    this.expect('def');
    const nameTok = this.name('a function name');
    if (this.fns.has(nameTok.text)) this.fail(`${nameTok.text} is defined twice`, nameTok);
    this.bound = new Set();
    this.suffixes = new Map();
    this.block = undefined;
    const depth = this.scope.size;
    this.expect('(');
    const [nlParams0, linParams0] = this.split(() => this.param(), ')');
    const nlParams = nlParams0.map((b) => this.bind(b, false));
    const linParams = linParams0.map((b) => this.bind(b, true));
    this.expect('->');
    this.expect('(');
    const [nlResults, linResults] = this.split(() => this.type(), ')');
    const role = this.accept('as') ? this.role() : undefined;
    const body = this.body();
    while (this.scope.size > depth) this.scope.pop();
    this.fns.set(nameTok.text, { nlResults: nlResults.length, linResults: linResults.length });
    const d: FnDef = role ? { name: nameTok.text, nlParams, linParams, nlResults, linResults, body, role } : { name: nameTok.text, nlParams, linParams, nlResults, linResults, body };
    setPos(d, this.at(nameTok));
    return d;
  }

  /** `as kind(f)`: what a derived def is (printed by passes' output, read back here). */
  private role(): Role {
    const k = this.name('a role (jvp, fwd, lin, bwd, transpose, ...)');
    if (!(ROLE_KINDS as readonly string[]).includes(k.text)) this.fail(`unknown role ${k.text}; expected one of ${ROLE_KINDS.join(', ')}`, k);
    this.expect('(');
    const of = this.name('the function the def is derived from');
    this.expect(')');
    return { kind: k.text as RoleKind, of: of.text };
  }

  /** A parameter of a def or of a construct's body: `x: T`. */
  private param(): Binder {
    const n = this.name('a parameter name');
    this.expect(':', "':' and a type");
    const b: Binder = { name: n.text, type: this.type() };
    setPos(b, this.at(n));
    return b;
  }

  /** `a, b ; c, d CLOSE` -> [[a, b], [c, d]]; the closing token is consumed. */
  private split<T>(item: () => T, close: string): [T[], T[]] {
    const parts: [T[], T[]] = [[], []];
    let side = 0;
    if (this.accept(close)) return parts;
    for (;;) {
      if (side === 0 && this.accept(';')) {
        side = 1;
        if (this.accept(close)) return parts;
        continue;
      }
      parts[side].push(item());
      if (this.accept(close)) return parts;
      if (side === 0 && this.is(';')) continue;
      this.expect(',', `',', ';' or '${close}'`);
    }
  }

  // ---- blocks and statements ----

  /**
   * The def's body `{ STMT* EXPR }`. Open blocks live on an explicit stack: a `{` in expression
   * position or a construct's body pushes one, and a closing `}` hands the block's value to the
   * statement of its parent that was waiting for it (which may close the parent in turn).
   */
  private body(): Block {
    this.expect('{');
    const stack: OpenBlock[] = [{ stmts: [], pushed: 0 }];
    this.block = stack[0];
    for (;;) {
      const top = stack[stack.length - 1];
      let value: Expr;
      if (this.is('let')) {
        const letTok = this.expect('let');
        if (this.accept('<')) {
          this.unpackStatement(top, letTok);
          continue;
        }
        let nl: Binder[];
        let lin: Binder[] = [];
        if (this.accept('(')) [nl, lin] = this.split(() => this.binder(), ')');
        else nl = [this.binder()];
        this.expect('=');
        const r = this.exprOrOpen();
        if ('open' in r) {
          top.wait = { binders: { nl, lin }, drops: r.drops, at: letTok, construct: r.construct };
          stack.push(this.openBlock(r.construct));
          continue;
        }
        this.finishLet(top, nl, lin, r.expr, letTok);
        continue;
      }
      const at = this.tok;
      const r = this.exprOrOpen();
      if ('open' in r) {
        top.wait = { binders: null, drops: r.drops, at, construct: r.construct };
        stack.push(this.openBlock(r.construct));
        continue;
      }
      value = r.expr;
      // The value may close this block, whose value may close its parent, and so on.
      for (;;) {
        const cur = stack[stack.length - 1];
        if (!this.is('}')) {
          this.accept('in');
          const s: Stmt = { tag: 'let', nl: [], lin: [], rhs: value };
          setPos(s, this.at(at));
          cur.stmts.push(s);
          break;
        }
        this.expect('}', "'}' or a newline before the next statement");
        const closed = closeBlock(cur.stmts, value);
        stack.pop();
        for (let i = 0; i < cur.pushed; i++) this.scope.pop();
        if (stack.length === 0) {
          this.block = undefined;
          return closed;
        }
        const parent = stack[stack.length - 1];
        this.block = parent;
        const wait = parent.wait!;
        const c = wait.construct;
        if (c) {
          c.bodies.push({ nlParams: cur.params!.nl, linParams: cur.params!.lin, body: closed });
          if (this.accept(',')) {
            stack.push(this.openBlock(c));
            break;
          }
          this.expect(']', "',' or ']'");
          value = constructExpr(c);
          setPos(value, this.at(c.at));
        } else {
          value = closed.stmts.length === 0 ? closed.result : { tag: 'block', block: closed };
        }
        parent.wait = undefined;
        for (let i = wait.drops.length - 1; i >= 0; i--) {
          this.expect(')');
          value = { tag: 'drop', expr: value };
          setPos(value, this.at(wait.drops[i]));
        }
        if (wait.binders) {
          this.finishLet(parent, wait.binders.nl, wait.binders.lin, value, wait.at);
          break;
        }
      }
    }
  }

  /**
   * Opens a nested block, or the next body of `c` after reading its `|p̄ ; q̄|` parameters and its
   * `{`; the parameters are bound inside the body.
   */
  private openBlock(c?: OpenConstruct): OpenBlock {
    if (!c) {
      const b: OpenBlock = { stmts: [], pushed: 0 };
      this.block = b;
      return b;
    }
    this.expect('|', `'|' and the parameters of a body of ${c.op}`);
    const [nl0, lin0] = this.split(() => this.param(), '|');
    this.expect('{');
    const b: OpenBlock = { stmts: [], pushed: 0, params: { nl: [], lin: [] } };
    this.block = b;
    // A parameter renamed apart keeps its position (messages about it point at it).
    for (const p of nl0) b.params!.nl.push(samePos(p, this.bind(p, false)));
    for (const p of lin0) b.params!.lin.push(samePos(p, this.bind(p, true)));
    return b;
  }

  private finishLet(top: OpenBlock, nl0: Binder[], lin0: Binder[], rhs: Expr, at: Token): void {
    this.accept('in');
    const nl = nl0.map((b) => this.bind(b, false));
    const lin = lin0.map((b) => this.bind(b, true));
    const s: Stmt = { tag: 'let', nl, lin, rhs };
    setPos(s, this.at(at));
    top.stmts.push(s);
  }

  private unpackStatement(top: OpenBlock, at: Token): void {
    const linear = this.accept(';');
    const names: Binder[] = [];
    if (!this.is('>')) {
      do names.push(this.binder());
      while (this.accept(','));
    }
    this.expect('>', "'>' or ','");
    this.expect('=');
    const t = this.name('the tuple variable to unpack');
    const s = this.resolve(t);
    if (s.linear !== linear) {
      this.fail(linear ? `${t.text} is non-linear; unpack it with let <...> = ${t.text}` : `${t.text} is linear; unpack it with let <; ...> = ${t.text}`, t);
    }
    this.accept('in');
    const bound = names.map((b) => this.bind(b, linear));
    const u: Stmt = { tag: 'unpack', linear, names: bound, tuple: s.actual };
    setPos(u, this.at(at));
    top.stmts.push(u);
  }

  private binder(): Binder {
    const n = this.name('a binder name');
    const b: Binder = this.accept(':') ? { name: n.text, type: this.type() } : { name: n.text };
    setPos(b, this.at(n));
    return b;
  }

  // ---- expressions ----

  /** An expression, or the note that a `{` or a construct's `[` was consumed (inside `drops` open `drop(`s). */
  private exprOrOpen(): ExprOrOpen {
    const drops: Token[] = [];
    while (this.is('drop') && this.tokens[this.pos + 1].text === '(' && !this.tokens[this.pos + 1].newlineBefore && this.tokens[this.pos + 1].kind === 'punct') {
      drops.push(this.tok);
      this.pos += 2;
    }
    if (this.accept('{')) return { open: true, drops };
    const t = this.tok;
    const leaf = this.leafAt(t);
    if ('open' in leaf) return { open: true, drops, construct: leaf.open };
    let e = leaf.expr;
    setPos(e, this.at(t));
    for (let i = drops.length - 1; i >= 0; i--) {
      this.expect(')');
      e = { tag: 'drop', expr: e };
      setPos(e, this.at(drops[i]));
    }
    return { expr: e };
  }

  /** A leaf, or the head of a construct whose first body comes next. */
  private leafAt(t: Token): { expr: Expr } | { open: OpenConstruct } {
    if (t.kind === 'num') {
      this.pos++;
      return { expr: { tag: 'lit', value: Number(t.text) } };
    }
    if (t.kind === 'str') {
      this.pos++;
      return { expr: { tag: 'lit', value: JSON.parse(t.text) as string } };
    }
    if (this.is('(')) {
      this.pos++;
      const [nl, lin] = this.split(() => this.varName(), ')');
      return { expr: { tag: 'ret', nl, lin } };
    }
    if (this.is('<')) {
      this.pos++;
      const linear = this.accept(';');
      const elems: string[] = [];
      if (!this.is('>')) {
        do elems.push(this.varName());
        while (this.accept(','));
      }
      this.expect('>', "'>' or ','");
      return { expr: { tag: 'tuple', linear, elems } };
    }
    const n = this.name('an expression');
    if (n.text === 'true' || n.text === 'false') return { expr: { tag: 'lit', value: n.text === 'true' } };
    const applied = this.is('(') && !this.tok.newlineBefore;
    if (!applied) {
      const s = this.resolve(n);
      return { expr: { tag: 'var', linear: s.linear, name: s.actual } };
    }
    this.pos++;
    switch (n.text) {
      case 'zero': {
        const type = this.type();
        this.expect(')');
        return { expr: { tag: 'zero', type } };
      }
      case 'dup': {
        const v = this.name('a linear variable');
        const s = this.resolve(v);
        if (!s.linear) this.fail(`dup takes a linear variable; ${v.text} is non-linear`, v);
        this.expect(')');
        return { expr: { tag: 'dup', name: s.actual } };
      }
    }
    const [nl, lin] = this.split(() => this.varName(), ')');
    // `op(v̄ ; v̇̄) [λ̄]`: a construct; which ops exist is the construct registry's business.
    if (this.accept('[')) {
      const c: OpenConstruct = { op: n.text, nl, lin, bodies: [], at: n };
      return this.accept(']') ? { expr: constructExpr(c) } : { open: c };
    }
    if (isPrim(n.text)) {
      if (lin.length > 0) this.fail(`${n.text} is a non-linear primitive; it takes no linear arguments`, n);
      return { expr: { tag: 'prim', op: n.text, args: nl } };
    }
    if (isLinPrim(n.text)) return { expr: { tag: 'lprim', op: n.text, nl, lin } };
    if (this.fns.has(n.text)) return { expr: { tag: 'call', fn: n.text, nl, lin } };
    return this.fail(`unknown function or primitive ${n.text} (functions must be defined before use)`, n);
  }
}

const constructExpr = (c: OpenConstruct): ConstructExpr => ({ tag: 'construct', op: c.op, nl: c.nl, lin: c.lin, bodies: c.bodies });

/** The block of `stmts` and `result`, with a nested block in result position spliced in. */
function closeBlock(stmts: Stmt[], result: Expr): Block {
  while (result.tag === 'block') {
    for (const s of result.block.stmts) stmts.push(s);
    result = result.block.result;
  }
  return { stmts, result };
}

export function parseProgram(text: string, file = '<input>'): Program {
  return new Parser(lex(text, file), file).program();
}
