// Whether a run-time value has a Linear A type: the interpreter checks arguments with it, and a
// construct whose operands are told apart by their values (map: a mapped array or an invariant)
// asks it too. A leaf module, so construct records can import it without importing a pass.
import type { Type } from './syntax';
import type { Value } from './value';

export function conforms(v: Value, t: Type): boolean {
  // An explicit stack of (value, type) pairs: a tape type nests as deep as the call graph (a
  // chain of 3 000 calls), deeper than recursion may go.
  const todo: [Value, Type][] = [[v, t]];
  while (todo.length > 0) {
    const [x, u] = todo.pop()!;
    switch (u.tag) {
      case 'real':
        if (typeof x !== 'number') return false;
        break;
      case 'bool':
        if (typeof x !== 'boolean') return false;
        break;
      case 'str':
        if (typeof x !== 'string') return false;
        break;
      case 'stack':
      case 'array':
        if (!Array.isArray(x)) return false;
        for (const y of x) todo.push([y, u.elem]);
        break;
      case 'tuple':
        if (!Array.isArray(x) || x.length !== u.elems.length) return false;
        x.forEach((y, i) => todo.push([y, u.elems[i]]));
        break;
    }
  }
  return true;
}
