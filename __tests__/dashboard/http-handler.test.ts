import { request } from 'node:http';
import { startDashboardServer, type DashboardServer } from '../../src/dashboard/server';
import { decodeFleet } from '../../src/dashboard/fleet-table';
import type { DashboardUpdate, FleetMachine, FleetRow, PageSnapshot } from '../../src/dashboard/view';
import { FakeSource, machineRow, snapshotOf } from './fake-source';

const TOKEN = 'a-long-enough-test-token';
let servers: DashboardServer[] = [];

afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function serve(source: FakeSource, token?: string, basePath?: string): Promise<DashboardServer> {
  const lines: string[] = [];
  const server = await startDashboardServer(
    source,
    { host: '127.0.0.1', port: 0 },
    { ...(token ? { token } : {}), ...(basePath ? { basePath } : {}), log: (l) => lines.push(l) },
  );
  servers.push(server);
  return server;
}

async function post(url: string, body: unknown, token?: string): Promise<{ status: number; body: { ok: boolean; message: string } }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { ok: boolean; message: string } };
}

/** What the fleet page gets of a machine (the rest comes with the machine's page). */
function shownOnFleetPage(m: FleetMachine): FleetRow {
  return {
    key: m.key,
    stack: m.stack,
    machine: m.machine,
    location: m.location,
    health: m.health,
    online: m.online,
    secondsSinceOnline: m.secondsSinceOnline,
    runningRevision: m.runningRevision,
    latestRevision: m.latestRevision,
    modules: m.modules.map((x) => ({
      name: x.name,
      moduleId: x.moduleId,
      ...(x.running !== undefined ? { running: x.running } : {}),
      ...(x.latest !== undefined ? { latest: x.latest } : {}),
    })),
    resources: m.resources,
  };
}

/** Reads server-sent events from `url` until `enough` says so; the stream is then closed. */
type Numbered = DashboardUpdate & { readonly id: number };

function readEvents(url: string, enough: (updates: Numbered[]) => boolean, onOpen?: () => void): Promise<Numbered[]> {
  return new Promise((resolve, reject) => {
    const updates: Numbered[] = [];
    const req = request(url, (res) => {
      expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
      let buffer = '';
      let opened = false;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block.split('\n').find((l) => l.startsWith('data: '));
          const id = block.split('\n').find((l) => l.startsWith('id: '));
          if (data && id) updates.push({ ...(JSON.parse(data.slice(6)) as DashboardUpdate), id: Number(id.slice(4)) });
          // The stream opens with the snapshot, then the updates after it.
          if (!opened && block.includes('event: snapshot')) {
            opened = true;
            onOpen?.();
          }
        }
        if (enough(updates)) {
          req.destroy();
          resolve(updates);
        }
      });
    });
    req.on('error', (err) => (err.message.includes('socket hang up') ? undefined : reject(err)));
    req.end();
  });
}

test('serves the page, the snapshot and a machine, and nothing else', async () => {
  const source = new FakeSource(snapshotOf([machineRow(1), machineRow(2)]));
  const server = await serve(source);
  const page = await fetch(server.url);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
  expect(await page.text()).toContain('<script type="module" src="app.js">');
  const script = await fetch(`${server.url}app.js`);
  expect(script.headers.get('content-type')).toMatch(/javascript/);
  const snapshot = (await (await fetch(`${server.url}api/snapshot`)).json()) as PageSnapshot;
  expect(decodeFleet(snapshot.fleet)).toEqual([machineRow(1), machineRow(2)].map(shownOnFleetPage));
  const detail = await fetch(`${server.url}api/machines/${encodeURIComponent('fleet/m-00002')}`);
  expect(((await detail.json()) as { machine: { partId: string } }).machine.partId).toBe('part-2');
  expect((await fetch(`${server.url}api/machines/fleet%2Fnone`)).status).toBe(404);
  expect((await fetch(`${server.url}..%2Fpackage.json`)).status).toBe(404);
  expect((await fetch(`${server.url}index.html/../../package.json`)).status).toBe(404);
});

test('mounted under a path, it leaves other paths to the host server', async () => {
  const source = new FakeSource(snapshotOf([machineRow(1)]));
  const server = await serve(source, undefined, '/dashboard');
  expect(server.url).toMatch(/\/dashboard\/$/);
  expect((await fetch(server.url)).status).toBe(200);
  const bare = await fetch(server.url.replace(/\/$/, ''), { redirect: 'manual' });
  expect(bare.status).toBe(308);
  expect((await fetch(server.url.replace('/dashboard/', '/other'))).status).toBe(404);
});

test('the event stream opens with the snapshot, then sends only the machines that changed, and events, numbered after it', async () => {
  const machines = Array.from({ length: 1000 }, (_, i) => machineRow(i));
  const source = new FakeSource(snapshotOf(machines));
  const server = await serve(source);
  const changed = { ...machineRow(7), health: 'unhealthy' as const, problems: ['module sensors failed'] };
  const updates = await readEvents(
    `${server.url}api/events`,
    (u) => u.some((x) => x.type === 'event'),
    () => {
      source.push({ kind: 'snapshot', snapshot: snapshotOf(machines.map((m, i) => (i === 7 ? changed : m)).slice(0, 999)) });
      source.push({ kind: 'event', event: { kind: 'rollout', level: 'error', message: 'picker-2 failed' } });
    },
  );
  const [first, ...rest] = updates;
  expect(first?.type === 'snapshot' && decodeFleet(first.snapshot.fleet)).toHaveLength(1000);
  expect(first?.id).toBe(0);
  const change = rest.find((u) => u.type === 'machines');
  expect(change?.type === 'machines' && { upsert: decodeFleet(change.upsert), remove: change.remove, id: change.id }).toEqual({
    upsert: [shownOnFleetPage(changed)],
    remove: ['fleet/m-00999'],
    id: 1,
  });
  expect(rest.find((u) => u.type === 'event')).toMatchObject({
    event: { kind: 'rollout', level: 'error', message: 'picker-2 failed', id: 1 },
  });
  expect(rest.some((u) => u.type === 'rollouts' || u.type === 'snapshot')).toBe(false);
  // The snapshot read now includes them all: a page applies only updates numbered after its version.
  const now = (await (await fetch(`${server.url}api/snapshot`)).json()) as PageSnapshot;
  expect(now.version).toBe(Math.max(...updates.map((u) => u.id)));
  const rows = decodeFleet(now.fleet);
  expect(rows).toHaveLength(999);
  expect(rows.find((m) => m.key === 'fleet/m-00007')?.health).toBe('unhealthy');
  expect(now.events.map((e) => e.message)).toEqual(['picker-2 failed']);
});

test('without a token the dashboard is read-only; with one, actions need it and are logged and told to the source', async () => {
  const readOnly = await serve(new FakeSource(snapshotOf([])));
  expect(await post(`${readOnly.url}api/actions/approve`, { stack: 'fleet' })).toMatchObject({ status: 403, body: { ok: false } });

  const source = new FakeSource(snapshotOf([]));
  const server = await serve(source, TOKEN);
  expect((await post(`${server.url}api/actions/approve`, { stack: 'fleet' })).status).toBe(401);
  expect((await post(`${server.url}api/actions/approve`, { stack: 'fleet' }, 'wrong-token-of-some-length')).status).toBe(401);
  expect(source.asked).toEqual([]);

  expect(await post(`${server.url}api/actions/approve`, { stack: 'fleet' }, TOKEN)).toEqual({
    status: 200,
    body: { ok: true, message: 'applying the plan' },
  });
  expect(await post(`${server.url}api/actions/abort`, { stack: 'fleet', rollout: 'rig' }, TOKEN)).toMatchObject({ status: 200 });
  expect(source.asked).toEqual(['approve fleet', 'abort fleet rig']);
  expect(source.notified).toEqual(['approve (stack fleet): applying the plan', 'abort (stack fleet, rollout rig): rolled back']);
  const log = ((await (await fetch(`${server.url}api/snapshot`)).json()) as { events: { kind: string; message: string }[] }).events;
  expect(log.map((e) => `${e.kind}: ${e.message}`)).toEqual([
    'action: approve (stack fleet): applying the plan',
    'action: abort (stack fleet, rollout rig): rolled back',
  ]);

  source.approveAnswer = { ok: false, message: 'the plan is stale' };
  expect(await post(`${server.url}api/actions/approve`, { stack: 'fleet' }, TOKEN)).toEqual({
    status: 409,
    body: { ok: false, message: 'the plan is stale' },
  });
  expect(await post(`${server.url}api/actions/approve`, {}, TOKEN)).toMatchObject({
    status: 400,
    body: { message: expect.stringContaining('"stack"') },
  });
  expect((await post(`${server.url}api/actions/heal`, {}, TOKEN)).status).toBe(501);
  expect((await fetch(`${server.url}api/actions/approve`)).status).toBe(405);
  expect((await fetch(`${server.url}api/token`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  expect((await fetch(`${server.url}api/token`)).status).toBe(401);
});
