/**
 * A model promoted by evidence, through the real `fleetform apply`: box-detector@2 lands on
 * three inspectors; @3, whose machines capture 20% lower confidence, stops at the canary by
 * its analysis, goes back off it and is marked rejected in state with the values; the next
 * plan holds the machines on @2 and says why; @4, no worse, reaches every machine.
 */
import type { ModelHistory } from '../../src/engine/readings';
import { suiteOnQuickMachines, type EmulatorProject } from './fleet-fixture';
import { INSPECTORS, readConfidence, synthPromotedFleet } from './promotion-fixture';

jest.setTimeout(240_000);

let p: EmulatorProject;
const TRAINING = { FLEETFORM_EMULATOR_TRAINING_DURATION: '1s' };
Object.assign(process.env, TRAINING);
suiteOnQuickMachines('ff-promotion-', (opened) => (p = opened));
afterAll(() => {
  for (const key of Object.keys(TRAINING)) delete process.env[key];
});

async function control(...args: string[]): Promise<void> {
  const res = await p.runBare('emulator', ...args);
  if (res.code !== 0) throw new Error(`emulator ${args.join(' ')} failed: ${res.stdout}${res.stderr}`);
}

async function deployedVersions(): Promise<Record<string, string | undefined>> {
  const state = await p.backend().read('fleet');
  const out: Record<string, string | undefined> = {};
  for (const name of INSPECTORS) {
    const partId = state.resources[`fleetform_machine.${name}`]?.ids.part_id;
    const part = partId ? await p.client.appClient.getMachinePart(partId) : undefined;
    const packages = (part?.config.packages ?? []) as { name: string; version: string }[];
    out[name] = packages.find((x) => x.name === 'box-detector')?.version;
  }
  return out;
}

async function promotion(): Promise<{ version: string; status: string; why: string; evidence: { value?: number; baseline?: number }[] }[]> {
  return (await p.backend().read('fleet')).promotions?.['box-detector']?.versions ?? [];
}

test('version 3 is rejected at the canary by its confidence, version 4 reaches every machine', async () => {
  synthPromotedFleet(p.outdir, '2');
  const first = await p.run('apply', '--auto-approve', '--wait-for-training', '1m');
  expect(first.stdout + first.stderr).toContain('Apply complete!');
  expect(await promotion()).toEqual([expect.objectContaining({ version: '2', status: 'promoted' })]);
  await readConfidence(p);

  await control('machine-faults', 'signal=box-detector@3:confidence*0.8');
  synthPromotedFleet(p.outdir, '3');
  const rejected = await p.run('apply', '--auto-approve', '--wait-for-training', '1m');
  expect(rejected.code).toBe(1);
  expect(rejected.stdout).toMatch(/rollout box-detector-promotion: stopping in wave 1: analysis confidence failed/);
  expect(rejected.stdout).toMatch(/inspector-1 rolled back/);
  expect(await deployedVersions()).toEqual({ 'inspector-1': '2', 'inspector-2': '2', 'inspector-3': '2' });
  const [, three] = await promotion();
  expect(three).toEqual(expect.objectContaining({ version: '3', status: 'rejected' }));
  expect(three?.why).toMatch(/mean of detections\.Readings confidence 0\.7\d* .* is 0\.[78]\d*x the baseline's 0\.[89]\d*/);
  const measured = three?.evidence.find((e) => e.value !== undefined && e.baseline !== undefined);
  expect((measured?.value ?? 0) / (measured?.baseline ?? 1)).toBeCloseTo(0.8, 1);

  // status shows the history: each version's verdict and the machines on it now.
  const status = await p.runBare('status', '--json');
  expect(status.code).toBe(0);
  const [history] = (JSON.parse(status.stdout) as { models: ModelHistory[] }).models;
  expect(history?.versions.map((v) => [v.version, v.status])).toEqual([
    ['2', 'promoted'],
    ['3', 'rejected'],
  ]);
  expect(history?.machines.map((m) => `${m.machine}@${m.version}`)).toEqual(['inspector-1@2', 'inspector-2@2', 'inspector-3@2']);
  const statusText = (await p.runBare('status')).stdout;
  expect(statusText).toMatch(/box-detector\s+3\s+rejected\s.*-\s+analysis confidence failed/);
  expect(statusText).toMatch(/box-detector\s+2\s+promoted\s.*inspector-1, inspector-2, inspector-3/);

  const held = await p.run('plan', '--detailed-exitcode');
  expect(held.stdout).toMatch(
    /model box-detector@3 was rejected by promotion box-detector-promotion .*: this machine keeps box-detector@2/,
  );
  expect(held.code).toBe(0);

  synthPromotedFleet(p.outdir, '4');
  const promoted = await p.run('apply', '--auto-approve', '--wait-for-training', '1m');
  expect(promoted.stdout).toContain('Rollout box-detector-promotion: completed, 2 wave(s)');
  expect(promoted.code).toBe(0);
  expect(await deployedVersions()).toEqual({ 'inspector-1': '4', 'inspector-2': '4', 'inspector-3': '4' });
  expect((await promotion()).map((v) => [v.version, v.status])).toEqual([
    ['2', 'promoted'],
    ['3', 'rejected'],
    ['4', 'promoted'],
  ]);
});
