/**
 * A project folder (no git) reconciled by the command line: a rollout under way when the
 * windows close pauses at its next wave boundary, and resumes at that wave once they open.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createServiceClient, type ServiceClient } from '../../src/api/client';
import { startEmulator } from '../../src/emulator';
import type { ReconcilerEvent } from '../../src/reconciler/events';
import { fleetform, quickMachines } from '../e2e/fleet-fixture';
import { gitProject, startReconcile, webhookReceiver, type FleetSpec, type ReconcileProcess } from './fixture';

jest.setTimeout(240_000);

const MACHINES = 3;
let dir: string;
let restoreEnv: () => void;
let emulator: Awaited<ReturnType<typeof startEmulator>>;
let client: ServiceClient;
let env: NodeJS.ProcessEnv;
let hook: Awaited<ReturnType<typeof webhookReceiver>>;
let running: ReconcileProcess | undefined;

beforeAll(async () => {
  restoreEnv = quickMachines();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-reconcile-pause-'));
  emulator = await startEmulator({ dataDir: path.join(dir, 'emulator'), port: 0 });
  const { apiKey, apiKeyId } = emulator.credentials;
  env = { ...process.env, FLEETFORM_ENDPOINT: emulator.url, FLEETFORM_API_KEY: apiKey, FLEETFORM_API_KEY_ID: apiKeyId };
  client = await createServiceClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey },
  });
  hook = await webhookReceiver();
});

afterAll(async () => {
  await running?.stop();
  await hook?.close();
  client?.close();
  await emulator?.close();
  restoreEnv?.();
  await fs.rm(dir, { recursive: true, force: true });
});

async function versions(): Promise<string[]> {
  const out: string[] = [];
  for (const m of await client.appClient.listMachines(emulator.credentials.locationId)) {
    const config = (await client.appClient.getMachineParts(m.id))[0]?.config as { modules?: Array<{ version?: string }> };
    out.push(`${m.name} ${config.modules?.[0]?.version ?? '?'}`);
  }
  return out.sort();
}

test('windows closed mid-rollout pause it before its next wave; opened again, it resumes there', async () => {
  const project = gitProject(path.join(dir, 'project'));
  const base: FleetSpec = { machines: MACHINES, policy: '~1.2', settle: '4s' };
  project.commit(base, 'three machines');
  const folder = path.join(dir, 'project', 'fleet');
  running = await startReconcile(dir, ['--path', folder, '--interval', '1m', '--poll', '100ms', '--webhook', hook.url], env);
  await hook.waitFor((e) => e.type === 'apply-finished');

  const mark = hook.events.length;
  await fs.writeFile(path.join(folder, 'fleet.json'), JSON.stringify({ ...base, policy: '~1.3' }));
  await hook.waitFor((e) => e.type === 'apply-started', mark);
  // The canary's gate takes its settle time: the windows close while it waits.
  const closed = await fetch(`${running.url}/api/override`, { method: 'POST', body: JSON.stringify({ windows: 'closed' }) });
  expect(closed.status).toBe(200);
  const paused = (await hook.waitFor((e) => e.type === 'rollout-paused', mark)) as Extract<ReconcilerEvent, { type: 'rollout-paused' }>;
  expect(paused).toMatchObject({ stack: 'fleet', rollout: 'careful', wave: 2, reason: 'windows closed by a manual override' });
  expect(
    hook.events
      .slice(mark)
      .filter((e) => e.type === 'wave-passed')
      .map((e) => 'wave' in e && e.wave),
  ).toEqual([1]);
  expect(await versions()).toEqual(['picker-1 ~1.3', 'picker-2 ~1.2', 'picker-3 ~1.2']);

  const resumedFrom = hook.events.length;
  const cleared = await fleetform(dir, ['reconcile', 'override', '--clear', '--server', running.url], env as Record<string, string>);
  expect(cleared.code).toBe(0);
  await hook.waitFor((e) => e.type === 'wave-passed' && e.wave === 2, resumedFrom);
  await hook.waitFor((e) => e.type === 'apply-finished', resumedFrom);
  expect(await versions()).toEqual(['picker-1 ~1.3', 'picker-2 ~1.3', 'picker-3 ~1.3']);
  // Resumed at wave 2: wave 1 did not run again.
  expect(
    hook.events
      .slice(resumedFrom)
      .filter((e) => e.type === 'wave-passed')
      .map((e) => 'wave' in e && e.wave),
  ).toEqual([2]);
});
