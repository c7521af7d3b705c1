/**
 * Connection resets and timeouts between fleetform and the service, from a TCP proxy that
 * loses one answer of a real `fleetform apply` at chosen points: the next apply (straight to
 * the service) finishes with nothing orphaned, duplicated or lost.
 */
import { openEmulatorProject } from '../e2e/fleet-fixture';
import { fleetform } from '../e2e/fleet-fixture';
import { startFaultyProxy, type ProxyFault } from './faulty-proxy';

const SHAPE = { machines: ['p-a', 'p-b'], jobVersion: '1' };
const FAULTS: ProxyFault[] = [
  { kind: 'reset', atChunk: 5 },
  { kind: 'reset', atChunk: 9 },
  { kind: 'reset', atChunk: 13 },
  { kind: 'stall', atChunk: 7 },
  { kind: 'stall', atChunk: 11 },
];

test.each(FAULTS.map((f) => [f.kind, f.atChunk, f] as const))(
  'a %s at answer chunk %i leaves nothing behind',
  async (_kind, _at, fault) => {
    const project = await openEmulatorProject('ff-proxy-');
    const proxy = await startFaultyProxy(new URL(project.env.FLEETFORM_ENDPOINT as string), fault);
    try {
      project.synth(SHAPE);
      const viaProxy = { ...project.env, FLEETFORM_ENDPOINT: proxy.url, FLEETFORM_CALL_TIMEOUT: '2s' };
      await fleetform(project.dir, ['apply', '--auto-approve', '--synth-out', project.outdir], viaProxy);
      expect(proxy.hits()).toBe(1);
      const recovery = await project.run('apply', '--auto-approve', '--break-stale-lock');
      if (recovery.code !== 0) throw new Error(`recovery apply failed:\n${recovery.stdout}${recovery.stderr}`);
      const plan = await project.run('plan', '--detailed-exitcode');
      expect([plan.code, plan.stdout]).toEqual([0, expect.stringContaining('No changes')]);
      const machines = await project.client.appClient.listMachines(project.credentials.locationId);
      const jobs = await project.client.mlTrainingClient.listTrainingJobs(project.credentials.organizationId);
      const state = await project.backend().read('fleet');
      const managed = new Set(Object.values(state.resources).flatMap((e) => Object.values(e.ids)));
      expect(machines.map((m) => m.name).sort()).toEqual(['p-a', 'p-b']);
      expect(jobs.filter((j) => j.modelName === 'box-detector').length).toBe(1);
      expect([...machines.map((m) => m.id), ...jobs.map((j) => j.id)].filter((id) => !managed.has(id))).toEqual([]);
    } finally {
      await proxy.close();
      await project.close();
    }
  },
  120_000,
);
