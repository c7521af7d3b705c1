/**
 * The dashboard in a real Chromium against the emulator: `fleetform dashboard` serves a
 * fleet of simulated machines; a plan is approved with the token (and refused without it);
 * the rollout it starts is watched wave by wave, a crashing canary turns red with its log
 * line and is rolled back, and the fleet shows every machine back on the old version. A
 * drift with a secret shows masked. Screenshots of each page go to test-artifacts/dashboard.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import type { Browser, Page } from 'puppeteer-core';
import { EmulatorService } from '../../src/api/emulator-control';
import type { MachineDetail } from '../../src/dashboard/view';
import { openDatabase } from '../../src/emulator/db/database';
import { appendLog } from '../../src/emulator/store/checkins';
import { launchChromium } from '../../scripts/chromium';
import { openEmulatorProject, quickMachines, type EmulatorProject } from '../e2e/fleet-fixture';
import { MODULE_SECRET, pickerNames, synthDashboardFleet, type DashboardFleetShape } from './dashboard-fleet';

jest.setTimeout(300_000);

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin', 'fleetform.js');
const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'dashboard');
const TOKEN = 'browser-test-token-0123456789';
const DRIFT_SECRET = 'drifted-Secret-8Wz1';
const MACHINES = 5;

let p: EmulatorProject;
let restoreEnv: (() => void) | undefined;
let dashboard: ChildProcessByStdio<null, Readable, Readable> | undefined;
/** What the dashboard printed on stderr, for a failure's message. */
let dashboardStderr = '';
let url: string;
let browser: Browser;
let page: Page;

const rollout = (settle: string): NonNullable<DashboardFleetShape['rollout']> => ({
  canary: 1,
  waves: [{ fraction: 0.5 }, { fraction: 1 }],
  gate: { timeout: '20s', settle },
  abort: { maxFailed: 1, maxFailedFraction: 0.1 },
});

/** `fleetform dashboard` with the token, planning every second; resolves with its URL once it listens. */
function startDashboard(): Promise<string> {
  const env = { ...process.env, ...p.env, NO_COLOR: '1', FLEETFORM_DASHBOARD_TOKEN: TOKEN };
  const args = [BIN, 'dashboard', '--listen', '127.0.0.1:0', '--interval', '300ms', '--plan-every', '1s', '--synth-out', p.outdir];
  const child = spawn(process.execPath, args, { cwd: p.dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  dashboard = child;
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    dashboardStderr = stderr;
  });
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const m = /dashboard on (\S+)/.exec(stdout);
      if (m?.[1]) resolve(m[1]);
    });
    child.on('close', (code) => reject(new Error(`fleetform dashboard ended (${code}): ${stdout}${stderr}`)));
  });
}

async function stopDashboard(): Promise<void> {
  if (!dashboard || dashboard.exitCode !== null) return;
  const child = dashboard;
  const ended = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await ended;
}

/** The README's screenshots (docs/images/dashboard-NAME.png), rewritten from a run with FLEETFORM_README_SHOTS=1. */
const README_SHOTS = new Set(['fleet', 'machine', 'rollouts-failed', 'rollouts', 'drift', 'plans', 'events', 'fleet-phone']);

async function shot(name: string): Promise<void> {
  await fs.mkdir(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  if (process.env.FLEETFORM_README_SHOTS === '1' && README_SHOTS.has(name))
    await fs.copyFile(file, path.join(ROOT, 'docs', 'images', `dashboard-${name}.png`));
}

async function expectNoSecret(where: string): Promise<void> {
  const html = await page.content();
  for (const secret of [MODULE_SECRET, DRIFT_SECRET])
    if (html.includes(secret)) throw new Error(`the ${where} page shows a secret in clear`);
}

// Code run in the page is given as text: this project's types describe Node, not the browser.

/** Waits until the text of an element matching `selector` holds `text`. */
async function pageShows(selector: string, text: string | RegExp, timeout = 60_000): Promise<void> {
  const test = typeof text === 'string' ? `t.includes(${JSON.stringify(text)})` : `new RegExp(${JSON.stringify(text.source)}).test(t)`;
  await page.waitForFunction(
    `[...document.querySelectorAll(${JSON.stringify(selector)})].some((el) => { const t = el.textContent || ''; return ${test}; })`,
    { timeout, polling: 100 },
  );
}

/** Waits for a drift row; when none comes, fails with what the dashboard's last plan said. */
async function driftShows(text: string): Promise<void> {
  try {
    await pageShows('table.drift', text, 120_000);
  } catch (err) {
    const snapshot = (await (await fetch(`${url}api/snapshot`)).json()) as {
      drift?: Array<{ address: string; path: string }>;
      planError?: string;
    };
    const drifted = (snapshot.drift ?? []).map((d) => `${d.address} ${d.path}`).join(', ');
    throw new Error(
      `no drift row with ${text}: drift [${drifted}], plan error: ${snapshot.planError ?? 'none'}; dashboard stderr: ${dashboardStderr.slice(-2000)}`,
      { cause: err },
    );
  }
}

async function go(hash: string): Promise<void> {
  await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
}

/** Clicks an action's button (the one whose label holds `label`) and returns the answer shown. */
async function clickAction(name: string, label = ''): Promise<string> {
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
  await page.$eval('.token input', (el) => el.setAttribute('value', ''));
  await page.click('.token input', { clickCount: 3 });
  await page.keyboard.press('Backspace');
  await page.type('.token input', token);
  await page.click('.token button[type="submit"]');
  await page.waitForFunction(`(document.querySelector('[data-token-note]')?.textContent || '') !== ${JSON.stringify(before)}`, {
    timeout: 10_000,
  });
  return page.$eval('[data-token-note]', (el) => el.textContent ?? '');
}

/** Waits for a plan that changes `n` machines, then approves it on the plans page. */
async function approvePlan(n: number): Promise<string> {
  await go('#/plans');
  await pageShows('[data-plan-summary]', `${n} to change`);
  return clickAction('approve', 'fleet');
}

beforeAll(async () => {
  restoreEnv = quickMachines();
  p = await openEmulatorProject('ff-dashboard-browser-');
  synthDashboardFleet(p.outdir, { machines: MACHINES, policy: '~1.2' });
  const apply = await p.run('apply', '--auto-approve');
  if (apply.code !== 0) throw new Error(`setup apply failed: ${apply.stdout}${apply.stderr}`);
  url = await startDashboard();
  browser = await launchChromium();
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 860 });
});

afterAll(async () => {
  await browser?.close();
  await stopDashboard();
  await p?.close();
  restoreEnv?.();
});

test('the dashboard pages, a refused and an approved plan, a failed canary rolled back, then a rollout wave by wave', async () => {
  await page.goto(url);

  // Fleet: every machine, healthy, in its location, with its module version against the latest.
  await pageShows('.counts', `${MACHINES} machine(s): ${MACHINES} healthy`);
  await pageShows('.rows', 'north-hall');
  await pageShows('[data-machine="picker-2"] [data-modules]', /sensors 1\.2\.\d+ \(latest 1\.3\.0\)/);
  await expectNoSecret('fleet');
  await shot('fleet');

  // A machine: its config (secret hidden), resources, logs and history. Its module logs its
  // environment, secret included: the page and the JSON it reads show it masked.
  const detailUrl = `${url}api/machines/${encodeURIComponent('fleet/picker-1')}`;
  const { machine } = (await (await fetch(detailUrl)).json()) as MachineDetail;
  const db = openDatabase(path.join(p.dir, 'emulator'));
  try {
    appendLog(
      db,
      machine.partId,
      Date.now(),
      'info',
      'rdk.modmanager.acme_sensors',
      `sensors starting with env API_TOKEN=${MODULE_SECRET} LEVEL=debug`,
    );
  } finally {
    db.close();
  }
  await go(`#/machine/${encodeURIComponent('fleet/picker-1')}`);
  await pageShows('#machine-title', 'picker-1');
  await pageShows('main', 'Part history');
  await pageShows('pre.code', '(sensitive)');
  await pageShows('pre.logs', 'API_TOKEN=(sensitive) LEVEL=debug');
  for (const endpoint of [detailUrl, `${url}api/snapshot`]) {
    const body = await (await fetch(endpoint)).text();
    if (body.includes(MODULE_SECRET)) throw new Error(`${endpoint} holds the module secret in clear`);
  }
  await pageShows('main', 'board-1');
  await expectNoSecret('machine');
  await shot('machine');

  // The next apply is a change to 1.3.0, whose module crashes on start.
  const controls = p.client.clientFor(EmulatorService);
  await controls.setMachineFaults({ specs: ['module=acme:sensors@1.3.0:crash'] });
  synthDashboardFleet(p.outdir, { machines: MACHINES, policy: '~1.3', rollout: rollout('300ms') });
  await go('#/plans');
  await pageShows('[data-plan-summary]', `${MACHINES} to change`);
  await pageShows('[data-plan="text"]', `Plan: 0 to add, ${MACHINES} to change, 0 to destroy.`);
  await expectNoSecret('plans');
  await shot('plans');

  // Without the token, approving is refused and nothing runs.
  expect(await approvePlan(MACHINES)).toMatch(/actions need the token/);
  expect(await useToken('not-the-token-at-all')).toMatch(/Read-only: the token is wrong/);
  expect(await approvePlan(MACHINES)).toMatch(/the token is wrong/);
  expect(await useToken(TOKEN)).toBe('Actions allowed.');
  expect(await approvePlan(MACHINES)).toMatch(/approved: fleetform apply of the pending plan started/);

  // The canary fails: red with its log line, then rolled back; later waves are never reached.
  await go('#/rollouts');
  await page.waitForSelector('[data-rollout="fleet"] [data-machine="picker-2"][data-failed="true"] [data-log]', { timeout: 60_000 });
  await pageShows('[data-machine="picker-2"] [data-log]', 'crashed');
  await pageShows('[data-rollout="fleet"] [data-status]', 'stopped');
  await page.waitForSelector('[data-machine="picker-2"][data-state="rolled back"]', { timeout: 60_000 });
  await pageShows('[data-wave="2"]', 'not reached');
  await expectNoSecret('rollouts');
  await shot('rollouts-failed');

  // The fleet is back on the old version: every machine healthy on 1.2.
  await go('#/fleet');
  for (const name of pickerNames(MACHINES)) await pageShows(`[data-machine="${name}"] [data-modules]`, /sensors 1\.2\.\d+/);
  await pageShows('.counts', `${MACHINES} machine(s): ${MACHINES} healthy`);
  await shot('fleet-after-rollback');

  // Events: the approval and each rollout step.
  await go('#/events');
  await pageShows('.events', 'approve (stack fleet)');
  await pageShows('.events', /picker-2 failed/);
  // The failed rollout's apply has ended (with an error) before the next approval.
  await pageShows('.events', 'apply ended with exit code 1');
  await expectNoSecret('events');
  await shot('events');

  // A healthy change goes wave by wave: each wave is seen current before the next. Each wave
  // settles long enough for the page (fed by a dashboard that plans every second, slower on a
  // loaded machine) to show it current.
  await controls.setMachineFaults({ specs: [] });
  synthDashboardFleet(p.outdir, { machines: MACHINES, policy: '~1.3', rollout: rollout('6s') });
  // The rolled-back code still plans the same changes: approve only the plan of the new code, whose gate settles for 6s.
  await go('#/plans');
  await pageShows('[data-plan="text"]', 'gate: healthy for 6s within 20s');
  expect(await approvePlan(MACHINES)).toMatch(/approved/);
  await go('#/rollouts');
  for (const wave of [1, 2, 3])
    await page.waitForSelector(`[data-rollout="fleet"] [data-wave="${wave}"][data-phase="current"]`, { timeout: 60_000 });
  await pageShows('[data-rollout="fleet"] [data-status]', 'completed');
  await shot('rollouts');
  await go('#/fleet');
  for (const name of pickerNames(MACHINES)) await pageShows(`[data-machine="${name}"] [data-modules]`, 'sensors 1.3.0');
  // The apply saves what it wrote once its rollout is over: a change made on the service
  // before it ends would be taken into its state, not seen as drift.
  await go('#/events');
  await pageShows('.events', 'apply ended with exit code 0');

  // Drift: a value and a secret changed on the service show, the secret masked.
  const state = await p.backend().read('fleet');
  const partId = state.resources['fleetform_machine.picker-3']?.ids.part_id as string;
  const part = await p.client.appClient.getMachinePart(partId);
  const config = JSON.parse(JSON.stringify(part.config)) as {
    modules: Array<{ env?: Record<string, string> }>;
    components: Array<{ attributes?: Record<string, unknown> }>;
  };
  const [module] = config.modules;
  const [board] = config.components;
  if (!module || !board) throw new Error('picker-3 has no module or board');
  module.env = { ...module.env, DEPLOY_TOKEN: DRIFT_SECRET };
  board.attributes = { ...board.attributes, pins: ['7'] };
  await p.client.appClient.updateMachinePart(part.id, part.name, config, part.lastUpdated);
  await go('#/drift');
  await driftShows('fleetform_machine.picker-3');
  await driftShows('DEPLOY_TOKEN');
  await driftShows('(sensitive)');
  await expectNoSecret('drift');
  await shot('drift');

  // On a phone-sized screen the fleet still reads.
  await page.setViewport({ width: 390, height: 844, isMobile: true });
  await go('#/fleet');
  await pageShows('.rows', 'picker-1');
  await shot('fleet-phone');
});

/** What keyboard focus is on: its selector-like description, accessible name and whether a focus ring shows. */
interface Focused {
  readonly what: string;
  readonly name: string;
  readonly ring: boolean;
  readonly href: string;
  readonly action: string;
}

async function tabUntil(found: (f: Focused) => boolean, limit = 80): Promise<Focused[]> {
  const seen: Focused[] = [];
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    const f = (await page.evaluate(`(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return { what: 'body', name: '', ring: false, href: '', action: '' };
      const style = getComputedStyle(el);
      const labelled = el.getAttribute('aria-labelledby');
      const name = (el.getAttribute('aria-label') || (labelled && document.getElementById(labelled)?.textContent) || (el.labels && el.labels[0]?.textContent) || el.textContent || el.getAttribute('title') || '').trim();
      return {
        what: el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ').join('.') : ''),
        name,
        ring: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2,
        href: el.getAttribute('href') || '',
        action: el.getAttribute('data-action') || '',
      };
    })()`)) as Focused;
    seen.push(f);
    if (found(f)) return seen;
  }
  throw new Error(
    `not reached in ${limit} Tab presses; focus went through: ${seen.map((f) => `${f.what} "${f.name.slice(0, 30)}"`).join(', ')}`,
  );
}

/** Text whose contrast with the background behind it is under 4.5:1 (WCAG AA), as `text (ratio)`. */
async function lowContrast(): Promise<string[]> {
  return (await page.evaluate(`(() => {
    const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
    const lum = ([r, g, b]) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }; return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
    const behind = (el) => { for (let e = el; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor); if (c.length >= 3 && (c.length < 4 || c[3] > 0)) return c; } return [255, 255, 255]; };
    const out = [];
    for (const el of document.querySelectorAll('main *, header *')) {
      const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== '');
      const box = el.getBoundingClientRect();
      if (!own || box.width === 0 || box.height === 0 || box.bottom < 0 || box.top > innerHeight) continue;
      const a = lum(rgb(getComputedStyle(el).color)), b = lum(behind(el));
      const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      if (ratio < 4.5) out.push(el.textContent.trim().slice(0, 40) + ' (' + ratio.toFixed(2) + ')');
    }
    return out;
  })()`)) as string[];
}

test('by keyboard alone: Tab through the fleet page to a machine, open it with Enter, reach the approve action; every stop named and ringed, text in contrast', async () => {
  // One machine more than applied: a plan to approve whatever the other test did.
  synthDashboardFleet(p.outdir, { machines: MACHINES + 1, policy: '~1.2' });
  await page.setViewport({ width: 1280, height: 860 });
  // A fresh load: keyboard focus starts at the top of the page, wherever another test left it.
  await page.goto('about:blank');
  await page.goto(`${url}#/fleet`);
  await pageShows('.counts', `${MACHINES} machine(s)`);
  expect(await lowContrast()).toEqual([]);

  const machineLink = `#/machine/${encodeURIComponent('fleet/picker-1')}`;
  const toMachine = await tabUntil((f) => f.href === machineLink);
  for (const f of toMachine) {
    expect({ what: f.what, named: f.name !== '' }).toEqual({ what: f.what, named: true });
    expect({ what: f.what, ring: f.ring }).toEqual({ what: f.what, ring: true });
  }
  // The skip link comes first, then the pages, the token form, the filters and the machines.
  expect(toMachine[0]?.name).toBe('Skip to content');
  expect(toMachine.map((f) => f.name)).toEqual(expect.arrayContaining(['Fleet', 'Plans', 'Use', 'Machines, scroll for more']));
  await shot('keyboard-fleet-focus');
  await page.keyboard.press('Enter');
  await pageShows('#machine-title', 'picker-1');
  expect(await lowContrast()).toEqual([]);

  // From the machine page to the plans page and its approve button, by keyboard.
  await page.evaluate('document.activeElement && document.activeElement.blur()');
  await tabUntil((f) => f.href === '#/plans');
  await page.keyboard.press('Enter');
  await pageShows('[data-plan-summary]', '1 to add');
  await page.evaluate(`document.getElementById('main').focus()`);
  const toApprove = await tabUntil((f) => f.action === 'approve');
  const approve = toApprove[toApprove.length - 1];
  expect(approve).toMatchObject({ name: 'Approve and apply fleet', ring: true });
  expect(await lowContrast()).toEqual([]);
  await shot('keyboard-approve-focus');
});
