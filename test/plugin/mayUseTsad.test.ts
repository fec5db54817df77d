// Which files the build-tool plugins (tsad/vite, tsad/esbuild) hand to tsad's compiler: those that
// import from a module named like tsad or mark a function. A file that only names tsad in a
// comment or a string goes to the tool's own TypeScript handling (the playground's sources do).
import { mayUseTsad } from '../../transformer/plugin/project';

test.each([
  "import { grad } from 'tsad';",
  'import { gpu } from "tsad/webgpu";',
  "const { grad } = require('tsad');",
  "const m = await import('tsad');",
  "import 'tsad';",
  "import { grad } from './tsad'; // the project's own re-export",
  "export * from '../tsad/index';",
  '/** @differentiable */\nexport function f(x: number) { return x; }',
])('handed to tsad: %s', (text) => {
  expect(mayUseTsad(text)).toBe(true);
});

test.each(['// `tsad inspect` prints each stage', "throw new Error('tsad: cannot build');", "import { compile } from '../../transformer/compile';", "const note = 'built with tsad';"])(
  'left to the tool: %s',
  (text) => {
    expect(mayUseTsad(text)).toBe(false);
  },
);
