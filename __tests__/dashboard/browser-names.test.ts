/**
 * The dashboard in a real Chromium naming things and drawing charts: machines in a location
 * no stack manages show its name; modules and services a fragment brings show on the fleet
 * and machine pages, marked with the fragment; the version chart counts machines per
 * version; a rollout shows its waves as a chart; once the code renames its rollout and drops
 * a machine, the old rollout moves to the history with that machine shown as gone; a
 * pending plan is coloured. With FLEETFORM_README_SHOTS=1 the screenshots go to docs/images.
 */
import { EmulatorService } from '../../src/api/emulator-control';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { App, LocalBackend, TerraformStack } from 'cdktf';
import type { Browser, Page } from 'puppeteer-core';
import { Fragment, FleetProvider, Machine, ModularResource, Module, Rollout } from '../../src';
import { launchChromium } from '../../scripts/chromium';
import { openDatabase } from '../../src/emulator/db/database';
import { getApiKey } from '../../src/emulator/store/accounts';
import { openEmulatorProject, quickMachines, type EmulatorProject } from '../e2e/fleet-fixture';

jest.setTimeout(300_000);

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin', 'fleetform.js');
const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'dashboard');
/** Conditions on a loaded machine may take long; nothing here sleeps. */
const WAIT = 90_000;

let p: EmulatorProject;
let restoreEnv: (() => void) | undefined;
let dashboard: ChildProcessByStdio<null, Readable, Readable> | undefined;
let url: string;
let browser: Browser;
let page: Page;

interface Shape {
  readonly machines: readonly string[];
  readonly sensors: string;
  readonly rollout: string;
}

/** Machines in the organization's own location (no stack manages it), each running acme:sensors and importing fragment eyes (acme:vision and its service). */
function synth(shape: Shape): void {
  const app = new App({ outdir: p.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new LocalBackend(stack, { path: path.join(p.dir, 'terraform.fleet.tfstate') });
  new FleetProvider(stack, 'cloud', {});
  const eyes = new Fragment(stack, 'eyes', { name: 'eyes' });
  const vision = new Module(eyes, 'vision', { moduleId: 'acme:vision', version: '~1.0' });
  new ModularResource(eyes, 'finder', { name: 'finder', api: 'rdk:service:vision', model: vision.model('box-finder') });
  const machines = shape.machines.map((name) => {
    const machine = new Machine(stack, name, { name }).useFragment(eyes);
    const sensors = new Module(machine, 'sensors', { moduleId: 'acme:sensors', version: shape.sensors });
    new ModularResource(machine, 'board', { name: 'board-1', api: 'rdk:component:board', model: sensors.model('pi-board') });
    return machine;
  });
  new Rollout(stack, shape.rollout, {
    waves: [{ machines: [machines[0] as Machine] }, { fraction: 1 }],
    gate: { timeout: '30s', settle: '200ms' },
  });
  app.synth();
}

async function apply(): Promise<void> {
  // The dashboard plans every second under the state's lock: an apply beside it waits its turn.
  const r = await p.run('apply', '--auto-approve', '--lock-timeout', '60s');
  if (r.code !== 0) throw new Error(`apply failed: ${r.stdout}${r.stderr}`);
}

function startDashboard(): Promise<string> {
  const env = { ...p.env, NO_COLOR: '1' };
  const args = [BIN, 'dashboard', '--listen', '127.0.0.1:0', '--interval', '300ms', '--plan-every', '1s', '--synth-out', p.outdir];
  const child = spawn(process.execPath, args, { cwd: p.dir, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  dashboard = child;
  let out = '';
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /dashboard on (\S+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.on('close', (code) => reject(new Error(`fleetform dashboard ended (${code}): ${out}`)));
  });
}

async function stopDashboard(): Promise<void> {
  if (!dashboard || dashboard.exitCode !== null) return;
  const child = dashboard;
  const ended = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await ended;
}

async function shot(name: string): Promise<void> {
  await fs.mkdir(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `names-${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  if (process.env.FLEETFORM_README_SHOTS === '1') await fs.copyFile(file, path.join(ROOT, 'docs', 'images', `dashboard-named-${name}.png`));
}

/** Waits until an element matching `selector` has text holding `text`. */
async function pageShows(selector: string, text: string | RegExp): Promise<void> {
  const test = typeof text === 'string' ? `t.includes(${JSON.stringify(text)})` : `new RegExp(${JSON.stringify(text.source)}).test(t)`;
  await page.waitForFunction(
    `[...document.querySelectorAll(${JSON.stringify(selector)})].some((el) => { const t = el.textContent || ''; return ${test}; })`,
    { timeout: WAIT, polling: 100 },
  );
}

/** Waits until `expression` (run in the page) is true. */
async function pageHolds(expression: string): Promise<void> {
  await page.waitForFunction(expression, { timeout: WAIT, polling: 100 });
}

const go = (hash: string): Promise<unknown> => page.evaluate(`location.hash = ${JSON.stringify(hash)}`);

beforeAll(async () => {
  restoreEnv = quickMachines();
  p = await openEmulatorProject('ff-dashboard-names-');
  synth({ machines: ['picker-1', 'picker-2', 'picker-3'], sensors: '~1.2', rollout: 'careful' });
  await apply();
  // A change to every machine goes out by the rollout. The version it moves to crashes, so
  // the canary is rolled back and the rollout stops in wave 1, the later wave not reached.
  const controls = p.client.clientFor(EmulatorService);
  await controls.setMachineFaults({ specs: ['module=acme:sensors@1.3.0:crash'] });
  synth({ machines: ['picker-1', 'picker-2', 'picker-3'], sensors: '~1.3', rollout: 'careful' });
  const rolled = await p.run('apply', '--auto-approve');
  await controls.setMachineFaults({ specs: [] });
  if (!/Rollout careful stopped in wave 1/.test(rolled.stdout))
    throw new Error(`the rollout did not run: ${rolled.stdout}${rolled.stderr}`);
  url = await startDashboard();
  browser = await launchChromium();
  page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 900 });
});

afterAll(async () => {
  await browser?.close();
  await stopDashboard();
  await p?.close();
  restoreEnv?.();
});

test('names, fragment modules and charts on the fleet, machine and rollout pages; an undeclared rollout goes to the history', async () => {
  await page.goto(url);

  // Fleet: the location no stack manages by its name, the fragment's module, the version chart.
  await pageShows('.counts', '3 machine(s): 3 healthy');
  await pageShows('[data-machine="picker-1"] .c-loc', 'Main location');
  await pageShows('[data-machine="picker-2"] [data-modules]', /vision 1\.0\.1 from eyes/);
  await pageShows('[data-machine="picker-2"] [data-modules]', /sensors 1\.2\.5/);
  await pageHolds(
    `document.querySelector('[data-chart="versions"] [data-bar="acme:vision"] rect[data-key="1.0.1"]')?.dataset.count === '3'`,
  );
  await pageHolds(
    `document.querySelector('[data-chart="versions"] [data-bar="acme:sensors"] rect[data-key="1.2.5"]')?.dataset.count === '3'`,
  );
  await pageHolds(`Number(document.querySelector('[data-chart="health"]')?.dataset.points || 0) >= 1`);
  const locationTitle = await page.$eval('[data-machine="picker-1"] .c-loc', (el) => el.getAttribute('title') ?? '');
  expect(locationTitle).toMatch(/^location id \S+$/);
  await shot('fleet');

  // Machine: its modules and services from the fragment, marked; its history's editor named.
  await go(`#/machine/${encodeURIComponent('fleet/picker-1')}`);
  await pageShows('#machine-title', 'picker-1');
  await pageShows('[data-location]', 'Main location');
  await pageShows('[data-module="acme_vision"]', 'fragment eyes');
  await pageShows('[data-module="acme_sensors"]', 'machine');
  await pageShows('[data-resource="finder"]', 'fragment eyes');
  // The edits were made with the project's API key: named by its name, its id in the tooltip.
  const db = openDatabase(path.join(p.dir, 'emulator'));
  const keyName = (() => {
    try {
      return getApiKey(db, p.credentials.apiKeyId)?.name ?? '';
    } finally {
      db.close();
    }
  })();
  expect(keyName).not.toBe('');
  await pageShows('[data-editor]', `API key ${keyName}`);
  expect(await page.$eval('[data-editor]', (el) => el.getAttribute('title'))).toBe(`id ${p.credentials.apiKeyId}`);
  await shot('machine');

  // Rollouts: the code's rollout with its waves drawn.
  await go('#/rollouts');
  await page.waitForSelector('[data-rollout="fleet"] [data-chart="waves"]', { timeout: WAIT });
  await pageShows('[data-rollout="fleet"] [data-status]', 'stopped');
  await pageHolds(
    `document.querySelector('[data-rollout="fleet"] [data-chart="waves"] [data-bar="wave 1"] rect[data-key="failed"]')?.dataset.count === '1'`,
  );
  await pageHolds(
    `document.querySelector('[data-rollout="fleet"] [data-chart="waves"] [data-bar="wave 2"] rect[data-key="not reached"]')?.dataset.count === '2'`,
  );
  await shot('rollouts');

  // The code renames its rollout and drops picker-3: the old rollout is history, picker-3 gone.
  synth({ machines: ['picker-1', 'picker-2'], sensors: '~1.2', rollout: 'bolder' });
  await apply();
  await pageHolds(`!document.querySelector('[data-rollout="fleet"]')`);
  await pageShows('[data-history-link]', '(1)');
  await go('#/rollouts/history');
  await pageShows('[data-rollout="fleet"]', 'careful');
  await page.waitForSelector('[data-rollout="fleet"] [data-machine="picker-3"][data-state="gone"]', { timeout: WAIT });
  await pageShows('[data-machine="picker-3"]', 'no longer exists');

  // A pending plan (not applied): coloured as in a terminal, its text whole.
  synth({ machines: ['picker-1', 'picker-2'], sensors: '~1.3', rollout: 'bolder' });
  await go('#/plans');
  await pageShows('[data-plan-summary]', '2 to change');
  await page.waitForSelector('[data-plan="text"] [data-tone="change"]', { timeout: WAIT });
  const overflow = await page.$eval('[data-plan="text"]', (el) => el.scrollWidth - el.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await shot('plans');
});
