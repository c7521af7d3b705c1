/**
 * Each RPC of the provider's handlers, in-process against the emulator, with requests
 * shaped as Terraform sends them and the answers Terraform expects: schema, validation,
 * configure, upgrade, plan (create, update, replace, destroy), apply, read (drift, gone)
 * and import.
 */
import { createServiceClient } from '../../src/api/client';
import { TrainingStatus } from '../../src/domain/training';
import { defaultKinds } from '../../src/engine/kinds';
import type { TerraformType } from '../../src/engine/kind-declaration';
import type { ProviderBlock, ProviderConnection } from '../../src/provider/provider-block';
import { providerHandlers } from '../../src/provider/provider-handlers';
import * as tf from '../../src/provider/protocol/generated/tfplugin6/tfplugin6_pb';
import type { ProviderHandlers } from '../../src/provider/protocol/services';
import {
  decodeMsgpack,
  encodeMsgpack,
  unknownValue,
  type TerraformObject,
  type TerraformValue,
} from '../../src/provider/values/terraform-value';
import { openEmulatorProject, type EmulatorProject } from '../e2e/fleet-fixture';

jest.setTimeout(60_000);

let project: EmulatorProject;
let handlers: ProviderHandlers;
let closeHandlers: () => Promise<void>;
const connectedTo: ProviderBlock[] = [];
/** Each resource type's object type, as the schema Terraform receives declares it. */
const types = new Map<string, TerraformType>();

beforeAll(async () => {
  project = await openEmulatorProject('ff-rpcs-');
  const made = providerHandlers({
    kinds: defaultKinds(),
    env: project.env,
    // As the provider executable connects to a service named by the block or FLEETFORM_* (no emulator defaults).
    connect: async (block): Promise<ProviderConnection> => {
      connectedTo.push(block);
      const client = await createServiceClient({
        serviceHost: block.endpoint as string,
        credentials: { type: 'api-key', authEntity: block.apiKeyId as string, payload: block.apiKey as string },
      });
      return {
        client,
        endpoint: block.endpoint as string,
        defaults: {},
        apiKey: block.apiKey as string,
        close: async () => client.close(),
      };
    },
  });
  handlers = made.handlers;
  closeHandlers = made.close;
  const schema = await handlers.GetProviderSchema(new tf.GetProviderSchema_Request());
  for (const [type, s] of Object.entries(schema.resourceSchemas)) {
    const fields: Record<string, TerraformType> = {};
    for (const a of s.block?.attributes ?? []) fields[a.name] = JSON.parse(Buffer.from(a.type).toString('utf8')) as TerraformType;
    types.set(type, ['object', fields]);
  }
});

afterAll(async () => {
  await closeHandlers?.();
  await project?.close();
});

function typeOf(typeName: string): TerraformType {
  const t = types.get(typeName);
  if (!t) throw new Error(`no schema for ${typeName}`);
  return t;
}
const dv = (typeName: string, value: TerraformValue): tf.DynamicValue =>
  new tf.DynamicValue({ msgpack: encodeMsgpack(value, typeOf(typeName)) });
const nothing = (typeName: string): tf.DynamicValue => dv(typeName, null);
function valueOf(typeName: string, v: tf.DynamicValue | undefined): TerraformObject | null {
  return decodeMsgpack(v?.msgpack ?? new Uint8Array(), typeOf(typeName)) as TerraformObject | null;
}
const severities = (d: readonly tf.Diagnostic[]): tf.Diagnostic_Severity[] => d.map((x) => x.severity);
const attributeNames = (p: tf.AttributePath | undefined): string[] =>
  (p?.steps ?? []).map((s) => (s.selector.case === 'attributeName' ? s.selector.value : '?'));
const errorsOf = (d: readonly tf.Diagnostic[]): string[] =>
  d.filter((x) => x.severity === tf.Diagnostic_Severity.ERROR).map((x) => `${x.summary} ${x.detail}`);

function machineConfig(version: string, timeoutMs = 150): string {
  return JSON.stringify({
    components: [
      { name: 'board-1', api: 'rdk:component:board', model: 'acme:sensors:pi-board', attributes: {}, depends_on: [] },
      {
        name: 'ultrasonic-1',
        api: 'rdk:component:sensor',
        model: 'acme:sensors:hc-sr04',
        attributes: { trigger_pin: '11', board: 'board-1', timeout_ms: timeoutMs },
        depends_on: ['board-1'],
      },
    ],
    services: [],
    modules: [
      { type: 'registry', name: 'acme_sensors', module_id: 'acme:sensors', version, env: { PATH: '/opt/acme/bin:${environment.PATH}' } },
    ],
  });
}

/** A machine's configuration as Terraform decodes it: computed attributes null. */
function machine(name: string, version = '~1.2'): TerraformObject {
  return {
    name,
    location_id: null,
    config: machineConfig(version),
    secret_env: { 'acme_sensors.API_TOKEN': 'token-one' },
    deploy_models: null,
    health_gate: null,
    health_analysis: null,
    acknowledged: null,
    id: null,
    part_id: null,
  };
}

/** Terraform's proposed new state: the config, computed attributes left null by it taken from the prior state. */
function proposed(config: TerraformObject, prior: TerraformObject | null, computed: readonly string[]): TerraformObject {
  const out = { ...config };
  for (const k of computed) if (out[k] === null && prior) out[k] = prior[k] ?? null;
  return out;
}

interface Managed {
  readonly state: TerraformObject;
  readonly private: Uint8Array<ArrayBuffer>;
}

/** What Terraform 1.11 says it can take: write-only attributes among them. */
const TERRAFORM_1_11 = new tf.ClientCapabilities({ writeOnlyAttributesAllowed: true });

async function plan(
  typeName: string,
  prior: Managed | null,
  config: TerraformObject | null,
  computed: readonly string[],
): Promise<tf.PlanResourceChange_Response> {
  return handlers.PlanResourceChange(
    new tf.PlanResourceChange_Request({
      typeName,
      priorState: dv(typeName, prior?.state ?? null),
      proposedNewState: dv(typeName, config ? proposed(config, prior?.state ?? null, computed) : null),
      config: dv(typeName, config),
      priorPrivate: prior?.private ?? new Uint8Array(),
      clientCapabilities: TERRAFORM_1_11,
    }),
  );
}

/** Plans and applies as Terraform does; the new state and private bytes. */
async function planAndApply(
  typeName: string,
  prior: Managed | null,
  config: TerraformObject | null,
  computed: readonly string[],
): Promise<Managed> {
  const planned = await plan(typeName, prior, config, computed);
  expect(errorsOf(planned.diagnostics)).toEqual([]);
  const applied = await handlers.ApplyResourceChange(
    new tf.ApplyResourceChange_Request({
      typeName,
      priorState: dv(typeName, prior?.state ?? null),
      plannedState: planned.plannedState ?? nothing(typeName),
      config: dv(typeName, config),
      plannedPrivate: planned.plannedPrivate,
    }),
  );
  expect(errorsOf(applied.diagnostics)).toEqual([]);
  return { state: valueOf(typeName, applied.newState) ?? {}, private: applied.private };
}

async function read(typeName: string, current: Managed): Promise<tf.ReadResource_Response> {
  return handlers.ReadResource(
    new tf.ReadResource_Request({
      typeName,
      currentState: dv(typeName, current.state),
      private: current.private,
      clientCapabilities: TERRAFORM_1_11,
    }),
  );
}

const MACHINE = 'fleetform_machine';
const MACHINE_COMPUTED = ['location_id', 'id', 'part_id'];

test('GetProviderSchema: every kind, required/optional/computed/sensitive as declared, version 0', async () => {
  const schema = await handlers.GetProviderSchema(new tf.GetProviderSchema_Request());
  expect(schema.diagnostics).toEqual([]);
  expect([...types.keys()].sort()).toEqual([
    'fleetform_custom_training_job',
    'fleetform_data_pipeline',
    'fleetform_dataset',
    'fleetform_fragment',
    'fleetform_fragment_tag',
    'fleetform_location',
    'fleetform_machine',
    'fleetform_machine_part',
    'fleetform_ml_model',
    'fleetform_organization_defaults',
    'fleetform_training_job',
  ]);
  const flags = (type: string) =>
    Object.fromEntries(
      (schema.resourceSchemas[type]?.block?.attributes ?? []).map((a) => [
        a.name,
        [a.required && 'required', a.optional && 'optional', a.computed && 'computed', a.sensitive && 'sensitive']
          .filter(Boolean)
          .join(' '),
      ]),
    );
  expect(flags('fleetform_location')).toEqual({
    name: 'required',
    parent_location_id: 'optional',
    organization_id: 'optional computed',
    id: 'computed',
  });
  expect(flags(MACHINE)).toEqual({
    name: 'required',
    location_id: 'optional computed',
    config: 'required',
    secret_env: 'optional sensitive',
    deploy_models: 'optional',
    health_gate: 'optional',
    health_analysis: 'optional',
    acknowledged: 'optional',
    id: 'computed',
    part_id: 'computed',
    secret_env_digest: 'computed',
    secrets: 'optional',
    secrets_digest: 'computed',
  });
  // A secret as a whole is write-only: Terraform never keeps it in its plan or state.
  expect((schema.resourceSchemas[MACHINE]?.block?.attributes ?? []).filter((a) => a.writeOnly).map((a) => a.name)).toEqual(['secret_env']);
  expect(flags('fleetform_dataset')).toEqual({
    name: 'required',
    organization_id: 'optional computed',
    type: 'optional computed',
    id: 'computed',
  });
  expect(flags('fleetform_training_job')).toMatchObject({
    dataset_id: 'required',
    model_name: 'required',
    model_version: 'required',
    tags: 'required',
    retain_on_delete: 'optional computed',
    id: 'computed',
    status: 'computed',
    trained_version: 'computed',
    error_message: 'computed',
    log_tail: 'computed',
  });
  expect(schema.resourceSchemas[MACHINE]?.version).toBe(0n);
  expect(typeOf('fleetform_training_job')).toEqual([
    'object',
    expect.objectContaining({ tags: ['list', 'string'], retain_on_delete: 'bool', log_tail: ['list', 'string'] }),
  ]);
  expect(flags('fleetform_custom_training_job')).toMatchObject({ arguments: 'optional computed' });
  expect(schema.provider?.block?.attributes.map((a) => a.name)).toEqual([
    'organization_id',
    'location_id',
    'endpoint',
    'api_key_id',
    'api_key',
    'wait_for_training',
  ]);
  expect(schema.serverCapabilities?.planDestroy).toBe(true);
});

const PROVIDER_TYPE: TerraformType = [
  'object',
  {
    organization_id: 'string',
    location_id: 'string',
    endpoint: 'string',
    api_key_id: 'string',
    api_key: 'string',
    wait_for_training: 'string',
  },
];

test('ValidateProviderConfig accepts a block (unknowns too) and reports undecodable bytes', async () => {
  const ok = await handlers.ValidateProviderConfig(
    new tf.ValidateProviderConfig_Request({
      config: new tf.DynamicValue({ msgpack: encodeMsgpack({ endpoint: unknownValue }, PROVIDER_TYPE) }),
    }),
  );
  expect(ok.diagnostics).toEqual([]);
  const bad = await handlers.ValidateProviderConfig(
    new tf.ValidateProviderConfig_Request({
      config: new tf.DynamicValue({ msgpack: encodeMsgpack({ endpoint: 5 }, ['object', { endpoint: 'number' }]) }),
    }),
  );
  expect(severities(bad.diagnostics)).toEqual([tf.Diagnostic_Severity.ERROR]);
  expect(bad.diagnostics[0]?.summary).toContain('endpoint');
});

test('ConfigureProvider: the block wins over FLEETFORM_*, unset settings come from the environment', async () => {
  const block = { organization_id: null, location_id: null, endpoint: project.env.FLEETFORM_ENDPOINT, api_key_id: null, api_key: null };
  const configured = await handlers.ConfigureProvider(
    new tf.ConfigureProvider_Request({ config: new tf.DynamicValue({ msgpack: encodeMsgpack(block, PROVIDER_TYPE) }) }),
  );
  expect(configured.diagnostics).toEqual([]);
  // The first call that needs the service connects with the configured block.
  const gone = await handlers.ImportResourceState(new tf.ImportResourceState_Request({ typeName: 'fleetform_dataset', id: 'no-such-id' }));
  expect(errorsOf(gone.diagnostics)).toEqual([expect.stringContaining('the service has no fleetform_dataset with id "no-such-id"')]);
  expect(connectedTo.at(-1)).toEqual({
    endpoint: project.env.FLEETFORM_ENDPOINT,
    apiKeyId: project.env.FLEETFORM_API_KEY_ID,
    apiKey: project.env.FLEETFORM_API_KEY,
  });
});

describe('ValidateResourceConfig', () => {
  const validate = (typeName: string, value: tf.DynamicValue) =>
    handlers.ValidateResourceConfig(new tf.ValidateResourceConfig_Request({ typeName, config: value }));

  test('a valid machine, and one with unknown values, have no diagnostics', async () => {
    expect((await validate(MACHINE, dv(MACHINE, machine('m')))).diagnostics).toEqual([]);
    const unknowns = { ...machine('m'), name: unknownValue, config: unknownValue, secret_env: { 'acme_sensors.API_TOKEN': unknownValue } };
    expect((await validate(MACHINE, dv(MACHINE, unknowns))).diagnostics).toEqual([]);
  });

  test("a value the kind's rule refuses is an error at its attribute, with fleetform validate's message", async () => {
    const res = await validate(MACHINE, dv(MACHINE, { ...machine(''), name: '' }));
    expect(severities(res.diagnostics)).toEqual([tf.Diagnostic_Severity.ERROR]);
    expect(res.diagnostics[0]?.summary).toContain('a machine needs a name');
    expect(attributeNames(res.diagnostics[0]?.attribute)).toEqual(['name']);
    const job = await validate(
      'fleetform_training_job',
      dv('fleetform_training_job', { dataset_id: '', model_name: 'm', model_version: '1', model_type: 'x', tags: ['a'] }),
    );
    expect(attributeNames(job.diagnostics[0]?.attribute)).toEqual(['dataset_id']);
  });

  test('a value of the wrong type is an error at its attribute', async () => {
    const wrong = new tf.DynamicValue({ msgpack: encodeMsgpack({ name: 7 }, ['object', { name: 'number' }]) });
    const res = await validate(MACHINE, wrong);
    expect(severities(res.diagnostics)).toEqual([tf.Diagnostic_Severity.ERROR]);
    expect(attributeNames(res.diagnostics[0]?.attribute)).toEqual(['name']);
    expect(res.diagnostics[0]?.summary).toContain('expected a value of type "string"');
  });

  test('an attribute the schema does not have is an error naming it', async () => {
    const extra = new tf.DynamicValue({
      msgpack: encodeMsgpack({ name: 'm', config: '{}', sensitive_env: 'x' }, [
        'object',
        { name: 'string', config: 'string', sensitive_env: 'string' },
      ]),
    });
    const res = await validate(MACHINE, extra);
    expect(severities(res.diagnostics)).toEqual([tf.Diagnostic_Severity.ERROR]);
    expect(res.diagnostics[0]?.summary).toContain('sensitive_env');
  });

  test('an unknown resource type is an error listing the types', async () => {
    const res = await validate('fleetform_robot', new tf.DynamicValue());
    expect(errorsOf(res.diagnostics)).toEqual([expect.stringContaining('fleetform_machine')]);
  });
});

describe('UpgradeResourceState', () => {
  const upgrade = (version: bigint, json: unknown) =>
    handlers.UpgradeResourceState(
      new tf.UpgradeResourceState_Request({
        typeName: MACHINE,
        version,
        rawState: new tf.RawState({ json: Buffer.from(JSON.stringify(json)) }),
      }),
    );

  test('an attribute of a former layout is dropped, a new one starts null', async () => {
    const res = await upgrade(0n, { id: 'm1', part_id: 'p1', name: 'm', location_id: 'l', config: '{}', sensitive_env: { A: 'b' } });
    expect(res.diagnostics).toEqual([]);
    expect(valueOf(MACHINE, res.upgradedState)).toEqual({
      id: 'm1',
      part_id: 'p1',
      name: 'm',
      location_id: 'l',
      config: '{}',
      secret_env: null,
      deploy_models: null,
      health_gate: null,
      health_analysis: null,
      acknowledged: null,
      secret_env_digest: null,
      secrets: null,
      secrets_digest: null,
    });
  });

  test('state written by a newer schema version is an error', async () => {
    const res = await upgrade(1n, { id: 'm1' });
    expect(errorsOf(res.diagnostics)).toEqual([expect.stringContaining('written by a newer fleetform (schema 1, this one knows 0)')]);
    expect(res.upgradedState).toBeUndefined();
  });

  test('stored state of the wrong type is an error naming the attribute', async () => {
    const res = await upgrade(0n, { name: ['m'] });
    expect(severities(res.diagnostics)).toEqual([tf.Diagnostic_Severity.ERROR]);
    expect(attributeNames(res.diagnostics[0]?.attribute)).toEqual(['name']);
  });
});

describe('a machine: plan, apply, read, import', () => {
  // Each test makes the machines it needs under names of its own: none depends on another's.
  let made = 0;
  const newName = (): string => `rpc-${++made}`;
  const newMachine = (name: string): Promise<Managed> => planAndApply(MACHINE, null, machine(name), MACHINE_COMPUTED);

  test('plan of a create: computed ids unknown, location the one fleetform will send, config as given', async () => {
    const name = newName();
    const res = await plan(MACHINE, null, machine(name), MACHINE_COMPUTED);
    expect(res.diagnostics).toEqual([]);
    expect(res.requiresReplace).toEqual([]);
    expect(valueOf(MACHINE, res.plannedState)).toEqual({
      ...machine(name),
      location_id: project.credentials.locationId,
      id: unknownValue,
      part_id: unknownValue,
      // The secret stays out of the plan; its keyed digest stands for it.
      secret_env: null,
      secret_env_digest: expect.stringMatching(/^hmac-sha256:[0-9a-f]{64}$/),
      secrets: null,
      secrets_digest: null,
    });
  });

  test('apply of a create fills the ids; the machine is on the service with its config', async () => {
    const name = newName();
    const created = await newMachine(name);
    const onService = (await project.client.appClient.listMachines(project.credentials.locationId)).find((m) => m.name === name);
    expect(created.state).toEqual({
      ...machine(name),
      location_id: project.credentials.locationId,
      id: onService?.id,
      part_id: expect.any(String),
      secret_env: null,
      secret_env_digest: expect.stringMatching(/^hmac-sha256:/),
      secrets: null,
      secrets_digest: null,
    });
    expect(JSON.stringify(created.state)).not.toContain('token-one');
    const part = await project.client.appClient.getMachinePart(created.state.part_id as string);
    expect(part.machineId).toBe(onService?.id);
    expect(JSON.stringify(part.config)).toContain('"version":"~1.2"');
    // The write-only secret reached the service from the configuration.
    expect(JSON.stringify(part.config)).toContain('"API_TOKEN":"token-one"');
    expect(created.private.length).toBeGreaterThan(0);
    // Secrets are kept as digests in the private record, never in the clear.
    expect(Buffer.from(created.private).toString('utf8')).not.toContain('token-one');
  });

  test('read of an unchanged machine gives the state back', async () => {
    const created = await newMachine(newName());
    const res = await read(MACHINE, created);
    expect(res.diagnostics).toEqual([]);
    expect(valueOf(MACHINE, res.newState)).toEqual(created.state);
  });

  test('a secret an earlier layout kept in the clear leaves the state at the next read', async () => {
    const created = await newMachine(newName());
    const stale = { ...created.state, secret_env: { 'acme_sensors.API_TOKEN': 'token-one' } };
    const res = await read(MACHINE, { state: stale, private: created.private });
    expect(res.diagnostics).toEqual([]);
    expect(valueOf(MACHINE, res.newState)).toEqual(created.state);
  });

  test('a client without write-only attributes (OpenTofu) keeps the secret as a sensitive attribute', async () => {
    const name = newName();
    const res = await handlers.PlanResourceChange(
      new tf.PlanResourceChange_Request({
        typeName: MACHINE,
        priorState: dv(MACHINE, null),
        proposedNewState: dv(MACHINE, proposed(machine(name), null, MACHINE_COMPUTED)),
        config: dv(MACHINE, machine(name)),
      }),
    );
    expect(res.diagnostics).toEqual([]);
    expect(valueOf(MACHINE, res.plannedState)).toMatchObject({
      secret_env: { 'acme_sensors.API_TOKEN': 'token-one' },
      secret_env_digest: expect.stringMatching(/^hmac-sha256:/),
    });
  });

  test('plan of an unchanged config plans the prior state', async () => {
    const name = newName();
    const created = await newMachine(name);
    const res = await plan(MACHINE, created, machine(name), MACHINE_COMPUTED);
    expect(res.diagnostics).toEqual([]);
    expect(valueOf(MACHINE, res.plannedState)).toEqual(created.state);
  });

  test('update: plan keeps the ids, apply writes the new config to the same machine', async () => {
    const name = newName();
    const created = await newMachine(name);
    const res = await plan(MACHINE, created, machine(name, '~1.3'), MACHINE_COMPUTED);
    // fleetform plan's warning, at the config attribute.
    expect(res.diagnostics.map((d) => [d.severity, d.summary, attributeNames(d.attribute)])).toEqual([
      [
        tf.Diagnostic_Severity.WARNING,
        'config.modules.acme_sensors: this change restarts the module (it moves from ~1.2 to ~1.3); what it provides stops while it restarts',
        ['config'],
      ],
    ]);
    expect(res.requiresReplace).toEqual([]);
    expect(valueOf(MACHINE, res.plannedState)).toEqual({ ...created.state, config: machineConfig('~1.3') });
    const updated = await planAndApply(MACHINE, created, machine(name, '~1.3'), MACHINE_COMPUTED);
    expect(updated.state).toEqual({ ...created.state, config: machineConfig('~1.3') });
    expect(JSON.stringify((await project.client.appClient.getMachinePart(created.state.part_id as string)).config)).toContain(
      '"version":"~1.3"',
    );
  });

  test('a location change requires replacement and leaves the ids unknown', async () => {
    const name = newName();
    const created = await newMachine(name);
    const res = await plan(MACHINE, created, { ...machine(name), location_id: 'elsewhere' }, MACHINE_COMPUTED);
    expect(res.requiresReplace.map((p) => attributeNames(p))).toEqual([['location_id']]);
    expect(valueOf(MACHINE, res.plannedState)).toMatchObject({ id: unknownValue, part_id: unknownValue, location_id: 'elsewhere' });
  });

  test('drift made on the service comes back from read as a changed attribute', async () => {
    const name = newName();
    const created = await newMachine(name);
    const part = await project.client.appClient.getMachinePart(created.state.part_id as string);
    const drifted = JSON.parse(JSON.stringify(part.config)) as { components: Array<{ name: string; attributes: Record<string, unknown> }> };
    const ultrasonic = drifted.components.find((c) => c.name === 'ultrasonic-1');
    if (!ultrasonic) throw new Error('no ultrasonic-1 on the service');
    ultrasonic.attributes.timeout_ms = 999;
    await project.client.appClient.updateMachinePart(part.id, part.name, drifted, part.lastUpdated);
    const res = await read(MACHINE, created);
    expect(res.diagnostics).toEqual([]);
    const state = valueOf(MACHINE, res.newState);
    expect(state).toMatchObject({ id: created.state.id, name, secret_env: null, secret_env_digest: created.state.secret_env_digest });
    const config = JSON.parse(state?.config as string) as { components: Array<{ name: string; attributes: Record<string, unknown> }> };
    expect(config.components.find((c) => c.name === 'ultrasonic-1')?.attributes.timeout_ms).toBe(999);
    // The next plan from the drifted state proposes the config again, an in-place update.
    const drift: Managed = { state: state ?? {}, private: res.private };
    const again = await plan(MACHINE, drift, machine(name), MACHINE_COMPUTED);
    expect(again.requiresReplace).toEqual([]);
    expect(valueOf(MACHINE, again.plannedState)).toEqual(created.state);
  });

  test('import by id gives the state and private record a read accepts; an unknown id is an error', async () => {
    const name = newName();
    const created = await newMachine(name);
    const res = await handlers.ImportResourceState(
      new tf.ImportResourceState_Request({ typeName: MACHINE, id: created.state.id as string, clientCapabilities: TERRAFORM_1_11 }),
    );
    expect(res.diagnostics).toEqual([]);
    expect(res.importedResources).toHaveLength(1);
    const imported = res.importedResources[0] as tf.ImportResourceState_ImportedResource;
    expect(imported.typeName).toBe(MACHINE);
    const state = valueOf(MACHINE, imported.state);
    expect(state).toMatchObject({
      id: created.state.id,
      part_id: created.state.part_id,
      name,
      location_id: project.credentials.locationId,
      secret_env: null,
      secret_env_digest: expect.stringMatching(/^hmac-sha256:/),
    });
    expect(JSON.parse(state?.config as string)).toMatchObject({ modules: [expect.objectContaining({ module_id: 'acme:sensors' })] });
    const reread = await read(MACHINE, { state: state ?? {}, private: imported.private });
    expect(reread.diagnostics).toEqual([]);
    expect(valueOf(MACHINE, reread.newState)).toEqual(state);

    const unknown = await handlers.ImportResourceState(new tf.ImportResourceState_Request({ typeName: MACHINE, id: 'no-such-machine' }));
    expect(unknown.importedResources).toEqual([]);
    expect(errorsOf(unknown.diagnostics)).toEqual([
      expect.stringContaining('the service has no fleetform_machine with id "no-such-machine"'),
    ]);
  });

  test('destroy: plan is null, apply deletes on the service; read of a machine deleted outside is null', async () => {
    const name = newName();
    const created = await newMachine(name);
    const destroy = await plan(MACHINE, created, null, MACHINE_COMPUTED);
    expect(destroy.diagnostics).toEqual([]);
    expect(valueOf(MACHINE, destroy.plannedState)).toBeNull();
    const otherName = newName();
    const other = await newMachine(otherName);
    const gone = await planAndApply(MACHINE, created, null, MACHINE_COMPUTED);
    expect(gone.state).toEqual({});
    const names = (await project.client.appClient.listMachines(project.credentials.locationId)).map((m) => m.name);
    expect(names).not.toContain(name);
    expect(names).toContain(otherName);

    await project.client.appClient.deleteMachine(other.state.id as string);
    const res = await read(MACHINE, other);
    expect(res.diagnostics).toEqual([]);
    expect(valueOf(MACHINE, res.newState)).toBeNull();
  });
});

describe('a dataset and a training job', () => {
  const JOB = 'fleetform_training_job';
  const JOB_COMPUTED = ['organization_id', 'model_framework', 'retain_on_delete', 'id'];
  const job = (datasetId: string, version: string): TerraformObject => ({
    organization_id: null,
    dataset_id: datasetId,
    model_name: 'box-detector',
    model_version: version,
    retain_on_delete: null,
    model_type: 'MODEL_TYPE_OBJECT_DETECTION',
    model_framework: null,
    tags: ['box'],
    id: null,
  });

  test('a model_version change requires replacement; destroy deletes the job and the dataset', async () => {
    const dataset = await planAndApply('fleetform_dataset', null, { name: 'boxes', organization_id: null, id: null }, [
      'organization_id',
      'id',
    ]);
    expect(dataset.state).toEqual({
      name: 'boxes',
      organization_id: project.credentials.organizationId,
      type: 'binary',
      id: expect.any(String),
    });
    const datasetId = dataset.state.id as string;

    const submitted = await planAndApply(JOB, null, job(datasetId, '1'), JOB_COMPUTED);
    expect(submitted.state).toMatchObject({
      model_version: '1',
      organization_id: project.credentials.organizationId,
      retain_on_delete: false,
      id: expect.any(String),
    });
    const jobs = await project.client.mlTrainingClient.listTrainingJobs(project.credentials.organizationId);
    expect(jobs.map((j) => [j.id, j.modelVersion])).toEqual([[submitted.state.id, '1']]);

    const replace = await plan(JOB, submitted, job(datasetId, '2'), JOB_COMPUTED);
    expect(errorsOf(replace.diagnostics)).toEqual([]);
    expect(replace.requiresReplace.map((p) => attributeNames(p))).toEqual([['model_version']]);
    expect(valueOf(JOB, replace.plannedState)).toMatchObject({ model_version: '2', id: unknownValue });

    const unchanged = await plan(JOB, submitted, job(datasetId, '1'), JOB_COMPUTED);
    expect(unchanged.requiresReplace).toEqual([]);
    expect(valueOf(JOB, unchanged.plannedState)).toEqual(submitted.state);

    const destroyJob = await plan(JOB, submitted, null, JOB_COMPUTED);
    expect(valueOf(JOB, destroyJob.plannedState)).toBeNull();
    // A running job is canceled: the service finishes it later, Terraform is told so.
    const deleted = await handlers.ApplyResourceChange(
      new tf.ApplyResourceChange_Request({
        typeName: JOB,
        priorState: dv(JOB, submitted.state),
        plannedState: nothing(JOB),
        config: nothing(JOB),
        plannedPrivate: destroyJob.plannedPrivate,
      }),
    );
    expect(valueOf(JOB, deleted.newState)).toBeNull();
    expect(deleted.diagnostics.map((d) => [d.severity, d.summary])).toEqual([
      [tf.Diagnostic_Severity.WARNING, expect.stringContaining('deletion started')],
    ]);
    const after = await project.client.mlTrainingClient.getTrainingJob(submitted.state.id as string);
    expect([TrainingStatus.CANCELING, TrainingStatus.CANCELED]).toContain(after.status);

    const gone = await planAndApply('fleetform_dataset', dataset, null, ['organization_id', 'id']);
    expect(gone.state).toEqual({});
    expect((await project.client.datasetClient.listDatasets(project.credentials.organizationId)).map((d) => d.id)).not.toContain(datasetId);
  });
});
