/**
 * DataPipelinesService on the emulator through fleetform's client: the service's checks,
 * in-place rename and enable/disable, and the runs recorded as the frozen clock is stepped
 * past schedule ticks (a stage the emulator does not know fails its runs).
 */
import * as fs from 'node:fs';
import { createClient } from '@connectrpc/connect';
import { EmulatorService } from '../../src/api/emulator-control';
import { createServiceClient, ServiceError, type ServiceClient } from '../../src/api/client';
import { loadServices } from '../../src/api/services';
import { encodeBsonDocument } from '../../src/domain/bson';
import type { JsonObject } from '../../src/domain/json-value';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { clientOf, codeOf, tempDir, transport } from './helpers';

/** 2026-01-01 00:30 UTC: the frozen clock starts half an hour before an hourly tick. */
const START = Date.UTC(2026, 0, 1, 0, 30);
const HOUR = 3_600_000;

let emulator: RunningEmulator;
let dataDir: string;
let client: ServiceClient;
let org: string;

beforeAll(async () => {
  dataDir = tempDir();
  emulator = await startEmulator({ dataDir, port: 0, clock: 'frozen', now: () => START });
  client = await createServiceClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: emulator.credentials.apiKeyId, payload: emulator.credentials.apiKey },
  });
  org = emulator.credentials.organizationId;
});

afterAll(async () => {
  await client.close();
  await emulator.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const pipelines = () => client.dataPipelinesClient;
const step = (ms: number) => client.clientFor(EmulatorService).stepClock({ milliseconds: BigInt(ms) });
const stages: JsonObject[] = [
  { $match: { component_name: 'thermometer' } },
  { $group: { _id: '$robot_id', avg: { $avg: '$data.readings.t' } } },
];

async function failure(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ServiceError) return { code: err.code, message: err.detail };
    throw err;
  }
  return { code: 'ok', message: '' };
}

test('a pipeline is created, read back with its stages in their key order, renamed and disabled in place', async () => {
  const id = await pipelines().createDataPipeline({ organizationId: org, name: 'temps', stages, schedule: '0 * * * *' });
  const created = await pipelines().getDataPipeline(id);
  expect(created).toMatchObject({ id, name: 'temps', schedule: '0 * * * *', enabled: true, stages, organizationId: org });
  expect(Object.keys(created?.stages[1]?.$group as object)).toEqual(['_id', 'avg']);
  expect(created?.dataSourceType).toBeUndefined();

  await pipelines().renameDataPipeline(id, 'temperatures');
  await pipelines().setDataPipelineEnabled(id, false);
  expect(await pipelines().getDataPipeline(id)).toMatchObject({ id, name: 'temperatures', enabled: false });
  expect((await pipelines().listDataPipelines(org)).map((p) => p.name)).toContain('temperatures');

  await pipelines().deleteDataPipeline(id);
  expect(await pipelines().getDataPipeline(id)).toBeUndefined();
});

test('the service refuses a bad schedule naming the field, a taken name, and a stage that is not BSON', async () => {
  const bad = await failure(pipelines().createDataPipeline({ organizationId: org, name: 'bad', stages, schedule: '0 * * *' }));
  expect(bad.code).toBe('INVALID_ARGUMENT');
  expect(bad.message).toMatch(/^schedule: .*4 fields, not 5/);
  expect((await failure(pipelines().createDataPipeline({ organizationId: org, name: 'x', stages, schedule: '61 * * * *' }))).code).toBe(
    'INVALID_ARGUMENT',
  );

  const first = await pipelines().createDataPipeline({ organizationId: org, name: 'taken', stages, schedule: '0 * * * *' });
  const again = await failure(pipelines().createDataPipeline({ organizationId: org, name: 'taken', stages, schedule: '5 * * * *' }));
  expect(again.code).toBe('ALREADY_EXISTS');
  const other = await pipelines().createDataPipeline({ organizationId: org, name: 'other', stages, schedule: '0 * * * *' });
  expect((await failure(pipelines().renameDataPipeline(other, 'taken'))).code).toBe('ALREADY_EXISTS');
  await pipelines().renameDataPipeline(first, 'taken');

  const raw = createClient((await loadServices()).dataPipelines, transport(emulator.url, 'grpc-web'));
  const services = await loadServices();
  const authed = await clientOf(emulator, services.dataPipelines);
  const notBson = await codeOf(
    authed.createDataPipeline({ organizationId: org, name: 'nb', schedule: '0 * * * *', mqlBinary: [Uint8Array.of(1, 2, 3)] }),
  );
  expect(notBson).toBe('InvalidArgument');
  // No token: every call is refused before it reads or changes anything.
  expect(await codeOf(raw.listDataPipelines({ organizationId: org }))).toBe('Unauthenticated');
  expect(
    await codeOf(
      raw.createDataPipeline({ organizationId: org, name: 'anon', schedule: '0 * * * *', mqlBinary: [encodeBsonDocument({ $match: {} })] }),
    ),
  ).toBe('Unauthenticated');
  expect(await codeOf(raw.deleteDataPipeline({ id: first }))).toBe('Unauthenticated');
  expect(await pipelines().getDataPipeline(first)).toBeDefined();
});

test('runs are recorded at each tick the clock passes, with the window since the tick before; none while disabled', async () => {
  const id = await pipelines().createDataPipeline({ organizationId: org, name: 'hourly', stages, schedule: '0 * * * *' });
  const failing = await pipelines().createDataPipeline({
    organizationId: org,
    name: 'failing',
    stages: [{ $match: {} }, { $frobnicate: 1 }],
    schedule: '0 * * * *',
    dataSourceType: 'hot_storage',
  });
  expect(await pipelines().listDataPipelineRuns(id)).toEqual([]);
  const now = Number((await step(0)).now?.toDate().getTime());
  const nextTick = Math.ceil((now + 1) / HOUR) * HOUR;
  await step(nextTick - now);

  const [run, ...older] = await pipelines().listDataPipelineRuns(id);
  expect(older).toEqual([]);
  expect(run).toMatchObject({ status: 'completed', startTime: new Date(nextTick), dataStartTime: new Date(nextTick - HOUR) });
  expect(run?.dataEndTime).toEqual(new Date(nextTick));
  expect(run?.errorMessage).toBeUndefined();

  const [failed] = await pipelines().listDataPipelineRuns(failing);
  expect(failed?.status).toBe('failed');
  expect(failed?.errorMessage).toMatch(/stage 1: .*"\$frobnicate"/);
  expect((await pipelines().getDataPipeline(failing))?.dataSourceType).toBe('hot_storage');

  await step(2 * HOUR);
  const runs = await pipelines().listDataPipelineRuns(id);
  expect(runs.map((r) => r.dataEndTime?.getTime())).toEqual([nextTick + 2 * HOUR, nextTick + HOUR, nextTick]);
  expect(await pipelines().listDataPipelineRuns(id, 1)).toHaveLength(1);

  await pipelines().setDataPipelineEnabled(id, false);
  await step(3 * HOUR);
  expect(await pipelines().listDataPipelineRuns(id)).toHaveLength(3);
  await pipelines().setDataPipelineEnabled(id, true);
  await step(HOUR);
  const resumed = await pipelines().listDataPipelineRuns(id);
  expect(resumed).toHaveLength(4);
  expect(resumed[0]?.dataEndTime?.getTime()).toBe(nextTick + 6 * HOUR);
});
