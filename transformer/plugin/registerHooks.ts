// ES module loader hooks for `tsad/register` (they run in Node's loader thread): a TypeScript
// file is CommonJS, loaded by the CommonJS loader that loader.ts taught its extensions, so
// the entry of `node --import tsad/register app.ts` and TypeScript imported from ES modules run
// through tsad too.

const TYPESCRIPT_FILE = /\.(ts|tsx|cts|mts)$/;

interface LoadContext {
  readonly format?: string | null;
}

interface LoadResult {
  readonly format: string;
  readonly shortCircuit?: boolean;
  readonly source?: string | ArrayBuffer | Uint8Array;
}

type NextLoad = (url: string, context: LoadContext) => Promise<LoadResult>;

export async function load(url: string, context: LoadContext, nextLoad: NextLoad): Promise<LoadResult> {
  if (url.startsWith('file:') && TYPESCRIPT_FILE.test(new URL(url).pathname)) return { format: 'commonjs', shortCircuit: true };
  return nextLoad(url, context);
}
