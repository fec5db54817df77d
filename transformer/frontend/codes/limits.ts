// Code TSAD1190: a function nested deeper than tsad can compile (plugin/tooDeep.ts).
import type { DiagnosticSpec } from './spec';

export const NESTED_TOO_DEEP = 1190;

export const LIMIT_CODES: Readonly<Record<number, DiagnosticSpec>> = {
  [NESTED_TOO_DEEP]: {
    title: 'function nested too deep to compile',
    hint:
      'move the inner levels into a differentiable function of their own and call it (calls nest without this limit); ' +
      "at Node's default stack tsad compiles about 270 nested loops and 400 nested conditionals, and TypeScript itself prints about 380 (node --stack-size raises all of these)",
  },
};
