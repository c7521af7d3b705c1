/**
 * What the registry says of a module version beyond its models (deprecated, the oldest
 * viam-server it runs on), set through the controls: what the service's messages carry of
 * it, the viam-server a simulated machine reports, and the versions its policies skip.
 */
import type { JsonObject } from '@bufbuild/protobuf';
import { ModuleVersionStatus, VersionHistoryStatus } from '../../src/api/own-messages';
import { useOwnerClients } from './fixture';
import { codeOf, newMachine, sensorsConfig } from './helpers';

// Each test has an emulator of its own: what the controls set, every later read sees.
const fx = useOwnerClients({ controlsProtocol: 'grpc', per: 'test' });

// Seeded acme:sensors: 1.1.0, 1.2.0, 1.2.3, 1.2.4, 1.2.5, 1.3.0, 2.0.0-rc.1.
async function deployedOn(machine: string, modules: { name: string; version: string }[]): Promise<Record<string, string>> {
  const m = await newMachine(fx.app, fx.emulator.credentials.locationId, machine);
  await fx.app.updateRobotPart({
    id: m.partId,
    name: m.partName,
    robotConfig: fx.services.sdk.Struct.fromJson(sensorsConfig(modules) as JsonObject),
  });
  const { cards } = await fx.controls.listModuleCards({ machineId: m.robotId });
  return Object.fromEntries(cards.map((c) => [c.moduleName, c.deployedVersion]));
}

test("the registry's messages carry a version's deprecation and its minimum viam-server at the service's field numbers", async () => {
  const set = await fx.controls.setModuleVersionStatus({
    moduleId: 'acme:sensors',
    version: '1.3.0',
    deprecated: true,
    deprecationMessage: 'leaks memory',
  });
  expect(set).toMatchObject({ deprecated: true, deprecationMessage: 'leaks memory', minViamServerVersion: '' });
  await fx.controls.setModuleVersionStatus({ moduleId: 'acme:sensors', version: '1.2.5', minViamServerVersion: '0.99.0' });

  const { item } = await fx.app.getRegistryItem({ itemId: 'acme:sensors' });
  if (item?.metadata.case !== 'moduleMetadata') throw new Error('acme:sensors is no module');
  const statuses = item.metadata.value.versions.map((v) => ModuleVersionStatus.fromBinary(v.toBinary()));
  expect(statuses.find((s) => s.version === '1.3.0')?.deprecatedStatus?.message).toBe('leaks memory');
  expect(statuses.find((s) => s.version === '1.2.5')?.minViamServerVersion).toBe('0.99.0');
  const plain = statuses.find((s) => s.version === '1.2.3');
  expect([plain?.deprecatedStatus, plain?.minViamServerVersion]).toEqual([undefined, undefined]);

  const { module } = await fx.app.getModule({ moduleId: 'acme:sensors' });
  const history = (module?.versions ?? []).map((v) => VersionHistoryStatus.fromBinary(v.toBinary()));
  expect(history.filter((h) => h.deprecatedStatus !== undefined).map((h) => h.version)).toEqual(['1.3.0']);

  await fx.controls.setModuleVersionStatus({ moduleId: 'acme:sensors', version: '1.3.0', deprecated: false });
  const again = await fx.app.getRegistryItem({ itemId: 'acme:sensors' });
  if (again.item?.metadata.case !== 'moduleMetadata') throw new Error('acme:sensors is no module');
  expect(again.item.metadata.value.versions.map((v) => ModuleVersionStatus.fromBinary(v.toBinary()).deprecatedStatus)).toEqual(
    again.item.metadata.value.versions.map(() => undefined),
  );
  expect(await codeOf(fx.controls.setModuleVersionStatus({ moduleId: 'acme:sensors', version: '9.9.9', deprecated: true }))).toBe(
    'NotFound',
  );
  expect(
    await codeOf(fx.controls.setModuleVersionStatus({ moduleId: 'acme:sensors', version: '1.2.5', minViamServerVersion: 'soon' })),
  ).toBe('InvalidArgument');
});

test('a simulated machine skips deprecated versions and those needing a newer viam-server than it reports; a pinned one runs what it names', async () => {
  await fx.controls.setModuleVersionStatus({ moduleId: 'acme:sensors', version: '1.3.0', deprecated: true });
  await fx.controls.setModuleVersionStatus({ moduleId: 'acme:sensors', version: '1.2.5', minViamServerVersion: '0.99.0' });
  const policies = [
    { name: 'major', version: '^1' },
    { name: 'minor', version: '~1.2' },
    { name: 'pinned', version: '1.3.0' },
  ];
  expect(await deployedOn('old-server', policies)).toEqual({ major: '1.2.4', minor: '1.2.4', pinned: '1.3.0' });

  const m = await newMachine(fx.app, fx.emulator.credentials.locationId, 'new-server');
  expect(await fx.controls.setViamServerVersion({ machine: 'new-server', version: '0.99.1' })).toMatchObject({ partId: m.partId });
  await fx.app.updateRobotPart({
    id: m.partId,
    name: m.partName,
    robotConfig: fx.services.sdk.Struct.fromJson(sensorsConfig(policies) as JsonObject),
  });
  const { cards } = await fx.controls.listModuleCards({ machineId: m.robotId });
  expect(Object.fromEntries(cards.map((c) => [c.moduleName, c.deployedVersion]))).toEqual({
    major: '1.2.5',
    minor: '1.2.5',
    pinned: '1.3.0',
  });

  const summaries = await fx.app.listMachineSummaries({ organizationId: fx.emulator.credentials.organizationId });
  const part = summaries.locationSummaries
    .flatMap((l) => l.machineSummaries)
    .flatMap((s) => s.partSummaries)
    .find((p) => p.partId === m.partId);
  expect(part?.viamServerVersion?.version).toEqual({ case: 'major', value: '0.99.1' });
});

test('a publish moves no machine to a version needing a newer viam-server than it runs', async () => {
  expect(await deployedOn('publish-target', [{ name: 'latest', version: 'latest' }])).toEqual({ latest: '1.3.0' });
  const res = await fx.controls.publishModuleVersion({ moduleId: 'acme:sensors', version: '1.4.0', minViamServerVersion: '1.0.0' });
  expect(res.updates).toEqual([]);
  expect((await fx.controls.publishModuleVersion({ moduleId: 'acme:sensors', version: '1.4.1' })).updates.map((u) => u.toVersion)).toEqual([
    '1.4.1',
  ]);
});

test('DeprecateRegistryItemVersion and UndeprecateRegistryItemVersion, for the owner of a module version there is', async () => {
  await fx.app.deprecateRegistryItemVersion({ itemId: 'acme:sensors', version: '1.2.3', message: 'use 1.2.4' });
  const deprecatedOf = async (version: string) => {
    const { item } = await fx.app.getRegistryItem({ itemId: 'acme:sensors' });
    if (item?.metadata.case !== 'moduleMetadata') throw new Error('acme:sensors is no module');
    const v = item.metadata.value.versions.find((x) => x.version === version);
    return v && ModuleVersionStatus.fromBinary(v.toBinary()).deprecatedStatus?.message;
  };
  expect(await deprecatedOf('1.2.3')).toBe('use 1.2.4');
  await fx.app.undeprecateRegistryItemVersion({ itemId: 'acme:sensors', version: '1.2.3' });
  expect(await deprecatedOf('1.2.3')).toBeUndefined();
  expect(await codeOf(fx.app.deprecateRegistryItemVersion({ itemId: 'acme:sensors', version: '7.0.0', message: '' }))).toBe('NotFound');
  expect(await codeOf(fx.app.deprecateRegistryItemVersion({ itemId: 'acme:nope', version: '1.0.0', message: '' }))).toBe('NotFound');
});
