/**
 * Today's service as code, end to end: an organization built with the official SDK (and, for
 * what SDK 0.61.1 lacks, the emulator's controls and the project's client) holding triggers,
 * a disabled component and service, a binary and a sequence dataset, default fragments with
 * typed variables, a data pipeline and a deprecated module version is adopted, planned with
 * "No changes", destroyed, and rebuilt from the adopted code: the service then holds what it
 * held before (ids aside), and the simulated machine runs the same module version.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createServiceClient, type ServiceClient } from '../../src/api/client';
import { loadSdk } from '../../src/api/sdk';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { secretVariableName } from '../../src/engine/adopt/machine-code';
import type { JsonValue } from '@bufbuild/protobuf';
import { fleetform, newAdoptionProject, quickMachines } from './fleet-fixture';

jest.setTimeout(300_000);

const TOKEN = 'rebuild-hook-token-7731-SECRET';
const HOOK = `https://hooks.example.com/fleet?token=${TOKEN}`;

const SENTRY_CONFIG = {
  modules: [{ type: 'registry', name: 'acme_sensors', module_id: 'acme:sensors', version: '~1.2' }],
  components: [
    { name: 'board-1', api: 'rdk:component:board', model: 'acme:sensors:pi-board', attributes: {} },
    { name: 'cam', api: 'rdk:component:camera', model: 'rdk:builtin:fake', attributes: {}, disabled: true },
  ],
  services: [{ name: 'finder', api: 'rdk:service:vision', model: 'rdk:builtin:fake', attributes: {}, disabled: true }],
  triggers: [
    {
      name: 'offline-alert',
      event: { type: 'part_offline' },
      notifications: [{ type: 'webhook', value: HOOK, seconds_between_notifications: 300 }],
    },
    {
      name: 'hot-board',
      event: {
        type: 'conditional_data_ingested',
        conditional: {
          data_capture_method: 'board:board-1:Readings',
          condition: { evals: [{ operator: 'gt', value: { readings: { temp: 80 } } }] },
        },
      },
      notifications: [{ type: 'email', value: 'ops@example.com', seconds_between_notifications: 60 }],
      disabled: true,
    },
  ],
};

const STAGES: Array<Record<string, JsonValue>> = [
  { $match: { component_name: 'board-1' } },
  { $group: { _id: '$robot_id', n: { $sum: 1 } } },
];

let emulator: RunningEmulator | undefined;
let restoreEnv: (() => void) | undefined;
const dirs: string[] = [];

afterAll(async () => {
  await emulator?.close();
  restoreEnv?.();
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
});

/** Every string in `value` that is a known id, replaced by the name it stands for. */
function byName(value: unknown, names: ReadonlyMap<string, string>): unknown {
  if (typeof value === 'string') return names.get(value) ?? value;
  if (Array.isArray(value)) return value.map((v) => byName(v, names));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, byName(v, names)]));
  return value;
}

/** What the organization holds, each object named rather than numbered, in a fixed order. */
async function holdings(client: ServiceClient, organizationId: string): Promise<Record<string, unknown>> {
  const app = client.appClient;
  const locations = await app.listLocations(organizationId);
  const fragments = await app.listFragments(organizationId);
  const names = new Map<string, string>([
    ...locations.map((l) => [l.id, `location:${l.name}`] as const),
    ...fragments.map((f) => [f.id, `fragment:${f.name}`] as const),
  ]);
  const machines: Record<string, unknown> = {};
  for (const location of locations) {
    for (const machine of await app.listMachines(location.id)) {
      const parts = [];
      for (const part of await app.getMachineParts(machine.id)) {
        const read = await app.getMachinePart(part.id);
        parts.push({ name: read.name, main: read.mainPart, config: byName(read.config, names) });
      }
      machines[machine.name] = { location: location.name, parts };
    }
  }
  const fragmentsByName: Record<string, unknown> = {};
  for (const f of fragments) {
    const detail = await app.getFragment(f.id);
    fragmentsByName[f.name] = { config: byName(detail.fragment.config, names), tags: detail.tags, visibility: detail.fragment.visibility };
  }
  const datasets = (await client.datasetClient.listDatasets(organizationId)).map((d) => ({ name: d.name, type: d.type }));
  const pipelines = (await client.dataPipelinesClient.listDataPipelines(organizationId)).map((p) => ({
    name: p.name,
    stages: p.stages,
    schedule: p.schedule,
    enabled: p.enabled,
    dataSourceType: p.dataSourceType,
  }));
  const organization = await app.getOrganization(organizationId);
  const byKey = (a: { name: string }, b: { name: string }): number => a.name.localeCompare(b.name);
  return {
    locations: locations.map((l) => ({ name: l.name, parent: names.get(l.parentLocationId) ?? '' })).sort(byKey),
    machines,
    fragments: fragmentsByName,
    datasets: datasets.sort(byKey),
    pipelines: pipelines.sort(byKey),
    defaultFragments: byName(organization.defaultFragments, names),
  };
}

/** The module version each simulated machine runs, by machine name, as `fleetform emulator status` reports it. */
async function deployed(project: string, env: Record<string, string>): Promise<Record<string, string[]>> {
  const status = await fleetform(project, ['emulator', 'status', '--json'], env);
  expect(status.stderr).toBe('');
  const cards = JSON.parse(status.stdout) as Array<{ machineName: string; moduleId: string; deployedVersion: string }>;
  const out: Record<string, string[]> = {};
  for (const c of cards) (out[c.machineName] ??= []).push(`${c.moduleId} ${c.deployedVersion}`);
  return out;
}

test('an organization of triggers, disabled resources, typed datasets, default fragments, a pipeline and a deprecated version is adopted, plans nothing, and is rebuilt from its code', async () => {
  restoreEnv = quickMachines();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-rebuild-emu-'));
  dirs.push(dataDir);
  emulator = await startEmulator({ dataDir, port: 0 });
  const c = emulator.credentials;
  const env = { FLEETFORM_ENDPOINT: emulator.url, FLEETFORM_API_KEY: c.apiKey, FLEETFORM_API_KEY_ID: c.apiKeyId };
  const credentials = { type: 'api-key', authEntity: c.apiKeyId, payload: c.apiKey } as const;
  const project = await newAdoptionProject('ff-rebuild-', 'rebuilt-fleet');
  dirs.push(project);
  const sdk = await loadSdk();
  const viam = await sdk.createViamClient({ serviceHost: emulator.url, credentials });
  const ours = await createServiceClient({ serviceHost: emulator.url, credentials });
  try {
    // The registry deprecates 1.2.5: the machine's ~1.2 runs 1.2.4.
    const deprecated = await fleetform(
      project,
      ['emulator', 'module-version', 'acme:sensors', '1.2.5', '--deprecate', 'crashes on start'],
      env,
    );
    expect(deprecated.stderr).toBe('');

    const sentryId = await viam.appClient.newRobot(c.locationId, 'sentry');
    const [sentryPart] = await viam.appClient.getRobotParts(sentryId);
    await viam.appClient.updateRobotPart(sentryPart?.id ?? '', sentryPart?.name ?? '', sdk.Struct.fromJson(SENTRY_CONFIG as never));

    await viam.dataClient.createDataset('frames', c.organizationId);
    // SDK 0.61.1 has no dataset type, no fragment tags and no default fragments: the project's client sets them.
    await ours.datasetClient.createDataset('runs', c.organizationId, 'sequence');

    const board = { name: 'board', api: 'rdk:component:board', model: 'rdk:builtin:fake' };
    const attributes = {
      pin: { $variable: { name: 'pin' } },
      fast: { $variable: { name: 'fast' } },
      limits: { $variable: { name: 'limits' } },
    };
    const rig = await viam.appClient.createFragment(
      c.organizationId,
      'rig',
      sdk.Struct.fromJson({ components: [{ ...board, attributes }] }),
    );
    await ours.appClient.setFragmentTag(rig?.id ?? '', 'stable', '1');
    const defaults = [
      { id: rig?.id ?? '', version: 'stable', prefix: 'front', variables: { pin: 11, fast: true, limits: { max: 3, names: ['x'] } } },
    ];
    await ours.appClient.setDefaultFragments(c.organizationId, defaults);
    // Created after the defaults: the new machine starts importing them.
    const roverId = await viam.appClient.newRobot(c.locationId, 'rover');
    const [roverPart] = await viam.appClient.getRobotParts(roverId);
    expect(JSON.parse(roverPart?.robotConfig?.toJsonString() ?? '{}')).toEqual({ fragments: defaults });

    await viam.dataClient.createDataPipeline(c.organizationId, 'board-counts', STAGES, '0 * * * *', false);

    const before = await holdings(ours, c.organizationId);
    // What is compared after the rebuild: each object the organization was built with, read back.
    expect(before.datasets).toEqual([
      { name: 'default', type: 'binary' },
      { name: 'frames', type: 'binary' },
      { name: 'runs', type: 'sequence' },
    ]);
    expect(before.pipelines).toEqual([
      { name: 'board-counts', stages: STAGES, schedule: '0 * * * *', enabled: true, dataSourceType: 'standard' },
    ]);
    expect(before.defaultFragments).toEqual([{ ...defaults[0], id: 'fragment:rig' }]);
    expect(before.machines).toMatchObject({
      sentry: { location: 'Main location', parts: [{ main: true, config: { triggers: SENTRY_CONFIG.triggers } }] },
      rover: { parts: [{ config: { fragments: [{ ...defaults[0], id: 'fragment:rig' }] } }] },
    });
    const runningBefore = await deployed(project, env);
    expect(runningBefore.sentry).toEqual(['acme:sensors 1.2.4']);

    const adopted = await fleetform(project, ['adopt'], env);
    expect(adopted.stderr).toBe('');
    expect(adopted.code).toBe(0);
    const code = await fs.readFile(path.join(project, 'stacks', 'adopted.ts'), 'utf8');
    expect(code).not.toContain(TOKEN);
    for (const made of [
      /new Trigger\(\w+, 'offline-alert', \{/,
      /new Trigger\(\w+, 'hot-board', \{/,
      /new Component\(sentry, 'cam', \{.*disabled: true \}\);/,
      /new Service\(sentry, 'finder', \{.*disabled: true \}\);/,
      /new Dataset\(this, 'runs', \{ type: 'sequence' \}\);/,
      /new Dataset\(this, 'frames'\);/,
      /new OrganizationDefaults\(this, 'defaults', \{/,
      /rover\.useFragment\(rig, \{/,
      /new DataPipeline\(this, 'board-counts'/,
    ])
      expect(code).toMatch(made);

    const hookVariable = secretVariableName('sentry', 'triggers', '0', 'notifications', '0', 'value');
    const withSecret = { ...env, [hookVariable]: HOOK };
    const finish = await fleetform(project, ['adopt', '--finish'], withSecret);
    expect(finish.stderr).toBe('');
    expect(finish.code).toBe(0);
    const plan = await fleetform(project, ['plan', '--detailed-exitcode'], withSecret);
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);

    const destroyed = await fleetform(project, ['destroy', '--auto-approve'], withSecret);
    expect(destroyed.stderr).toBe('');
    expect(destroyed.code).toBe(0);
    const emptied = await holdings(ours, c.organizationId);
    expect(emptied.machines).toEqual({});
    expect(emptied.pipelines).toEqual([]);
    expect(emptied.defaultFragments).toEqual([]);

    const rebuilt = await fleetform(project, ['apply', '--auto-approve'], withSecret);
    expect(rebuilt.stderr).toBe('');
    expect(rebuilt.code).toBe(0);
    expect(await holdings(ours, c.organizationId)).toEqual(before);
    expect(await deployed(project, env)).toEqual(runningBefore);
    const again = await fleetform(project, ['plan', '--detailed-exitcode'], withSecret);
    expect(again.stdout).toContain('No changes.');
    expect(again.code).toBe(0);
  } finally {
    await ours.close();
  }
});
