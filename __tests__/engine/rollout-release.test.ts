/** Releasing a held rollout as the dashboards do it: only a paused one, under its stack's state lock. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { memoryJournalStore, type RolloutJournal } from '../../src/engine/state/rollout-journal';
import { releaseIfPaused } from '../../src/engine/rollout/release';
import { LocalStateBackend } from '../../src/engine/state/local-backend';

let dir: string;
beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'ff-release-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function journal(status: RolloutJournal['status'], hold?: RolloutJournal['hold']): RolloutJournal {
  return {
    format: 1,
    stack: 'fleet',
    status,
    started_at: '2026-12-02T09:00:00.000Z',
    updated_at: '2026-12-02T09:00:00.000Z',
    wave: 2,
    plan: {
      stack: 'fleet',
      policy: {
        name: 'careful',
        waves: [{ fraction: 0.5 }, { fraction: 1 }],
        gate: { timeout_ms: 1000, settle_ms: 0 },
        abort: {},
        offline: 'wait',
        on_failure: 'rollback',
        pacing: { pauses: [1] },
      },
      waves: [],
    },
    machines: [],
    ...(hold ? { hold } : {}),
  };
}

test('a paused rollout is released under the lock: running again, its pause step released', async () => {
  const journals = memoryJournalStore();
  await journals.write(journal('paused', { kind: 'pause-step', wave: 2, since: '2026-12-02T09:01:00.000Z' }));
  const backend = new LocalStateBackend(dir);
  const released = await releaseIfPaused({ stack: 'fleet', journals, backend, lockTimeoutMs: 0 });
  expect(released).toMatchObject({ status: 'running', released: [2] });
  expect(await journals.read('fleet')).toMatchObject({ status: 'running', released: [2] });
  expect(await backend.lockHolder('fleet')).toBeUndefined();
});

test('a running or waiting rollout is left as it is, without taking the lock', async () => {
  const journals = memoryJournalStore();
  const backend = new LocalStateBackend(dir);
  const held = await backend.lock('fleet', 'apply', { timeoutMs: 0 });
  try {
    for (const j of [
      journal('running'),
      journal('waiting', { kind: 'not-before', wave: 2, since: 'then', until: '2026-12-02T10:00:00.000Z' }),
    ]) {
      await journals.write(j);
      expect(await releaseIfPaused({ stack: 'fleet', journals, backend, lockTimeoutMs: 0 })).toBeUndefined();
      expect(await journals.read('fleet')).toEqual(j);
    }
  } finally {
    await held.release();
  }
});

test('a paused rollout whose stack another run holds is not released: the lock error says so', async () => {
  const journals = memoryJournalStore();
  const paused = journal('paused', { kind: 'pause-step', wave: 2, since: 'then' });
  await journals.write(paused);
  const backend = new LocalStateBackend(dir);
  const held = await backend.lock('fleet', 'apply', { timeoutMs: 0 });
  try {
    await expect(releaseIfPaused({ stack: 'fleet', journals, backend, lockTimeoutMs: 0 })).rejects.toThrow(/lock/i);
    expect(await journals.read('fleet')).toEqual(paused);
  } finally {
    await held.release();
  }
});
