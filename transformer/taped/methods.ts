// Methods called through an interface (or a class with subclasses) in taped code: which body
// runs is the object's class, known only at run time. Each class of the module that implements
// the method gets a taped copy of it (its `this` a first parameter), and the call becomes a
// dispatch on the run-time class (runtime/tape.ts, `method`): the class on the object's
// prototype chain that owns the method picks its copy; a class with no copy (one of another
// module, an object literal's own function) is a TypeError naming it, never another class's body.
import type * as ts from 'typescript';
import { TapedRefusal } from './refusal';

/** The functions that pick a method's taped copy by class, emitted once per method and set of classes. */
export class TapedMethods {
  private readonly choosers = new Map<string, string>();
  private readonly out: ts.Statement[] = [];

  constructor(
    private readonly tsApi: typeof ts,
    private readonly checker: ts.TypeChecker,
    private readonly f: ts.NodeFactory,
    /** `tsad$rt.tsad$tape.<member>` */
    private readonly runtime: (member: string) => ts.Expression,
    /** The name of the taped copy of a method (made with the other copies). */
    private readonly copyOf: (method: ts.MethodDeclaration) => string,
    /** `tsad$taped$` and so on: the mode's prefix. */
    private readonly prefix: string,
  ) {}

  statements(): ts.Statement[] {
    return this.out;
  }

  /**
   * `recv.m(args)` where `m` is a method of the program's own classes or interfaces: the dispatch
   * (`receiver` and `args` already rewritten); undefined for any other call.
   */
  call(node: ts.CallExpression, receiver: ts.Expression, args: readonly ts.Expression[]): ts.Expression | undefined {
    const t = this.tsApi;
    const callee = node.expression;
    if (!t.isPropertyAccessExpression(callee) || node.questionDotToken || callee.questionDotToken) return undefined;
    const decls = this.checker.getSymbolAtLocation(callee.name)?.declarations ?? [];
    const methods = decls.length > 0 && decls.every((d) => (t.isMethodSignature(d) || t.isMethodDeclaration(d)) && !d.getSourceFile().isDeclarationFile);
    if (!methods) return undefined;
    if (decls.some((d) => t.getCombinedModifierFlags(d) & t.ModifierFlags.Static)) {
      throw new TapedRefusal(node, `taped code calls the static method '${callee.getText()}', which taped mode does not take yet`);
    }
    const name = callee.name.text;
    const implementations = this.implementations(name, this.checker.getTypeAtLocation(callee.expression), node.getSourceFile());
    if (implementations.length === 0) {
      throw new TapedRefusal(node, `taped code calls '${name}' of '${callee.expression.getText()}', and no class of the module implements it with a body`);
    }
    const chooser = this.chooser(name, implementations);
    return this.f.createCallExpression(this.runtime('method'), undefined, [receiver, this.f.createStringLiteral(name), this.f.createIdentifier(chooser), ...args]);
  }

  /** The module's classes (declared at its top level, by name) that have a method `name` with a body and whose instances are of `receiver`'s type; all that have one where none is. */
  private implementations(name: string, receiver: ts.Type, sf: ts.SourceFile): { cls: ts.ClassDeclaration; method: ts.MethodDeclaration }[] {
    const t = this.tsApi;
    const all: { cls: ts.ClassDeclaration; method: ts.MethodDeclaration; fits: boolean }[] = [];
    for (const s of sf.statements) {
      if (!t.isClassDeclaration(s) || !s.name) continue;
      const method = s.members.find(
        (m): m is ts.MethodDeclaration => t.isMethodDeclaration(m) && !!m.body && t.isIdentifier(m.name) && m.name.text === name && !(t.getCombinedModifierFlags(m) & t.ModifierFlags.Static),
      );
      if (!method) continue;
      const instance = this.checker.getTypeAtLocation(s);
      all.push({ cls: s, method, fits: this.checker.isTypeAssignableTo(instance, receiver) });
    }
    const fitting = all.filter((c) => c.fits);
    return fitting.length > 0 ? fitting : all;
  }

  /** `function chooser(c) { return c === A ? copyA : c === B ? copyB : undefined; }` */
  private chooser(name: string, implementations: readonly { cls: ts.ClassDeclaration; method: ts.MethodDeclaration }[]): string {
    const f = this.f;
    const key = `${name}|${implementations.map((i) => i.cls.name!.text).join(',')}`;
    const known = this.choosers.get(key);
    if (known) return known;
    const chosen = `${this.prefix}methods$${name}${this.choosers.size > 0 ? `_${this.choosers.size}` : ''}`;
    this.choosers.set(key, chosen);
    const c = f.createIdentifier('c');
    const pick = implementations.reduceRight<ts.Expression>(
      (rest, { cls, method }) => f.createConditionalExpression(f.createStrictEquality(c, f.createIdentifier(cls.name!.text)), undefined, f.createIdentifier(this.copyOf(method)), undefined, rest),
      f.createIdentifier('undefined'),
    );
    this.out.push(
      f.createFunctionDeclaration(undefined, undefined, chosen, undefined, [f.createParameterDeclaration(undefined, undefined, c)], undefined, f.createBlock([f.createReturnStatement(pick)], true)),
    );
    return chosen;
  }
}
