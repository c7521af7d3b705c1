/**
 * The dashboard a reconciler serves, in a real Chromium: `fleetform reconcile --listen`
 * follows a git repository over the emulator's simulated machines. A commit to a stack whose
 * policy is `approve` waits; the dashboard's approval is refused without the token and taken
 * with it (and reaches the webhook as a reconciler event); the two-wave rollout it starts
 * has a crashing canary, seen red with its log line and rolled back, and the fleet page shows
 * every machine back on the old version. Screenshots go to test-artifacts/dashboard.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { launchChromium } from '../../scripts/chromium';
import { gitProject, metricsText, of, QUICK_MACHINES, reconcilerRuns, suiteEmulator } from './fixture';

jest.setTimeout(300_000);

const ROOT = path.resolve(__dirname, '../..');
const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'dashboard');
const TOKEN = 'reconciler-dashboard-token-0123456789';
const MACHINES = 3;

const suite = suiteEmulator('ff-reconcile-dashboard-', { simulation: QUICK_MACHINES });
const runs = reconcilerRuns(suite);
let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchChromium();
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 860 });
});

afterAll(async () => {
  await browser?.close();
});

async function shot(name: string): Promise<void> {
  await fs.mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

// Code run in the page is given as text: this project's types describe Node, not the browser.

async function pageShows(selector: string, text: string | RegExp, timeout = 60_000): Promise<void> {
  const test = typeof text === 'string' ? `t.includes(${JSON.stringify(text)})` : `new RegExp(${JSON.stringify(text.source)}).test(t)`;
  await page.waitForFunction(
    `[...document.querySelectorAll(${JSON.stringify(selector)})].some((el) => { const t = el.textContent || ''; return ${test}; })`,
    { timeout, polling: 100 },
  );
}

async function go(hash: string): Promise<void> {
  await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
}

/** Clicks the action's button whose label holds `label`; returns the answer shown. */
async function clickAction(name: string, label: string): Promise<string> {
  const before = Number(await page.evaluate(`document.querySelector('[data-answer="${name}"]')?.dataset.answers || 0`));
  await page.evaluate(`(() => {
    const button = [...document.querySelectorAll('button[data-action="${name}"]')].find((b) => (b.textContent || '').includes(${JSON.stringify(label)}));
    if (!button) throw new Error('no ${name} button');
    button.click();
  })()`);
  await page.waitForFunction(`Number(document.querySelector('[data-answer="${name}"]')?.dataset.answers || 0) > ${before}`, {
    timeout: 30_000,
  });
  return page.$eval(`[data-answer="${name}"]`, (el) => el.textContent ?? '');
}

async function useToken(token: string): Promise<string> {
  const before = await page.$eval('[data-token-note]', (el) => el.textContent ?? '');
  await page.click('.token input', { clickCount: 3 });
  await page.keyboard.press('Backspace');
  await page.type('.token input', token);
  await page.click('.token button[type="submit"]');
  await page.waitForFunction(`(document.querySelector('[data-token-note]')?.textContent || '') !== ${JSON.stringify(before)}`, {
    timeout: 10_000,
  });
  return page.$eval('[data-token-note]', (el) => el.textContent ?? '');
}

test('the reconciler serves the dashboard: an approval refused without the token and taken with it, a crashing canary rolled back, the fleet back on the old version', async () => {
  const { dir } = suite;
  const env = { ...process.env, ...suite.env, FLEETFORM_DASHBOARD_TOKEN: TOKEN };
  const project = gitProject(path.join(dir, 'repo'));
  project.commit({ machines: MACHINES, policy: '~1.2' }, 'a fleet of three');
  const running = await runs.start(
    dir,
    // A new commit is looked for every 250 ms (the repository's ref read from its files).
    [...project.sourceArgs(path.join(dir, 'checkout')), '--apply', 'auto', '--interval', '1m', '--poll', '250ms'],
    env,
  );
  const { hook } = runs;
  expect(running.log()).toContain(`"dashboard":"${running.url}/dashboard/"`);
  await hook.waitFor(of('apply-finished'), 0, 30_000);

  // The fleet page: every machine healthy on 1.2.
  await page.goto(`${running.url}/dashboard/`);
  await pageShows('.counts', `${MACHINES} machine(s): ${MACHINES} healthy`);
  await pageShows('[data-machine="picker-3"] [data-modules]', /sensors 1\.2\.\d+/);
  // The health the dashboard reads is on /metrics too.
  expect(await metricsText(running.url)).toContain(`fleetform_reconcile_machines{health="healthy"} ${MACHINES}`);
  await shot('reconciler-fleet');

  // Version 1.3.0 crashes on start; the commit moving to it, on a stack whose policy is approve, waits.
  await suite.setMachineFaults(['module=acme:sensors@1.3.0:crash']);
  let mark = hook.events.length;
  project.commit({ machines: MACHINES, policy: '~1.3', reconcile: { apply: 'approve' } }, 'sensors 1.3, approved by hand');
  const asked = await hook.waitFor(of('approval-needed'), mark);
  expect(asked).toMatchObject({ stack: 'fleet', reason: "the stack's policy is approve", change: MACHINES });
  await go('#/plans');
  await pageShows('[data-plan-summary]', `${MACHINES} to change`);
  await pageShows('[data-plan-waiting]', 'Waiting for an approval');
  await shot('reconciler-plans');

  // Without the token the approval is refused and nothing is applied.
  expect(await clickAction('approve', 'fleet')).toMatch(/actions need the token/);
  const status = (await (await fetch(`${running.url}/api/status`)).json()) as { stacks: Array<{ waiting?: { for: string } }> };
  expect(status.stacks[0]?.waiting?.for).toBe('approval');
  expect(hook.events.slice(mark).filter((e) => e.type === 'apply-started' || e.type === 'dashboard-action')).toEqual([]);

  // With it the reconciler applies; the action reaches the webhook as a reconciler event.
  expect(await useToken(TOKEN)).toBe('Actions allowed.');
  mark = hook.events.length;
  expect(await clickAction('approve', 'fleet')).toMatch(/approved: the reconciler applies stack fleet now/);
  const action = await hook.waitFor(of('dashboard-action'), mark);
  expect(action).toMatchObject({ stack: 'fleet', ok: true });
  expect(JSON.stringify(action)).not.toContain(TOKEN);
  await hook.waitFor(of('apply-started'), mark);

  // The canary crashes: red with its log line, rolled back; the second wave is never reached.
  await go('#/rollouts');
  await page.waitForSelector('[data-rollout="fleet"] [data-machine="picker-1"][data-failed="true"] [data-log]', { timeout: 60_000 });
  await pageShows('[data-machine="picker-1"] [data-log]', 'crashed');
  await page.waitForSelector('[data-machine="picker-1"][data-state="rolled back"]', { timeout: 60_000 });
  await pageShows('[data-rollout="fleet"] [data-status]', 'stopped');
  await pageShows('[data-wave="2"]', 'not reached');
  const stopped = await hook.waitFor(of('rollout-stopped'), mark);
  expect(stopped).toMatchObject({ wave: 1, rolledBack: true });
  await shot('reconciler-rollouts-failed');

  // The fleet is back on the old version, every machine healthy.
  await go('#/fleet');
  for (let i = 1; i <= MACHINES; i++) await pageShows(`[data-machine="picker-${i}"] [data-modules]`, /sensors 1\.2\.\d+/);
  await pageShows('.counts', `${MACHINES} machine(s): ${MACHINES} healthy`);
  await shot('reconciler-fleet-after-rollback');

  // The cycles and the reconciler's events, with the approval taken on the dashboard.
  await go('#/events');
  await pageShows('main', 'Reconcile cycles');
  await pageShows('.events', 'approve (stack fleet)');
  await pageShows('.events', /rollout careful: stopped at wave 1, rolled back/);
  await shot('reconciler-events');
  expect(running.log()).not.toContain(TOKEN);
});
