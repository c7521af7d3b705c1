/**
 * Two reconcilers of one project, state in a real PostgreSQL server: one leads, the other
 * stands by; the leader killed mid-rollout, the standby takes over from the rollout journal
 * and finishes it without writing any machine twice (counted in each part's history).
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createServiceClient, type ServiceClient } from '../../src/api/client';
import { loadServices } from '../../src/api/services';
import { startEmulator } from '../../src/emulator';
import type { ReconcilerEvent } from '../../src/reconciler/events';
import { startPostgres, type PgServer } from '../../scripts/postgres-server';
import { quickMachines } from '../e2e/fleet-fixture';
import { gitProject, startReconcile, webhookReceiver, type FleetSpec, type ReconcileProcess } from './fixture';

jest.setTimeout(240_000);

const MACHINES = 4;
const INTERVAL_MS = 3000;
let dir: string;
let pg: PgServer;
let restoreEnv: () => void;
let emulator: Awaited<ReturnType<typeof startEmulator>>;
let client: ServiceClient;
let env: NodeJS.ProcessEnv;
let hook: Awaited<ReturnType<typeof webhookReceiver>>;
const processes: ReconcileProcess[] = [];

beforeAll(async () => {
  pg = await startPostgres();
  restoreEnv = quickMachines();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-reconcile-standby-'));
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
  for (const p of processes) await p.kill().catch(() => undefined);
  await hook?.close();
  client?.close();
  await emulator?.close();
  restoreEnv?.();
  pg?.stop();
  await fs.rm(dir, { recursive: true, force: true });
});

/** How many times each machine's part was written: the entries of its history. */
async function writes(): Promise<Map<string, number>> {
  const app = client.clientFor((await loadServices()).app);
  const out = new Map<string, number>();
  for (const m of await client.appClient.listMachines(emulator.credentials.locationId)) {
    const parts = await client.appClient.getMachineParts(m.id);
    let n = 0;
    for (const part of parts) {
      let pageToken: string | undefined;
      for (;;) {
        const page = await app.getRobotPartHistory({ id: part.id, ...(pageToken ? { pageToken } : {}) });
        n += page.history.length;
        if (!page.nextPageToken) break;
        pageToken = page.nextPageToken;
      }
    }
    out.set(m.name, n);
  }
  return out;
}

const leaderEvent = (e: ReconcilerEvent): e is Extract<ReconcilerEvent, { type: 'leader' }> => e.type === 'leader' && e.leading;

test('the standby takes a killed leader over within two intervals and finishes its rollout, no machine written twice', async () => {
  const project = gitProject(path.join(dir, 'repo'));
  const base: FleetSpec = {
    machines: MACHINES,
    policy: '~1.2',
    settle: '1500ms',
    pg: { connStr: pg.url, schemaName: `standby_${process.pid}` },
  };
  project.commit(base, 'a fleet of four, state in PostgreSQL');
  const args = (name: string): string[] => [
    '--repo',
    project.repo,
    '--path',
    'fleet',
    '--workdir',
    path.join(dir, name),
    '--interval',
    `${INTERVAL_MS}ms`,
    '--poll',
    '100ms',
    '--webhook',
    hook.url,
  ];
  const a = await startReconcile(dir, args('a'), env);
  processes.push(a);
  const first = (await hook.waitFor(leaderEvent)) as Extract<ReconcilerEvent, { type: 'leader' }>;
  const b = await startReconcile(dir, args('b'), env);
  processes.push(b);
  await hook.waitFor((e) => e.type === 'apply-finished');
  const leader = first.holder.endsWith(`:${a.child.pid}`) ? a : b;
  const standby = leader === a ? b : a;
  expect(first.holder).toContain(`:${leader.child.pid}`);
  // The standby says so, and does nothing.
  const standbyStatus = async (): Promise<{ state: string; leader: boolean }> =>
    (await (await fetch(`${standby.url}/api/status`)).json()) as { state: string; leader: boolean };
  const deadline = Date.now() + 30_000;
  while ((await standbyStatus()).state !== 'standby' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(await standbyStatus()).toMatchObject({ state: 'standby', leader: false });

  const before = await writes();
  const mark = hook.events.length;
  project.commit({ ...base, policy: '~1.3' }, 'sensors 1.3');
  await hook.waitFor((e) => e.type === 'wave-passed' && e.wave === 1, mark);
  await leader.kill();
  const killedAt = Date.now();

  const taken = await hook.waitFor((e) => leaderEvent(e) && e.holder.endsWith(`:${standby.child.pid}`), mark);
  expect(Date.parse(taken.at) - killedAt).toBeLessThan(2 * INTERVAL_MS);
  const done = await hook.waitFor((e) => e.type === 'apply-finished' && Date.parse(e.at) >= killedAt, mark);
  expect(done.type === 'apply-finished' && done.failed).toEqual([]);
  await hook.waitFor((e) => e.type === 'wave-passed' && e.wave === 2 && Date.parse(e.at) >= killedAt, mark);

  const after = await writes();
  for (let i = 1; i <= MACHINES; i++) {
    const name = `picker-${i}`;
    expect({ name, written: (after.get(name) ?? 0) - (before.get(name) ?? 0) }).toEqual({ name, written: 1 });
  }
  const configs = await Promise.all(
    (await client.appClient.listMachines(emulator.credentials.locationId)).map(
      async (m) => (await client.appClient.getMachineParts(m.id))[0]?.config as { modules?: Array<{ version?: string }> },
    ),
  );
  for (const c of configs) expect(c.modules?.[0]?.version).toBe('~1.3');
});
