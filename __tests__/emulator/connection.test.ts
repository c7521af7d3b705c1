/** openConnection: environment variables first, else the embedded emulator in <cwd>/.fleetform/emulator. */
import * as net from 'node:net';
import * as path from 'node:path';
import { EmulatorService } from '../../src/api/emulator-control';
import { openConnection } from '../../src/cli/connection';
import { InputError } from '../../src/domain/errors';
import { readCredentials } from '../../src/emulator';
import { scratchDirs, useEmulator } from './fixture';

const fx = useEmulator();
const scratch = scratchDirs();

test('FLEETFORM_ENDPOINT with a key connects to that service', async () => {
  const env = {
    FLEETFORM_ENDPOINT: fx.emulator.url,
    FLEETFORM_API_KEY: fx.emulator.credentials.apiKey,
    FLEETFORM_API_KEY_ID: fx.emulator.credentials.apiKeyId,
  };
  const conn = await openConnection({ cwd: scratch(), env });
  try {
    expect(conn).toMatchObject({ endpoint: fx.emulator.url, embedded: false });
    const orgs = await conn.client.appClient.listOrganizations();
    expect(orgs.map((o) => o.id)).toEqual([fx.emulator.credentials.organizationId]);
    // The control service through the typed client's authenticated raw client.
    const cards = await conn.client.clientFor(EmulatorService).listModuleCards({});
    expect(cards.cards).toEqual([]);
  } finally {
    await conn.close();
  }
});

test('FLEETFORM_ENDPOINT without the key is an input error', async () => {
  await expect(openConnection({ cwd: scratch(), env: { FLEETFORM_ENDPOINT: fx.emulator.url } })).rejects.toBeInstanceOf(InputError);
});

test('without FLEETFORM_ENDPOINT an emulator runs in-process on <cwd>/.fleetform/emulator and stops on close', async () => {
  const cwd = scratch();
  const conn = await openConnection({ cwd, env: {} });
  const creds = readCredentials(path.join(cwd, '.fleetform', 'emulator'));
  expect(creds).toBeDefined();
  expect(conn).toMatchObject({ embedded: true, organizationId: creds?.organizationId, locationId: creds?.locationId });
  expect(conn.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect((await conn.client.appClient.listLocations(creds?.organizationId ?? '')).map((l) => l.id)).toEqual([creds?.locationId]);
  await conn.close();
  const port = Number(new URL(conn.endpoint).port);
  const refused = await new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });
  expect(refused).toBe(true);
});
