/**
 * The emulator's PackageService: uploads stream over HTTP/2 gRPC (the client's own
 * transport for them, under a gRPC-web client), reads and deletes are unary, and a trained
 * model is an ml_model package of its organization.
 */
import { createServiceClient, ServiceError, type ServiceClient } from '../../src/api/client';
import { loadServices } from '../../src/api/services';
import { ModelFramework, ModelType, TrainingStatus } from '../../src/domain';
import { useEmulator } from './fixture';
import { waitUntil } from './helpers';

const fx = useEmulator({ clock: 'running', trainingDurationMs: 300 });
let client: ServiceClient;

beforeAll(async () => {
  const c = fx.emulator.credentials;
  client = await createServiceClient({
    serviceHost: fx.emulator.url,
    credentials: { type: 'api-key', authEntity: c.apiKeyId, payload: c.apiKey },
  });
});

afterAll(async () => {
  await client?.close();
});

/** Bytes of a given length that are not all alike. */
function bytes(n: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + 7) % 251;
  return b;
}

test('an upload of several chunks is stored once per version; get, list and delete see it', async () => {
  const org = fx.emulator.credentials.organizationId;
  const contents = bytes(100_000);
  const created = await client.packagesClient.createPackage(
    {
      organizationId: org,
      name: 'sorter',
      version: '1.0.0',
      type: 'ml_model',
      metadata: { model_type: 'object_detection', model_framework: 'tflite' },
    },
    contents,
  );
  expect(created).toEqual({ id: `${org}/sorter`, version: '1.0.0' });
  const got = await client.packagesClient.getPackage(`${org}/sorter`, '1.0.0');
  expect(got).toMatchObject({
    id: `${org}/sorter`,
    name: 'sorter',
    version: '1.0.0',
    type: 'ml_model',
    metadata: { model_type: 'object_detection', model_framework: 'tflite' },
  });
  expect(got?.checksum).toMatch(/^[0-9a-f]{64}$/);

  const again = client.packagesClient.createPackage({ organizationId: org, name: 'sorter', version: '1.0.0', type: 'ml_model' }, contents);
  await expect(again).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
  const stamped = await client.packagesClient.createPackage(
    { organizationId: org, name: 'sorter', version: '', type: 'ml_model' },
    bytes(10),
  );
  expect(stamped.version).toMatch(/^\d{13}$/);
  expect((await client.packagesClient.getPackage(`${org}/sorter`, 'latest'))?.version).toBe(stamped.version);

  expect((await client.packagesClient.listPackages(org, { name: 'sorter' })).map((p) => p.version)).toEqual(['1.0.0', stamped.version]);
  expect(await client.packagesClient.getPackage(`${org}/sorter`, '9.9.9')).toBeUndefined();
  expect(await client.packagesClient.getPackage(`${org}/sorter`, '1.0.0', 'module')).toBeUndefined();

  await client.packagesClient.deletePackage(`${org}/sorter`, '1.0.0', 'ml_model');
  expect(await client.packagesClient.getPackage(`${org}/sorter`, '1.0.0')).toBeUndefined();
  const gone = client.packagesClient.deletePackage(`${org}/sorter`, '1.0.0', 'ml_model');
  await expect(gone).rejects.toBeInstanceOf(ServiceError);
});

test('bad uploads are refused with the field: a name, a type, another organization', async () => {
  const org = fx.emulator.credentials.organizationId;
  await expect(
    client.packagesClient.createPackage({ organizationId: org, name: 'bad name', version: '1', type: 'archive' }, bytes(3)),
  ).rejects.toMatchObject({
    code: 'INVALID_ARGUMENT',
    message: expect.stringContaining('invalid package name'),
  });
  await expect(
    client.packagesClient.createPackage({ organizationId: 'nobody', name: 'x', version: '1', type: 'archive' }, bytes(3)),
  ).rejects.toMatchObject({
    code: 'PERMISSION_DENIED',
  });
});

test("a completed training job's model is an ml_model package version of its organization", async () => {
  const { organizationId, datasetId } = fx.emulator.credentials;
  const id = await client.mlTrainingClient.submitTrainingJob(organizationId, datasetId, 'box-detector', '3', ModelType.OBJECT_DETECTION, [
    'box',
  ]);
  expect(await client.packagesClient.getPackage(`${organizationId}/box-detector`, '3')).toBeUndefined();
  await waitUntil(
    'job COMPLETED',
    () => client.mlTrainingClient.getTrainingJob(id),
    (j) => j.status === TrainingStatus.COMPLETED,
  );
  expect(await client.packagesClient.getPackage(`${organizationId}/box-detector`, '3')).toMatchObject({
    id: `${organizationId}/box-detector`,
    version: '3',
    type: 'ml_model',
  });
  expect((await client.packagesClient.listPackages(organizationId, { type: 'ml_model' })).map((p) => `${p.name}@${p.version}`)).toContain(
    'box-detector@3',
  );
  await expect(client.packagesClient.deletePackage(`${organizationId}/box-detector`, '3', 'ml_model')).rejects.toMatchObject({
    code: 'FAILED_PRECONDITION',
  });
});

test('an uploaded ml_model package is an ML model item of the registry, a version per upload, beside trained ones', async () => {
  const org = fx.emulator.credentials.organizationId;
  for (const version of ['a1', 'a2']) {
    await client.packagesClient.createPackage(
      {
        organizationId: org,
        name: 'uploaded-model',
        version,
        type: 'ml_model',
        metadata: { model_type: 'object_detection', model_framework: 'onnx' },
      },
      bytes(20),
    );
  }
  await client.packagesClient.createPackage({ organizationId: org, name: 'just-files', version: '1', type: 'archive' }, bytes(20));
  const trained = await client.mlTrainingClient.submitTrainingJob(
    org,
    fx.emulator.credentials.datasetId,
    'crate-detector',
    '1',
    ModelType.OBJECT_DETECTION,
    ['crate'],
  );
  await waitUntil(
    'job COMPLETED',
    () => client.mlTrainingClient.getTrainingJob(trained),
    (j) => j.status === TrainingStatus.COMPLETED,
  );
  const services = await loadServices();
  const app = client.clientFor(services.app);
  const { item } = await app.getRegistryItem({ itemId: `${org}:uploaded-model` });
  expect(item?.type).toBe(2);
  expect(item?.metadata.case).toBe('mlModelMetadata');
  const metadata = item?.metadata.value as { versions: string[]; modelType: number; modelFramework: number };
  expect(metadata.versions).toEqual(['a1', 'a2']);
  expect(metadata.modelType).toBe(ModelType.OBJECT_DETECTION);
  expect(metadata.modelFramework).toBe(ModelFramework.ONNX);
  const listed = await app.listRegistryItems({ organizationId: org, types: [2] });
  expect(listed.items.map((i) => i.name)).toEqual(expect.arrayContaining(['uploaded-model', 'crate-detector']));
  expect(listed.items.map((i) => i.name)).not.toContain('just-files');
});
