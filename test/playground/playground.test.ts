// The playground in a real browser: the site built once here (as `npm run build:playground`
// builds it), served from a small HTTP server, driven by playwright-core in Debian's Chromium
// (never `playwright install`). Edit the code, see every stage follow, see a bad edit's
// diagnostic, run the gradient and get the number the plugin's own build computes, reload from a
// shared link, and keep a screenshot in test/playground/output/.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as path from 'path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { load } from '../plugin/harness';

const CHROMIUM = process.env.TSAD_CHROMIUM ?? '/usr/bin/chromium';
const root = path.resolve(__dirname, '../..');
const output = path.join(__dirname, 'output');
const site = path.join(output, 'site');
const present = fs.existsSync(CHROMIUM);

if (!present) {
  console.warn(`\n*** SKIPPED: the playground browser test needs Chromium at ${CHROMIUM} (apt-get install -y chromium); the playground was NOT tested in a browser. ***\n`);
}

const ARGS = [
  '--no-sandbox',
  '--enable-unsafe-webgpu',
  '--enable-features=Vulkan',
  '--use-vulkan=swiftshader',
  '--use-webgpu-adapter=swiftshader',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

const CODE = `import { grad } from 'tsad';

/** @differentiable */
export function bump(x: number, y: number): number {
  return Math.exp(x * y) + y * y * Math.sin(x);
}
`;
const BAD = CODE.replace('y * y * Math.sin(x)', 'y * Math.random()');

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml' };

let server: http.Server;
let base = '';
let browser: Browser;

/** Serves `dir` as a static site, as any static server would. */
function serve(dir: string): Promise<http.Server> {
  const s = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const file = path.join(dir, path.normalize(decodeURIComponent(url.pathname)).replace(/^(\.\.[/\\])+/, ''));
    const target = fs.existsSync(file) && fs.statSync(file).isDirectory() ? path.join(file, 'index.html') : file;
    if (!target.startsWith(dir) || !fs.existsSync(target)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(target)] ?? 'application/octet-stream' });
    fs.createReadStream(target).pipe(res);
  });
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve(s)));
}

/** The newest modification time under `p` (build outputs and node_modules aside). */
function newest(p: string): number {
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs;
  for (const name of fs.readdirSync(p)) if (name !== 'dist' && name !== 'node_modules') max = Math.max(max, newest(path.join(p, name)));
  return max;
}

function builtSinceSources(): boolean {
  const index = path.join(site, 'index.html');
  if (!fs.existsSync(index)) return false;
  const sources = ['playground', 'runtime', 'transformer', 'package-lock.json'].map((p) => newest(path.join(root, p)));
  return fs.statSync(index).mtimeMs > Math.max(...sources);
}

const maybe = present ? describe : describe.skip;

maybe('playground in Chromium', () => {
  jest.setTimeout(120_000);

  beforeAll(async () => {
    fs.mkdirSync(output, { recursive: true });
    // The same build as `npm run build:playground`, into the test's own folder; kept while no
    // source it is built from is newer.
    if (!builtSinceSources())
      execFileSync(process.execPath, [path.join(path.dirname(require.resolve('vite/package.json')), 'bin', 'vite.js'), 'build', 'playground', '--outDir', site, '--logLevel', 'warn'], {
        cwd: root,
        stdio: 'inherit',
      });
    server = await serve(site);
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    if (server) await new Promise((resolve) => server.close(resolve));
  });

  const stage = (page: Page, id: string) => page.getByTestId(id).textContent();

  async function replaceCode(page: Page, text: string): Promise<void> {
    // fill replaces the whole text in one edit, as a paste over a selection would.
    await page.getByTestId('editor').locator('.cm-content').fill(text);
  }

  async function compiledWith(page: Page, needle: string): Promise<void> {
    await page.waitForFunction(
      (n) => document.querySelector('[data-testid="stage-linear-a"]')?.textContent?.includes(n) && document.querySelector('[data-testid="status"]')?.getAttribute('data-state') === 'compiled',
      needle,
      { timeout: 60_000 },
    );
  }

  test('edit, every stage, a diagnostic, run the gradient, share and reload', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(base);
    await compiledWith(page, 'def f');
    const before = await Promise.all(['stage-linear-a', 'stage-passes', 'stage-jvp', 'stage-unzip', 'stage-transpose', 'stage-emit'].map((id) => stage(page, id)));

    // Replace the code: every stage is the new function's.
    await replaceCode(page, CODE);
    await compiledWith(page, 'def bump');
    const after = await Promise.all(['stage-linear-a', 'stage-passes', 'stage-jvp', 'stage-unzip', 'stage-transpose', 'stage-emit'].map((id) => stage(page, id)));
    after.forEach((text, i) => {
      expect(text).not.toBe(before[i]);
      expect(text).toContain('bump');
    });
    expect(after[5]).toMatch(/function bump\$grad\w*\(x, y\)/);
    expect(await page.getByTestId('diagnostics').textContent()).toContain('No problems');

    // A bad edit: TSAD1103 at Math.random, in the list with its hint and marked in the editor.
    await replaceCode(page, BAD);
    await page.getByTestId('diagnostics').locator('li[data-code="TSAD1103"]').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('diagnostics').textContent()).toMatch(/TSAD1103 at 5:\d+: .*hint: /s);
    await page.locator('.cm-lintRange-error').first().waitFor();
    expect(await page.locator('.cm-lintRange-error').first().textContent()).toContain('Math.random');

    // Back to the good code; run the gradient at edited inputs.
    await replaceCode(page, CODE);
    await compiledWith(page, 'def bump');
    expect(await page.getByTestId('diagnostics').textContent()).toContain('No problems');
    await page.getByTestId('inputs').fill('[0.5, 1.5]');
    await page.getByTestId('run').click();
    await page.waitForSelector('[data-testid="result"][data-state="ran"]', { timeout: 60_000 });
    const gradient = JSON.parse((await page.getByTestId('result').getAttribute('data-cpu-gradient'))!) as number[];
    // The number the plugin computes for the same source, compiled in Node through the harness.
    const { exports: m } = load(`${CODE}export const d = grad(bump, { wrt: [0, 1] });\n`);
    const expected = m.d(0.5, 1.5) as number[];
    expect(gradient).toHaveLength(2);
    gradient.forEach((g, i) => expect(g).toBeCloseTo(expected[i], 12));
    // And by hand: ∂x = y e^{xy} + y² cos x, ∂y = x e^{xy} + 2y sin x.
    const e = Math.exp(0.75);
    expect(gradient[0]).toBeCloseTo(1.5 * e + 2.25 * Math.cos(0.5), 12);
    expect(gradient[1]).toBeCloseTo(0.5 * e + 3 * Math.sin(0.5), 12);
    // The backend the page names ran the gradient shown: WebGPU's f32 kernels (SwiftShader here,
    // approximate transcendentals) close to the CPU, or the CPU itself.
    const backend = await page.getByTestId('backend').textContent();
    const shown = JSON.parse((await page.getByTestId('result').getAttribute('data-gradient'))!) as number[];
    console.log(`playground test: the gradient ran on ${backend}${backend === 'CPU' ? ` (${await page.getByTestId('backend').getAttribute('title')})` : ''}`);
    expect(['CPU', 'WebGPU']).toContain(backend);
    if (backend === 'CPU') expect(shown).toEqual(gradient);
    else shown.forEach((g, i) => expect(Math.abs(g - expected[i])).toBeLessThan(5e-4 * Math.max(1, Math.abs(expected[i]))));
    expect(await page.getByTestId('plot').locator('polyline').count()).toBe(1);
    expect(await page.getByTestId('plot').locator('line.tangent').count()).toBe(1);

    // One parameter: gpu(grad(f)) compiles to kernels, and runs on WebGPU where the page has it.
    await page.getByTestId('examples').selectOption({ label: 'Scalar' });
    await compiledWith(page, 'def f');
    await page.getByTestId('run').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="result"]')?.textContent?.startsWith('f(1.5)'), null, { timeout: 60_000 });
    const scalarBackend = await page.getByTestId('backend').textContent();
    const [onBackend, onCpu] = await Promise.all(['data-gradient', 'data-cpu-gradient'].map(async (a) => JSON.parse((await page.getByTestId('result').getAttribute(a))!) as number));
    const x = 1.5;
    expect(onCpu).toBeCloseTo(Math.sin(x) + x * Math.cos(x) + 0.5 * x, 12);
    // SwiftShader's sin and cos are approximate (docs: webgpu-without-a-gpu): f32 within 5e-4, relative.
    if (scalarBackend === 'WebGPU') expect(Math.abs(onBackend - onCpu)).toBeLessThan(5e-4 * Math.max(1, Math.abs(onCpu)));
    else console.warn(`playground test: WebGPU was NOT exercised: ${await page.getByTestId('backend').getAttribute('title')}`);
    console.log(`playground test: grad f(1.5) on ${scalarBackend}: ${onBackend} (CPU ${onCpu})`);

    // Share, and open the link in a fresh page.
    await replaceCode(page, CODE);
    await compiledWith(page, 'def bump');
    expect(await page.getByTestId('result').getAttribute('data-state')).toBe('stale');
    await page.getByTestId('inputs').fill('[0.5, 1.5]');
    await page.getByTestId('run').click();
    await page.waitForSelector('[data-testid="result"][data-state="ran"]', { timeout: 60_000 });
    await page.getByTestId('share').click();
    await page.waitForFunction(() => (document.querySelector('[data-testid="share-url"]') as HTMLInputElement).value.includes('#code='));
    const link = await page.getByTestId('share-url').inputValue();
    await page.screenshot({ path: path.join(output, 'playground.png'), fullPage: true });
    const reopened = await browser.newPage();
    await reopened.goto(link);
    await compiledWith(reopened, 'def bump');
    expect(await reopened.getByTestId('editor').locator('.cm-content').textContent()).toContain('Math.exp(x * y) + y * y * Math.sin(x)');
    expect(await reopened.getByTestId('inputs').inputValue()).toBe('[0.5, 1.5]');
    expect(errors).toEqual([]);
  });
});

if (!present) test.skip('playground in Chromium (skipped: no Chromium)', () => undefined);
