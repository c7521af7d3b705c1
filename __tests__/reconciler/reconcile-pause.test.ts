/**
 * A project folder (no git) reconciled by the command line: a rollout under way when the
 * windows close pauses at its next wave boundary, and resumes at that wave once they open.
 */
import * as path from 'node:path';
import {
  fleetProject,
  moduleVersions,
  QUICK_MACHINES,
  reconcileCommand,
  reconcilerRuns,
  suiteEmulator,
  wavesPassed,
  type FleetSpec,
} from './fixture';

jest.setTimeout(240_000);

const MACHINES = 3;
const suite = suiteEmulator('ff-reconcile-pause-', { simulation: QUICK_MACHINES });

const runs = reconcilerRuns(suite);

const versions = (): Promise<string[]> => moduleVersions(suite.client, suite.credentials.locationId);

test('windows closed mid-rollout pause it before its next wave; opened again, it resumes there', async () => {
  const { dir, env } = suite;
  const project = fleetProject(path.join(dir, 'project'));
  const base: FleetSpec = { machines: MACHINES, policy: '~1.2' };
  project.write(base);
  const running = await runs.start(dir, ['--path', project.folder, '--interval', '1m', '--poll', '100ms'], { ...process.env, ...env });
  const { hook } = runs;
  await hook.waitFor((e) => e.type === 'apply-finished');

  // The canary does not check in until the windows are closed: its gate waits meanwhile.
  await suite.setMachineFaults(['machine=picker-1:offline']);
  const mark = hook.events.length;
  project.write({ ...base, policy: '~1.3' });
  await hook.waitFor((e) => e.type === 'apply-started', mark);
  const closed = await fetch(`${running.url}/api/override`, {
    method: 'POST',
    headers: { authorization: `Bearer ${env.FLEETFORM_DASHBOARD_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ windows: 'closed' }),
  });
  expect(closed.status).toBe(200);
  await suite.setMachineFaults([]);
  const paused = await hook.waitFor((e) => e.type === 'rollout-paused', mark);
  expect(paused).toMatchObject({ stack: 'fleet', rollout: 'careful', wave: 2, reason: 'windows closed by a manual override' });
  expect(wavesPassed(hook, mark)).toEqual([1]);
  expect(await versions()).toEqual(['picker-1 ~1.3', 'picker-2 ~1.2', 'picker-3 ~1.2']);

  const resumedFrom = hook.events.length;
  const cleared = await reconcileCommand(dir, env, running.url, 'override', '--clear');
  expect(cleared.code).toBe(0);
  await hook.waitFor((e) => e.type === 'wave-passed' && e.wave === 2, resumedFrom);
  await hook.waitFor((e) => e.type === 'apply-finished', resumedFrom);
  expect(await versions()).toEqual(['picker-1 ~1.3', 'picker-2 ~1.3', 'picker-3 ~1.3']);
  // Resumed at wave 2: wave 1 did not run again.
  expect(wavesPassed(hook, resumedFrom)).toEqual([2]);
});
