import type { Type } from './syntax';

/** `real`, `bool`, `<real, <real, bool>>`; a named tuple prints as its alias when `useNames`. */
export function printType(t: Type, useNames = false): string {
  switch (t.tag) {
    case 'real':
      return 'real';
    case 'bool':
      return 'bool';
    case 'str':
      return 'str';
    case 'stack':
      return `stack<${printType(t.elem, useNames)}>`;
    case 'array':
      return `array<${printType(t.elem, useNames)}${t.store ? `; ${t.store}` : ''}>`;
    case 'tuple':
      if (useNames && t.name !== undefined) return t.name;
      return `<${t.elems.map((e) => printType(e, useNames)).join(', ')}>`;
  }
}
