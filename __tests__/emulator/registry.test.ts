/** Registry reads: GetModule (versions ascending by semver, prereleases included) and GetRegistryItem. */
import type { Client } from '@connectrpc/connect';
import { EmulatorService } from '../../src/api/emulator-control';
import { loadServices, type AppServiceType } from '../../src/api/services';
import { ModelFramework, ModelType } from '../../src/domain';
import { SEED_MODULES } from '../../src/emulator';
import { useEmulator } from './fixture';
import { clientOf, codeOf } from './helpers';

const fx = useEmulator();
let app: Client<AppServiceType>;
beforeAll(async () => {
  app = await clientOf(fx.emulator, (await loadServices()).app);
});

test('a new data folder holds acme:sensors, acme:vision and acme:arm-control with their seeded versions and models', async () => {
  expect(SEED_MODULES.map((m) => m.moduleId)).toEqual(['acme:sensors', 'acme:vision', 'acme:arm-control']);
  const { module } = await app.getModule({ moduleId: 'acme:arm-control' });
  expect(module?.versions.map((v) => v.version)).toEqual(['3.0.0', '3.1.0']);
  expect(module?.versions[1]?.models.map((m) => [m.api, m.model])).toEqual([['rdk:component:arm', 'acme:arm-control:six-axis']]);
  const vision = (await app.getModule({ moduleId: 'acme:vision' })).module;
  expect(vision?.versions.map((v) => v.version)).toEqual(['0.9.0', '1.0.0', '1.0.1']);
  expect(vision?.models.map((m) => m.model)).toEqual(['acme:vision:box-finder']);
});

test('GetModule lists versions ascending by semver, prereleases before their release', async () => {
  const { module } = await app.getModule({ moduleId: 'acme:sensors' });
  expect(module).toMatchObject({
    moduleId: 'acme:sensors',
    name: 'sensors',
    publicNamespace: 'acme',
    organizationId: fx.emulator.credentials.organizationId,
  });
  expect(module?.versions.map((v) => v.version)).toEqual(['1.1.0', '1.2.0', '1.2.3', '1.2.4', '1.2.5', '1.3.0', '2.0.0-rc.1']);
  expect(module?.versions[0]?.models.map((m) => m.model)).toEqual([
    'acme:sensors:pi-board',
    'acme:sensors:hc-sr04',
    'acme:sensors:multi-cam',
  ]);

  const controls = await clientOf(fx.emulator, EmulatorService);
  for (const version of ['1.2.10', '2.0.0', '2.0.0-rc.2']) await controls.publishModuleVersion({ moduleId: 'acme:sensors', version });
  const after = (await app.getModule({ moduleId: 'acme:sensors' })).module?.versions.map((v) => v.version);
  expect(after).toEqual(['1.1.0', '1.2.0', '1.2.3', '1.2.4', '1.2.5', '1.2.10', '1.3.0', '2.0.0-rc.1', '2.0.0-rc.2', '2.0.0']);
});

test('a module can be named by its organization id instead of its namespace', async () => {
  const { module } = await app.getModule({ moduleId: `${fx.emulator.credentials.organizationId}:vision` });
  expect(module?.moduleId).toBe('acme:vision');
});

test('unknown modules, and training scripts asked for as modules, are NotFound', async () => {
  expect(await codeOf(app.getModule({ moduleId: 'acme:nope' }))).toBe('NotFound');
  expect(await codeOf(app.getModule({ moduleId: 'acme:trainer' }))).toBe('NotFound');
  expect(await codeOf(app.getRegistryItem({ itemId: 'nobody:nothing' }))).toBe('NotFound');
  expect(await codeOf(app.getModule({ moduleId: '' }))).toBe('InvalidArgument');
});

test('GetRegistryItem: a module (type MODULE) with module metadata', async () => {
  const { item } = await app.getRegistryItem({ itemId: 'acme:vision' });
  expect(item).toMatchObject({ itemId: 'acme:vision', name: 'vision', publicNamespace: 'acme', type: 3, visibility: 2 });
  expect(item?.metadata.case).toBe('moduleMetadata');
  if (item?.metadata.case === 'moduleMetadata') {
    expect(item.metadata.value.versions.map((v) => v.version)).toEqual(['0.9.0', '1.0.0', '1.0.1']);
  }
});

test('GetRegistryItem: a training script (type ML_TRAINING) with its versions and model kind', async () => {
  const { item } = await app.getRegistryItem({ itemId: 'acme:trainer' });
  expect(item).toMatchObject({ itemId: 'acme:trainer', type: 5, organizationId: fx.emulator.credentials.organizationId });
  expect(item?.metadata.case).toBe('mlTrainingMetadata');
  if (item?.metadata.case === 'mlTrainingMetadata') {
    expect(item.metadata.value.versions.map((v) => v.version)).toEqual(['0.2.0', '0.3.0']);
    expect(item.metadata.value.modelType).toBe(ModelType.OBJECT_DETECTION);
    expect(item.metadata.value.modelFramework).toBe(ModelFramework.TFLITE);
  }
  const controls = await clientOf(fx.emulator, EmulatorService);
  await controls.publishTrainingScript({ itemId: 'acme:segmenter', version: '1.0.0', modelType: ModelType.MULTI_LABEL_CLASSIFICATION });
  const created = (await app.getRegistryItem({ itemId: 'acme:segmenter' })).item;
  expect(created?.type).toBe(5);
  expect(await codeOf(controls.publishTrainingScript({ itemId: 'acme:segmenter', version: '1.0.0' }))).toBe('AlreadyExists');
  expect(await codeOf(controls.publishTrainingScript({ itemId: 'acme:sensors', version: '9.0.0' }))).toBe('InvalidArgument');
});
