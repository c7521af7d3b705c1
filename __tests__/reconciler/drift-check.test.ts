/**
 * Interval cycles of an unchanged commit read versions only: no plan while nothing changed
 * on the service, a full plan (which reports the drift) as soon as a part's version moves.
 */
import * as path from 'node:path';
import { fixedSource, inProcessReconciler, partNamed, suiteEmulator, synthCameras, waitUntil } from './fixture';

jest.setTimeout(120_000);

const suite = suiteEmulator('ff-reconcile-check-');

test('an unchanged fleet is checked by versions without planning; a part edited on the service is planned and reported', async () => {
  const { client } = suite;
  const { locationId } = suite.credentials;
  const outdir = path.join(suite.dir, 'cdktf.out');
  synthCameras(outdir, ['arm-1', 'arm-2', 'arm-3']);
  const source = fixedSource(outdir);
  const fetches = jest.spyOn(source, 'fetch');
  const { reconciler, engine, log, next, cycleDone } = inProcessReconciler({
    suite,
    source,
    stateDir: path.join(suite.dir, 'state'),
    drift: 'warn',
    intervalMs: 250,
  });
  const plans = jest.spyOn(engine, 'plan');
  try {
    const applied = next((e) => e.type === 'apply-finished');
    reconciler.start();
    await applied;
    // The cycle after the apply plans in full (the state moved); the ones after it read versions only.
    await cycleDone();
    await cycleDone();
    const planned = plans.mock.calls.length;
    for (let i = 0; i < 3; i++) expect(await cycleDone()).toMatchObject({ type: 'cycle-finished', changes: 0, drifted: 0 });
    expect(plans.mock.calls.length).toBe(planned);
    // The source says nothing is new: the code fetched once is kept, not fetched at every cycle.
    expect(fetches).toHaveBeenCalledTimes(1);

    const part = await partNamed(client, locationId, 'arm-2');
    const found = next((e) => e.type === 'drift-found');
    await client.appClient.updateMachinePart(part.id, part.name, { ...part.config, components: [] }, part.lastUpdated);
    expect(await found).toMatchObject({ stack: 'fleet', objects: ['fleetform_machine.arm-2'], policy: 'warn' });
    expect(plans.mock.calls.length).toBe(planned + 1);
    // The drift is reported once; the checks after it read versions only again.
    await cycleDone();
    await cycleDone();
    expect(plans.mock.calls.length).toBe(planned + 1);
    expect(log.since(0, 'drift-found')).toHaveLength(1);
  } finally {
    await reconciler.stop();
  }
});

test('a refresh (a push webhook) looks for a new commit at once, however long the poll', async () => {
  const outdir = path.join(suite.dir, 'cdktf.out.refresh');
  // No machines: the first cycle applies nothing, so no cycle follows it but by the poll, the interval or a refresh.
  synthCameras(outdir, []);
  let revision = 1;
  const source = { ...fixedSource(outdir), fetch: () => Promise.resolve({ dir: outdir, id: `r${revision}` }) };
  const asked = jest.spyOn(source, 'hasNew').mockImplementation((than) => Promise.resolve(than !== `r${revision}`));
  const { reconciler, next, cycleDone } = inProcessReconciler({
    suite,
    source,
    stateDir: path.join(suite.dir, 'state-refresh'),
    drift: 'warn',
    intervalMs: 3_600_000,
    pollMs: 3_600_000,
  });
  try {
    reconciler.start();
    expect(await cycleDone()).toMatchObject({ type: 'cycle-finished', changes: 0 });
    // The loop asks once as it starts to wait, then waits out the hour's poll.
    const askedBefore = asked.mock.calls.length;
    await waitUntil('the source asked after the cycle', () => asked.mock.calls.length > askedBefore);
    revision = 2;
    const started = next((e) => e.type === 'cycle-started', 10_000);
    reconciler.refresh();
    expect(await started).toMatchObject({ reason: 'commit' });
  } finally {
    await reconciler.stop();
  }
});
