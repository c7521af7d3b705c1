/**
 * What keeping state in PostgreSQL costs against local files, on one fleet size: the fleet
 * is applied once with local state, that state is copied (as `fleetform state migrate`
 * does) into a throwaway PostgreSQL server on 127.0.0.1 that flushes commits to disk, then
 * the same emulator, client and stacks serve two engines, one per backend, taking turns:
 * the no-change plan (lock included), reading and writing the whole state, taking and
 * releasing the lock, and applying a 10% change and back. Every figure is a median.
 * Prints one JSON line. Usage: state-backends.ts [SIZE] [--runs N] [--parallelism N]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startPostgres } from '../scripts/postgres-server';
import type { Engine } from '../src/engine/engine';
import type { StateBackend } from '../src/engine/state/backend';
import { PgStateBackend } from '../src/engine/state/pg-backend';
import type { State } from '../src/engine/state/schema';
import { stateTextChunks } from '../src/engine/state/state-text';
import { FLEET_STACK } from './fleet';
import { benchEngine, openSession, planAndApply, planOnce, type LoadStacks } from './session';
import { median, r3, runMain, timed } from './stats';

export interface StateBackendsRow {
  readonly size: number;
  readonly runs: number;
  readonly local_plan_s: number;
  readonly pg_plan_s: number;
  readonly pg_to_local: number;
  readonly plan_state_local_s: number;
  readonly plan_state_pg_s: number;
  readonly state_read_local_s: number;
  readonly state_read_pg_s: number;
  readonly state_write_local_s: number;
  readonly state_write_pg_s: number;
  readonly state_mb: number;
  readonly lock_local_s: number;
  readonly lock_pg_s: number;
  readonly apply_changed_local_s: number;
  readonly apply_changed_pg_s: number;
  readonly apply_pg_to_local: number;
}

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

/** One backend under test: its engine, and the times gathered for it. */
interface Side {
  readonly backend: StateBackend;
  readonly engine: Engine;
  readonly plan: number[];
  readonly planState: number[];
  readonly read: number[];
  readonly write: number[];
  readonly lock: number[];
  readonly apply: number[];
}

function side(backend: StateBackend, engine: Engine): Side {
  return { backend, engine, plan: [], planState: [], read: [], write: [], lock: [], apply: [] };
}

/** The parts of a state a copy must keep. */
function fingerprint(state: State): string {
  return JSON.stringify({ lineage: state.lineage, serial: state.serial, resources: state.resources, outputs: state.outputs ?? {} });
}

async function planRound(s: Side, load: LoadStacks): Promise<void> {
  let changes = -1;
  s.plan.push(await timed(async () => (changes = await planOnce(s.engine, load))));
  if (changes !== 0) throw new Error(`${s.backend.description}: expected no changes, planned ${changes}`);
  s.planState.push(s.engine.planStats().stateS);
}

/** Reads the whole state, then writes it back one serial on (as a full write after an apply). */
async function readWriteRound(s: Side, serial: number): Promise<void> {
  let state: State | undefined;
  s.read.push(await timed(async () => (state = await s.backend.read(FLEET_STACK))));
  const next = { ...(state as State), serial };
  s.write.push(await timed(() => s.backend.write(next)));
  s.lock.push(await timed(async () => (await s.backend.lock(FLEET_STACK, 'bench lock', { timeoutMs: 0 })).release()));
}

/** Applies the 10% change and back, so the service and this side's state end where they began. */
async function applyRound(s: Side, a: LoadStacks, b: LoadStacks, expected: number): Promise<void> {
  for (const load of [b, a]) {
    const round = await planAndApply(s.engine, load);
    if (round.changed !== expected) throw new Error(`${s.backend.description}: expected ${expected} changes, planned ${round.changed}`);
    s.apply.push(round.applyS);
  }
}

async function main(): Promise<void> {
  const size = Number(process.argv[2] ?? 1000);
  const runs = arg('--runs', 5);
  const parallelism = arg('--parallelism', 10);
  // Commits flushed to disk, as the local backend fsyncs each write: the same durability.
  const pg = await startPostgres({ fsync: true });
  const session = await openSession(size, parallelism, fs.mkdtempSync(path.join(os.tmpdir(), 'fleetform-bench-state-')));
  try {
    const setup = await planAndApply(session.engine, session.a);
    if (setup.changed !== size) throw new Error(`setup planned ${setup.changed} changes for ${size} machines`);
    const applied = await session.backend.read(FLEET_STACK);
    const pgBackend = new PgStateBackend({ connStr: pg.url });
    await pgBackend.write(applied);
    if (fingerprint(await pgBackend.read(FLEET_STACK)) !== fingerprint(applied))
      throw new Error('the state copied into PostgreSQL does not read back as written');
    const { organizationId, locationId } = session.emu.credentials;
    const local = side(session.backend, session.engine);
    const remote = side(pgBackend, benchEngine(session.client, pgBackend, parallelism, { organizationId, locationId }));
    // The two sides take turns, so a slower or faster moment of the machine falls on both.
    for (let r = 0; r < runs; r++) {
      for (const s of r % 2 === 0 ? [local, remote] : [remote, local]) await planRound(s, session.a);
    }
    let serial = applied.serial;
    for (let r = 0; r < runs; r++) {
      serial += 1;
      for (const s of r % 2 === 0 ? [local, remote] : [remote, local]) await readWriteRound(s, serial);
    }
    const expected = Math.ceil(size / 10);
    for (let r = 0; r < Math.ceil(runs / 2); r++) {
      for (const s of r % 2 === 0 ? [local, remote] : [remote, local]) await applyRound(s, session.a, session.b, expected);
    }
    const m = (xs: readonly number[]) => r3(median(xs));
    const row: StateBackendsRow = {
      size,
      runs,
      local_plan_s: m(local.plan),
      pg_plan_s: m(remote.plan),
      pg_to_local: r3(median(remote.plan) / median(local.plan)),
      plan_state_local_s: m(local.planState),
      plan_state_pg_s: m(remote.planState),
      state_read_local_s: m(local.read),
      state_read_pg_s: m(remote.read),
      state_write_local_s: m(local.write),
      state_write_pg_s: m(remote.write),
      state_mb: r3(Buffer.byteLength([...stateTextChunks(applied)].join('')) / 1e6),
      lock_local_s: m(local.lock),
      lock_pg_s: m(remote.lock),
      apply_changed_local_s: m(local.apply),
      apply_changed_pg_s: m(remote.apply),
      apply_pg_to_local: r3(median(remote.apply) / median(local.apply)),
    };
    process.stdout.write(`${JSON.stringify(row)}\n`);
  } finally {
    await session.close();
    pg.stop();
  }
}

runMain(main);
