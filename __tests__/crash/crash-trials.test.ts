/**
 * Kills a real `fleetform apply` at chosen service calls (before a call is sent, or once its
 * answer arrived) and at seeded random ones, then runs `apply --break-stale-lock` once:
 * every trial must end with the service holding exactly what the stack declares, every
 * object in state, nothing twice. CRASH_TRIALS and CRASH_SEED choose the count and seed
 * (`npm run crash-trials` runs the full count).
 */
import { promises as fs } from 'node:fs';
import { TrainingStatus } from '../../src/domain';
import { fleetform, openEmulatorProject, type EmulatorProject, type FleetShape } from '../e2e/fleet-fixture';
import { seededRandom as random } from '../seeded-random';

const TRIALS = Number(process.env.CRASH_TRIALS ?? '6');
const SEED = Number(process.env.CRASH_SEED ?? '20261123');
/** Service calls an apply of these shapes makes at most (a kill point beyond it lets the apply finish). */
const MAX_CALL = 40;

interface Trial {
  readonly from: FleetShape | undefined;
  readonly to: FleetShape;
  readonly killAt: string;
}

const BEFORE: FleetShape = { machines: ['m-a', 'm-b', 'm-c'], jobVersion: undefined };
/** Creates (m-d, m-e, the job), updates (m-a, m-c), a delete (m-b). */
const AFTER: FleetShape = { machines: ['m-a', 'm-c', 'm-d', 'm-e'], timeoutMs: 300, jobVersion: '1' };

function trials(count: number, seed: number): Trial[] {
  const next = random(seed);
  return Array.from({ length: count }, (_, i) => {
    // Every other trial walks the calls in steps of five (before, then after the call); the rest are drawn from the seed.
    const walk = Math.floor(i / 2);
    const drawn = i % 2 === 1;
    const call = drawn ? 1 + Math.floor(next() * MAX_CALL) : 1 + ((walk * 5) % MAX_CALL);
    const after = drawn ? next() < 0.5 : Math.floor((walk * 5) / MAX_CALL) % 2 === 1 || walk % 2 === 1;
    const fresh = next() < 0.3;
    // CRASH_KILL_AT replays one point of a change trial (e.g. `26:after`).
    const replay = process.env.CRASH_KILL_AT;
    if (replay) return { from: BEFORE, to: AFTER, killAt: replay };
    return { from: fresh ? undefined : BEFORE, to: fresh ? BEFORE : AFTER, killAt: `${call}${after ? ':after' : ''}` };
  });
}

interface Counts {
  /** What the service holds that state does not manage, or the stack does not declare. */
  strays: string[];
  orphans: number;
  duplicates: number;
  lost: number;
}

/** Machines, running jobs and datasets the service holds, by id and a name. */
async function remoteObjects(project: EmulatorProject): Promise<Array<{ id: string; name: string }>> {
  const { client, credentials } = project;
  const machines = await client.appClient.listMachines(credentials.locationId);
  const jobs = (await client.mlTrainingClient.listTrainingJobs(credentials.organizationId)).filter(
    (j) => j.status !== TrainingStatus.CANCELED && j.status !== TrainingStatus.CANCELING,
  );
  const datasets = await client.datasetClient.listDatasets(credentials.organizationId);
  const remote = [
    ...machines.map((m) => ({ id: m.id, name: `machine ${m.name}` })),
    ...jobs.map((j) => ({ id: j.id, name: `job ${j.modelName}@${j.modelVersion}` })),
    ...datasets.map((d) => ({ id: d.id, name: `dataset ${d.name}` })),
  ];
  return remote;
}

/** Compares the service (less what it held before the trial) with the state and the declared shape. */
async function audit(project: EmulatorProject, shape: FleetShape, preexisting: ReadonlySet<string>): Promise<Counts> {
  const state = await project.backend().read('fleet');
  const entries = Object.entries(state.resources);
  const managed = new Set(entries.flatMap(([, e]) => Object.values(e.ids)));
  const counts: Counts = { strays: [], orphans: 0, duplicates: 0, lost: 0 };
  const remote = (await remoteObjects(project)).filter((r) => !preexisting.has(r.id));
  const declared = [
    ...(shape.machines ?? []).map((m) => `machine ${m}`),
    'dataset boxes',
    ...(shape.jobVersion ? [`job box-detector@${shape.jobVersion}`] : []),
  ];
  for (const r of remote) {
    if (managed.has(r.id) && declared.includes(r.name)) continue;
    counts.orphans += 1;
    counts.strays.push(r.name);
  }
  for (const name of declared) {
    const n = remote.filter((r) => r.name === name).length;
    if (n > 1) counts.duplicates += n - 1;
    if (n === 0) counts.lost += 1;
  }
  const remoteIds = new Set(remote.map((r) => r.id));
  for (const [, e] of entries) {
    const id = e.ids.machine_id ?? e.ids.id;
    if (!id || !remoteIds.has(id)) counts.lost += 1;
  }
  const declaredAddresses = (shape.machines ?? []).length + 1 + (shape.jobVersion ? 1 : 0);
  if (entries.length !== declaredAddresses) counts.lost += Math.abs(entries.length - declaredAddresses);
  return counts;
}

/**
 * A project folder after the setup apply of BEFORE (emulator data and state), made once and
 * copied into each change trial's fresh project, with the ids the emulator held before it.
 */
interface Applied {
  readonly dir: string;
  readonly preexisting: ReadonlySet<string>;
}

async function appliedBefore(): Promise<Applied> {
  const project = await openEmulatorProject('ff-crash-before-', { clock: 'frozen' });
  let kept = false;
  try {
    const preexisting = new Set((await remoteObjects(project)).map((r) => r.id));
    project.synth(BEFORE);
    const setup = await project.run('apply', '--auto-approve');
    if (setup.code !== 0) throw new Error(`setup apply failed: ${setup.stderr}`);
    kept = true;
    return { dir: project.dir, preexisting };
  } finally {
    await project.close({ keep: kept });
  }
}

let before: Applied | undefined;
afterAll(async () => {
  if (before) await fs.rm(before.dir, { recursive: true, force: true });
});

test(
  `${TRIALS} applies killed at chosen and seeded service calls (seed ${SEED}) all recover with no orphan, duplicate or lost object`,
  async () => {
    const totals = { trials: 0, killed: 0, orphans: 0, duplicates: 0, lost: 0, notConverged: 0 };
    const failures: string[] = [];
    for (const [i, trial] of trials(TRIALS, SEED).entries()) {
      // A change trial starts from BEFORE as applied (once, copied); a fresh one from an empty project.
      if (trial.from && !before) before = await appliedBefore();
      const from = trial.from ? before : undefined;
      const project = await openEmulatorProject('ff-crash-', { clock: 'frozen', ...(from ? { from: from.dir } : {}) });
      try {
        const preexisting = from ? from.preexisting : new Set((await remoteObjects(project)).map((r) => r.id));
        project.synth(trial.to);
        const args = ['apply', '--auto-approve', ...(i % 3 === 0 ? ['--parallelism', '1'] : []), '--synth-out', project.outdir];
        const killed = await fleetform(project.dir, args, { ...project.env, FLEETFORM_TEST_KILL_AT_CALL: trial.killAt });
        totals.trials += 1;
        if (killed.code !== 0) totals.killed += 1;
        const recovery = await project.run('apply', '--auto-approve', '--break-stale-lock');
        const plan = await project.run('plan', '--detailed-exitcode');
        const counts = await audit(project, trial.to, preexisting);
        totals.orphans += counts.orphans;
        totals.duplicates += counts.duplicates;
        totals.lost += counts.lost;
        const converged = recovery.code === 0 && plan.code === 0 && plan.stdout.includes('No changes');
        if (!converged) totals.notConverged += 1;
        if (!converged && process.env.CRASH_KILL_AT) process.stdout.write(`${recovery.stdout}\n${recovery.stderr}\n`);
        if (!converged || counts.orphans + counts.duplicates + counts.lost > 0) {
          failures.push(
            `trial ${i} (kill at ${trial.killAt}, ${trial.from ? 'change' : 'fresh'}): ${JSON.stringify(counts)} recovery ${recovery.code} ${recovery.stderr.slice(0, 400)} plan ${plan.code} ${plan.stdout.slice(0, 600)}`,
          );
        }
      } finally {
        await project.close();
      }
    }
    process.stdout.write(
      `crash trials (seed ${SEED}): ${totals.trials} trials, ${totals.killed} killed mid-apply, ${totals.orphans} orphans, ${totals.duplicates} duplicates, ${totals.lost} lost, ${totals.notConverged} not converged\n`,
    );
    expect(failures).toEqual([]);
    expect(totals).toMatchObject({ orphans: 0, duplicates: 0, lost: 0, notConverged: 0 });
    // Most trials must really have been killed, or the suite tests nothing.
    expect(totals.killed).toBeGreaterThan(totals.trials / 2);
  },
  30 * 60 * 1000,
);
