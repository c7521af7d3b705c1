/**
 * The dashboard's rollout page in a real Chromium shows each analysis measurement as it
 * comes: a rollout with a log-rate analysis runs on the emulator (`fleetform apply`), and
 * while it runs the page shows the measurement: its metric, its value and that it is within the bound.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import type { Browser, Page } from 'puppeteer-core';
import { Metric } from '../../src';
import { launchChromium } from '../../scripts/chromium';
import { openEmulatorProject, quickMachines, type EmulatorProject } from '../e2e/fleet-fixture';
import { synthDashboardFleet } from './dashboard-fleet';

jest.setTimeout(300_000);

const BIN = path.resolve(__dirname, '../..', 'bin', 'fleetform.js');
/** Conditions on a loaded machine may take long; nothing here sleeps. */
const WAIT = 90_000;
const MACHINES = 3;

let p: EmulatorProject;
let restoreEnv: (() => void) | undefined;
let dashboard: ChildProcessByStdio<null, Readable, Readable> | undefined;
let browser: Browser | undefined;
let page: Page;

/** `fleetform dashboard` (read-only, no token); resolves with its URL once it listens. */
function startDashboard(): Promise<string> {
  const env = { ...process.env, ...p.env, NO_COLOR: '1' };
  const args = [BIN, 'dashboard', '--listen', '127.0.0.1:0', '--interval', '200ms', '--synth-out', p.outdir];
  const child = spawn(process.execPath, args, { cwd: p.dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  dashboard = child;
  let said = '';
  child.stderr.on('data', (d: Buffer) => (said += d.toString()));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      said += d.toString();
      const m = /dashboard on (\S+)/.exec(said);
      if (m?.[1]) resolve(m[1]);
    });
    child.on('close', (code) => reject(new Error(`fleetform dashboard ended (${code}): ${said}`)));
  });
}

beforeAll(async () => {
  restoreEnv = quickMachines();
  p = await openEmulatorProject('ff-dashboard-measurements-');
  synthDashboardFleet(p.outdir, { machines: MACHINES, policy: '~1.2' });
  const apply = await p.run('apply', '--auto-approve');
  if (apply.code !== 0) throw new Error(`setup apply failed: ${apply.stdout}${apply.stderr}`);
  browser = await launchChromium();
  page = await browser.newPage();
});

afterAll(async () => {
  await browser?.close();
  if (dashboard && dashboard.exitCode === null) {
    const child = dashboard;
    const ended = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await ended;
  }
  await p?.close();
  restoreEnv?.();
});

test('while a rollout runs, its page shows each analysis measurement with its metric, value and result against the bound', async () => {
  const url = await startDashboard();
  await page.goto(`${url}#/rollouts`);
  synthDashboardFleet(p.outdir, {
    machines: MACHINES,
    policy: '~1.3',
    rollout: {
      canary: 0,
      // A pause step after the canary's wave holds the rollout unfinished, however slow the page's poll.
      waves: [{ pause: true }, { fraction: 1 }],
      gate: { timeout: '20s', settle: '200ms' },
      analysis: [{ name: 'errors', metric: Metric.logRate({ level: 'error' }), max: 5, interval: '1s', count: 6 }],
    },
  });
  const applying = p.run('apply', '--auto-approve');
  // Shown while the rollout runs: the first measurement of the canary's wave, and the rollout not yet ended.
  await page
    .waitForFunction(
      `(() => {
      const m = document.querySelector('[data-rollout="fleet"] [data-wave="1"] .measurement[data-analysis="errors"]');
      const status = document.querySelector('[data-rollout="fleet"] [data-status]')?.textContent || '';
      const t = m ? m.textContent || '' : '';
      return /^errors .*PASS \\d+ log lines at error a minute .*within the bound/.test(t) && status !== '' && !/completed|stopped|rolled back/.test(status);
    })()`,
      { timeout: WAIT, polling: 100 },
    )
    .catch(async (err: unknown) => {
      throw new Error(
        `${String(err)}; the page shows: ${await page.$eval('body', (el) => (el as unknown as { innerText: string }).innerText)}`,
      );
    });
  const shown = await page.$eval('[data-wave="1"] .measurement[data-analysis="errors"]', (el) => el.textContent ?? '');
  expect(shown).toMatch(/log lines at error a minute/);
  const apply = await applying;
  expect(apply.code).toBe(0);
  expect(apply.stdout).toContain('Rollout careful paused at wave 2');
});
