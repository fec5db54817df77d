// The functions an expression calls (direct calls only), found without recursing down let chains.
import { Expr } from './syntax';

export function calleesOf(e: Expr, out: Set<string> = new Set()): Set<string> {
  for (;;) {
    if (e.tag === 'let') {
      calleesOf(e.rhs, out);
      e = e.body;
    } else if (e.tag === 'unpack') e = e.body;
    else break;
  }
  switch (e.tag) {
    case 'call':
      out.add(e.fn);
      break;
    case 'drop':
      calleesOf(e.expr, out);
      break;
    default:
      break;
  }
  return out;
}
