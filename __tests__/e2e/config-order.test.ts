/**
 * What fleetform's part writes keep: the config as the code orders it (every object's keys)
 * reaches the service as written, read back with the official SDK; an integer above 2^53 the
 * service holds (written as text by another client) survives fleetform's next write of the
 * part, though the code holds it as a double.
 */
import { createClient, type Client } from '@connectrpc/connect';
import { App, LocalBackend, TerraformStack } from 'cdktf';
import * as path from 'node:path';
import { FleetProvider, Machine, ModularResource, Module } from '../../src';
import { loadSdk, type Sdk } from '../../src/api/sdk';
import { loadServices, type AppWireServiceType } from '../../src/api/services';
import * as own from '../../src/api/own-messages';
import { tokenFor, transport } from '../emulator/helpers';
import { openEmulatorProject, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(300_000);

type ViamClient = Awaited<ReturnType<Sdk['createViamClient']>>;
let p: EmulatorProject;
let sdk: Sdk;
let viam: ViamClient;
beforeAll(async () => {
  p = await openEmulatorProject('ff-order-');
  sdk = await loadSdk();
  viam = await sdk.createViamClient({
    serviceHost: p.env.FLEETFORM_ENDPOINT as string,
    credentials: { type: 'api-key', authEntity: p.credentials.apiKeyId, payload: p.credentials.apiKey },
  });
});
afterAll(async () => {
  await p?.close();
});

/** A client of the service's own wire messages, to write a part's config as text as another client (the official CLI, the app) does. */
async function textWriter(): Promise<Client<AppWireServiceType>> {
  const url = p.env.FLEETFORM_ENDPOINT as string;
  const token = await tokenFor(url, p.credentials.apiKeyId, p.credentials.apiKey);
  return createClient((await loadServices()).appWire, transport(url, 'grpc-web', { authorization: `Bearer ${token}` }));
}

function synth(attributes: Record<string, unknown>, machineName = 'rig'): void {
  const app = new App({ outdir: p.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new LocalBackend(stack, { path: path.join(p.dir, 'terraform.fleet.tfstate') });
  new FleetProvider(stack, 'cloud', {});
  const machine = new Machine(stack, machineName, { name: machineName });
  new Module(machine, 'sensors', { moduleId: 'acme:sensors', version: '~1.2' });
  new ModularResource(machine, 'sensor', {
    name: 'sensor-1',
    api: 'rdk:component:sensor',
    model: 'acme:sensors:hc-sr04',
    attributes: attributes as never,
  });
  app.synth();
}

async function mainPartId(machineName = 'rig'): Promise<string> {
  const machine = (await p.client.appClient.listMachines(p.credentials.locationId)).find((m) => m.name === machineName);
  const [main] = await p.client.appClient.getMachineParts(machine?.id ?? '');
  return main?.id ?? '';
}

/** The attributes object of the stored config's sensor, as JSON text cut from GetRobotPart's config_json. */
function attributesText(configJson: string): string {
  const found = /"attributes":(\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\})/.exec(configJson);
  return found?.[1] ?? '';
}

test("an applied machine's config reaches the service in the code's key order, as robot_config_json", async () => {
  // A machine of its own: a new machine's first write takes the code's order, whatever another test stored.
  synth({ zeta: 1, alpha: 2, nested: { z: true, a: false }, mid: 'm' }, 'fresh');
  const apply = await p.run('apply', '--auto-approve');
  expect(apply.stderr).toBe('');
  expect(apply.code).toBe(0);
  const read = await viam.appClient.getRobotPart(await mainPartId('fresh'));
  expect(attributesText(read.configJson)).toBe('{"zeta":1,"alpha":2,"nested":{"z":true,"a":false},"mid":"m"}');
  // Stored from the text: the part carries it as robot_config_json too.
  const part = own.RobotPartWithEncodedConfig.fromBinary(read.part?.toBinary() ?? new Uint8Array());
  expect(part.robotConfigJson).toBe(read.configJson);
  expect((await p.run('plan', '--detailed-exitcode')).code).toBe(0);
});

test('an integer above 2^53 on the service survives the next apply, which changes another attribute', async () => {
  synth({ zeta: 1, serial: 2 ** 53 });
  expect((await p.run('apply', '--auto-approve')).code).toBe(0);
  const partId = await mainPartId();
  // Another client (as the official CLI does) writes the exact integer as text.
  const wire = await textWriter();
  const stored = (await viam.appClient.getRobotPart(partId)).configJson;
  expect(stored).toContain('"serial":9007199254740992');
  const exact = stored.replace('"serial":9007199254740992', '"serial":9007199254740993');
  const { name } = await p.client.appClient.getMachinePart(partId);
  await wire.updateRobotPart({ id: partId, name, robotConfigJson: exact });
  // The code's double is that integer's double: no change to plan.
  expect((await p.run('plan', '--detailed-exitcode')).code).toBe(0);
  synth({ zeta: 5, serial: 2 ** 53 });
  const apply = await p.run('apply', '--auto-approve');
  expect(apply.stderr).toBe('');
  expect(apply.code).toBe(0);
  expect(attributesText((await viam.appClient.getRobotPart(partId)).configJson)).toBe('{"zeta":5,"serial":9007199254740993}');
});

test('a write keeps the order someone else stored the config in, where the code changes nothing', async () => {
  synth({ zeta: 1, alpha: 2 });
  expect((await p.run('apply', '--auto-approve')).code).toBe(0);
  const partId = await mainPartId();
  const wire = await textWriter();
  // Someone edits the JSON in the app: the same config, its keys in an order of their own.
  const stored = JSON.parse((await viam.appClient.getRobotPart(partId)).configJson) as {
    components: Array<Record<string, unknown>>;
    modules: unknown[];
  };
  const reversed = (o: object): Record<string, unknown> => Object.fromEntries(Object.entries(o).reverse());
  const [sensor] = stored.components;
  const theirs = {
    modules: stored.modules,
    components: [reversed({ ...sensor, attributes: reversed(sensor?.attributes as object) })],
    services: [],
  };
  const { name } = await p.client.appClient.getMachinePart(partId);
  await wire.updateRobotPart({ id: partId, name, robotConfigJson: JSON.stringify(theirs) });
  expect((await p.run('plan', '--detailed-exitcode')).code).toBe(0);
  synth({ zeta: 7, alpha: 2, added: true });
  const apply = await p.run('apply', '--auto-approve');
  expect(apply.stderr).toBe('');
  expect(apply.code).toBe(0);
  const after = (await viam.appClient.getRobotPart(partId)).configJson;
  expect(Object.keys(JSON.parse(after) as object)).toEqual(['modules', 'components', 'services']);
  expect(after).toContain(
    `{"depends_on":[],"attributes":{"alpha":2,"zeta":7,"added":true},"model":"acme:sensors:hc-sr04","api":"rdk:component:sensor","name":"sensor-1"}`,
  );
});
