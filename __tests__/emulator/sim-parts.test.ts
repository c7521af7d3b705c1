/** A machine of several parts: each part checks in and runs its own config, with its own status, logs and history. */
import type { Client } from '@connectrpc/connect';
import { Struct } from '@bufbuild/protobuf';
import { createServiceClient } from '../../src/api/client';
import { loadServices, type AppServiceType } from '../../src/api/services';
import { serviceStatusSource } from '../../src/engine/health/service-status-source';
import { waitHealthy } from '../../src/engine/health/wait-healthy';
import { useEmulator } from './fixture';
import { clientOf, newMachine } from './helpers';

const fx = useEmulator({
  simulation: { simulate: true, checkInIntervalMs: 40, moduleStartMs: 0, resourceConfigureMs: 0, machineFaults: [] },
});

let app: Client<AppServiceType>;
beforeAll(async () => {
  app = await clientOf(fx.emulator, (await loadServices()).app);
});

const config = (board: string) => ({
  components: [{ name: board, api: 'rdk:component:board', model: 'acme:sensors:pi-board' }],
  modules: [{ type: 'registry', name: 'sensors', module_id: 'acme:sensors', version: '~1.2' }],
});

test('two parts of one machine run their own configs; status and history per part', async () => {
  const { robotId, partId: mainId, partName: mainName } = await newMachine(app, fx.emulator.credentials.locationId, 'two-parts');
  const { partId: armId } = await app.newRobotPart({ robotId, partName: 'arm-part' });
  await app.updateRobotPart({ id: mainId, name: mainName, robotConfig: Struct.fromJson(config('main-board')) });
  await app.updateRobotPart({ id: armId, name: 'arm-part', robotConfig: Struct.fromJson(config('arm-board')) });
  const client = await createServiceClient({
    serviceHost: fx.emulator.url,
    credentials: { type: 'api-key', authEntity: fx.emulator.credentials.apiKeyId, payload: fx.emulator.credentials.apiKey },
  });
  const source = await serviceStatusSource(client);
  await waitHealthy(source, mainId, 'two-parts', { timeout_ms: 10_000, settle_ms: 0 });
  await waitHealthy(source, armId, 'two-parts/arm-part', { timeout_ms: 10_000, settle_ms: 0 });
  const main = await source.read(mainId);
  const arm = await source.read(armId);
  expect(main.reachable && main.status.resources.map((r) => r.name)).toEqual(['main-board']);
  expect(arm.reachable && arm.status.resources.map((r) => r.name)).toEqual(['arm-board']);
  expect(main.online).toBe('online');
  expect(arm.online).toBe('online');
  const history = await app.getRobotPartHistory({ id: armId });
  expect(history.history.length).toBeGreaterThan(0);
  expect(history.history.every((h) => h.part === armId)).toBe(true);
  const summaries = await app.listMachineSummaries({ organizationId: fx.emulator.credentials.organizationId });
  const machine = summaries.locationSummaries.flatMap((l) => l.machineSummaries).find((m) => m.machineId === robotId);
  expect(machine?.partSummaries.map((p) => [p.partName, p.isMainPart, p.onlineState])).toEqual(
    expect.arrayContaining([
      [mainName, true, 1],
      ['arm-part', false, 1],
    ]),
  );
  const armLogs = await app.getRobotPartLogs({ id: armId, filter: 'arm-board' });
  expect(armLogs.logs.length).toBeGreaterThan(0);
  const mainLogs = await app.getRobotPartLogs({ id: mainId, filter: 'arm-board' });
  expect(mainLogs.logs).toEqual([]);
});
