// The playground is a static site: `npm run playground` serves it, `npm run build:playground`
// writes it to playground/dist with relative asset paths (it opens from any static server). It
// is built with tsad's own Vite plugin, as a user's app would be: the plugin passes the page's
// modules through (its type checker sees that none marks a function), and the page compiles the
// user's code at run time, in its worker, with TypeScript and tsad bundled into that worker.
import { defineConfig } from 'vite';
import tsad from 'tsad/vite';

export default defineConfig({
  base: './',
  plugins: [tsad()],
  // The worker holds TypeScript (megabytes, by design); its build time is TypeScript's, not a plugin's.
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 12000, rolldownOptions: { checks: { bundlerTimings: false } } },
  worker: { format: 'es', rolldownOptions: { checks: { bundlerTimings: false } } },
  // The worker bundles TypeScript's lib files and tsad's sources from outside this folder.
  server: { fs: { allow: ['..'] } },
});
