/** The PostgreSQL state backend against a real server started for this file. */
import { Client } from 'pg';
import type { RolloutJournal } from '../../src/engine/state/rollout-journal';
import { PgBackendError, PgStateBackend } from '../../src/engine/state/pg-backend';
import { emptyState } from '../../src/engine/state/schema';
import type { StateEntry } from '../../src/engine/state/schema';
import { startPostgres, type PgServer } from '../../scripts/postgres-server';

jest.setTimeout(60_000);

let server: PgServer;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(() => server?.stop());

let schemaCount = 0;
/** A backend on a schema of its own, so tests share nothing. */
function backend(): PgStateBackend {
  schemaCount += 1;
  return new PgStateBackend({ connStr: server.url, schemaName: `t${schemaCount}_${process.pid}` });
}

const entry = (id: string): StateEntry => ({
  type: 'fleetform_machine',
  ids: { machine_id: id },
  outputs: { id },
  attributes: { name: id },
  dependencies: [],
  private: {},
  sensitive_paths: [],
  status: 'ok',
});

test('a written state reads back; recorded changes are replayed on read and folded in by the next write', async () => {
  const b = backend();
  const s = emptyState('fleet');
  s.resources['fleetform_machine.a'] = entry('a');
  s.serial = 1;
  await b.write(s);
  expect(await b.read('fleet')).toEqual(s);

  s.serial = 2;
  await b.record(
    s,
    new Map([
      ['fleetform_machine.b', entry('b')],
      ['fleetform_machine.a', null],
    ]),
  );
  const replayed = await b.read('fleet');
  expect(Object.keys(replayed.resources)).toEqual(['fleetform_machine.b']);
  expect(replayed.serial).toBe(2);

  replayed.serial = 3;
  await b.write(replayed);
  expect(await b.read('fleet')).toEqual(replayed);
  expect(await b.stacks()).toEqual(['fleet']);
});

test('a write behind the stored serial, or of another lineage, is refused and changes nothing', async () => {
  const b = backend();
  const s = emptyState('fleet');
  s.serial = 5;
  await b.write(s);
  const stale = { ...s, serial: 5, resources: { 'fleetform_machine.x': entry('x') } };
  await expect(b.write(stale)).rejects.toThrow('refusing to overwrite the state of stack fleet: it moved to serial 5 while this run had 5');
  const other = { ...emptyState('fleet'), serial: 9 };
  await expect(b.write(other)).rejects.toThrow('the database holds another lineage');
  expect(await b.read('fleet')).toEqual(s);
});

test('the lock: a second taker is refused naming the holder, waits with a timeout, and gets it once released', async () => {
  const b = backend();
  const held = await b.lock('fleet', 'apply', { timeoutMs: 0 });
  expect((await b.lockHolder('fleet'))?.id).toBe(held.info.id);
  expect(await b.lockedStacks()).toEqual(['fleet']);
  const refused = b.lock('fleet', 'plan', { timeoutMs: 0 });
  await expect(refused).rejects.toThrow(`state of stack "fleet" is locked by ${held.info.who} (pid ${process.pid}`);
  await expect(b.lock('fleet', 'plan', { timeoutMs: 0 })).rejects.toThrow(`lock ID ${held.info.id}`);

  const waiting = b.lock('fleet', 'plan', { timeoutMs: 20_000 });
  await held.release();
  const next = await waiting;
  expect(next.info.operation).toBe('plan');
  await next.release();
  expect(await b.lockHolder('fleet')).toBeUndefined();
});

test("a holder whose session ends (a killed run) leaves no lock behind; force-unlock ends a hung holder's session", async () => {
  const b = backend();
  const held = await b.lock('fleet', 'apply', { timeoutMs: 0 });
  const admin = new Client({ connectionString: server.url });
  await admin.connect();
  try {
    // What the server sees when the holder's process dies: its connection ends.
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND query LIKE '%fleetform_locks%'`,
    );
  } finally {
    await admin.end();
  }
  const taken = await b.lock('fleet', 'apply', { timeoutMs: 10_000 });
  expect(taken.info.id).not.toBe(held.info.id);
  await held.release();
  expect((await b.lockHolder('fleet'))?.id).toBe(taken.info.id);

  const wrong = await b.forceUnlock('fleet', 'not-the-id').catch((e: unknown) => e);
  expect((wrong as PgBackendError).hint).toContain(`the current lock ID is ${taken.info.id}`);
  await b.forceUnlock('fleet', taken.info.id);
  expect(await b.lockHolder('fleet')).toBeUndefined();
  await taken.release();
});

test('an unreachable server is an error naming it (without the password) and saying nothing was lost', async () => {
  const b = new PgStateBackend({ connStr: `postgres://fleetform:secret-pw@127.0.0.1:${server.port + 1}/postgres` });
  const err = await b.read('fleet').catch((e: unknown) => e);
  expect(err).toBeInstanceOf(PgBackendError);
  expect((err as Error).message).toContain(`PostgreSQL state backend at postgres://fleetform@127.0.0.1:${server.port + 1}/postgres`);
  expect((err as Error).message).not.toContain('secret-pw');
  expect((err as PgBackendError).hint).toContain('nothing was lost');
});

describe('rollout journals kept with the state', () => {
  const policy = (name: string, fragment?: string) => ({
    name,
    waves: [{ fraction: 1 }],
    gate: { timeout_ms: 60_000, settle_ms: 0 },
    abort: {},
    offline: 'wait' as const,
    on_failure: 'rollback' as const,
    ...(fragment === undefined ? {} : { fragment }),
  });
  const journal = (stack: string, name: string, wave: number, fragment?: string): RolloutJournal => ({
    format: 1,
    stack,
    status: 'running',
    started_at: '2026-11-25T00:00:00.000Z',
    updated_at: '2026-11-25T00:00:00.000Z',
    wave,
    plan: { stack, policy: policy(name, fragment), waves: [{ rule: 'all', machines: [{ address: 'fleetform_machine.a', name: 'a' }] }] },
    machines: [
      {
        address: 'fleetform_machine.a',
        name: 'a',
        part_id: 'p-a',
        baseline_revision: 'r0',
        written_revision: 'r1',
        result: 'written',
        prior: entry('a'),
      },
    ],
  });

  test("a stack's journal and its fragment rollouts' are written, read back by key, listed by stack and replaced in place", async () => {
    const b = backend();
    const journals = b.rolloutJournals();
    expect(await journals.read('fleet')).toBeUndefined();
    expect(await journals.list('fleet')).toEqual([]);
    await journals.write(journal('fleet', 'careful', 1));
    await journals.write(journal('fleet', 'rig-careful', 1, 'fleetform_fragment.rig'));
    await journals.write(journal('other', 'careful', 1));
    await journals.write(journal('fleet', 'careful', 2));
    expect((await journals.read('fleet'))?.wave).toBe(2);
    expect((await journals.read('fleet~rig-careful'))?.plan.policy.fragment).toBe('fleetform_fragment.rig');
    expect((await journals.list('fleet')).map((j) => j.plan.policy.name)).toEqual(['careful', 'rig-careful']);
    // Another backend on the same database (another machine of the team) reads the same journals.
    const again = new PgStateBackend({ connStr: server.url, schemaName: `t${schemaCount}_${process.pid}` }).rolloutJournals();
    expect((await again.read('fleet'))?.machines[0]?.written_revision).toBe('r1');
  });

  test('journals are per workspace, and one that does not parse is an error naming it', async () => {
    const schemaName = `w${process.pid}`;
    const prod = new PgStateBackend({ connStr: server.url, schemaName, workspace: 'prod' }).rolloutJournals();
    const staging = new PgStateBackend({ connStr: server.url, schemaName, workspace: 'staging' }).rolloutJournals();
    await prod.write(journal('fleet', 'careful', 3));
    expect(await staging.read('fleet')).toBeUndefined();
    const client = new Client({ connectionString: server.url });
    await client.connect();
    try {
      await client.query(`UPDATE "${schemaName}".fleetform_rollouts SET document = '{"format": 2}' WHERE workspace = 'prod'`);
    } finally {
      await client.end();
    }
    await expect(prod.read('fleet')).rejects.toThrow(/the rollout journal fleet .* is not readable/);
  });
});
