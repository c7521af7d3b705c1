/**
 * What planning finds against the service's registry and training containers: a custom
 * training job's container version, and module versions: what a policy skips, what an exact
 * version meets on the machine's viam-server.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@connectrpc/connect';
import { createServiceClient, type ServiceClient } from '../../src/api/client';
import { EmulatorService, type EmulatorServiceType } from '../../src/api/emulator-control';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import type { KindContext } from '../../src/engine/kind';
import { machineKind } from '../../src/engine/kinds/machine';
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

describe('module versions on a machine', () => {
  let controls: Client<EmulatorServiceType>;
  let partId: string;
  let machineId: string;

  beforeAll(async () => {
    controls = client.clientFor(EmulatorService);
    const c = emulator.credentials;
    // Seeded acme:sensors: 1.1.0, 1.2.0, 1.2.3, 1.2.4, 1.2.5, 1.3.0, 2.0.0-rc.1.
    await controls.setModuleVersionStatus({
      moduleId: 'acme:sensors',
      version: '1.3.0',
      deprecated: true,
      deprecationMessage: 'leaks memory',
    });
    await controls.setModuleVersionStatus({ moduleId: 'acme:sensors', version: '1.2.5', minViamServerVersion: '0.99.0' });
    machineId = await client.appClient.newMachine('rover', c.locationId);
    const [part] = await client.appClient.getMachineParts(machineId);
    if (!part) throw new Error('the machine has no part');
    partId = part.id;
    await controls.setViamServerVersion({ machine: partId, version: '0.98.0' });
  });

  function desire(version: string | undefined, acknowledged: Record<string, Record<string, string>> = {}) {
    const config = {
      components: [],
      services: [],
      modules: [{ type: 'registry', name: 'sensors', module_id: 'acme:sensors', ...(version === undefined ? {} : { version }) }],
    };
    const attributes = machineKind.declaration.schema.parse({
      name: 'rover',
      location_id: emulator.credentials.locationId,
      config: JSON.stringify(config),
      ...(Object.keys(acknowledged).length > 0 ? { acknowledged } : {}),
    });
    const prior = {
      type: machineKind.type,
      ids: { machine_id: machineId, part_id: partId },
      outputs: {},
      attributes: null,
      dependencies: [],
      private: {},
      sensitive_paths: [],
      status: 'ok' as const,
    };
    return machineKind.desire(context(), attributes, prior);
  }

  test('a policy skips deprecated versions and those needing a newer viam-server, one line each', async () => {
    const planned = await desire('^1');
    expect(planned.problems).toEqual([]);
    expect(planned.notes.map((n) => n.message)).toEqual(
      expect.arrayContaining([
        expect.stringContaining('runs 1.2.4'),
        '1.2.5 skipped: needs viam-server 0.99.0, the machine runs 0.98.0',
        '1.3.0 skipped: deprecated (leaks memory)',
      ]),
    );
  });

  test('a module given no version is first pinned to the newest release the machine may run', async () => {
    const planned = await desire(undefined);
    expect(planned.private).toEqual({ pins: { sensors: '1.2.4' } });
  });

  test('an exact deprecated version warns; one needing a newer viam-server is an error until acknowledged', async () => {
    const deprecated = await desire('1.3.0');
    expect(deprecated.problems).toEqual([]);
    expect(deprecated.notes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ level: 'warning', message: expect.stringContaining('acme:sensors@1.3.0 is deprecated: leaks memory') }),
      ]),
    );
    const tooNew = await desire('1.2.5');
    expect(tooNew.problems).toEqual([
      expect.objectContaining({
        path: 'config.modules.sensors.version',
        message: expect.stringContaining('needs viam-server 0.99.0; the machine runs 0.98.0'),
      }),
    ]);
    expect(tooNew.problems[0]?.hint).toContain(`code: 'module-viam-server', path: "modules.sensors.version"`);
    const acknowledged = await desire('1.2.5', { 'modules.sensors.version': { 'module-viam-server': 'server update scheduled' } });
    expect(acknowledged.problems).toEqual([]);
    expect(acknowledged.notes.map((n) => n.message)).toEqual(
      expect.arrayContaining([expect.stringContaining('(acknowledged: server update scheduled)')]),
    );
    const unmatched = await desire('1.2.4', { 'modules.sensors.version': { 'module-viam-server': 'server update scheduled' } });
    expect(unmatched.notes.map((n) => n.message)).toEqual(expect.arrayContaining([expect.stringContaining('matches no finding')]));
  });

  test("with the machine's viam-server unknown, an exact version needing a newer one only warns", async () => {
    await controls.setViamServerVersion({ machine: partId, version: '' });
    try {
      const planned = await desire('1.2.5');
      expect(planned.problems).toEqual([]);
      expect(planned.notes.map((n) => n.message)).toEqual(
        expect.arrayContaining([expect.stringContaining("the machine's version is not known")]),
      );
    } finally {
      await controls.setViamServerVersion({ machine: partId, version: '0.98.0' });
    }
  });
});

describe("models a module's manifest lists", () => {
  beforeAll(async () => {
    // A module serving a model under another prefix than its id, as registry modules do (viam:realsense serves viam:camera:realsense).
    await client.clientFor(EmulatorService).publishModuleVersion({
      moduleId: 'acme:camkit',
      version: '1.0.0',
      models: [{ api: 'rdk:component:camera', model: 'acme:camera:webcam' }],
    });
  });

  function desire(model: string) {
    const config = {
      components: [{ name: 'cam', api: 'rdk:component:camera', model }],
      modules: [{ type: 'registry', name: 'camkit', module_id: 'acme:camkit', version: '1.0.0' }],
    };
    const attributes = machineKind.declaration.schema.parse({
      name: 'viewer',
      location_id: emulator.credentials.locationId,
      config: JSON.stringify(config),
    });
    return machineKind.desire(context(), attributes, undefined);
  }

  test('a model the manifest lists is provided whatever its prefix; one it does not list is a certain failure', async () => {
    const listed = await desire('acme:camera:webcam');
    expect(listed.problems).toEqual([]);
    const misspelt = await desire('acme:camera:webcan');
    expect(misspelt.problems).toEqual([
      expect.objectContaining({
        path: 'config.components[0].model',
        message: expect.stringContaining('needs a module with module_id "acme:camera"'),
      }),
    ]);
  });
});
