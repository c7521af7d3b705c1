/** The example of the client's documentation, written against the package root `fleetform`. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createServiceClient, ModelType, ServiceError, TrainingStatus, type TrainingJobMetadata } from 'fleetform';
import { startEmulator, type RunningEmulator } from '../../src/emulator';

let dataDir: string;
let emulator: RunningEmulator;
beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetform-root-'));
  emulator = await startEmulator({ dataDir });
});
afterAll(async () => {
  await emulator.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('the documented flow works from the package root', async () => {
  const { apiKeyId, apiKey, organizationId: orgId, datasetId } = emulator.credentials;
  const client = await createServiceClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey },
  });
  try {
    const id = await client.mlTrainingClient.submitTrainingJob(orgId, datasetId, 'boxes', '1', ModelType.OBJECT_DETECTION, ['box']);
    const customId = await client.mlTrainingClient.submitCustomTrainingJob(orgId, datasetId, 'acme:trainer', '0.3.0', 'boxes-custom', '1');
    const job: TrainingJobMetadata = await client.mlTrainingClient.getTrainingJob(id);
    expect(job.status).toBe(TrainingStatus.PENDING);
    const pending = await client.mlTrainingClient.listTrainingJobs(orgId, TrainingStatus.PENDING);
    expect(pending.map((j) => j.id).sort()).toEqual([id, customId].sort());
    await client.mlTrainingClient.cancelTrainingJob(id);
    const err = await client.mlTrainingClient.deleteCompletedTrainingJob(id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError); // still CANCELING, not completed
    expect((err as ServiceError).code).toBe('FAILED_PRECONDITION');
  } finally {
    await client.close();
  }
});
