/**
 * Module update policies: the version deployed when a config is written, and the
 * table of what each policy does as versions are published through the emulator controls.
 */
import type { JsonObject } from '@bufbuild/protobuf';
import type { ModuleCard } from '../../src/api/emulator-control';
import { useOwnerClients } from './fixture';
import { codeOf, newMachine, sensorsConfig } from './helpers';

// Each test has an emulator of its own: publishing changes what every later read sees.
const fx = useOwnerClients({ controlsProtocol: 'grpc', per: 'test' });

async function configure(machine: string, modules: { name: string; version: string }[]): Promise<{ robotId: string; partId: string }> {
  const m = await newMachine(fx.app, fx.emulator.credentials.locationId, machine);
  await fx.app.updateRobotPart({
    id: m.partId,
    name: m.partName,
    robotConfig: fx.services.sdk.Struct.fromJson(sensorsConfig(modules) as JsonObject),
  });
  return m;
}

async function cards(machineId?: string): Promise<ModuleCard[]> {
  return (await fx.controls.listModuleCards({ machineId: machineId ?? '' })).cards;
}

async function deployed(machineId: string): Promise<Record<string, [string, number]>> {
  return Object.fromEntries((await cards(machineId)).map((c) => [c.moduleName, [c.deployedVersion, c.restartCount]]));
}

// Seeded acme:sensors: 1.1.0, 1.2.0, 1.2.3, 1.2.4, 1.2.5, 1.3.0, 2.0.0-rc.1.
const POLICIES = [
  { name: 'patch', version: '1.2.3' },
  { name: 'minor', version: '~1.2' },
  { name: 'minor_star', version: '1.2.*' },
  { name: 'major', version: '^1' },
  { name: 'major_star', version: '1.*' },
  { name: 'latest', version: 'latest' },
  { name: 'prerelease', version: 'latest-with-prerelease' },
];

/** Each policy's [deployed version, restart count] after the initial write. */
const INITIAL: Record<string, [string, number]> = {
  patch: ['1.2.3', 0],
  minor: ['1.2.5', 0],
  minor_star: ['1.2.5', 0],
  major: ['1.3.0', 0],
  major_star: ['1.3.0', 0],
  latest: ['1.3.0', 0],
  prerelease: ['2.0.0-rc.1', 0],
};

/** The versions published in turn, and the modules each one moves (to [deployed version, restart count]). */
const PUBLISHES: { publish: string; moves: Record<string, [string, number]> }[] = [
  { publish: '1.2.6', moves: { minor: ['1.2.6', 1], minor_star: ['1.2.6', 1] } },
  { publish: '1.4.0', moves: { major: ['1.4.0', 1], major_star: ['1.4.0', 1], latest: ['1.4.0', 1] } },
  { publish: '2.0.0', moves: { latest: ['2.0.0', 2], prerelease: ['2.0.0', 1] } },
  { publish: '2.1.0-beta.1', moves: { prerelease: ['2.1.0-beta.1', 2] } },
  // An older patch of a branch that has moved on moves nobody.
  { publish: '1.2.4-hotfix.1', moves: {} },
];

/** After each publish (first: the initial write), every module: [module name] -> [deployed version, restart count]. */
const TABLE: { publish: string; expect: Record<string, [string, number]> }[] = [{ publish: '(initial write)', expect: INITIAL }];
for (const { publish, moves } of PUBLISHES) TABLE.push({ publish, expect: { ...TABLE[TABLE.length - 1]?.expect, ...moves } });

describe('update policy table', () => {
  test.each(TABLE.map((row, i) => [row.publish, i] as const))('after publishing %s', async (publish, i) => {
    const row = TABLE[i];
    if (!row) throw new Error('no row');
    const { robotId } = await configure('policy-table', POLICIES);
    // The rows before this one are published first, in the table's order.
    for (const earlier of TABLE.slice(1, i)) await fx.controls.publishModuleVersion({ moduleId: 'acme:sensors', version: earlier.publish });
    expect(await deployed(robotId)).toEqual(TABLE[Math.max(0, i - 1)]?.expect);
    if (i > 0) {
      const res = await fx.controls.publishModuleVersion({ moduleId: 'acme:sensors', version: publish });
      const previous = TABLE[i - 1]?.expect ?? {};
      const moved = Object.keys(row.expect).filter((k) => row.expect[k]?.[0] !== previous[k]?.[0]);
      expect(
        res.updates
          .filter((u) => u.machineId === robotId)
          .map((u) => u.moduleName)
          .sort(),
      ).toEqual(moved.sort());
      for (const u of res.updates.filter((x) => x.machineId === robotId)) {
        expect([u.fromVersion, u.toVersion, u.restartCount]).toEqual([
          previous[u.moduleName]?.[0],
          row.expect[u.moduleName]?.[0],
          row.expect[u.moduleName]?.[1],
        ]);
      }
    }
    expect(await deployed(robotId)).toEqual(row.expect);
  });
});

describe('config writes', () => {
  test('a newly added module runs the version its policy resolves to; rewriting the same policy keeps it', async () => {
    const { robotId, partId } = await configure('rewrite', [{ name: 'm', version: '~1.3' }]);
    const first = await deployed(robotId);
    await fx.controls.publishModuleVersion({ moduleId: 'acme:sensors', version: '1.3.7' });
    expect((await deployed(robotId)).m).toEqual(['1.3.7', 1]);
    // Writing the config again (same policy) keeps the deployed version and the restart count.
    const part = (await fx.app.getRobotPart({ id: partId })).part;
    await fx.app.updateRobotPart({
      id: partId,
      name: part?.name ?? '',
      robotConfig: fx.services.sdk.Struct.fromBinary(part?.robotConfig ?? new Uint8Array()),
    });
    expect((await deployed(robotId)).m).toEqual(['1.3.7', 1]);
    expect(first.m?.[0]).toMatch(/^1\.3\./);
  });

  test('changing a pin moves the module and counts a restart; removing a module drops its card', async () => {
    const { robotId, partId } = await configure('repin', [{ name: 'm', version: '1.1.0' }]);
    expect((await deployed(robotId)).m).toEqual(['1.1.0', 0]);
    const name = (await fx.app.getRobotPart({ id: partId })).part?.name ?? '';
    await fx.app.updateRobotPart({
      id: partId,
      name,
      robotConfig: fx.services.sdk.Struct.fromJson(sensorsConfig([{ name: 'm', version: '1.2.0' }]) as JsonObject),
    });
    expect((await deployed(robotId)).m).toEqual(['1.2.0', 1]);
    await fx.app.updateRobotPart({ id: partId, name, robotConfig: fx.services.sdk.Struct.fromJson({ modules: [] }) });
    expect(await deployed(robotId)).toEqual({});
  });
});

describe('module card', () => {
  test('shows policy, its description, deployed version and the registry latest release and prerelease', async () => {
    for (const version of ['1.2.6', '1.4.0', '2.0.0', '2.1.0-beta.1'])
      await fx.controls.publishModuleVersion({ moduleId: 'acme:sensors', version });
    const { robotId } = await configure('card', [{ name: 'acme_sensors', version: '1.2.*' }]);
    const [card] = await cards(robotId);
    expect(card).toMatchObject({
      machineId: robotId,
      machineName: 'card',
      partName: 'card-main',
      moduleName: 'acme_sensors',
      moduleId: 'acme:sensors',
      policy: '~1.2',
      deployedVersion: '1.2.6',
      registryLatest: '2.0.0',
      registryLatestPrerelease: '2.1.0-beta.1',
      restartCount: 0,
      organizationId: fx.emulator.credentials.organizationId,
      locationId: fx.emulator.credentials.locationId,
    });
    expect(card?.policyDescription).toContain('1.2');
    expect(card?.updatedAt).toBeDefined();
  });
});

describe('publishing', () => {
  test('a version that exists already is AlreadyExists; a non-semver version InvalidArgument', async () => {
    expect(await codeOf(fx.controls.publishModuleVersion({ moduleId: 'acme:sensors', version: '1.2.3' }))).toBe('AlreadyExists');
    expect(await codeOf(fx.controls.publishModuleVersion({ moduleId: 'acme:sensors', version: 'v2' }))).toBe('InvalidArgument');
    expect(await codeOf(fx.controls.publishModuleVersion({ moduleId: 'not-an-id', version: '1.0.0' }))).toBe('InvalidArgument');
  });

  test('models of a new version must belong to the module', async () => {
    const res = fx.controls.publishModuleVersion({
      moduleId: 'acme:vision',
      version: '1.1.0',
      models: [{ api: 'rdk:service:vision', model: 'other:vision:x' }],
    });
    expect(await codeOf(res)).toBe('InvalidArgument');
  });

  test('a new version keeps the models of the newest one unless given', async () => {
    await fx.controls.publishModuleVersion({ moduleId: 'acme:vision', version: '1.1.0' });
    await fx.controls.publishModuleVersion({
      moduleId: 'acme:vision',
      version: '1.2.0',
      models: [{ api: 'rdk:service:vision', model: 'acme:vision:shelf-finder' }],
    });
    const { module } = await fx.app.getModule({ moduleId: 'acme:vision' });
    const byVersion = Object.fromEntries((module?.versions ?? []).map((v) => [v.version, v.models.map((m) => m.model)]));
    expect(byVersion['1.1.0']).toEqual(['acme:vision:box-finder']);
    expect(byVersion['1.2.0']).toEqual(['acme:vision:shelf-finder']);
  });
});

test('a version no policy form reads is stored as written: no deployment, never an internal error', async () => {
  const m = await configure('typo', [{ name: 'acme_sensors', version: '~>1.2' }]);
  const part = await fx.app.getRobotPart({ id: m.partId });
  expect(part.configJson).toContain('~>1.2');
  expect(await deployed(m.robotId)).toEqual({});
});
