/**
 * A fragment's rollout on the emulator's simulated machines: the new revision is pinned
 * wave by wave behind the health gate, a crashing module version stops at the canary (put
 * back on its tag, the tag left where it was), a healthy one moves the tag at the end and
 * lifts the pins.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { EmulatorService } from '../../src/api/emulator-control';
import { openEmulatorProject, quickMachines, type EmulatorProject } from './fleet-fixture';
import { pickerNames, settleFragmentFleet, synthFragmentFleet, type FragmentFleetShape } from './rollout-fixture';

jest.setTimeout(180_000);

const MACHINES = 4;
const BIN = path.resolve(__dirname, '../../bin/fleetform.js');
const ALL = pickerNames(MACHINES);
let p: EmulatorProject;
let restoreEnv: (() => void) | undefined;

// The fleet itself is made by the first test's settleFragmentFleet: each test settles it where it starts from.
beforeAll(async () => {
  restoreEnv = quickMachines();
  p = await openEmulatorProject('ff-rollout-fragment-');
});

afterAll(async () => {
  await p?.close();
  restoreEnv?.();
});

// picker-1 is the canary; picker-1..3 import the fragment at its `stable` tag, picker-4 at its latest revision.
const rollout: NonNullable<FragmentFleetShape['rollout']> = {
  canary: 0,
  waves: [{ fraction: 1 }],
  gate: { timeout: '20s', settle: '300ms' },
};

interface StatusJson {
  machines: { machine: string; online: string; health: string; partId: string; latestRevision: string; runningRevision?: string }[];
}

async function statusUntil(ok: (s: StatusJson) => boolean, what: string, deadlineMs = 30_000): Promise<StatusJson> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const res = await p.runBare('status', '--json');
    if (res.code !== 0) throw new Error(`status failed: ${res.stderr}`);
    const s = JSON.parse(res.stdout) as StatusJson;
    if (ok(s)) return s;
    if (Date.now() > until) throw new Error(`status never showed ${what}; last: ${res.stdout}`);
  }
}

const healthy = (): Promise<StatusJson> =>
  statusUntil((s) => ALL.every((n) => s.machines.find((m) => m.machine === n)?.health === 'healthy'), 'every machine healthy');

async function fragmentNow(): Promise<{ id: string; revision: string; stable: string | undefined }> {
  const state = await p.backend().read('fleet');
  const id = state.resources['fleetform_fragment.rig']?.ids.id ?? '';
  const detail = await p.client.appClient.getFragment(id);
  return { id, revision: detail.fragment.revision, stable: detail.tags.find((t) => t.tag === 'stable')?.revision };
}

/** The version a machine's part imports the fragment at (undefined: its latest revision). */
async function importedAt(s: StatusJson, name: string): Promise<unknown> {
  const partId = s.machines.find((m) => m.machine === name)?.partId ?? '';
  const part = await p.client.appClient.getMachinePart(partId);
  return (part.config.fragments as Array<{ version?: string }>)[0]?.version;
}

interface Report {
  rollouts: {
    outcome: string;
    stoppedAt?: number;
    fragment?: { tags_moved: boolean; pins_lifted: boolean };
    waves: { machines: { machine: string; result: string; problems?: { what: string }[]; log?: string[]; rollback?: { ok: boolean } }[] }[];
  }[];
}

test('a fragment revision whose module crashes stops at the canary: the canary back on the tag, the tag unmoved, the other machines untouched', async () => {
  await settleFragmentFleet(p, MACHINES, '1.2.3');
  const before = await healthy();
  const was = await fragmentNow();
  const controls = p.client.clientFor(EmulatorService);
  await controls.setMachineFaults({ specs: ['module=acme:sensors@1.3.0:crash'] });
  try {
    synthFragmentFleet(p.outdir, { machines: MACHINES, version: '1.3.0', rollout });
    const plan = await p.run('plan');
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain(
      `Rollout rig-careful (stack fleet): fragment sensor-rig's new revision (from revision ${was.revision}) reaches 4 machine(s) in 2 wave(s)`,
    );
    expect(plan.stdout).toContain(
      '  wave 1 (machines fleetform_machine.picker-1): picker-1 (tag stable)\n  wave 2 (fraction 1): picker-2 (tag stable), picker-3 (tag stable), picker-4 (latest)\n',
    );
    const json = JSON.parse((await p.run('plan', '--json')).stdout) as {
      rollouts: { fragment?: { address: string; tags: { tag: string }[] }; waves: { machines: { name: string; follows?: string }[] }[] }[];
    };
    expect(json.rollouts[0]?.fragment).toMatchObject({ address: 'fleetform_fragment.rig', tags: [{ tag: 'stable' }] });
    expect(json.rollouts[0]?.waves.map((w) => w.machines.map((m) => `${m.name}@${m.follows ?? '?'}`))).toEqual([
      ['picker-1@stable'],
      ['picker-2@stable', 'picker-3@stable', 'picker-4@'],
    ]);

    const reportFile = path.join(p.dir, 'report-crash.json');
    const apply = await p.run('apply', '--auto-approve', '--report', reportFile);
    expect(apply.code).toBe(1);
    expect(apply.stdout).toContain(`rollout rig-careful: fragment sensor-rig saved as revision ${Number(was.revision) + 1}`);
    expect(apply.stdout).toContain('rollout rig-careful: wave 1/2 (machines fleetform_machine.picker-1): 1 machine(s): picker-1');
    expect(apply.stdout).toMatch(
      /rollout rig-careful: wave 1: picker-1 FAILED: unhealthy for \d+ ms; module \S+: .*exited with code 1 on start/,
    );
    expect(apply.stdout).toMatch(/log: \S+ rdk\.modmanager: module \S+ \(acme:sensors@1\.3\.0\) crashed/);
    expect(apply.stdout).toMatch(/rollout rig-careful: picker-1 rolled back: back on tag stable of the fragment, running it again/);
    expect(apply.stdout).toContain('Rollout rig-careful stopped in wave 1 of 2');
    expect(apply.stdout).not.toContain('wave 2/2');

    const report = JSON.parse(await fs.readFile(reportFile, 'utf8')) as Report;
    const r = report.rollouts[0];
    expect(r).toMatchObject({ outcome: 'stopped', stoppedAt: 1, fragment: { tags_moved: false } });
    expect(r?.waves[0]?.machines[0]).toMatchObject({ machine: 'picker-1', result: 'failed', rollback: { ok: true } });
    expect(r?.waves[0]?.machines[0]?.log?.[0]).toMatch(/crashed/);

    // The new revision is saved; the tag still names the old one.
    const now = await fragmentNow();
    expect(now.revision).toBe(String(Number(was.revision) + 1));
    expect(now.stable).toBe(was.stable);
    const after = await healthy();
    // The canary follows its tag again, so runs the old revision.
    expect(await importedAt(after, 'picker-1')).toBe('stable');
    expect(after.machines.find((m) => m.machine === 'picker-1')?.latestRevision).toContain(`+${was.id}@${was.stable ?? ''}`);
    // The other machines on the tag were never written.
    for (const name of ['picker-2', 'picker-3']) {
      expect(after.machines.find((m) => m.machine === name)?.latestRevision).toBe(
        before.machines.find((m) => m.machine === name)?.latestRevision,
      );
    }
    // The machine following the latest revision (now the failed one) stays on the one it ran.
    expect(await importedAt(after, 'picker-4')).toMatch(/^\d+$/);
    expect(after.machines.find((m) => m.machine === 'picker-4')?.latestRevision).not.toContain(`@${now.revision}`);
    // The saved revision is still to reach the machines: the next plan rolls it out again, gated.
    const again = await p.run('plan');
    expect(again.stdout).toContain(
      `Rollout rig-careful (stack fleet): fragment sensor-rig's revision ${now.revision} reaches 4 machine(s) in 2 wave(s)`,
    );
    expect(again.stdout).toContain('picker-4 (latest)');
  } finally {
    await controls.setMachineFaults({ specs: [] });
  }
});

test('a healthy fragment revision goes through every wave, then the tag moves to it and the pins are lifted', async () => {
  await settleFragmentFleet(p, MACHINES, '1.2.3');
  synthFragmentFleet(p.outdir, { machines: MACHINES, version: '1.2.5', rollout });
  const apply = await p.run('apply', '--auto-approve');
  expect(apply.stderr).toBe('');
  expect(apply.code).toBe(0);
  const now = await fragmentNow();
  const lines = apply.stdout.split('\n').filter((l) => l.startsWith('rollout rig-careful:'));
  const order = [
    `saved as revision ${now.revision}`,
    'wave 1/2',
    'wave 1 passed',
    'wave 2/2',
    'wave 2 passed',
    `tag(s) stable moved to revision ${now.revision}; pins lifted: 4 machine(s)`,
  ].map((t) => lines.findIndex((l) => l.includes(t)));
  expect(order.every((i) => i >= 0)).toBe(true);
  expect(order).toEqual([...order].sort((a, b) => a - b));
  for (const name of ALL) expect(apply.stdout).toMatch(new RegExp(`rollout rig-careful: wave \\d: ${name} healthy after`));
  expect(apply.stdout).toMatch(/Rollout rig-careful: completed, 2 wave\(s\) healthy/);

  expect(now.stable).toBe(now.revision);
  const s = await statusUntil(
    (x) =>
      ALL.every(
        (n) =>
          x.machines.find((m) => m.machine === n)?.health === 'healthy' &&
          x.machines.find((m) => m.machine === n)?.latestRevision.includes(`+${now.id}@${now.revision}`),
      ),
    'every machine healthy on the new revision',
  );
  for (const name of ALL.slice(0, -1)) expect(await importedAt(s, name)).toBe('stable');
  expect(await importedAt(s, 'picker-4')).toBeUndefined();
  expect((await p.run('plan')).stdout).toContain('No changes.');
});

// A long settle keeps the rollout waiting at wave 2's gate while the test kills it.
const slow: NonNullable<FragmentFleetShape['rollout']> = { canary: 0, waves: [{ fraction: 1 }], gate: { timeout: '60s', settle: '1s' } };

/** Starts `fleetform apply` and kills it (SIGKILL) once its output shows `text`. */
function applyKilledAt(text: string): Promise<string> {
  const child = spawn(process.execPath, [BIN, 'apply', '--auto-approve', '--synth-out', p.outdir], {
    cwd: p.dir,
    env: { ...process.env, NO_COLOR: '1', ...p.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (stdout.includes(text)) child.kill('SIGKILL');
    });
    child.on('close', (_code, signal) =>
      signal === 'SIGKILL' ? resolve(stdout) : reject(new Error(`apply ended before showing ${JSON.stringify(text)}: ${stdout}`)),
    );
  });
}

test('a killed fragment rollout resumes at the wave it was in, without saving the fragment again, and moves the tag at the end', async () => {
  await settleFragmentFleet(p, MACHINES, '1.2.3');
  synthFragmentFleet(p.outdir, { machines: MACHINES, version: '1.2.4', rollout: slow });
  await applyKilledAt('rollout rig-careful: wave 2: 3 config(s) written');
  const saved = await fragmentNow();
  expect(saved.stable).not.toBe(saved.revision);

  const status = await p.runBare('rollout', 'status');
  expect(status.stdout).toMatch(/Rollout rig-careful \(stack fleet\): running, wave 2 of 2/);
  expect(status.stdout).toMatch(
    new RegExp(`fragment sensor-rig: revision \\d+ -> ${saved.revision}; tag\\(s\\) stable move after the last wave`),
  );
  expect(status.stdout).toContain('wave 2 (fraction 1): picker-2 written, picker-3 written, picker-4 written');
  expect((await p.run('plan', '--break-stale-lock')).stdout).toMatch(/resumes at wave 2: a run started \S+ was interrupted/);

  const resumed = await p.run('apply', '--auto-approve', '--break-stale-lock');
  expect(resumed.code).toBe(0);
  expect(resumed.stdout).toContain('rollout rig-careful: resuming wave 2: 3 machine(s) written before the interruption are gated again');
  expect(resumed.stdout).not.toContain('wave 1/2');
  expect(resumed.stdout).not.toContain('saved as revision');
  expect(resumed.stdout).toMatch(/Rollout rig-careful: completed/);
  const now = await fragmentNow();
  expect(now.revision).toBe(saved.revision);
  expect(now.stable).toBe(saved.revision);
  expect((await p.runBare('rollout', 'status')).stdout).toMatch(/Rollout rig-careful \(stack fleet\): completed, wave 2 of 2/);
  expect((await p.run('plan')).stdout).toContain('No changes.');
});

test("rollout abort --rollout puts a killed fragment rollout's machines back on what they followed; the tag stays", async () => {
  await settleFragmentFleet(p, MACHINES, '1.2.5');
  const was = await fragmentNow();
  synthFragmentFleet(p.outdir, { machines: MACHINES, version: '1.2.3', rollout: slow });
  await applyKilledAt('rollout rig-careful: wave 2: 3 config(s) written');
  const abort = await p.runBare('rollout', 'abort', '--stack', 'fleet', '--rollout', 'rig-careful', '--break-stale-lock');
  expect(abort.code).toBe(0);
  expect(abort.stdout).toContain('Rollout rig-careful: 4 machine(s) rolled back.');
  expect(abort.stdout).toMatch(/picker-1 rolled back: back on tag stable of the fragment/);
  expect(abort.stdout).toMatch(new RegExp(`picker-4 rolled back: pinned to revision ${was.revision} of the fragment`));
  const now = await fragmentNow();
  expect(now.stable).toBe(was.stable);
  const s = await healthy();
  for (const name of ALL.slice(0, -1)) expect(await importedAt(s, name)).toBe('stable');
  expect(await importedAt(s, 'picker-4')).toBe(was.revision);
  expect((await p.runBare('rollout', 'status')).stdout).toMatch(/Rollout rig-careful \(stack fleet\): aborted, wave 2 of 2/);
  // The stack form has no journal of its own here: abort without --rollout says so.
  const none = await p.runBare('rollout', 'abort', '--stack', 'fleet');
  expect(none.code).toBe(1);
  expect(none.stderr).toContain('nothing to abort: it has no rollout journal');
});

test('skip: a machine offline in its wave keeps the revision it ran, pinned, when the tag moves; the next apply rolls it out to it', async () => {
  await settleFragmentFleet(p, MACHINES, '1.2.3');
  const was = await fragmentNow();
  const controls = p.client.clientFor(EmulatorService);
  await controls.setMachineFaults({ specs: ['machine=picker-3:offline'] });
  try {
    await statusUntil((s) => s.machines.find((m) => m.machine === 'picker-3')?.online === 'offline', 'picker-3 offline');
    synthFragmentFleet(p.outdir, { machines: MACHINES, version: '1.2.5', rollout: { ...rollout, offline: 'skip' } });
    const apply = await p.run('apply', '--auto-approve');
    expect(apply.code).toBe(0);
    expect(apply.stdout).toMatch(/rollout rig-careful: wave 2: picker-3 skipped: offline when its wave started/);
    expect(apply.stdout).toContain('1 skipped machine(s) stay pinned to the revision they ran, for a later apply');
    const now = await fragmentNow();
    expect(now.stable).toBe(now.revision);
    const s = await statusUntil((x) => x.machines.length === MACHINES, 'the machines');
    expect(await importedAt(s, 'picker-3')).toBe(was.stable);
    expect(await importedAt(s, 'picker-2')).toBe('stable');
  } finally {
    await controls.setMachineFaults({ specs: [] });
  }
  await healthy();
  const plan = await p.run('plan');
  expect(plan.stdout).toContain(
    `Rollout rig-careful (stack fleet): fragment sensor-rig's revision ${(await fragmentNow()).revision} reaches 4 machine(s) in 2 wave(s)`,
  );
  const again = await p.run('apply', '--auto-approve');
  expect(again.code).toBe(0);
  expect(again.stdout).toMatch(/rollout rig-careful: wave \d: picker-3 healthy after/);
  expect(again.stdout).not.toContain('saved as revision');
  const s = await healthy();
  expect(await importedAt(s, 'picker-3')).toBe('stable');
  expect((await p.run('plan')).stdout).toContain('No changes.');
});
