// The functions an expression calls (direct calls only), found with an explicit stack: bodies
// can be thousands of statements long or blocks thousands deep.
import { Expr } from './syntax';

export function calleesOf(start: Expr, out: Set<string> = new Set()): Set<string> {
  const stack: Expr[] = [start];
  while (stack.length > 0) {
    const e = stack.pop()!;
    switch (e.tag) {
      case 'let':
        stack.push(e.body, e.rhs);
        break;
      case 'unpack':
        stack.push(e.body);
        break;
      case 'drop':
        stack.push(e.expr);
        break;
      case 'call':
        out.add(e.fn);
        break;
      default:
        break;
    }
  }
  return out;
}
