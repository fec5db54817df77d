// Parser for the Linear A text format (docs/linear-a.md). Hand-written lexer and recursive
// descent. The parser tracks scopes so that a bare variable gets the sort of its binder, and it
// knows primitives from the registry and functions from earlier definitions.
import {
  Binder,
  Expr,
  FnDef,
  IrError,
  Program,
  Type,
  REAL,
  BOOL,
  STR,
  tupleType,
} from './syntax';
import { isPrim, isLinPrim } from '../prims/registry';

interface Token {
  readonly kind: 'name' | 'num' | 'str' | 'punct' | 'eof';
  readonly text: string;
  readonly line: number;
  readonly col: number;
  /** A newline separates this token from the previous one. */
  readonly newlineBefore: boolean;
}

const PUNCT = ['->', '(', ')', '<', '>', '{', '}', ',', ';', ':', '='];
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

class Parser {
  private pos = 0;
  private readonly scopes: Map<string, boolean>[] = [];
  private readonly fns = new Map<string, FnInfo>();
  private readonly aliases = new Map<string, Type>();

  constructor(
    private readonly tokens: Token[],
    private readonly file: string,
  ) {}

  private get tok(): Token {
    return this.tokens[this.pos];
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

  private bind(name: string, linear: boolean): void {
    this.scopes[this.scopes.length - 1].set(name, linear);
  }

  private sortOf(t: Token): boolean {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const s = this.scopes[i].get(t.text);
      if (s !== undefined) return s;
    }
    return this.fail(`unbound variable ${t.text}`, t);
  }

  private varName(): string {
    const t = this.name('a variable');
    this.sortOf(t);
    return t.text;
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
    const alias = this.aliases.get(n.text);
    if (!alias) this.fail(`unknown type ${n.text}`, t);
    return alias;
  }

  private def(): FnDef {
    this.expect('def');
    const nameTok = this.name('a function name');
    if (this.fns.has(nameTok.text)) this.fail(`${nameTok.text} is defined twice`, nameTok);
    this.scopes.push(new Map());
    this.expect('(');
    const [nlParams, linParams] = this.split(() => {
      const n = this.name('a parameter name');
      this.expect(':', "':' and a type");
      return { name: n.text, type: this.type() };
    }, ')');
    nlParams.forEach((b) => this.bind(b.name, false));
    linParams.forEach((b) => this.bind(b.name, true));
    this.expect('->');
    this.expect('(');
    const [nlResults, linResults] = this.split(() => this.type(), ')');
    const body = this.block();
    this.scopes.pop();
    this.fns.set(nameTok.text, { nlResults: nlResults.length, linResults: linResults.length });
    return { name: nameTok.text, nlParams, linParams, nlResults, linResults, body };
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

  private block(): Expr {
    this.expect('{');
    const e = this.statements();
    this.expect('}', "'}' or a newline before the next statement");
    return e;
  }

  private statements(): Expr {
    if (this.is('let')) return this.letStatement();
    const e = this.expr();
    if (this.is('}')) return e;
    this.accept('in');
    return { tag: 'let', nl: [], lin: [], rhs: e, body: this.statements() };
  }

  private letStatement(): Expr {
    this.expect('let');
    if (this.accept('<')) {
      const linear = this.accept(';');
      const names: Binder[] = [];
      if (!this.is('>')) {
        do names.push(this.binder());
        while (this.accept(','));
      }
      this.expect('>', "'>' or ','");
      this.expect('=');
      const t = this.name('the tuple variable to unpack');
      if (this.sortOf(t) !== linear) {
        this.fail(linear ? `${t.text} is non-linear; unpack it with let <...> = ${t.text}` : `${t.text} is linear; unpack it with let <; ...> = ${t.text}`, t);
      }
      this.accept('in');
      names.forEach((b) => this.bind(b.name, linear));
      return { tag: 'unpack', linear, names, tuple: t.text, body: this.statements() };
    }
    let nl: Binder[];
    let lin: Binder[] = [];
    if (this.accept('(')) [nl, lin] = this.split(() => this.binder(), ')');
    else nl = [this.binder()];
    this.expect('=');
    const rhs = this.expr();
    this.accept('in');
    nl.forEach((b) => this.bind(b.name, false));
    lin.forEach((b) => this.bind(b.name, true));
    return { tag: 'let', nl, lin, rhs, body: this.statements() };
  }

  private binder(): Binder {
    const n = this.name('a binder name');
    return this.accept(':') ? { name: n.text, type: this.type() } : { name: n.text };
  }

  // ---- expressions ----

  private expr(): Expr {
    const t = this.tok;
    if (t.kind === 'num') {
      this.pos++;
      return { tag: 'lit', value: Number(t.text) };
    }
    if (t.kind === 'str') {
      this.pos++;
      return { tag: 'lit', value: JSON.parse(t.text) as string };
    }
    if (this.is('(')) {
      this.pos++;
      const [nl, lin] = this.split(() => this.varName(), ')');
      return { tag: 'ret', nl, lin };
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
      return { tag: 'tuple', linear, elems };
    }
    if (this.is('{')) {
      this.scopes.push(new Map());
      const e = this.block();
      this.scopes.pop();
      return e;
    }
    const n = this.name('an expression');
    if (n.text === 'true' || n.text === 'false') return { tag: 'lit', value: n.text === 'true' };
    const applied = this.is('(') && !this.tok.newlineBefore;
    if (!applied) return { tag: 'var', linear: this.sortOf(n), name: n.text };
    this.pos++;
    switch (n.text) {
      case 'zero': {
        const type = this.type();
        this.expect(')');
        return { tag: 'zero', type };
      }
      case 'dup': {
        const v = this.name('a linear variable');
        if (!this.sortOf(v)) this.fail(`dup takes a linear variable; ${v.text} is non-linear`, v);
        this.expect(')');
        return { tag: 'dup', name: v.text };
      }
      case 'drop': {
        const e = this.expr();
        this.expect(')');
        return { tag: 'drop', expr: e };
      }
    }
    const [nl, lin] = this.split(() => this.varName(), ')');
    if (isPrim(n.text)) {
      if (lin.length > 0) this.fail(`${n.text} is a non-linear primitive; it takes no linear arguments`, n);
      return { tag: 'prim', op: n.text, args: nl };
    }
    if (isLinPrim(n.text)) return { tag: 'lprim', op: n.text, nl, lin };
    if (this.fns.has(n.text)) return { tag: 'call', fn: n.text, nl, lin };
    return this.fail(`unknown function or primitive ${n.text} (functions must be defined before use)`, n);
  }
}

export function parseProgram(text: string, file = '<input>'): Program {
  return new Parser(lex(text, file), file).program();
}
