// The playground is a static site: `npm run playground` serves it, `npm run build:playground`
// writes it to playground/dist with relative asset paths (it opens from any static server). It
// needs no tsad/vite plugin: the page has no marked functions of its own; it compiles the user's
// code at run time, in its worker, with TypeScript and tsad bundled into that worker.
import { defineConfig } from 'vite';

export default defineConfig({
  base: './',
  // The worker holds TypeScript (megabytes, by design); its build time is TypeScript's, not a plugin's.
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 12000, rolldownOptions: { checks: { bundlerTimings: false } } },
  worker: { format: 'es', rolldownOptions: { checks: { bundlerTimings: false } } },
  // The worker bundles TypeScript's lib files and tsad's sources from outside this folder.
  server: { fs: { allow: ['..'] } },
});
