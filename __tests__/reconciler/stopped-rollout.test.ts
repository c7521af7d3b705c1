/**
 * A rollout whose canary fails on a commit is not tried again at every cycle of that
 * commit: the stack waits for a retry (`approve`) or a new commit.
 */
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { FleetProvider, Machine, ModularResource, Module, Rollout } from '../../src';
import type { ProjectSource } from '../../src/reconciler/source';
import { inProcessReconciler, QUICK_MACHINES, suiteEmulator } from './fixture';

jest.setTimeout(180_000);

const suite = suiteEmulator('ff-reconcile-stopped-', { simulation: QUICK_MACHINES });

/** Two machines running acme:sensors at `policy`, rolled out to a canary first. */
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
    waves: [{ machines: [machines[0] as Machine] }, { fraction: 1 }],
    gate: { timeout: '20s', settle: '100ms' },
    abort: { maxFailed: 0 },
  });
  app.synth();
}

test('a rollout stopped at its canary waits for a retry or a new commit, not the next cycle', async () => {
  const { dir } = suite;
  let revision = 'r1';
  synth(path.join(dir, revision), '~1.2');
  const source: ProjectSource = {
    description: dir,
    fetch: () => Promise.resolve({ dir: path.join(dir, revision), id: revision }),
    hasNew: (than) => Promise.resolve(than !== revision),
  };
  const { reconciler, log } = inProcessReconciler({ suite, source, stateDir: path.join(dir, 'state'), drift: 'warn', intervalMs: 300 });
  const next = async (match: Parameters<typeof log.waitFor>[0]): Promise<void> => {
    await log.waitFor(match, log.events.length, 90_000);
  };
  try {
    let done = next((e) => e.type === 'apply-finished');
    reconciler.start();
    await done;

    // 1.3.0 crashes on start: the canary fails its gate and the rollout stops.
    await suite.setMachineFaults(['module=acme:sensors@1.3.0:crash']);
    let mark = log.events.length;
    synth(path.join(dir, 'r2'), '~1.3');
    const stopped = next((e) => e.type === 'rollout-stopped');
    revision = 'r2';
    await stopped;
    // Cycles of the same commit go on without applying it again.
    for (let i = 0; i < 3; i++) await next((e) => e.type === 'cycle-finished');
    expect(log.since(mark, 'apply-started')).toHaveLength(1);
    expect(log.since(mark, 'apply-waiting')).toEqual([
      expect.objectContaining({
        stack: 'fleet',
        reason: expect.stringMatching(/rollout careful stopped at wave 1 on this commit.*fleetform reconcile approve fleet/),
      }),
    ]);
    expect(reconciler.status().stacks[0]?.waiting?.for).toBe('retry');

    // A retry by hand applies it once more (and it stops again).
    mark = log.events.length;
    const again = next((e) => e.type === 'rollout-stopped');
    expect(reconciler.approve('fleet')).toBe(true);
    await again;
    for (let i = 0; i < 2; i++) await next((e) => e.type === 'cycle-finished');
    expect(log.since(mark, 'apply-started')).toHaveLength(1);

    // A new commit is applied at once.
    await suite.setMachineFaults([]);
    mark = log.events.length;
    synth(path.join(dir, 'r3'), '~1.3');
    done = next((e) => e.type === 'apply-finished');
    revision = 'r3';
    await done;
    expect(log.since(mark, 'rollout-stopped')).toEqual([]);
    expect(log.since(mark, 'wave-passed').map((e) => e.wave)).toEqual([1, 2]);
    expect(reconciler.status().stacks[0]?.waiting).toBeUndefined();
  } finally {
    await reconciler.stop();
  }
});
