// Whether a run-time value has a Linear A type: the interpreter checks arguments with it, and a
// construct whose operands are told apart by their values (map: a mapped array or an invariant)
// asks it too. A leaf module, so construct records can import it without importing a pass.
import type { Type } from './syntax';
import type { Value } from './interp';

export function conforms(v: Value, t: Type): boolean {
  switch (t.tag) {
    case 'real':
      return typeof v === 'number';
    case 'bool':
      return typeof v === 'boolean';
    case 'str':
      return typeof v === 'string';
    case 'stack':
    case 'array':
      return Array.isArray(v) && v.every((x) => conforms(x, t.elem));
    case 'tuple':
      return Array.isArray(v) && v.length === t.elems.length && v.every((x, i) => conforms(x, t.elems[i]));
  }
}
