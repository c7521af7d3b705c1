/**
 * A plan is what apply does, checked on random edits of a random fleet: each round plans,
 * applies, and plans again. Apply must carry out every plan that has no problems, the
 * writes the emulator receives must be the ones the plan's actions imply, and the second
 * plan must have no changes (a deletion the service is still finishing is shown as such,
 * and nothing else). Rounds: PLAN_PROPERTY_RUNS (default 25) with seed PLAN_PROPERTY_SEED.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import fc from 'fast-check';
import { createServiceClient, type ServiceClient } from '../../src/api/client';
import { CustomTrainingJob, Dataset, FleetProvider, Machine, ModelFramework, ModelType, Module, TrainingJob } from '../../src';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { readStacks } from '../../src/engine/desired/read-stacks';
import { childPath } from '../../src/domain/json-path';
import { matchesPlanned } from '../../src/engine/apply/executor';
import { Engine } from '../../src/engine/engine';
import { defaultKinds } from '../../src/engine/kinds';
import { moduleCards } from '../../src/engine/kinds/module-cards';
import { isObject, stableStringify, type JsonObject } from '../../src/engine/json';
import type { Plan, ResourceChange } from '../../src/engine/plan-model';
import { LocalStateBackend } from '../../src/engine/state/local-backend';
import type { State } from '../../src/engine/state/schema';

const RUNS = Number(process.env.PLAN_PROPERTY_RUNS ?? '25');
const SEED = Number(process.env.PLAN_PROPERTY_SEED ?? '20261123');

jest.setTimeout(Math.max(120_000, RUNS * 6_000));

/** Calls that change something on the service; reads are free to vary. */
const WRITES = [
  'NewRobot',
  'UpdateRobot',
  'UpdateRobotPart',
  'DeleteRobot',
  'CreateDataset',
  'DeleteDataset',
  'SubmitTrainingJob',
  'SubmitCustomTrainingJob',
  'CancelTrainingJob',
  'DeleteCompletedTrainingJob',
] as const;

interface MachineSpec {
  readonly id: string;
  readonly variant: 'a' | 'b';
  readonly module: { readonly version: string; readonly level: string } | null;
}
interface DatasetSpec {
  readonly id: string;
  readonly variant: 'a' | 'b';
}
interface JobSpec {
  readonly id: string;
  /** Managed jobs may name a framework, custom ones a container version; otherwise the service chooses. */
  readonly choice: boolean;
  /** A new model version this round (a retrain: the job is replaced). */
  readonly bump: boolean;
}
interface FleetSpec {
  readonly machines: readonly MachineSpec[];
  readonly datasets: readonly DatasetSpec[];
  readonly jobs: readonly JobSpec[];
}

const variant = fc.constantFrom<'a' | 'b'>('a', 'b');
const fleetArb: fc.Arbitrary<FleetSpec> = fc.record({
  machines: fc.subarray(['m0', 'm1', 'm2', 'm3']).chain((ids) =>
    fc.tuple(
      ...ids.map((id) =>
        fc.record({
          id: fc.constant(id),
          variant,
          module: fc.option(
            fc.record({ version: fc.constantFrom('~1.2', '1.2.5', '^1', '1.1.0', ''), level: fc.constantFrom('info', 'debug') }),
            { nil: null },
          ),
        }),
      ),
    ),
  ),
  datasets: fc.subarray(['d0', 'd1']).chain((ids) => fc.tuple(...ids.map((id) => fc.record({ id: fc.constant(id), variant })))),
  jobs: fc
    .subarray(['j0', 'j1', 'c0'])
    .chain((ids) => fc.tuple(...ids.map((id) => fc.record({ id: fc.constant(id), choice: fc.boolean(), bump: fc.boolean() })))),
});

/**
 * Model versions stay unique over the whole run: a new job, a retrain, or a changed
 * parameter (jobs are immutable: a new setting is a retrain) takes the next number.
 */
class ModelVersions {
  private next = 1;
  private readonly current = new Map<string, { version: string; choice: boolean }>();
  forRound(jobs: readonly JobSpec[]): Map<string, string> {
    const present = new Set(jobs.map((j) => j.id));
    for (const id of [...this.current.keys()]) if (!present.has(id)) this.current.delete(id);
    for (const j of jobs) {
      const was = this.current.get(j.id);
      if (j.bump || !was || was.choice !== j.choice) this.current.set(j.id, { version: `${this.next++}`, choice: j.choice });
    }
    return new Map([...this.current].map(([id, v]) => [id, v.version]));
  }
}

function synthFleet(outdir: string, fleet: FleetSpec, versions: ReadonlyMap<string, string>): void {
  const app = new App({ outdir });
  const stack = new TerraformStack(app, 'fleet');
  new FleetProvider(stack, 'cloud', {});
  for (const m of fleet.machines) {
    const machine = new Machine(stack, m.id, { name: `${m.id}-${m.variant}` });
    if (m.module) {
      new Module(machine, 'sensors', {
        moduleId: 'acme:sensors',
        ...(m.module.version ? { version: m.module.version } : {}),
        env: { LEVEL: m.module.level },
      });
    }
  }
  for (const d of fleet.datasets) new Dataset(stack, d.id, { name: `${d.id}-${d.variant}` });
  const base = new Dataset(stack, 'base', { name: 'base' });
  for (const j of fleet.jobs) {
    const common = { dataset: base, modelName: `model-${j.id}`, modelVersion: versions.get(j.id) as string };
    if (j.id.startsWith('c')) {
      new CustomTrainingJob(stack, j.id, {
        ...common,
        registryItemId: 'acme:trainer',
        registryItemVersion: '0.3.0',
        ...(j.choice ? { containerVersion: 'tf:2.17' } : {}),
      });
    } else {
      new TrainingJob(stack, j.id, {
        ...common,
        modelType: ModelType.OBJECT_DETECTION,
        tags: ['box'],
        ...(j.choice ? { modelFramework: ModelFramework.TFLITE } : {}),
      });
    }
  }
  app.synth();
}

function add(counts: Record<string, number>, method: string, n = 1): void {
  counts[method] = (counts[method] ?? 0) + n;
}

/** The writes a planned change implies, as the service would receive them. */
function impliedWrites(change: ResourceChange, state: State, counts: Record<string, number>): void {
  const creates = change.action === 'create' || change.action === 'replace';
  const deletes = change.action === 'delete' || change.action === 'replace';
  const deleting = state.resources[change.address]?.status === 'deleting';
  switch (change.type) {
    case 'fleetform_machine':
      if (creates) {
        add(counts, 'NewRobot');
        add(counts, 'UpdateRobotPart');
      }
      if (deletes) add(counts, 'DeleteRobot');
      if (change.action === 'update') {
        if (change.changes.some((c) => c.path === 'name')) add(counts, 'UpdateRobot');
        if (change.changes.some((c) => c.path.startsWith('config'))) add(counts, 'UpdateRobotPart');
      }
      return;
    case 'fleetform_dataset':
      if (creates) add(counts, 'CreateDataset');
      if (deletes) add(counts, 'DeleteDataset');
      return;
    case 'fleetform_training_job':
    case 'fleetform_custom_training_job':
      if (creates) add(counts, change.type === 'fleetform_training_job' ? 'SubmitTrainingJob' : 'SubmitCustomTrainingJob');
      // Jobs here never leave PENDING: deleting one cancels it, and a job already canceling needs no call.
      if (deletes && !deleting && change.facts.status !== 'CANCELING') add(counts, 'CancelTrainingJob');
      return;
    default:
      throw new Error(`no rule for ${change.type}`);
  }
}

function writesOf(calls: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of WRITES) if (calls[m]) out[m] = calls[m] as number;
  return out;
}

/** The version each module of each machine runs, as `fleetform status` shows it, by machine address and module. */
async function runningVersions(state: State): Promise<Map<string, string | undefined>> {
  const addressOf = new Map(Object.entries(state.resources).map(([address, e]) => [String(e.attributes?.name), address]));
  const cards = await moduleCards(client, [state]);
  return new Map(cards.map((c) => [`${addressOf.get(c.machine)}/${c.module}`, c.running]));
}

function modulesOf(view: JsonObject | null): JsonObject {
  const config = view?.config;
  const modules = isObject(config) ? config.modules : undefined;
  return isObject(modules) ? modules : {};
}

/**
 * A restart is noted for exactly the modules kept across an update whose running version
 * (as status shows it before and after apply) or environment changes.
 */
function restartMismatches(plan: Plan, before: Map<string, string | undefined>, after: Map<string, string | undefined>): string[] {
  const wrong: string[] = [];
  for (const c of plan.changes) {
    if (c.type !== 'fleetform_machine' || c.action !== 'update') continue;
    const was = modulesOf(c.before);
    const now = modulesOf(c.after);
    for (const m of Object.keys(now).filter((k) => k in was)) {
      const envOf = (d: JsonObject, k: string) => stableStringify((d[k] as JsonObject).env ?? null);
      const key = `${c.address}/${m}`;
      const restarts = before.get(key) !== after.get(key) || envOf(was, m) !== envOf(now, m);
      const noted = c.notes.some((n) => n.path === childPath('config.modules', m) && n.message.includes('restarts the module'));
      if (restarts !== noted)
        wrong.push(`${key}: restarts ${String(restarts)} (runs ${before.get(key)} -> ${after.get(key)}), noted ${String(noted)}`);
    }
  }
  return wrong;
}

/** Each "runs X" a plan says of a module is the version `fleetform status` shows once applied. */
function runsMismatches(plan: Plan, after: Map<string, string | undefined>): string[] {
  const wrong: string[] = [];
  for (const c of plan.changes) {
    if (c.type !== 'fleetform_machine' || c.after === null) continue;
    for (const m of Object.keys(modulesOf(c.after))) {
      const said = c.notes
        .filter((n) => n.path === childPath('config.modules', m))
        .map((n) => /: runs (\S+);/.exec(n.message)?.[1])
        .find((v) => v !== undefined);
      const key = `${c.address}/${m}`;
      if (said !== undefined && said !== after.get(key))
        wrong.push(`${key}: plan says runs ${said}, status shows ${String(after.get(key))}`);
    }
  }
  return wrong;
}

const silent = { start: () => undefined, done: () => undefined, failed: () => undefined, skipped: () => undefined };

let dir: string;
let emulator: RunningEmulator;
let client: ServiceClient;
let engine: Engine;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-plan-property-'));
  emulator = await startEmulator({ dataDir: path.join(dir, 'emulator'), port: 0, host: '127.0.0.1', clock: 'frozen' });
  const { apiKey, apiKeyId, organizationId, locationId } = emulator.credentials;
  client = await createServiceClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey },
  });
  engine = new Engine({
    client,
    backend: new LocalStateBackend(path.join(dir, 'state')),
    kinds: defaultKinds(),
    parallelism: 4,
    lockTimeoutMs: 0,
    defaults: { organizationId, locationId },
  });
});

afterAll(async () => {
  await client?.close();
  await emulator?.close();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

async function planOf(outdir: string): Promise<{ plan: Plan; states: Map<string, State>; stacks: Awaited<ReturnType<typeof readStacks>> }> {
  const stacks = await readStacks(outdir);
  const { plan, states } = await engine.plan(stacks, { refresh: true, destroy: false });
  return { plan, states, stacks };
}

test(`over ${RUNS} random edits (seed ${SEED}), apply does what the plan says and the next plan has no changes`, async () => {
  const versions = new ModelVersions();
  const tally = { rounds: 0, applied: 0 };
  let round = 0;
  await fc.assert(
    fc.asyncProperty(fleetArb, async (fleet) => {
      round += 1;
      const outdir = path.join(dir, `out-${round}`);
      synthFleet(outdir, fleet, versions.forRound(fleet.jobs));
      const first = await planOf(outdir);
      tally.rounds += 1;
      const problems = first.plan.changes.flatMap((c) => c.problems.map((p) => `${c.address}.${p.path}: ${p.message}`));
      // Every edit here is one the service accepts: a refused plan is a plan that lies.
      expect(problems).toEqual([]);

      const expected: Record<string, number> = {};
      for (const c of first.plan.changes) if (c.action !== 'no-op') impliedWrites(c, first.states.get(c.stack) as State, expected);
      const runsBefore = await runningVersions(first.states.get('fleet') as State);
      emulator.resetCalls();
      const outcome = await engine.apply(first.plan, first.stacks, first.states, silent);
      expect(outcome.failed.map((f) => `${f.address}: ${String(f.error)}`)).toEqual([]);
      expect(writesOf(emulator.calls())).toEqual(expected);
      tally.applied += 1;

      const second = await planOf(outdir);
      const state = second.states.get('fleet') as State;
      const left = second.plan.changes
        .filter((c) => c.action !== 'no-op')
        .filter((c) => !(c.action === 'delete' && state.resources[c.address]?.status === 'deleting'))
        .map((c) => `${c.action} ${c.address}: ${c.changes.map((x) => x.path).join(', ')}`);
      expect(left).toEqual([]);
      // What the plan said each object would be is what the service now holds (unknowns match anything).
      const held = new Map(second.plan.changes.map((c) => [c.address, c.before]));
      const unlike = first.plan.changes
        .filter((c) => c.after !== null && !(c.action === 'no-op' && c.before === c.after))
        .filter((c) => !matchesPlanned(c.after ?? undefined, held.get(c.address) ?? undefined))
        .map((c) => `${c.address}: planned ${JSON.stringify(c.after)}, holds ${JSON.stringify(held.get(c.address))}`);
      expect(unlike).toEqual([]);
      const runsAfter = await runningVersions(state);
      expect(restartMismatches(first.plan, runsBefore, runsAfter)).toEqual([]);
      expect(runsMismatches(first.plan, runsAfter)).toEqual([]);
      await fs.rm(outdir, { recursive: true, force: true });
    }),
    { seed: SEED, numRuns: RUNS, endOnFailure: true },
  );
  expect(tally).toEqual({ rounds: RUNS, applied: RUNS });
});
