// node build.mjs: bundles src/main.ts with tsad's derivatives into dist/main.cjs.
import * as esbuild from 'esbuild';
import tsad from 'tsad/esbuild';

await esbuild.build({
  entryPoints: ['src/main.ts'],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  outfile: 'dist/main.cjs',
  sourcemap: true,
  plugins: [tsad()],
});
