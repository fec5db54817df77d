// The page: the editor, the stage views, the diagnostics, Run and Share. Compiling happens in the
// worker; the page only keeps the latest request of each kind waiting while one is in flight.
import { javascript } from '@codemirror/lang-javascript';
import { type Diagnostic, lintGutter, setDiagnostics } from '@codemirror/lint';
import { basicSetup, EditorView } from 'codemirror';
import type { Compiled, PlaygroundDiagnostic } from './compile';
import { EXAMPLES } from './examples';
import { drawPlot } from './plot';
import type { Ran, Request, Response } from './protocol';
import { decodeHash, encodeHash } from './share';

/** Each stage's view: the stage of stagesOf, its test id and its title. */
const VIEWS = [
  ['linear-a', 'stage-linear-a', 'Linear A: the function lowered'],
  ['passes', 'stage-passes', 'Pass by pass: inline, licm, J, U, T, E and fusion, the simplifier after each'],
  ['jvp', 'stage-jvp', 'JVP (J): primal and tangent together'],
  ['linearize', 'stage-unzip', 'Unzipped (U): primal part, then the linear part'],
  ['transpose', 'stage-transpose', 'Transposed (T): the linear part run backwards'],
  ['grad', 'stage-simplified', 'Value and gradient, fused and simplified'],
  ['emit', 'stage-emit', 'Emitted TypeScript: what grad(f) compiles to'],
  ['wgsl', 'stage-wgsl', 'WGSL: what gpu(grad(f)) compiles to'],
] as const;

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const exampleSelect = $<HTMLSelectElement>('example');
const fnSelect = $<HTMLSelectElement>('fn');
const status = $('status');
const diagnosticsList = $('diagnostics');
const inputs = $<HTMLInputElement>('inputs');
const result = $('result');
const backend = $('backend');
const plot = document.getElementById('plot') as unknown as SVGSVGElement;
const caption = $('plot-caption');
const shareUrl = $<HTMLInputElement>('share-url');

const stageViews = new Map<string, HTMLPreElement>();
for (const [stage, testId, title] of VIEWS) {
  const box = document.createElement('div');
  box.className = 'stage';
  const h = document.createElement('h3');
  h.textContent = title;
  const pre = document.createElement('pre');
  pre.dataset.testid = testId;
  box.append(h, pre);
  $('stages').append(box);
  stageViews.set(stage, pre);
}

for (const [i, e] of EXAMPLES.entries()) exampleSelect.add(new Option(e.title, String(i)));
exampleSelect.add(new Option('(your code)', 'custom'));

// ---- the worker, one request in flight, the latest of each kind waiting ----
const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
let nextId = 1;
let inFlight: Request | undefined;
const waiting = new Map<Request['type'], Request>();

/** A request before it is numbered (Omit of each member of the union). */
type Unsent<R = Request> = R extends Request ? Omit<R, 'id'> : never;

function send(q: Unsent): void {
  const request = { ...q, id: nextId++ } as Request;
  if (inFlight) waiting.set(request.type, request);
  else {
    inFlight = request;
    worker.postMessage(request);
  }
}

worker.addEventListener('message', (e: MessageEvent<Response>) => {
  const r = e.data;
  inFlight = undefined;
  const next = waiting.get('compile') ?? waiting.get('run');
  if (next) {
    waiting.delete(next.type);
    inFlight = next;
    worker.postMessage(next);
  }
  if (r.type === 'compiled') showCompiled(r.result, r.ms);
  else if (r.type === 'ran') showRan(r.result, r.ms);
  else {
    status.textContent = 'failed';
    result.textContent = `Error: ${r.message}`;
    result.dataset.state = 'error';
  }
});

// ---- the editor ----
let compileTimer: ReturnType<typeof setTimeout> | undefined;
/** Set while the page (not the user) replaces the code. */
let loading = false;
const editor = new EditorView({
  parent: $('editor'),
  extensions: [
    basicSetup,
    javascript({ typescript: true }),
    lintGutter(),
    EditorView.updateListener.of((u) => {
      if (!u.docChanged) return;
      if (!loading) exampleSelect.value = 'custom';
      // A result of other code must not pass for this code's.
      if (result.dataset.state === 'ran') result.dataset.state = 'stale';
      clearTimeout(compileTimer);
      compileTimer = setTimeout(requestCompile, 350);
      status.dataset.state = 'editing';
    }),
  ],
});

const code = () => editor.state.doc.toString();

function setCode(text: string): void {
  loading = true;
  editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: text } });
  loading = false;
  clearTimeout(compileTimer);
  requestCompile();
}

function requestCompile(): void {
  status.textContent = 'compiling…';
  status.dataset.state = 'compiling';
  send({ type: 'compile', code: code(), fn: fnSelect.value || undefined });
}

/** The function and parameter kinds the inputs were written for; 'loaded' when an example or a link set them. */
let argsKey: string | undefined;

function showCompiled(c: Compiled, ms: number): void {
  status.textContent = `compiled in ${Math.round(ms)} ms`;
  // 'compiled' only once the latest edit is: an older request's answer is shown but not final.
  const newer = status.dataset.state === 'editing' || waiting.has('compile') || inFlight?.type === 'compile';
  status.dataset.state = newer ? (status.dataset.state === 'editing' ? 'editing' : 'compiling') : 'compiled';
  fnSelect.replaceChildren(...c.marked.map((n) => new Option(n, n, false, n === c.fn)));
  for (const [stage, view] of stageViews) {
    const text = c.stages[stage as keyof Compiled['stages']];
    view.textContent = text ?? (c.fn ? `(${c.fn}: this stage does not compile; see the diagnostics)` : '(no marked function)');
    view.parentElement!.classList.toggle('missing', text === undefined);
  }
  showDiagnostics(c.diagnostics);
  // New inputs only for another function or other parameters: the user's own stay.
  const key = `${c.fn}(${c.params.map((p) => p.kind).join()})`;
  if (c.fn === undefined) {
    // Code with no marked function (half typed, or cleared before a paste) keeps the inputs.
  } else if (argsKey === 'loaded' && inputs.value) argsKey = key;
  else if (key !== argsKey) {
    inputs.value = defaultArgs(c);
    argsKey = key;
  }
  $<HTMLButtonElement>('run').disabled = c.notRunnable !== undefined;
  $('run').title = c.notRunnable ?? '';
}

function defaultArgs(c: Compiled): string {
  const example = EXAMPLES.find((e) => e.fn === c.fn && e.code === code());
  if (example) return example.args;
  return JSON.stringify(
    c.params.map((p) =>
      p.kind === 'number'
        ? 1
        : p.kind === 'array'
          ? [1, 2, 3]
          : p.kind === 'matrix'
            ? [
                [1, 0],
                [0, 1],
              ]
            : null,
    ),
  );
}

function showDiagnostics(list: readonly PlaygroundDiagnostic[]): void {
  const doc = editor.state.doc.length;
  const marks: Diagnostic[] = list.map((d) => ({
    from: Math.min(d.from, doc),
    to: Math.min(Math.max(d.to, d.from), doc),
    severity: d.severity,
    source: d.code,
    message: `${d.code}: ${d.message}${d.hint ? `\nhint: ${d.hint}` : ''}`,
  }));
  editor.dispatch(setDiagnostics(editor.state, marks));
  diagnosticsList.replaceChildren(
    ...(list.length === 0
      ? [Object.assign(document.createElement('li'), { className: 'none', textContent: 'No problems.' })]
      : list.map((d) => {
          const li = document.createElement('li');
          li.className = d.severity;
          li.dataset.code = d.code;
          li.textContent = `${d.code} at ${d.line}:${d.column}: ${d.message}`;
          if (d.hint) li.append(Object.assign(document.createElement('div'), { className: 'hint', textContent: `hint: ${d.hint}` }));
          li.addEventListener('click', () => editor.dispatch({ selection: { anchor: d.from, head: d.to }, scrollIntoView: true }));
          return li;
        })),
  );
  diagnosticsList.dataset.count = String(list.length);
}

// ---- Run ----
const fmt = (v: unknown): string => JSON.stringify(v, (_, x) => (typeof x === 'number' ? Number(x.toPrecision(10)) : x));

function showRan(r: Ran, ms: number): void {
  status.textContent = `ran in ${Math.round(ms)} ms`;
  backend.textContent = r.backend;
  const fn = fnSelect.value;
  backend.title = r.backendWhy ?? '';
  const lines = [`${fn}(${inputs.value.replace(/^\[|\]$/g, '')}) = ${fmt(r.value)}`];
  if (r.gradient !== undefined) lines.push(`grad ${fn} = ${fmt(r.gradient)}${r.backend === 'WebGPU' ? ' (WebGPU kernels, f32)' : ''}`);
  if (r.backend === 'WebGPU') lines.push(`grad ${fn} = ${fmt(r.cpuGradient)} (CPU, f64)`);
  else if (r.backendWhy && r.gradient !== undefined) lines.push(`on the CPU: ${r.backendWhy}`);
  if (r.why) lines.push(r.why);
  for (const d of r.diagnostics) lines.push(`${d.code}: ${d.message}`);
  result.textContent = lines.join('\n');
  result.dataset.state = 'ran';
  result.dataset.value = JSON.stringify(r.value);
  result.dataset.gradient = JSON.stringify(r.gradient ?? null);
  result.dataset.cpuGradient = JSON.stringify(r.cpuGradient ?? null);
  drawPlot(plot, r.plot, caption);
}

$('run').addEventListener('click', () => {
  result.dataset.state = 'running';
  result.textContent = 'running…';
  send({ type: 'run', code: code(), fn: fnSelect.value, args: inputs.value });
});

fnSelect.addEventListener('change', requestCompile);

exampleSelect.addEventListener('change', () => {
  const e = EXAMPLES[Number(exampleSelect.value)];
  if (!e) return;
  fnSelect.replaceChildren(new Option(e.fn, e.fn, true, true));
  inputs.value = e.args;
  argsKey = 'loaded';
  setCode(e.code);
});

// ---- Share ----
$('share').addEventListener('click', async () => {
  const hash = await encodeHash({ code: code(), fn: fnSelect.value, args: inputs.value });
  history.replaceState(null, '', hash);
  shareUrl.value = location.href;
  navigator.clipboard?.writeText(location.href).catch(() => undefined);
});

async function start(): Promise<void> {
  const shared = location.hash ? await decodeHash(location.hash).catch(() => undefined) : undefined;
  if (shared) {
    exampleSelect.value = 'custom';
    if (shared.fn) fnSelect.replaceChildren(new Option(shared.fn, shared.fn, true, true));
    inputs.value = shared.args ?? '';
    argsKey = 'loaded';
    setCode(shared.code);
  } else {
    exampleSelect.value = '0';
    exampleSelect.dispatchEvent(new Event('change'));
  }
}

void start();
