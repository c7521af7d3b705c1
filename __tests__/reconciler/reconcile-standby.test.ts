/**
 * Two reconcilers of one project, state in a real PostgreSQL server: one leads, the other
 * stands by; the leader killed mid-rollout, the standby takes over from the rollout journal
 * and finishes it without writing any machine twice (counted in each part's history).
 */
import * as path from 'node:path';
import type { ReconcilerEvent } from '../../src/reconciler/events';
import { startPostgres, type PgServer } from '../../scripts/postgres-server';
import {
  apiStatus,
  gitProject,
  moduleVersions,
  partWrites,
  QUICK_MACHINES,
  readUntil,
  reconcilerRuns,
  suiteEmulator,
  type FleetSpec,
} from './fixture';

jest.setTimeout(240_000);

const MACHINES = 4;
const INTERVAL_MS = 3000;
const suite = suiteEmulator('ff-reconcile-standby-', { simulation: QUICK_MACHINES });
const runs = reconcilerRuns(suite);
let pg: PgServer;

beforeAll(async () => {
  pg = await startPostgres();
});

afterAll(() => {
  pg?.stop();
});

/** How many times each machine's part was written: the entries of its history. */
async function writes(): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const m of await suite.client.appClient.listMachines(suite.credentials.locationId))
    out.set(m.name, await partWrites(suite.client, m.id));
  return out;
}

const leaderEvent = (e: ReconcilerEvent): e is Extract<ReconcilerEvent, { type: 'leader' }> => e.type === 'leader' && e.leading;

test('the standby takes a killed leader over within two intervals and finishes its rollout, no machine written twice', async () => {
  const { dir } = suite;
  const env = { ...process.env, ...suite.env };
  const project = gitProject(path.join(dir, 'repo'));
  const base: FleetSpec = { machines: MACHINES, policy: '~1.2', pg: { connStr: pg.url, schemaName: `standby_${process.pid}` } };
  project.commit(base, 'a fleet of four, state in PostgreSQL');
  // Each poll of a standby fetches from git: every 250 ms, not more often, so two reconcilers leave the processor to the rest.
  const args = (name: string): string[] => [
    ...project.sourceArgs(path.join(dir, name)),
    '--interval',
    `${INTERVAL_MS}ms`,
    '--poll',
    '250ms',
  ];
  const a = await runs.start(dir, args('a'), env);
  const { hook } = runs;
  const first = await hook.waitFor(leaderEvent);
  const b = await runs.start(dir, args('b'), env);
  await hook.waitFor((e) => e.type === 'apply-finished');
  const leader = first.holder.endsWith(`:${a.child.pid}`) ? a : b;
  const standby = leader === a ? b : a;
  expect(first.holder).toContain(`:${leader.child.pid}`);
  // The standby says so, and does nothing.
  expect(
    await readUntil(
      () => apiStatus(standby.url),
      (s) => s.state === 'standby',
    ),
  ).toMatchObject({ state: 'standby', leader: false });

  // The last machine of the second wave stays offline until the standby leads: the leader is killed while that wave's gate waits.
  await suite.setMachineFaults([`machine=picker-${MACHINES}:offline`]);
  const before = await writes();
  const mark = hook.events.length;
  project.commit({ ...base, policy: '~1.3' }, 'sensors 1.3');
  await hook.waitFor((e) => e.type === 'wave-passed' && e.wave === 1, mark);
  await leader.kill();
  const killedAt = Date.now();

  const taken = await hook.waitFor((e) => leaderEvent(e) && e.holder.endsWith(`:${standby.child.pid}`), mark);
  expect(Date.parse(taken.at) - killedAt).toBeLessThan(2 * INTERVAL_MS);
  await suite.setMachineFaults([]);
  const done = await hook.waitFor((e) => e.type === 'apply-finished' && Date.parse(e.at) >= killedAt, mark);
  expect(done.type === 'apply-finished' && done.failed).toEqual([]);
  await hook.waitFor((e) => e.type === 'wave-passed' && e.wave === 2 && Date.parse(e.at) >= killedAt, mark);

  const after = await writes();
  for (let i = 1; i <= MACHINES; i++) {
    const name = `picker-${i}`;
    expect({ name, written: (after.get(name) ?? 0) - (before.get(name) ?? 0) }).toEqual({ name, written: 1 });
  }
  for (const line of await moduleVersions(suite.client, suite.credentials.locationId)) expect(line).toMatch(/ ~1\.3$/);
});
