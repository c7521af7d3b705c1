/**
 * A plan says what apply will do: what apply could not carry out fails the plan (or warns)
 * before any write, and a rename is an in-place change. Each test has its own emulator.
 */
import { App, TerraformOutput, TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import { EmulatorService } from '../../src/api/emulator-control';
import { CustomTrainingJob, Dataset, FleetProvider, Machine, ModelType, Module, TrainingJob, type FleetProviderProps } from '../../src';
import { fleetform, openEmulatorProject, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(120_000);

let p: EmulatorProject | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

async function project(): Promise<EmulatorProject> {
  p = await openEmulatorProject('ff-truth-', { clock: 'frozen' });
  return p;
}

/** Synthesizes one stack `fleet` whose contents `body` declares. */
function synth(project: EmulatorProject, body: (stack: Construct) => void, provider: FleetProviderProps = {}): void {
  const app = new App({ outdir: project.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new FleetProvider(stack, 'cloud', provider);
  body(stack);
  app.synth();
}

async function machineNames(project: EmulatorProject): Promise<string[]> {
  return (await project.client.appClient.listMachines(project.credentials.locationId)).map((m) => m.name).sort();
}

async function jobIds(project: EmulatorProject): Promise<string[]> {
  return (await project.client.mlTrainingClient.listTrainingJobs(project.credentials.organizationId)).map((j) => j.id).sort();
}

test('a new machine name renames the machine in place: same id, one change, then no changes', async () => {
  const q = await project();
  synth(q, (s) => new Machine(s, 'arm', { name: 'alpha' }));
  expect((await q.run('apply', '--auto-approve')).code).toBe(0);
  const id = (await q.backend().read('fleet')).resources['fleetform_machine.arm']?.ids.machine_id as string;

  synth(q, (s) => new Machine(s, 'arm', { name: 'beta' }));
  const plan = await q.run('plan', '--detailed-exitcode');
  expect(plan.code).toBe(2);
  expect(plan.stdout).toContain('# fleetform_machine.arm will be updated in-place');
  expect(plan.stdout).toMatch(/~ name\s+= "alpha" -> "beta"/);
  expect(plan.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');

  expect((await q.run('apply', '--auto-approve')).code).toBe(0);
  expect((await q.client.appClient.getMachine(id)).name).toBe('beta');
  expect(await machineNames(q)).toEqual(['beta']);
  expect((await q.run('plan', '--detailed-exitcode')).code).toBe(0);
});

test('a machine name another machine holds in the location fails the plan, naming that machine; nothing is written', async () => {
  const q = await project();
  const other = await q.client.appClient.newMachine('taken', q.credentials.locationId);
  synth(q, (s) => new Machine(s, 'arm', { name: 'taken' }));
  const plan = await q.run('plan', '--detailed-exitcode');
  expect(plan.code).toBe(1);
  expect(plan.stdout).toContain(
    `Error: fleetform_machine.arm.name: location ${q.credentials.locationId} already has a machine named taken (id ${other})`,
  );
  const apply = await q.run('apply', '--auto-approve');
  expect(apply.code).toBe(1);
  expect(await machineNames(q)).toEqual(['taken']);
  expect(Object.keys((await q.backend().read('fleet')).resources)).toEqual([]);
});

test('a location the organization does not have fails the plan, for a machine and for the provider', async () => {
  const q = await project();
  synth(q, (s) => new Machine(s, 'arm', { name: 'arm', locationId: 'no-such-location' }));
  const plan = await q.run('plan');
  expect(plan.code).toBe(1);
  expect(plan.stdout).toContain(
    `Error: fleetform_machine.arm.location_id: organization ${q.credentials.organizationId} has no location no-such-location`,
  );
  expect(plan.stdout).toContain(`hint: use one of its locations: ${q.credentials.locationId} (`);

  synth(q, (s) => new Machine(s, 'arm', { name: 'arm' }), { locationId: 'elsewhere' });
  const viaProvider = await q.run('plan');
  expect(viaProvider.code).toBe(1);
  expect(viaProvider.stderr).toContain(
    `error: FleetProvider.locationId: organization ${q.credentials.organizationId} has no location elsewhere`,
  );
  expect(await machineNames(q)).toEqual([]);
});

test('a model version a canceled job already has fails the plan with the next free version; a replace is checked too', async () => {
  const q = await project();
  const { organizationId, datasetId } = q.credentials;
  const ml = q.client.mlTrainingClient;
  const old = await ml.submitTrainingJob(organizationId, datasetId, 'boxes', '1', ModelType.OBJECT_DETECTION, ['box']);
  await ml.cancelTrainingJob(old);
  const job = (version: string) => (s: Construct) =>
    new TrainingJob(s, 'detector', {
      dataset: datasetId,
      modelName: 'boxes',
      modelVersion: version,
      modelType: ModelType.OBJECT_DETECTION,
      tags: ['box'],
    });

  synth(q, job('1'));
  const plan = await q.run('plan');
  expect(plan.code).toBe(1);
  expect(plan.stdout).toContain(
    `Error: fleetform_training_job.detector.model_version: model boxes already has version 1 (job ${old}, TRAINING_STATUS_CANCELING)`,
  );
  expect(plan.stdout).toContain('hint: set modelVersion to 2, the next free version, or manage that job');
  expect(await jobIds(q)).toEqual([old]);

  synth(q, job('2'));
  expect((await q.run('apply', '--auto-approve')).code).toBe(0);
  // A version taken meanwhile by a failed submission elsewhere: the replace to it is refused.
  const taken = await ml.submitTrainingJob(organizationId, datasetId, 'boxes', '3', ModelType.OBJECT_DETECTION, ['box']);
  const before = await jobIds(q);
  synth(q, job('3'));
  const replace = await q.run('plan');
  expect(replace.code).toBe(1);
  expect(replace.stdout).toContain(`model_version: model boxes already has version 3 (job ${taken}`);
  expect(replace.stdout).toContain('hint: set modelVersion to 4, the next free version');
  expect(await jobIds(q)).toEqual(before);
});

test('a training script version the registry does not have fails the plan, listing the versions it has', async () => {
  const q = await project();
  await q.client.clientFor(EmulatorService).publishTrainingScript({ itemId: 'acme:segmenter', version: '0.4.0' });
  const job = (item: string, version: string) => (s: Construct) =>
    new CustomTrainingJob(s, 'custom', {
      dataset: q.credentials.datasetId,
      registryItemId: item,
      registryItemVersion: version,
      modelName: 'seg',
      modelVersion: '1',
    });

  synth(q, job('acme:segmenter', '9.9.9'));
  const plan = await q.run('plan');
  expect(plan.code).toBe(1);
  expect(plan.stdout).toContain(
    'Error: fleetform_custom_training_job.custom.registry_item_version: training script acme:segmenter has no version 9.9.9',
  );
  expect(plan.stdout).toContain('hint: use one of its versions: 0.4.0');

  synth(q, job('acme:nothing', '0.4.0'));
  const missing = await q.run('plan');
  expect(missing.code).toBe(1);
  expect(missing.stdout).toContain(
    'Error: fleetform_custom_training_job.custom.registry_item_id: the registry has no training script acme:nothing',
  );
  expect(await jobIds(q)).toEqual([]);
});

test('a registry module or version that does not exist is a warning: the plan goes on and apply stores the config', async () => {
  const q = await project();
  synth(q, (s) => {
    const m = new Machine(s, 'arm', { name: 'arm' });
    new Module(m, 'ghost', { moduleId: 'acme:ghost', version: '1.0.0' });
    new Module(m, 'sensors', { moduleId: 'acme:sensors', version: '~9.9' });
    new Dataset(s, 'unused', { name: 'unused' });
  });
  const plan = await q.run('plan', '--detailed-exitcode');
  expect(plan.code).toBe(2);
  expect(plan.stdout).toContain('module acme:ghost is not in the registry: the machine will not be able to start it');
  expect(plan.stdout).toContain('no version of acme:sensors satisfies ~9.9: the machine will not be able to start it');
  const apply = await q.run('apply', '--auto-approve');
  expect(apply.code).toBe(0);
  expect((await q.run('plan', '--detailed-exitcode')).code).toBe(0);
});

test("the provider's endpoint is used only where the operator pins it or lets the app choose, and the plan names it", async () => {
  const q = await project();
  const url = q.env.FLEETFORM_ENDPOINT as string;
  const { FLEETFORM_ENDPOINT: _unused, ...keyOnly } = q.env;
  const allowed = { ...keyOnly, FLEETFORM_ALLOW_APP_ENDPOINT: '1' };
  const run = (env: Record<string, string>, ...args: string[]) =>
    fleetform(q.dir, [...args, '--synth-out', q.outdir], { ...env, FLEETFORM_ENDPOINT: env.FLEETFORM_ENDPOINT ?? '' });

  synth(q, (s) => new Machine(s, 'arm', { name: 'arm' }), { endpoint: url });
  // Nothing pinned: the app alone does not decide where the key goes.
  const unpinned = await run(keyOnly, 'plan');
  expect(unpinned.code).toBe(1);
  expect(unpinned.stderr).toContain(`names the endpoint ${url}, and no endpoint is pinned`);
  expect(unpinned.stderr).toContain(`set FLEETFORM_ENDPOINT=${url}`);
  const plan = await run(allowed, 'plan');
  expect(plan.code).toBe(0);
  expect(plan.stdout.startsWith(`Service: ${url}\n\n`)).toBe(true);
  expect((await run(allowed, 'apply', '--auto-approve')).code).toBe(0);
  expect(await machineNames(q)).toEqual(['arm']);
  // Pinned to the same service, the app's endpoint is that one.
  expect((await run(q.env, 'plan', '--detailed-exitcode')).code).toBe(0);

  synth(q, (s) => new Machine(s, 'arm', { name: 'arm' }), { endpoint: 'http://127.0.0.1:9' });
  const moved = await run(q.env, 'plan', '--detailed-exitcode');
  expect(moved.code).toBe(1);
  expect(moved.stderr).toContain(`names the endpoint http://127.0.0.1:9, but FLEETFORM_ENDPOINT pins ${url}`);

  const noKey = await run({ FLEETFORM_ALLOW_APP_ENDPOINT: '1' }, 'plan');
  expect(noKey.code).toBe(1);
  expect(noKey.stderr).toContain(
    "error: FLEETFORM_API_KEY: the FleetProvider's endpoint is http://127.0.0.1:9 but FLEETFORM_API_KEY and FLEETFORM_API_KEY_ID are not",
  );
});

test('a restart is noted only for a module whose running version or environment changes', async () => {
  const q = await project();
  const fleet =
    (policy: string, env: Record<string, string> = {}) =>
    (s: Construct) => {
      const m = new Machine(s, 'arm', { name: 'arm' });
      new Module(m, 'sensors', { moduleId: 'acme:sensors', version: policy, env });
    };
  synth(q, fleet('~1.2'));
  expect((await q.run('apply', '--auto-approve')).code).toBe(0);

  // ~1.2 runs 1.2.5 today: pinning 1.2.5 changes the config, not what runs.
  synth(q, fleet('1.2.5'));
  const same = await q.run('plan', '--detailed-exitcode');
  expect(same.code).toBe(2);
  expect(same.stdout).toContain('~ config.modules.acme_sensors.version = "~1.2" -> "1.2.5"');
  expect(same.stdout).not.toContain('restarts the module');

  synth(q, fleet('1.2.4'));
  const moves = await q.run('plan');
  expect(moves.stdout).toContain('this change restarts the module (it moves from 1.2.5 to 1.2.4)');

  synth(q, fleet('~1.2', { LOG_LEVEL: 'debug' }));
  const env = await q.run('plan');
  expect(env.stdout).toContain('this change restarts the module (its environment changes)');
});

test('outputs are evaluated after apply, printed like Terraform, kept in state (sensitive ones never) and read back with fleetform output', async () => {
  const q = await project();
  synth(q, (s) => {
    const m = new Machine(s, 'arm', { name: 'arm' });
    new TerraformOutput(s, 'arm_id', { value: m.machineId });
    new TerraformOutput(s, 'summary', { value: { machine: m.machineId, name: 'arm' } });
    new TerraformOutput(s, 'secret_note', { value: 'hush-hush-value', sensitive: true });
  });
  const apply = await q.run('apply', '--auto-approve');
  expect(apply.code).toBe(0);
  const id = (await q.backend().read('fleet')).resources['fleetform_machine.arm']?.ids.machine_id as string;
  expect(apply.stdout).toContain(
    `Outputs:\n\narm_id = "${id}"\nsecret_note = <sensitive>\nsummary = {\n  "machine": "${id}",\n  "name": "arm"\n}\n`,
  );
  expect(apply.stdout).not.toContain('hush-hush-value');
  const stateText = JSON.stringify(await q.backend().read('fleet'));
  expect(stateText).toContain(id);
  expect(stateText).not.toContain('hush-hush-value');

  // `output` only reads the state (it takes no lock): the four run at once.
  const [one, json, secret, nope] = await Promise.all([
    q.runBare('output', 'arm_id'),
    q.runBare('output', '--json'),
    q.runBare('output', 'secret_note'),
    q.runBare('output', 'nope'),
  ]);
  expect(one).toEqual({ code: 0, stdout: `${id}\n`, stderr: '' });
  const all = JSON.parse(json.stdout) as Record<string, Record<string, { value: unknown; sensitive: boolean }>>;
  expect(all.fleet?.arm_id).toEqual({ value: id, sensitive: false, known: true });
  expect(all.fleet?.secret_note).toEqual({ value: null, sensitive: true, known: true });
  expect(secret.code).toBe(1);
  expect(secret.stderr).toContain('output secret_note is sensitive');
  expect(nope.stderr).toContain('error: nope: no output named nope');

  // A new output with nothing else to change is kept by the next apply all the same.
  synth(q, (s) => {
    const m = new Machine(s, 'arm', { name: 'arm' });
    new TerraformOutput(s, 'arm_id', { value: m.machineId });
    new TerraformOutput(s, 'greeting', { value: 'hello' });
  });
  const again = await q.run('apply', '--auto-approve');
  expect(again.stdout).toContain('Outputs:\n\narm_id');
  const [greeting, summary] = await Promise.all([q.runBare('output', 'greeting'), q.runBare('output', 'summary')]);
  expect(greeting.stdout).toBe('hello\n');
  expect(summary.code).toBe(1);
});

test("what the service chooses (a job's framework, a custom job's container) is known after apply, and the next plan has no changes", async () => {
  const q = await project();
  synth(q, (s) => {
    new TrainingJob(s, 'managed', {
      dataset: q.credentials.datasetId,
      modelName: 'boxes',
      modelVersion: '1',
      modelType: ModelType.OBJECT_DETECTION,
      tags: ['box'],
    });
    new CustomTrainingJob(s, 'custom', {
      dataset: q.credentials.datasetId,
      registryItemId: 'acme:trainer',
      registryItemVersion: '0.3.0',
      modelName: 'seg',
      modelVersion: '1',
    });
  });
  const plan = await q.run('plan');
  expect(plan.code).toBe(0);
  expect(plan.stdout).toMatch(/\+ model_framework\s+= \(known after apply\)/);
  expect(plan.stdout).toMatch(/\+ container_version\s+= \(known after apply\)/);
  expect(plan.stdout).not.toContain('MODEL_FRAMEWORK_UNSPECIFIED');
  expect(plan.stdout).not.toMatch(/container_version\s+= ""/);

  expect((await q.run('apply', '--auto-approve')).code).toBe(0);
  const jobs = await q.client.mlTrainingClient.listTrainingJobs(q.credentials.organizationId);
  expect(jobs.map((j) => j.containerVersion).filter((v) => v === '')).toEqual([]);
  const again = await q.run('plan', '--detailed-exitcode');
  expect(again.code).toBe(0);
  expect(again.stdout).toContain('No changes.');
});
