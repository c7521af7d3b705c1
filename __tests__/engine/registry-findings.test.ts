/**
 * What planning finds against the service's registry and training containers: a custom
 * training job's container version, and the module versions a policy skips.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createServiceClient, type ServiceClient } from '../../src/api/client';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import type { KindContext } from '../../src/engine/kind';
import { customTrainingJobKind } from '../../src/engine/kinds/training-job';

jest.setTimeout(60_000);

let emulator: RunningEmulator;
let dataDir: string;
let client: ServiceClient;

/** A run's context over the emulator: one read shared per key, as a run shares it. */
function context(): KindContext {
  const memos = new Map<string, Promise<unknown>>();
  const c = emulator.credentials;
  return {
    client,
    organizationId: c.organizationId,
    locationId: c.locationId,
    memo<T>(key: string, load: () => Promise<T>): Promise<T> {
      if (!memos.has(key)) memos.set(key, load());
      return memos.get(key) as Promise<T>;
    },
  };
}

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-registry-findings-'));
  emulator = await startEmulator({ dataDir, port: 0, clock: 'frozen' });
  const c = emulator.credentials;
  client = await createServiceClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: c.apiKeyId, payload: c.apiKey },
  });
});

afterAll(async () => {
  await client?.close();
  await emulator?.close();
  if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
});

describe('container versions of custom training jobs', () => {
  async function desire(containerVersion: string | undefined, modelName: string) {
    const attributes = customTrainingJobKind.declaration.schema.parse({
      dataset_id: emulator.credentials.datasetId,
      registry_item_id: 'acme:trainer',
      registry_item_version: '0.3.0',
      model_name: modelName,
      model_version: '1',
      ...(containerVersion === undefined ? {} : { container_version: containerVersion }),
    });
    return customTrainingJobKind.desire(context(), attributes, undefined);
  }

  test('one the service does not list stops the plan, naming the field and the listed keys', async () => {
    const { problems } = await desire('tf-2.15', 'containers-a');
    expect(problems).toEqual([
      expect.objectContaining({
        path: 'container_version',
        hint: "set containerVersion to one of: pytorch:2.4, sklearn:1.5, tf:2.15, tf:2.17, or leave it out for the service's default",
      }),
    ]);
  });

  test('one past its end of life plans with a warning; a supported one and none say nothing', async () => {
    const eol = await desire('tf:2.15', 'containers-b');
    expect(eol.problems).toEqual([]);
    expect(eol.notes).toEqual([
      expect.objectContaining({
        level: 'warning',
        path: 'container_version',
        message: expect.stringContaining('end of life on 2026-03-03'),
      }),
    ]);
    for (const fine of ['tf:2.17', undefined]) {
      const planned = await desire(fine, 'containers-c');
      expect([...planned.problems, ...planned.notes]).toEqual([]);
    }
  });
});
