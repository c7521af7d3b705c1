/**
 * A real Chromium on the operator's desk, the reconciler (dashboard inside) on 127.0.0.1:
 * a page served from another origin on 127.0.0.1 tries `fetch` in no-cors mode and a
 * text/plain form post to approve, override and heal; a page whose name comes to lead to
 * the reconciler (DNS rebinding: Chromium's host resolver rules map the name to 127.0.0.1,
 * where the attacker's server gives its port to the reconciler) tries to read and to act. Every attempt reaches the server, is refused, and nothing is done.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { ensureChromium } from '../../scripts/chromium';
import { ReconcilerMetrics } from '../../src/reconciler/metrics';
import { ReconcilerServer } from '../../src/reconciler/server';
import { recordingHandle, startSurfaces, TOKEN, type Surfaces } from './surfaces';

jest.setTimeout(60_000);

let s: Surfaces;
let attacker: http.Server;
let attackerUrl: string;
let browser: Browser;

/** The attacker's page: its script posts to `target` as a page of another origin can, then offers a form. */
function attackPage(target: string): string {
  const script = `
    const target = ${JSON.stringify(target)};
    const attempts = [
      ['/api/approve/fleet', '{}'],
      ['/api/override', JSON.stringify({ windows: 'open', for: '1h' })],
      ['/api/heal', '{}'],
      ['/dashboard/api/actions/approve', JSON.stringify({ stack: 'fleet' })],
    ];
    Promise.all(attempts.map(([p, body]) =>
      fetch(target + p, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body }).then(() => 'answered', (e) => String(e))
    )).then((r) => { document.title = 'fetched: ' + r.join(','); });`;
  return `<!doctype html><title>attacker</title>
    <form method="POST" action="${target}/api/approve/fleet" enctype="text/plain">
      <input type="hidden" name='{"stack":"fleet","x":"' value='"}'><button id="go">go</button>
    </form>
    <script>${script}</script>`;
}

beforeAll(async () => {
  s = await startSurfaces();
  attacker = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(attackPage(s.reconciler.url));
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', () => resolve()));
  attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`;
  const asRoot = process.getuid?.() === 0;
  browser = await puppeteer.launch({
    executablePath: ensureChromium(),
    headless: true,
    args: [
      ...(asRoot ? ['--no-sandbox'] : []),
      '--disable-dev-shm-usage',
      '--disable-gpu',
      '--no-first-run',
      // A name of the attacker's that resolves to this computer, as a rebinding DNS server makes it.
      '--host-resolver-rules=MAP rebind.attacker.test 127.0.0.1',
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => attacker?.close(() => resolve()));
  await s?.close();
});

/** Statuses of the answers `page` got from the reconciler, by path, as the browser reports them. */
class Answers {
  readonly seen = new Map<string, number[]>();
  private readonly waiting = new Set<() => void>();

  constructor(page: Page, origin: string) {
    page.on('response', (r) => {
      const url = new URL(r.url());
      if (url.origin !== origin) return;
      this.seen.set(url.pathname, [...(this.seen.get(url.pathname) ?? []), r.status()]);
      for (const check of this.waiting) check();
    });
  }

  /**
   * Resolves once `path` has `count` answers: the browser reports a response apart from the
   * page's own code seeing it, so a page's fetch may resolve before its answer is reported.
   */
  until(path: string, count: number, timeoutMs = 30_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if ((this.seen.get(path)?.length ?? 0) < count) return;
        this.waiting.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiting.delete(check);
        reject(new Error(`${path}: ${this.seen.get(path)?.length ?? 0} of ${count} answers after ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.add(check);
      check();
    });
  }
}

test('a page of another origin on 127.0.0.1: no-cors fetches and a text/plain form post are refused, nothing approved', async () => {
  const page = await browser.newPage();
  const answers = new Answers(page, new URL(s.reconciler.url).origin);
  await page.goto(attackerUrl);
  await page.waitForFunction("document.title.startsWith('fetched: ')");
  expect(await page.title()).toBe('fetched: answered,answered,answered,answered');
  const [navigation] = await Promise.all([page.waitForNavigation(), page.click('#go')]);
  expect(navigation?.status()).toBe(403);
  expect(await page.evaluate('document.body.innerText')).toMatch(/refused/);
  await Promise.all([
    answers.until('/api/approve/fleet', 2),
    answers.until('/api/override', 1),
    answers.until('/api/heal', 1),
    answers.until('/dashboard/api/actions/approve', 1),
  ]);
  expect(Object.fromEntries(answers.seen)).toEqual({
    '/api/approve/fleet': [403, 403],
    '/api/override': [403],
    '/api/heal': [403],
    '/dashboard/api/actions/approve': [403],
  });
  expect(s.reconciler.handle.asked).toEqual([]);
  expect(s.reconciler.source.asked).toEqual([]);
  await page.close();
});

test('DNS rebinding: a page of an attacker’s name, now resolving to the reconciler, can neither read nor act', async () => {
  // The attacker's server serves its page on a port, under its name...
  const page = await browser.newPage();
  const rebinding = http.createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>rebinding</title>'),
  );
  await new Promise<void>((resolve) => rebinding.listen(0, '127.0.0.1', () => resolve()));
  const port = (rebinding.address() as AddressInfo).port;
  const origin = `http://rebind.attacker.test:${port}`;
  await page.goto(`${origin}/`);
  rebinding.closeAllConnections();
  await new Promise<void>((resolve) => rebinding.close(() => resolve()));
  // ...then its name leads to the reconciler, on that same port: the page's own origin, for the browser.
  const handle = recordingHandle();
  const server = new ReconcilerServer(handle, new ReconcilerMetrics(), () => true, { token: TOKEN, listenHost: '127.0.0.1' });
  await server.listen('127.0.0.1', port);
  try {
    const answers = new Answers(page, origin);
    const results = await page.evaluate(async () => {
      const status = await fetch('/api/status').then((r) => r.status);
      const heal = await fetch('/api/heal', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then(
        (r) => r.status,
      );
      return { status, heal };
    });
    expect(results).toEqual({ status: 403, heal: 403 });
    await answers.until('/api/heal', 1);
    expect(answers.seen.get('/api/heal')).toEqual([403]);
    expect(handle.asked).toEqual([]);
  } finally {
    await server.close();
    await page.close();
  }
});

test('--readers-need-token: the page asks for the token, then follows the fleet with it', async () => {
  const guarded = await startSurfaces({ token: TOKEN, readersNeedToken: true }, { realPage: true });
  const page = await browser.newPage();
  try {
    const answers = new Answers(page, new URL(guarded.reconciler.url).origin);
    await page.goto(`${guarded.reconciler.url}/dashboard/`);
    await page.waitForFunction(`document.body.innerText.includes('Connecting')`);
    expect(await page.evaluate('document.body.innerText')).not.toContain('m-00001');
    await page.type('.token input', TOKEN);
    await page.click('.token button[type="submit"]');
    await page.waitForFunction(`document.body.innerText.includes('m-00001')`);
    await answers.until('/dashboard/api/events', 2);
    expect(answers.seen.get('/dashboard/api/events')?.[0]).toBe(401);
    expect(answers.seen.get('/dashboard/api/events')).toContain(200);
  } finally {
    await page.close();
    await guarded.close();
  }
});
