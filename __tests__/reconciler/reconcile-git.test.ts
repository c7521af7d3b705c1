import * as path from 'node:path';
import {
  apiStack,
  apiStatus,
  editWithSdk,
  gitProject,
  machineNamed,
  metricsText,
  moduleVersion,
  of,
  partNamed,
  QUICK_MACHINES,
  reconcileCommand,
  reconcilerRuns,
  suiteEmulator,
  waitUntil,
} from './fixture';

jest.setTimeout(240_000);

const MACHINES = 4;
/** The interval of drift checks: a drift made on the service is found within it. */
const INTERVAL_MS = 1000;
/** How often the reconciler asks the repository for a new commit (read from its files: it is on this machine). */
const POLL = '250ms';
const suite = suiteEmulator('ff-reconcile-git-', { simulation: QUICK_MACHINES });

const runs = reconcilerRuns(suite);

const configOf = async (name: string): Promise<Record<string, unknown>> =>
  (await partNamed(suite.client, suite.credentials.locationId, name)).config;

async function timeoutOf(name: string): Promise<unknown> {
  const c = (await configOf(name)).components as Array<{ name: string; attributes?: Record<string, unknown> }>;
  return c.find((x) => x.name === 'ultrasonic-1')?.attributes?.timeout_ms;
}

/** Edits picker-2's ultrasonic timeout with the official SDK, outside fleetform. */
async function driftWithSdk(timeout: number): Promise<void> {
  const machine = await machineNamed(suite.client, suite.credentials.locationId, 'picker-2');
  await editWithSdk(suite, machine.id, (config) => {
    const ultrasonic = (config.components as Array<{ name: string; attributes?: Record<string, unknown> }>).find(
      (c) => c.name === 'ultrasonic-1',
    );
    if (!ultrasonic?.attributes) throw new Error('no ultrasonic-1');
    ultrasonic.attributes.timeout_ms = timeout;
    return config;
  });
}

test('commits reach every machine through a two-wave rollout; drift is reported in warn and healed in heal; a commit in a deny window waits for it; the webhook gets each event', async () => {
  const { dir, client } = suite;
  const { locationId } = suite.credentials;
  const env = { ...process.env, ...suite.env } as Record<string, string>;
  const project = gitProject(path.join(dir, 'repo'));
  project.commit({ machines: MACHINES, policy: '~1.2' }, 'a fleet of four');
  const running = await runs.start(
    dir,
    [
      ...project.sourceArgs(path.join(dir, 'checkout')),
      '--apply',
      'auto',
      '--drift',
      'warn',
      '--interval',
      `${INTERVAL_MS}ms`,
      '--poll',
      POLL,
    ],
    env,
  );
  const { hook } = runs;
  const url = running.url;

  // The first commit creates the fleet.
  const created = await hook.waitFor(of('apply-finished'), 0, 20_000);
  expect(created.failed).toEqual([]);
  expect(created.applied).toBeGreaterThanOrEqual(MACHINES);
  expect(moduleVersion(await configOf('picker-4'))).toBe('~1.2');

  // A new commit goes through the rollout: the canary wave, then the rest.
  let mark = hook.events.length;
  const second = project.commit({ machines: MACHINES, policy: '~1.3' }, 'sensors 1.3');
  await hook.waitFor((e) => of('apply-started')(e) && e.cycle > 0, mark);
  const wave1 = await hook.waitFor((e) => of('wave-passed')(e) && e.wave === 1, mark);
  const wave2 = await hook.waitFor((e) => of('wave-passed')(e) && e.wave === 2, mark);
  expect([wave1.type, wave2.type]).toEqual(['wave-passed', 'wave-passed']);
  const finished = await hook.waitFor(of('apply-finished'), mark);
  expect(finished.failed).toEqual([]);
  for (let i = 1; i <= MACHINES; i++) expect(moduleVersion(await configOf(`picker-${i}`))).toBe('~1.3');
  expect((await apiStatus(url)).commit).toBe(second);

  // Drift made with the official SDK is reported, not healed, in warn.
  mark = hook.events.length;
  await driftWithSdk(999);
  const found = await hook.waitFor(of('drift-found'), mark);
  expect(found.objects).toEqual(['fleetform_machine.picker-2']);
  expect(found.policy).toBe('warn');
  // A later cycle leaves it too.
  await waitUntil('a cycle after the one that found the drift', async () => {
    const st = await apiStatus(url);
    return st.cycle > found.cycle && st.state === 'idle';
  });
  expect(await timeoutOf('picker-2')).toBe(999);
  // The status and metrics say so.
  expect((await apiStack(url))?.drifted).toEqual(['fleetform_machine.picker-2']);
  expect(await metricsText(url)).toMatch(/fleetform_reconcile_drifted_objects\{stack="fleet"\} 1/);
  expect((await fetch(`${url}/healthz`)).status).toBe(200);

  // The stack's own policy, committed, heals it within one interval.
  mark = hook.events.length;
  const healCommitted = Date.now();
  project.commit({ machines: MACHINES, policy: '~1.3', reconcile: { drift: 'heal' } }, 'heal drift');
  const healed = await hook.waitFor(of('drift-healed'), mark);
  expect(healed.objects).toEqual(['fleetform_machine.picker-2']);
  expect(await timeoutOf('picker-2')).toBe(150);

  // A commit inside a deny window waits for it to close, then applies. The window lasts three
  // times what the last commit took to be fetched, synthesized, planned and applied (4 to 15
  // seconds): long enough for the commit to be seen inside it, and no longer.
  const now = Date.now();
  const endsIn = Math.min(15_000, Math.max(4000, 3 * (now - healCommitted)));
  const minute = new Date(now);
  const opened = Date.UTC(minute.getUTCFullYear(), minute.getUTCMonth(), minute.getUTCDate(), minute.getUTCHours(), minute.getUTCMinutes());
  const deny = `deny:${minute.getUTCMinutes()} ${minute.getUTCHours()} * * *:${now + endsIn - opened}ms:UTC`;
  mark = hook.events.length;
  project.commit(
    { machines: MACHINES, policy: '~1.2', reconcile: { drift: 'heal', windows: [deny] } },
    'sensors back to 1.2, in a deny window',
  );
  const waiting = await hook.waitFor(of('apply-waiting'), mark);
  expect(waiting.reason).toContain('deny window');
  expect(Date.now()).toBeLessThan(now + endsIn);
  expect(moduleVersion(await configOf('picker-1'))).toBe('~1.3');
  const started = await hook.waitFor(of('apply-started'), mark);
  expect(Date.parse(started.at)).toBeGreaterThanOrEqual(now + endsIn - 50);
  await hook.waitFor(of('apply-finished'), mark);
  for (let i = 1; i <= MACHINES; i++) expect(moduleVersion(await configOf(`picker-${i}`))).toBe('~1.2');

  // A commit destroying more than --max-destroy (0) waits for an approval, whatever the policy; the command gives it.
  mark = hook.events.length;
  project.commit({ machines: MACHINES - 1, policy: '~1.2', reconcile: { drift: 'heal' } }, 'one machine fewer');
  const asked = await hook.waitFor(of('approval-needed'), mark);
  expect(asked).toMatchObject({ destroy: 1, reason: 'it destroys 1 object(s), more than --max-destroy 0' });
  expect((await apiStatus(url)).stacks[0]?.waiting?.for).toBe('approval');
  expect((await client.appClient.listMachines(locationId)).length).toBe(MACHINES);
  const approved = await reconcileCommand(dir, env, url, 'approve', 'fleet');
  expect(approved).toMatchObject({ code: 0, stdout: 'Approved: stack fleet is applied now.\n' });
  await hook.waitFor(of('apply-finished'), mark);
  expect((await client.appClient.listMachines(locationId)).map((m) => m.name).sort()).toEqual(['picker-1', 'picker-2', 'picker-3']);
  const shown = await reconcileCommand(dir, env, url, 'status');
  expect(shown.stdout).toMatch(/^Reconciler: (idle|cycling) \(leader\), cycle \d+, commit [0-9a-f]{12}/);
  expect(shown.stdout).toContain('stack fleet (apply auto, drift heal)');

  // A broken commit leaves the fleet as it is and is announced once.
  mark = hook.events.length;
  const broken = project.commit(
    { machines: MACHINES - 1, policy: '~1.2', network: { bind_address: 'nowhere' }, reconcile: { drift: 'heal' } },
    'a bind address the machine server refuses',
  );
  const failed = await hook.waitFor(of('cycle-failed'), mark);
  expect(failed.commit).toBe(broken);
  expect(failed.error).toContain('bind_address');
  expect((await client.appClient.listMachines(locationId)).length).toBe(MACHINES - 1);

  // A commit whose module certainly fails (a version that is no policy) applies nothing, and says so once, not every interval.
  mark = hook.events.length;
  const unpolicied = project.commit({ machines: MACHINES - 1, policy: '~2', reconcile: { drift: 'heal' } }, 'a version that is no policy');
  const refused = await hook.waitFor(of('cycle-failed'), mark);
  expect(refused.commit).toBe(unpolicied);
  expect(refused.error).toContain('invalid module version "~2"');
  // Two more cycles of the same commit: nothing more is said.
  await waitUntil('two more cycles', async () => (await apiStatus(url)).cycle >= refused.cycle + 2);
  expect(hook.events.slice(mark).filter((e) => e.type === 'cycle-failed')).toHaveLength(1);
  for (let i = 1; i < MACHINES; i++) expect(moduleVersion(await configOf(`picker-${i}`))).toBe('~1.2');

  // Nothing in the log or the events holds the webhook's URL.
  expect(running.log()).not.toContain(hook.url);
  expect(JSON.stringify(hook.events)).not.toContain(hook.url);
  expect(hook.events.map((e) => e.type)).toEqual(
    expect.arrayContaining(['apply-started', 'apply-finished', 'wave-passed', 'drift-found', 'drift-healed', 'apply-waiting', 'leader']),
  );
});
