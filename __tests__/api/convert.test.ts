import { loadSdk, type Sdk } from '../../src/api/sdk';
import { machinePartOf, registryItemOf, registryModuleOf, trainingJobOf } from '../../src/api/client/convert';
import { ModelFramework, ModelType, TrainingStatus } from '../../src/domain/training';
import { sortBySemver } from '../../src/domain/version-policy';

let sdk: Sdk;
beforeAll(async () => {
  sdk = await loadSdk();
});

describe('conversions from the service messages', () => {
  test('training job metadata becomes plain data with Dates and domain enums', () => {
    const created = new Date('2026-01-02T03:04:05.678Z');
    const m = new sdk.mlTrainingApi.TrainingJobMetadata({
      id: 'job-1',
      datasetId: 'ds',
      organizationId: 'org',
      modelName: 'boxes',
      modelVersion: '2',
      modelType: sdk.mlTrainingApi.ModelType.OBJECT_DETECTION,
      modelFramework: sdk.mlTrainingApi.ModelFramework.TFLITE,
      status: sdk.mlTrainingApi.TrainingStatus.FAILED,
      errorStatus: { code: 13, message: 'out of memory' },
      createdOn: sdk.Timestamp.fromDate(created),
      tags: ['box', 'lid'],
      arguments: { epochs: '3' },
      containerVersion: 'v1',
    });
    const job = trainingJobOf(m);
    expect(job).toEqual({
      id: 'job-1',
      datasetId: 'ds',
      organizationId: 'org',
      modelName: 'boxes',
      modelVersion: '2',
      modelType: ModelType.OBJECT_DETECTION,
      modelFramework: ModelFramework.TFLITE,
      isCustomJob: false,
      registryItemId: '',
      registryItemVersion: '',
      status: TrainingStatus.FAILED,
      errorStatus: { code: 13, message: 'out of memory' },
      createdOn: created,
      syncedModelId: '',
      tags: ['box', 'lid'],
      arguments: { epochs: '3' },
      containerVersion: 'v1',
    });
    expect(job.createdOn).toBeInstanceOf(Date);
    expect('lastModified' in job).toBe(false);
    expect(Object.getPrototypeOf(job)).toBe(Object.prototype);
  });

  test('a part config comes from the Struct, round-tripping nested JSON', () => {
    const config = {
      components: [
        {
          name: 'cam',
          model: 'acme:sensors:multi-cam',
          api: 'rdk:component:camera',
          attributes: { fps: 30, hd: true, tags: ['a'], none: null },
        },
      ],
      modules: [{ type: 'registry', name: 'sensors', module_id: 'acme:sensors', version: '~1.2' }],
    };
    const updated = new Date('2026-03-01T00:00:00.123Z');
    const part = new sdk.appApi.RobotPart({
      id: 'p1',
      name: 'main',
      robot: 'm1',
      locationId: 'loc',
      mainPart: true,
      robotConfig: sdk.Struct.fromJson(config),
      lastUpdated: sdk.Timestamp.fromDate(updated),
    });
    const back = sdk.appApi.RobotPart.fromBinary(part.toBinary());
    expect(machinePartOf(back)).toEqual({
      id: 'p1',
      name: 'main',
      machineId: 'm1',
      locationId: 'loc',
      mainPart: true,
      config,
      lastUpdated: updated,
    });
  });

  test('config_json is read first, the Struct without it, and an empty config without either', () => {
    const part = new sdk.appApi.RobotPart({ id: 'p1', name: 'main', robot: 'm1' });
    expect(machinePartOf(part, '{"components":[]}').config).toEqual({ components: [] });
    expect(machinePartOf(part, '').config).toEqual({});
    const withStruct = new sdk.appApi.RobotPart({ id: 'p1', robotConfig: sdk.Struct.fromJson({ services: [] }) });
    expect(machinePartOf(withStruct, '{"components":[]}').config).toEqual({ components: [] });
    expect(machinePartOf(withStruct, '').config).toEqual({ services: [] });
  });

  test('module versions are sorted by semver, prereleases before their release', () => {
    const mod = new sdk.appApi.Module({
      moduleId: 'acme:sensors',
      name: 'sensors',
      organizationId: 'org',
      versions: ['1.10.0', '2.0.0', '1.2.0', '2.0.0-rc.1', '1.9.9'].map(
        (version) => new sdk.appApi.VersionHistory({ version, models: [{ api: 'rdk:component:sensor', model: 'acme:sensors:hc-sr04' }] }),
      ),
    });
    const r = registryModuleOf(mod);
    expect(r.versions.map((v) => v.version)).toEqual(['1.2.0', '1.9.9', '1.10.0', '2.0.0-rc.1', '2.0.0']);
    expect(r.versions[0]!.models).toEqual([{ api: 'rdk:component:sensor', model: 'acme:sensors:hc-sr04' }]);
    expect(r).toMatchObject({ moduleId: 'acme:sensors', name: 'sensors', organizationId: 'org' });
  });

  test('training script versions come from ml_training_metadata', () => {
    const item = new sdk.appApi.RegistryItem({
      itemId: 'acme:trainer',
      name: 'trainer',
      organizationId: 'org',
      type: 5,
      metadata: { case: 'mlTrainingMetadata', value: { versions: [{ version: '0.3.0' }, { version: '0.2.0' }] } },
    });
    expect(registryItemOf(item)).toEqual({
      itemId: 'acme:trainer',
      name: 'trainer',
      organizationId: 'org',
      type: 'ml_training',
      versions: ['0.2.0', '0.3.0'],
    });
    const module = new sdk.appApi.RegistryItem({
      itemId: 'acme:vision',
      type: 3,
      metadata: { case: 'moduleMetadata', value: { versions: [{ version: '1.0.1' }, { version: '0.9.0' }] } },
    });
    expect(registryItemOf(module)).toMatchObject({ type: 'module', versions: ['0.9.0', '1.0.1'] });
    expect(registryItemOf(new sdk.appApi.RegistryItem({ itemId: 'x', type: 2 }))).toMatchObject({ type: 'other', versions: [] });
  });

  test('non-semver versions keep their order ahead of valid ones', () => {
    expect(sortBySemver(['2.0.0', 'dev', '1.0.0', 'nightly'], (v) => v)).toEqual(['dev', 'nightly', '1.0.0', '2.0.0']);
  });
});
