// Lexical scopes as one stack with an index by name: push, pop and lookup in O(1), so checking
// and rewriting a function with thousands of bindings stays linear. Inner bindings shadow outer
// ones of the same name.
export class ScopeStack<T extends { readonly name: string }> {
  private readonly stack: T[] = [];
  private readonly byName = new Map<string, T[]>();

  get size(): number {
    return this.stack.length;
  }

  push(v: T): void {
    this.stack.push(v);
    const same = this.byName.get(v.name);
    if (same) same.push(v);
    else this.byName.set(v.name, [v]);
  }

  pop(): T {
    const v = this.stack.pop();
    if (!v) throw new RangeError('pop of an empty scope');
    const same = this.byName.get(v.name)!;
    same.pop();
    if (same.length === 0) this.byName.delete(v.name);
    return v;
  }

  /** The innermost binding of a name. */
  find(name: string): T | undefined {
    const same = this.byName.get(name);
    return same ? same[same.length - 1] : undefined;
  }
}
