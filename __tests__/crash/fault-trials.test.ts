/**
 * Every call the engine makes, failed on demand by `fleetform emulator serve --fail` in each
 * phase of a fleet's life (create, update and replace and delete, destroy): the failing
 * apply may stop, the next ones finish, and nothing is orphaned, duplicated or lost.
 * FAULT_METHODS (comma-separated) narrows the list; CI runs the seeded sample below.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TrainingStatus } from '../../src/domain';
import { LocalStateBackend } from '../../src/engine/state/local-backend';
import { fleetform, synthFleet, type FleetShape } from '../e2e/fleet-fixture';
import { firedFaults, serveEmulator, type EmulatorProcess } from './emulator-process';

/**
 * Every RPC the phases below make, by its short name: each test asserts its fault fired.
 * The client also calls UpdateRobot (a rename), DeleteDataset (a dataset removed),
 * DeleteCompletedTrainingJob (a finished job removed) and ListDatasetsByOrganizationID (adopting an interrupted dataset create), which
 * these phases never reach: a fault on them would fire nothing.
 */
const ALL_METHODS = [
  'ListOrganizations',
  'ListLocations',
  'ListRobots',
  'GetRobot',
  'NewRobot',
  'DeleteRobot',
  'GetRobotParts',
  'GetRobotPart',
  'UpdateRobotPart',
  'GetModule',
  // A module's version statuses, and the viam-server its machine's part reports.
  'GetRegistryItem',
  'ListMachineSummaries',
  'CreateDataset',
  'ListDatasetsByIDs',
  'SubmitTrainingJob',
  'GetTrainingJob',
  'ListTrainingJobs',
  'CancelTrainingJob',
];
/** A small sample for CI: a create that may have happened, and a replace's cancel. */
const CI_METHODS = ['NewRobot', 'CancelTrainingJob'];
const METHODS =
  process.env.FAULT_METHODS === 'all' ? ALL_METHODS : process.env.FAULT_METHODS ? process.env.FAULT_METHODS.split(',') : CI_METHODS;
const CODES = ['unavailable', 'internal', 'deadline_exceeded'];

const PHASES: ReadonlyArray<{ name: string; shape: FleetShape }> = [
  { name: 'create', shape: { machines: ['f-a', 'f-b'], jobVersion: '1' } },
  { name: 'update, replace and delete', shape: { machines: ['f-a', 'f-c'], timeoutMs: 400, jobVersion: '2' } },
];

async function runPhase(dir: string, outdir: string, emulator: EmulatorProcess, args: string[]) {
  return fleetform(dir, [...args, '--synth-out', outdir], emulator.env);
}

/** Lets every canceled job finish canceling, as the service does on its own. */
async function finishCancels(dir: string, emulator: EmulatorProcess): Promise<void> {
  const jobs = await emulator.client.mlTrainingClient.listTrainingJobs(emulator.credentials.organizationId);
  for (const j of jobs.filter((x) => x.status === TrainingStatus.CANCELING)) {
    const r = await fleetform(dir, ['emulator', 'jobs', 'advance', j.id, '--to-end'], emulator.env);
    if (r.code !== 0) throw new Error(`advance ${j.id}: ${r.stderr}`);
  }
}

/** Machines and running jobs the service holds that state does not manage, and declared names held twice or not at all. */
async function audit(dir: string, emulator: EmulatorProcess, shape: FleetShape) {
  const state = await new LocalStateBackend(path.join(dir, '.fleetform', 'state')).read('fleet');
  const managed = new Set(Object.values(state.resources).flatMap((e) => Object.values(e.ids)));
  const machines = await emulator.client.appClient.listMachines(emulator.credentials.locationId);
  const jobs = (await emulator.client.mlTrainingClient.listTrainingJobs(emulator.credentials.organizationId)).filter(
    (j) => j.status !== TrainingStatus.CANCELED && j.status !== TrainingStatus.CANCELING,
  );
  const names = [...machines.map((m) => m.name), ...jobs.map((j) => `${j.modelName}@${j.modelVersion}`)];
  const declared = [...(shape.machines ?? []), ...(shape.jobVersion ? [`box-detector@${shape.jobVersion}`] : [])];
  return {
    orphans: [...machines.map((m) => m.id), ...jobs.map((j) => j.id)].filter((id) => !managed.has(id)).length,
    duplicates: declared.filter((n) => names.filter((x) => x === n).length > 1).length,
    lost: declared.filter((n) => !names.includes(n)).length + Object.values(state.resources).filter((e) => e.status !== 'ok').length,
  };
}

describe('faults on every call', () => {
  test.each(METHODS.map((m, i) => [m, CODES[i % CODES.length] as string]))(
    '%s failing with %s in every phase loses nothing',
    async (method, code) => {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-fault-'));
      const data = path.join(dir, 'emulator');
      const outdir = path.join(dir, 'cdktf.out');
      const totals = { orphans: 0, duplicates: 0, lost: 0 };
      let fired = 0;
      try {
        for (const phase of PHASES) {
          synthFleet(outdir, phase.shape);
          // Two failures in a row: beyond one retry of a safe call.
          let emulator = await serveEmulator(data, [`${method}:${code}:2`]);
          await runPhase(dir, outdir, emulator, ['apply', '--auto-approve']);
          fired += firedFaults(await emulator.stop());
          emulator = await serveEmulator(data, []);
          try {
            const second = await runPhase(dir, outdir, emulator, ['apply', '--auto-approve', '--break-stale-lock']);
            expect(second.stderr).toBe('');
            await finishCancels(dir, emulator);
            // Deposed or removed jobs whose cancel finished are deleted now.
            expect((await runPhase(dir, outdir, emulator, ['apply', '--auto-approve'])).code).toBe(0);
            const plan = await runPhase(dir, outdir, emulator, ['plan', '--detailed-exitcode']);
            expect([phase.name, plan.code, plan.stdout]).toEqual([phase.name, 0, expect.stringContaining('No changes')]);
            const counts = await audit(dir, emulator, phase.shape);
            totals.orphans += counts.orphans;
            totals.duplicates += counts.duplicates;
            totals.lost += counts.lost;
          } finally {
            await emulator.stop();
          }
        }
        process.stdout.write(
          `fault ${method}:${code}: fired ${fired} times; ${totals.orphans} orphans, ${totals.duplicates} duplicates, ${totals.lost} lost\n`,
        );
        // A fault that never fired tested nothing (a misspelt or never-called method).
        expect(fired).toBeGreaterThan(0);
        expect(totals).toEqual({ orphans: 0, duplicates: 0, lost: 0 });
      } finally {
        await fs.rm(dir, { recursive: true, force: true });
      }
    },
    180_000,
  );
});
