/**
 * A part's version read alone: GetRobotPart's answer read through the version probe gives
 * the same `last_updated` as the full read, with the config's fields skipped (not kept as
 * unknown fields), from bytes encoded by the official SDK's messages and from the emulator
 * over both transports.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createServiceClient, ServiceError, type ServiceClient, type TransportKind } from '../../src/api/client';
import { GetRobotPartVersionReply } from '../../src/api/part-version-probe';
import { GetRobotPartVersionResponse } from '../../src/api/generated/viam/app/v1/robot_part_version_pb';
import { loadServices, type Services } from '../../src/api/services';
import { startEmulator, type RunningEmulator } from '../../src/emulator';

const CONFIG = {
  components: [
    {
      name: 'cam',
      api: 'rdk:component:camera',
      model: 'acme:sensors:multi-cam',
      attributes: { width_px: 1280, labels: ['a', 'b'], deep: { x: 1 } },
    },
  ],
  modules: [{ type: 'registry', name: 'sensors', module_id: 'acme:sensors', version: '1.2.3' }],
};

let services: Services;

beforeAll(async () => {
  services = await loadServices();
});

describe('the version probe on the official message bytes', () => {
  function fullResponseBytes(lastUpdated: Date | undefined): Uint8Array {
    const { appApi, Struct, Timestamp } = services.sdk;
    const part = new appApi.RobotPart({
      id: 'part-1',
      name: 'main',
      robot: 'robot-1',
      robotConfig: Struct.fromJson(CONFIG),
      lastAccess: Timestamp.fromDate(new Date('2026-01-01T00:00:00Z')),
      createdOn: Timestamp.fromDate(new Date('2025-06-01T00:00:00Z')),
      lastUpdated: lastUpdated && Timestamp.fromDate(lastUpdated),
      mainPart: true,
      fqdn: 'robot-1.example',
    });
    return new appApi.GetRobotPartResponse({ part, configJson: JSON.stringify(CONFIG) }).toBinary();
  }

  test('reads the id and last_updated the full message holds, nothing else kept', () => {
    const at = new Date('2026-11-28T03:04:05.678Z');
    const bytes = fullResponseBytes(at);
    const full = services.sdk.appApi.GetRobotPartResponse.fromBinary(bytes);
    const probe = GetRobotPartVersionReply.fromBinary(bytes);
    expect(probe.part?.id).toBe('part-1');
    expect(probe.part?.lastUpdated?.toDate().toISOString()).toBe(at.toISOString());
    expect(probe.part?.lastUpdated?.toDate().getTime()).toBe(full.part?.lastUpdated?.toDate().getTime());
    const runtime = GetRobotPartVersionReply.runtime.bin;
    expect(runtime.listUnknownFields(probe)).toEqual([]);
    expect(runtime.listUnknownFields(probe.part!)).toEqual([]);
    // Read as an ordinary message, the same bytes keep the config and the rest as unknown fields.
    const kept = GetRobotPartVersionResponse.fromBinary(bytes);
    expect(runtime.listUnknownFields(kept).map((f) => f.no)).toEqual([2]);
  });

  test('a part never updated has no version', () => {
    expect(GetRobotPartVersionReply.fromBinary(fullResponseBytes(undefined)).part?.lastUpdated).toBeUndefined();
  });
});

describe.each<TransportKind>(['grpc-web', 'grpc'])('the version probe against the emulator over %s', (transport) => {
  let dataDir: string;
  let emulator: RunningEmulator;
  let client: ServiceClient;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetform-probe-'));
    emulator = await startEmulator({ dataDir, port: 0 });
    client = await createServiceClient({
      serviceHost: emulator.url,
      credentials: { type: 'api-key', authEntity: emulator.credentials.apiKeyId, payload: emulator.credentials.apiKey },
      transport,
    });
  });

  afterAll(async () => {
    await client.close();
    await emulator.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test("equals the full read's last_updated before and after each write", async () => {
    const id = await client.appClient.newMachine(`probed-${transport}`, emulator.credentials.locationId);
    const [main] = await client.appClient.getMachineParts(id);
    const partId = main!.id;
    const agree = async (): Promise<number> => {
      const full = await client.appClient.getMachinePart(partId);
      const probed = await client.appClient.getMachinePartVersion(partId);
      expect(probed).toBeInstanceOf(Date);
      expect(probed!.getTime()).toBe(full.lastUpdated!.getTime());
      return probed!.getTime();
    };
    await agree();
    const written = await client.appClient.updateMachinePart(partId, main!.name, CONFIG);
    expect(await agree()).toBe(written.lastUpdated!.getTime());
    const again = await client.appClient.updateMachinePart(partId, main!.name, { ...CONFIG, services: [] });
    expect(await agree()).toBe(again.lastUpdated!.getTime());
  });

  test('a part that does not exist is NOT_FOUND, as with the full read', async () => {
    const outcome = await client.appClient.getMachinePartVersion('no-such-part').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(outcome).toBeInstanceOf(ServiceError);
    expect(outcome).toMatchObject({ code: 'NOT_FOUND', method: 'AppService.GetRobotPart' });
  });
});
