import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { unescapeTemplate } from '../../src/domain/template-escape';
import { appliedSeed, openEmulatorProject, type CliResult, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(120_000);

interface JsonChange {
  readonly path: string;
  readonly kind: string;
  readonly before: unknown;
  readonly after: unknown;
}

interface JsonPlan {
  readonly resource_changes: ReadonlyArray<{
    readonly address: string;
    readonly change: { readonly actions: readonly string[] };
    readonly attribute_changes: readonly JsonChange[];
    readonly drift: readonly JsonChange[];
  }>;
}

type MachineConfigDoc = { components: Array<{ name: string; attributes?: Record<string, unknown> }> } & Record<string, unknown>;

const STATE_FILE = ['.fleetform', 'state', 'fleet.state.json'] as const;
/** A plan without changes, under the line naming the service the project's emulator is. */
const noChanges = (project: EmulatorProject) =>
  `Service: ${project.env.FLEETFORM_ENDPOINT as string}\n\nNo changes. Your fleet matches the configuration.\nPlan: 0 to add, 0 to change, 0 to destroy.\n`;

/** Actions and changes per address, from `plan --json`. */
function planSummary(
  result: CliResult,
): Record<string, { actions: readonly string[]; changes: readonly JsonChange[]; drift: readonly JsonChange[] }> {
  expect(result.stderr).toBe('');
  const doc = JSON.parse(result.stdout) as JsonPlan;
  return Object.fromEntries(
    doc.resource_changes.map((c) => [c.address, { actions: c.change.actions, changes: c.attribute_changes, drift: c.drift }]),
  );
}

function stateFile(p: EmulatorProject): string {
  return path.join(p.dir, ...STATE_FILE);
}

async function stateIds(p: EmulatorProject, address: string): Promise<Readonly<Record<string, string>>> {
  const entry = (await p.backend().read('fleet')).resources[address];
  if (!entry) throw new Error(`${address} not in state`);
  return entry.ids;
}

/** Sets one sensor's timeout directly on the service, as someone editing the machine by hand would. */
async function driftTimeout(p: EmulatorProject, partId: string, timeoutMs: number): Promise<void> {
  const part = await p.client.appClient.getMachinePart(partId);
  const config = structuredClone(part.config) as MachineConfigDoc;
  const sensor = config.components.find((c) => c.name === 'ultrasonic-1');
  if (!sensor?.attributes) throw new Error('sensor missing');
  sensor.attributes.timeout_ms = timeoutMs;
  await p.client.appClient.updateMachinePart(part.id, part.name, config, part.lastUpdated);
}

/** The machine config the synthesized app declares for one machine, as JSON. */
async function synthesizedConfig(p: EmulatorProject, machine: string): Promise<MachineConfigDoc> {
  const doc = JSON.parse(await fs.readFile(path.join(p.outdir, 'stacks', 'fleet', 'cdk.tf.json'), 'utf8')) as {
    resource: { fleetform_machine: Record<string, { config: string; secret_env?: Record<string, string> }> };
  };
  const body = doc.resource.fleetform_machine[machine];
  if (!body) throw new Error(`${machine} not synthesized`);
  // What the service gets: Terraform's escapes read back, secret env entries in their modules.
  const config = JSON.parse(unescapeTemplate(body.config)) as MachineConfigDoc & {
    modules?: Array<{ name: string; env?: Record<string, string> }>;
  };
  for (const [key, value] of Object.entries(body.secret_env ?? {})) {
    const [moduleName, envKey] = key.split('.') as [string, string];
    const module = config.modules?.find((m) => m.name === moduleName);
    if (module) module.env = { ...module.env, [envKey]: unescapeTemplate(value) };
  }
  return config;
}

/** Creates a machine directly on the service with this config; resolves to its id and main part id. */
async function machineByHand(p: EmulatorProject, name: string, config: MachineConfigDoc): Promise<{ machineId: string; partId: string }> {
  const machineId = await p.client.appClient.newMachine(name, p.credentials.locationId);
  const parts = await p.client.appClient.getMachineParts(machineId);
  const main = parts.find((x) => x.mainPart);
  if (!main) throw new Error(`no main part for ${name}`);
  await p.client.appClient.updateMachinePart(main.id, main.name, config, main.lastUpdated);
  return { machineId, partId: main.id };
}

/**
 * The default fleet applied once, on an emulator of its own, kept closed: a test that starts
 * from an applied fleet opens a copy of it (its emulator's data and its state), so each still
 * has a project and emulator of its own without an apply of its own. Made by the first test that needs it.
 */
const appliedFleet = appliedSeed('ff-state-seed-', (seed) => seed.synth());

/** A project of its own, copied from the applied fleet; synthesized again, as the synthesized app names its own folder. */
async function openApplied(prefix: string): Promise<EmulatorProject> {
  const p = await openEmulatorProject(prefix, { from: await appliedFleet() });
  p.synth();
  return p;
}

describe('plan --refresh=false', () => {
  let p: EmulatorProject;

  // Each test starts from a project and emulator of its own: none depends on another having run.
  beforeEach(async () => {
    p = await openApplied('ff-refresh-');
  });

  afterEach(async () => {
    await p?.close();
  });

  test('a change made on the service is not seen without refresh, and is seen with it', async () => {
    await driftTimeout(p, (await stateIds(p, 'fleetform_machine.picker-1')).part_id as string, 999);

    const trusting = await p.run('plan', '--refresh=false', '--detailed-exitcode');
    expect(trusting).toEqual({ code: 0, stdout: noChanges(p), stderr: '' });
    const trustingJson = planSummary(await p.run('plan', '--refresh=false', '--json'));
    expect(trustingJson['fleetform_machine.picker-1']).toEqual({ actions: ['no-op'], changes: [], drift: [] });

    const refreshed = await p.run('plan', '--detailed-exitcode');
    expect(refreshed.code).toBe(2);
    expect(refreshed.stderr).toBe('');
    expect(refreshed.stdout).toContain(
      '  # fleetform_machine.picker-1 has changed\n      ~ config.components.ultrasonic-1.attributes.timeout_ms = 150 -> 999\n',
    );
    expect(refreshed.stdout).toContain(
      '  ~ resource "fleetform_machine" "picker-1" {\n      ~ config.components.ultrasonic-1.attributes.timeout_ms = 999 -> 150\n      # config.modules.acme_sensors: policy ~1.2',
    );
    expect(refreshed.stdout).not.toContain('"picker-2"');
    expect(refreshed.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
    // the explicit spelling of the default is the same as the default
    expect(planSummary(await p.run('plan', '--refresh=true', '--json'))['fleetform_machine.picker-1']?.drift).toEqual([
      { path: 'config.components.ultrasonic-1.attributes.timeout_ms', kind: 'change', before: 150, after: 999 },
    ]);
  });

  test('a change of the desired stacks is planned without refresh, against the state', async () => {
    await driftTimeout(p, (await stateIds(p, 'fleetform_machine.picker-1')).part_id as string, 999);
    p.synth({ timeoutMs: 200 });
    const change = (before: number) => [
      { path: 'config.components.ultrasonic-1.attributes.timeout_ms', kind: 'change', before, after: 200 },
    ];

    const trusting = planSummary(await p.run('plan', '--refresh=false', '--json'));
    expect(trusting).toEqual({
      'fleetform_dataset.boxes': { actions: ['no-op'], changes: [], drift: [] },
      'fleetform_machine.picker-1': { actions: ['update'], changes: change(150), drift: [] },
      'fleetform_machine.picker-2': { actions: ['update'], changes: change(150), drift: [] },
    });
    const text = await p.run('plan', '--refresh=false', '--detailed-exitcode');
    expect(text.code).toBe(2);
    expect(text.stdout).not.toContain('changed outside of fleetform');
    expect(text.stdout).toContain('Plan: 0 to add, 2 to change, 0 to destroy.');

    const refreshed = planSummary(await p.run('plan', '--json'));
    expect(refreshed['fleetform_machine.picker-1']).toEqual({
      actions: ['update'],
      changes: change(999),
      drift: [{ path: 'config.components.ultrasonic-1.attributes.timeout_ms', kind: 'change', before: 150, after: 999 }],
    });
    expect(refreshed['fleetform_machine.picker-2']).toEqual({ actions: ['update'], changes: change(150), drift: [] });
  });

  test('a --refresh value other than true or false is refused', async () => {
    const stateBefore = await fs.readFile(stateFile(p), 'utf8');
    const typo = await p.run('plan', '--refresh=no');
    expect(typo).toEqual({ code: 1, stdout: '', stderr: 'error: --refresh: expected true or false, not "no"\n' });
    expect(await fs.readFile(stateFile(p), 'utf8')).toBe(stateBefore);
  });
});

describe('import', () => {
  let p: EmulatorProject;
  let matching: { machineId: string; partId: string };
  let differing: { machineId: string; partId: string };
  let datasetId: string;

  // Each test starts from a project and emulator of its own: none depends on another having run.
  beforeEach(async () => {
    p = await openEmulatorProject('ff-import-');
    p.synth();
    const config = await synthesizedConfig(p, 'picker-1');
    matching = await machineByHand(p, 'picker-1', config);
    const edited = structuredClone(config);
    const sensor = edited.components.find((c) => c.name === 'ultrasonic-1');
    if (!sensor?.attributes) throw new Error('sensor missing');
    sensor.attributes.timeout_ms = 999;
    differing = await machineByHand(p, 'picker-2', edited);
    datasetId = await p.client.datasetClient.createDataset('boxes', p.credentials.organizationId);
  });

  afterEach(async () => {
    await p?.close();
  });

  test('a machine made on the service with the declared config imports with no change to plan', async () => {
    const imported = await p.run('import', 'fleetform_machine.picker-1', matching.machineId);
    expect(imported).toEqual({
      code: 0,
      stdout: `Imported ${matching.machineId} as fleetform_machine.picker-1 in stack fleet. Run \`fleetform plan\` to see how it differs from the configuration.\n`,
      stderr: '',
    });
    expect(await stateIds(p, 'fleetform_machine.picker-1')).toEqual({ machine_id: matching.machineId, part_id: matching.partId });
    expect((await fs.stat(stateFile(p))).mode & 0o777).toBe(0o600);
    expect(await fs.readFile(stateFile(p), 'utf8')).not.toContain('token-one');

    const plan = planSummary(await p.run('plan', '--json'));
    expect(plan['fleetform_machine.picker-1']).toEqual({ actions: ['no-op'], changes: [], drift: [] });
    expect(plan['fleetform_machine.picker-2']?.actions).toEqual(['create']);
    expect(plan['fleetform_dataset.boxes']?.actions).toEqual(['create']);
  });

  test('a dataset made on the service imports', async () => {
    const imported = await p.run('import', 'fleetform_dataset.boxes', datasetId);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toBe(
      `Imported ${datasetId} as fleetform_dataset.boxes in stack fleet. Run \`fleetform plan\` to see how it differs from the configuration.\n`,
    );
    expect(await stateIds(p, 'fleetform_dataset.boxes')).toEqual({ id: datasetId });
    const plan = planSummary(await p.run('plan', '--json'));
    expect(plan['fleetform_dataset.boxes']).toEqual({ actions: ['no-op'], changes: [], drift: [] });
  });

  /** Imports the machine made with the declared config and the dataset made by hand. */
  async function importMatching(): Promise<void> {
    expect((await p.run('import', 'fleetform_machine.picker-1', matching.machineId)).code).toBe(0);
    expect((await p.run('import', 'fleetform_dataset.boxes', datasetId)).code).toBe(0);
  }

  test('a machine whose config differs imports, and the plan shows only the difference', async () => {
    await importMatching();
    expect((await p.run('import', 'fleetform_machine.picker-2', differing.machineId)).code).toBe(0);
    const plan = planSummary(await p.run('plan', '--json'));
    expect(plan).toEqual({
      'fleetform_dataset.boxes': { actions: ['no-op'], changes: [], drift: [] },
      'fleetform_machine.picker-1': { actions: ['no-op'], changes: [], drift: [] },
      'fleetform_machine.picker-2': {
        actions: ['update'],
        changes: [{ path: 'config.components.ultrasonic-1.attributes.timeout_ms', kind: 'change', before: 999, after: 150 }],
        drift: [],
      },
    });
    const text = await p.run('plan', '--detailed-exitcode');
    expect(text.code).toBe(2);
    expect(text.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');

    expect((await p.run('apply', '--auto-approve')).code).toBe(0);
    expect(await p.run('plan', '--detailed-exitcode')).toEqual({ code: 0, stdout: noChanges(p), stderr: '' });
    const sensor = ((await p.client.appClient.getMachinePart(differing.partId)).config as MachineConfigDoc).components.find(
      (c) => c.name === 'ultrasonic-1',
    );
    expect(sensor?.attributes?.timeout_ms).toBe(150);
  });

  test('import refuses an undeclared address, a managed address, an unknown id and an object managed elsewhere, leaving the state as it was', async () => {
    await importMatching();
    expect((await p.run('import', 'fleetform_machine.picker-2', differing.machineId)).code).toBe(0);
    expect((await p.run('apply', '--auto-approve')).code).toBe(0);
    const refused = async (args: readonly string[], stderr: string) => {
      const before = await fs.readFile(stateFile(p), 'utf8');
      const result = await p.run('import', ...args);
      expect(result).toEqual({ code: 1, stdout: '', stderr });
      expect(await fs.readFile(stateFile(p), 'utf8')).toBe(before);
    };
    await refused(
      ['fleetform_machine.picker-9', matching.machineId],
      'error: fleetform_machine.picker-9: no stack declares fleetform_machine.picker-9\n  hint: declare it in the app first, then import\n',
    );
    await refused(
      ['fleetform_machine.picker-1', differing.machineId],
      'error: fleetform_machine.picker-1: fleetform_machine.picker-1 is already managed\n  hint: fleetform state rm it first to import another object\n',
    );

    expect((await p.runBare('state', 'rm', 'fleetform_machine.picker-1')).code).toBe(0);
    expect((await p.runBare('state', 'rm', 'fleetform_dataset.boxes')).code).toBe(0);
    await refused(
      ['fleetform_machine.picker-1', 'no-such-machine'],
      'error: fleetform_machine.picker-1: the service has no fleetform_machine with id "no-such-machine"\n  hint: give the id the service assigned to the object (not its name)\n',
    );
    await refused(
      ['fleetform_machine.picker-1', 'picker-1'],
      'error: fleetform_machine.picker-1: the service has no fleetform_machine with id "picker-1"\n  hint: give the id the service assigned to the object (not its name)\n',
    );
    await refused(
      ['fleetform_dataset.boxes', 'no-such-dataset'],
      'error: fleetform_dataset.boxes: the service has no fleetform_dataset with id "no-such-dataset"\n  hint: give the id the service assigned to the object (not its name)\n',
    );
    await refused(
      ['fleetform_machine.picker-1', differing.machineId],
      `error: fleetform_machine.picker-1: fleetform_machine ${differing.machineId} is already managed as fleetform_machine.picker-2\n  hint: an object is managed at one address only: \`fleetform state rm fleetform_machine.picker-2\` first to move it\n`,
    );
    expect(await p.runBare('state', 'list')).toEqual({ code: 0, stdout: 'fleet\tfleetform_machine.picker-2\n', stderr: '' });

    expect((await p.run('import', 'fleetform_machine.picker-1', matching.machineId)).code).toBe(0);
    expect((await p.run('import', 'fleetform_dataset.boxes', datasetId)).code).toBe(0);
    expect(await p.run('plan', '--detailed-exitcode')).toEqual({ code: 0, stdout: noChanges(p), stderr: '' });
    expect((await fs.stat(stateFile(p))).mode & 0o777).toBe(0o600);
  });
});

describe('import of a training job', () => {
  let p: EmulatorProject;

  // Each test starts from a project and emulator of its own: none depends on another having run.
  beforeEach(async () => {
    p = await openEmulatorProject('ff-import-job-');
    p.synth({ machines: [], jobVersion: 'v1' });
  });

  afterEach(async () => {
    await p?.close();
  });

  test('a custom job imported at a managed job address is refused at that address, state untouched', async () => {
    const { organizationId, datasetId } = p.credentials;
    const custom = await p.client.mlTrainingClient.submitCustomTrainingJob(
      organizationId,
      datasetId,
      'acme:trainer',
      '0.3.0',
      'by-hand',
      'v1',
    );
    const result = await p.run('import', 'fleetform_training_job.detector', custom);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: fleetform_training_job.detector: job ${custom} is a custom training job\n  hint: import it at a fleetform_custom_training_job address\n`,
    });
    expect(await p.runBare('state', 'list')).toEqual({ code: 0, stdout: '', stderr: '' });
  });
});

describe('state rm', () => {
  let p: EmulatorProject;

  // Each test starts from a project and emulator of its own: none depends on another having run.
  beforeEach(async () => {
    p = await openApplied('ff-state-rm-');
  });

  afterEach(async () => {
    await p?.close();
  });

  test('rm forgets the entry and leaves the service object as it was; the next plan refuses to create it again and names the machine to import', async () => {
    const ids = await stateIds(p, 'fleetform_machine.picker-2');
    const partBefore = await p.client.appClient.getMachinePart(ids.part_id as string);

    const rm = await p.runBare('state', 'rm', 'fleetform_machine.picker-2');
    expect(rm).toEqual({
      code: 0,
      stdout: 'Removed fleetform_machine.picker-2 from the state of stack fleet; the remote object is untouched.\n',
      stderr: '',
    });
    expect(await p.runBare('state', 'list')).toEqual({
      code: 0,
      stdout: 'fleet\tfleetform_dataset.boxes\nfleet\tfleetform_machine.picker-1\n',
      stderr: '',
    });
    expect((await fs.stat(stateFile(p))).mode & 0o777).toBe(0o600);

    const machine = await p.client.appClient.getMachine(ids.machine_id as string);
    expect(machine.name).toBe('picker-2');
    const partAfter = await p.client.appClient.getMachinePart(ids.part_id as string);
    expect(partAfter.config).toEqual(partBefore.config);
    expect(partAfter.lastUpdated).toEqual(partBefore.lastUpdated);

    // the service keeps machine names unique in a location: the plan says so, naming the machine to import, before any write
    const plan = await p.run('plan', '--detailed-exitcode');
    expect(plan.code).toBe(1);
    expect(plan.stdout).toContain(
      `Error: fleetform_machine.picker-2.name: location ${p.credentials.locationId} already has a machine named picker-2 (id ${ids.machine_id as string})\n` +
        `  hint: if fleetform manages it under another address, move that address instead of recreating it (fleetform state mv OLD NEW); to manage it with this resource: fleetform import fleetform_machine.picker-2 ${ids.machine_id as string}; or choose another name\n`,
    );
    expect(await p.runBare('state', 'list')).toEqual({
      code: 0,
      stdout: 'fleet\tfleetform_dataset.boxes\nfleet\tfleetform_machine.picker-1\n',
      stderr: '',
    });
    expect((await p.client.appClient.listMachines(p.credentials.locationId)).map((m) => m.name).sort()).toEqual(['picker-1', 'picker-2']);
    expect((await p.client.appClient.getMachinePart(ids.part_id as string)).lastUpdated).toEqual(partBefore.lastUpdated);

    // importing the same object again brings back the state as it was
    expect((await p.run('import', 'fleetform_machine.picker-2', ids.machine_id as string)).code).toBe(0);
    expect(await p.run('plan', '--detailed-exitcode')).toEqual({ code: 0, stdout: noChanges(p), stderr: '' });
  });

  test('rm of an address not in state is an error and leaves the state intact', async () => {
    const before = await fs.readFile(stateFile(p), 'utf8');
    const rm = await p.runBare('state', 'rm', 'fleetform_machine.picker-9');
    expect(rm).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: fleetform_machine.picker-9: no resource fleetform_machine.picker-9 in state\n  hint: see `fleetform state list`\n',
    });
    expect(await fs.readFile(stateFile(p), 'utf8')).toBe(before);
    expect((await fs.stat(stateFile(p))).mode & 0o777).toBe(0o600);
    expect(await p.runBare('state', 'list')).toEqual({
      code: 0,
      stdout: 'fleet\tfleetform_dataset.boxes\nfleet\tfleetform_machine.picker-1\nfleet\tfleetform_machine.picker-2\n',
      stderr: '',
    });
  });
});
