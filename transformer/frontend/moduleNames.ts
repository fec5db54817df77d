// The names a module-level function the compiler adds to a module may take (a wrapper
// `loss_grad`, a shared argument check `loss_args`): none that the module's source already
// uses anywhere. A user's `const loss_args` beside the emitted `function loss_args` would stop the
// module from loading; a user's `function loss_args` would replace the check, or be replaced by
// it; a parameter named `loss_args` would shadow it inside every wrapper. So the whole file's
// identifiers count, not only its top-level declarations.
import type * as ts from 'typescript';

export class ModuleNames {
  private taken?: Set<string>;

  constructor(
    private readonly t: typeof ts,
    private readonly sf: ts.SourceFile,
  ) {}

  /** `base`, else `base_2`, `base_3`, …: the first the module does not use yet; it is then taken. */
  free(base: string): string {
    const taken = this.names();
    let name = base;
    for (let k = 2; taken.has(name); k++) name = `${base}_${k}`;
    taken.add(name);
    return name;
  }

  private names(): Set<string> {
    if (this.taken) return this.taken;
    const taken = new Set<string>();
    const t = this.t;
    const visit = (node: ts.Node): void => {
      if (t.isIdentifier(node) || t.isPrivateIdentifier(node)) taken.add(node.text);
      else t.forEachChild(node, visit);
    };
    visit(this.sf);
    this.taken = taken;
    return taken;
  }
}
