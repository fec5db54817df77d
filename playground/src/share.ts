// The shareable URL: the code deflated and base64url-encoded in the hash, with the function and
// the inputs, so that a link opens the same state and no server stores anything.

export interface Shared {
  readonly code: string;
  readonly fn?: string;
  readonly args?: string;
}

async function through(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const out = new Response(new Blob([bytes as BlobPart]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}

function toBase64Url(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array {
  const s = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

export async function encodeHash(state: Shared): Promise<string> {
  const code = toBase64Url(await through(new TextEncoder().encode(state.code), new CompressionStream('deflate-raw')));
  const params = new URLSearchParams({ code });
  if (state.fn) params.set('fn', state.fn);
  if (state.args) params.set('args', state.args);
  return `#${params.toString()}`;
}

export async function decodeHash(hash: string): Promise<Shared | undefined> {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const code = params.get('code');
  if (!code) return undefined;
  const text = new TextDecoder().decode(await through(fromBase64Url(code), new DecompressionStream('deflate-raw')));
  return { code: text, fn: params.get('fn') ?? undefined, args: params.get('args') ?? undefined };
}
