// The compiler worker: TypeScript and tsad on the page's code, off the main thread, so that
// typing never waits for a compile.
import ts from 'typescript';
import { compile, LIB_DIR, type Library, RUNTIME_DIR } from './compile';
import type { Request, Response } from './protocol';
import { run } from './run';

const libs = import.meta.glob(['../../node_modules/typescript/lib/lib.es5.d.ts', '../../node_modules/typescript/lib/lib.es20*.d.ts', '../../node_modules/typescript/lib/lib.decorators*.d.ts'], {
  query: '?raw',
  import: 'default',
  eager: true,
}) as Record<string, string>;
const runtimeSources = import.meta.glob(['../../runtime/index.ts', '../../runtime/tape.ts', '../../runtime/webgpu/*.ts'], { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

const files = new Map<string, string>();
for (const [p, text] of Object.entries(libs)) files.set(`${LIB_DIR}/${p.slice(p.lastIndexOf('/') + 1)}`, text);
for (const [p, text] of Object.entries(runtimeSources)) files.set(`${RUNTIME_DIR}/${p.slice('../../runtime/'.length)}`, text);
const lib: Library = { ts, files };

const post = (r: Response) => (self as unknown as { postMessage(m: Response): void }).postMessage(r);

self.addEventListener('message', async (e: MessageEvent<Request>) => {
  const q = e.data;
  const start = performance.now();
  try {
    if (q.type === 'compile') post({ id: q.id, type: 'compiled', result: compile(lib, q.code, q.fn), ms: performance.now() - start });
    else post({ id: q.id, type: 'ran', result: await run(lib, q.code, q.fn, q.args), ms: performance.now() - start });
  } catch (err) {
    post({ id: q.id, type: 'failed', message: err instanceof Error ? err.message : String(err) });
  }
});
