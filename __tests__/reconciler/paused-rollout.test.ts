/**
 * A rollout held by a pause step under the reconciler: its stack waits for a release, said
 * once, without applying again at every cycle; released, the next cycle completes it.
 */
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { FleetProvider, Machine, ModularResource, Module, Rollout } from '../../src';
import { releaseIfPaused } from '../../src/engine/rollout/release';
import type { ProjectSource } from '../../src/reconciler/source';
import { inProcessReconciler, QUICK_MACHINES, suiteEmulator } from './fixture';

jest.setTimeout(180_000);

const suite = suiteEmulator('ff-reconcile-paused-', { simulation: QUICK_MACHINES });

/** Two machines running acme:sensors at `policy`, a canary first, then a pause step before the rest. */
function synth(outdir: string, policy: string): void {
  const app = new App({ outdir });
  const stack = new TerraformStack(app, 'fleet');
  new FleetProvider(stack, 'cloud', {});
  const machines = ['picker-1', 'picker-2'].map((name) => {
    const m = new Machine(stack, name, { name });
    const sensors = new Module(m, 'sensors', { moduleId: 'acme:sensors', version: policy });
    new ModularResource(m, 'board', { name: 'board-1', api: 'rdk:component:board', model: sensors.model('pi-board') });
    return m;
  });
  new Rollout(stack, 'careful', {
    waves: [{ machines: [machines[0] as Machine] }, { pause: true }, { fraction: 1 }],
    gate: { timeout: '20s', settle: '100ms' },
  });
  app.synth();
}

test('a paused rollout holds its stack until released, said once; the cycle after the release completes it', async () => {
  const { dir } = suite;
  let revision = 'r1';
  synth(path.join(dir, revision), '~1.2');
  const source: ProjectSource = {
    description: dir,
    fetch: () => Promise.resolve({ dir: path.join(dir, revision), id: revision }),
    hasNew: (than) => Promise.resolve(than !== revision),
  };
  const { reconciler, log, engine, backend } = inProcessReconciler({
    suite,
    source,
    stateDir: path.join(dir, 'state'),
    drift: 'warn',
    intervalMs: 300,
  });
  const next = async (match: Parameters<typeof log.waitFor>[0]): Promise<void> => {
    await log.waitFor(match, log.events.length, 90_000);
  };
  try {
    let done = next((e) => e.type === 'apply-finished');
    reconciler.start();
    await done;

    const mark = log.events.length;
    synth(path.join(dir, 'r2'), '~1.3');
    const paused = next((e) => e.type === 'rollout-paused');
    revision = 'r2';
    await paused;
    for (let i = 0; i < 3; i++) await next((e) => e.type === 'cycle-finished');
    expect(log.since(mark, 'apply-started')).toHaveLength(1);
    expect(log.since(mark, 'apply-waiting')).toEqual([
      expect.objectContaining({
        stack: 'fleet',
        reason: expect.stringMatching(
          /^rollout careful is paused: a pause step holds it before wave 2; release it with `fleetform rollout resume fleet`/,
        ),
      }),
    ]);
    expect(reconciler.status().stacks[0]?.waiting?.for).toBe('release');
    expect((await engine.journals.read('fleet'))?.status).toBe('paused');

    // Released as `rollout resume` does, under the stack's lock: the next cycle goes on from wave 2.
    const released = await releaseIfPaused({ stack: 'fleet', journals: engine.journals, backend, lockTimeoutMs: 30_000 });
    expect(released?.status).toBe('running');
    done = next((e) => e.type === 'apply-finished');
    await done;
    const journal = await engine.journals.read('fleet');
    expect(journal?.status).toBe('completed');
    expect(journal?.machines.map((m) => m.result)).toEqual(['healthy', 'healthy']);
    await next((e) => e.type === 'cycle-finished');
    expect(reconciler.status().stacks[0]?.waiting).toBeUndefined();
  } finally {
    await reconciler.stop();
  }
});
