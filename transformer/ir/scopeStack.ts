// Lexical scopes as one stack with an index by name: push, pop and lookup in O(1), so checking
// and rewriting a function with thousands of bindings stays linear. Inner bindings shadow outer
// ones of the same name: each stack entry remembers the binding it shadowed, so no per-name
// arrays are allocated.
export class ScopeStack<T extends { readonly name: string }> {
  private readonly stack: T[] = [];
  private readonly shadowed: (T | undefined)[] = [];
  private readonly byName = new Map<string, T>();

  get size(): number {
    return this.stack.length;
  }

  push(v: T): void {
    this.stack.push(v);
    this.shadowed.push(this.byName.get(v.name));
    this.byName.set(v.name, v);
  }

  pop(): T {
    const v = this.stack.pop();
    if (!v) throw new RangeError('pop of an empty scope');
    const prev = this.shadowed.pop();
    if (prev === undefined) this.byName.delete(v.name);
    else this.byName.set(v.name, prev);
    return v;
  }

  /** The innermost binding of a name. */
  find(name: string): T | undefined {
    return this.byName.get(name);
  }
}
