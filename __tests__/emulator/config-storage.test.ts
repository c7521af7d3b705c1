/**
 * How a part's config is stored, as the service stores it: `robot_config_json` (JSON text)
 * is kept exactly as sent, key order and integers as written; a write of the Struct alone
 * is stored from the Struct, its keys sorted in every object and its numbers doubles. Every
 * read gives the stored form; the JSON text is checked as the Struct is.
 */
import type { JsonObject } from '@bufbuild/protobuf';
import type { Client } from '@connectrpc/connect';
import type { AppWireServiceType } from '../../src/api/services';
import { loadSdk, type Sdk } from '../../src/api/sdk';
import * as own from '../../src/api/own-messages';
import { useOwnerClients } from './fixture';
import { clientOf, codeOf, newMachine } from './helpers';

type ViamClient = Awaited<ReturnType<Sdk['createViamClient']>>;

const fx = useOwnerClients();
let sdk: Sdk;
let viam: ViamClient;
let wire: Client<AppWireServiceType>;
beforeAll(async () => {
  sdk = await loadSdk();
  const c = fx.emulator.credentials;
  viam = await sdk.createViamClient({
    serviceHost: fx.emulator.url,
    credentials: { type: 'api-key', authEntity: c.apiKeyId, payload: c.apiKey },
  });
  wire = await clientOf(fx.emulator, fx.services.appWire);
});

/** A config whose keys are not sorted, in objects at every depth. */
const unsorted = {
  services: [],
  components: [{ name: 'cam', model: 'rdk:builtin:fake', api: 'rdk:component:camera', attributes: { zoom: 2, fps: 30 } }],
};
/** Its JSON text, with an integer no double holds (2^53 + 1) and an integer written with spaces around it. */
const text =
  '{"services":[],"components":[{"name":"cam","model":"rdk:builtin:fake","api":"rdk:component:camera","attributes":{"zoom":2,"serial":9007199254740993,"fps": 30 }}]}';

/** Every object key of a JSON text, in the order written. */
function keysIn(json: string): string[] {
  return [...json.matchAll(/"([^"]+)":/g)].map((m) => m[1] as string);
}

async function machine(name: string) {
  return newMachine(fx.app, fx.emulator.credentials.locationId, name);
}

test("the official SDK's Struct write is stored with its keys sorted in every object", async () => {
  const m = await machine('struct-sorted');
  await viam.appClient.updateRobotPart(m.partId, m.partName, sdk.Struct.fromJson(unsorted));
  const read = await viam.appClient.getRobotPart(m.partId);
  expect(keysIn(read.configJson)).toEqual(['components', 'api', 'attributes', 'fps', 'zoom', 'model', 'name', 'services']);
  expect(JSON.parse(read.configJson)).toEqual(unsorted);
  expect(Object.keys(read.part?.robotConfig?.toJson() as object)).toEqual(['components', 'services']);
  // Stored from a Struct: the part has no JSON text of its own.
  const part = own.RobotPartWithEncodedConfig.fromBinary(read.part?.toBinary() ?? new Uint8Array());
  expect(part.robotConfigJson).toBeUndefined();
});

test('a robot_config_json write is stored exactly as sent; every read gives that text', async () => {
  const m = await machine('json-kept');
  const { part: written } = await wire.updateRobotPart({ id: m.partId, name: m.partName, robotConfigJson: text });
  const read = await viam.appClient.getRobotPart(m.partId);
  expect(read.configJson).toBe(text);
  expect(own.RobotPartWithEncodedConfig.fromBinary(read.part?.toBinary() ?? new Uint8Array()).robotConfigJson).toBe(text);
  // The parts list and the write's answer carry the text as RobotPart.robot_config_json (field 18).
  const [listed] = await viam.appClient.getRobotParts(m.robotId);
  expect(own.RobotPartWithEncodedConfig.fromBinary(listed?.toBinary() ?? new Uint8Array()).robotConfigJson).toBe(text);
  expect(own.RobotPartWithEncodedConfig.fromBinary(written?.toBinary() ?? new Uint8Array()).robotConfigJson).toBe(text);
  // The Struct is a map: sorted keys, numbers as doubles.
  const struct = read.part?.robotConfig?.toJson() as { components: { attributes: Record<string, number> }[] };
  expect(Object.keys(struct.components[0]?.attributes ?? {})).toEqual(['fps', 'serial', 'zoom']);
  expect(struct.components[0]?.attributes.serial).toBe(2 ** 53);
});

test('with both fields set the JSON text is what is stored', async () => {
  const m = await machine('json-wins');
  await wire.updateRobotPart({
    id: m.partId,
    name: m.partName,
    robotConfig: sdk.Struct.fromJson({ services: [] }).toBinary(),
    robotConfigJson: text,
  });
  expect((await viam.appClient.getRobotPart(m.partId)).configJson).toBe(text);
});

test('a Struct write after a JSON write is stored from the Struct again', async () => {
  const m = await machine('json-then-struct');
  await wire.updateRobotPart({ id: m.partId, name: m.partName, robotConfigJson: text });
  await viam.appClient.updateRobotPart(m.partId, m.partName, sdk.Struct.fromJson(unsorted));
  const read = await viam.appClient.getRobotPart(m.partId);
  expect(read.configJson).toBe(JSON.stringify(JSON.parse(read.configJson)));
  expect(keysIn(read.configJson)[0]).toBe('components');
  expect(own.RobotPartWithEncodedConfig.fromBinary(read.part?.toBinary() ?? new Uint8Array()).robotConfigJson).toBeUndefined();
});

test('the part history gives each old config as stored: the text for a JSON write, none for a Struct write', async () => {
  const m = await machine('json-history');
  await wire.updateRobotPart({ id: m.partId, name: m.partName, robotConfigJson: text });
  await viam.appClient.updateRobotPart(m.partId, m.partName, sdk.Struct.fromJson(unsorted));
  await viam.appClient.updateRobotPart(m.partId, m.partName, sdk.Struct.fromJson({ services: [] }));
  const { history } = await fx.app.getRobotPartHistory({ id: m.partId });
  expect(history.map((h) => h.old?.robotConfigJson)).toEqual([undefined, text, undefined]);
  expect(Object.keys(history[1]?.old?.robotConfig?.toJson() as object)).toEqual(['components', 'services']);
  const struct = history[0]?.old?.robotConfig?.toJson() as { components: object[] };
  expect(Object.keys(struct.components[0] ?? {})).toEqual(['api', 'attributes', 'model', 'name']);
});

test('invalid JSON text is InvalidArgument naming robot_config_json; so is text that is not an object', async () => {
  const m = await machine('json-invalid');
  for (const bad of ['{"services": [', '[]', '"text"', 'null']) {
    const call = wire.updateRobotPart({ id: m.partId, name: m.partName, robotConfigJson: bad });
    await expect(call).rejects.toMatchObject({ rawMessage: expect.stringContaining('robot_config_json') as unknown });
    expect(await codeOf(wire.updateRobotPart({ id: m.partId, name: m.partName, robotConfigJson: bad }))).toBe('InvalidArgument');
  }
  expect((await fx.app.getRobotPartHistory({ id: m.partId })).history).toHaveLength(0);
});

test('what the service refuses in a Struct it refuses in the JSON text too', async () => {
  const m = await machine('json-checked');
  const refused: JsonObject[] = [
    { components: 'no' },
    { network: { bind_address: 'nowhere' } },
    { auth: { handlers: [{ type: 'external', config: {} }] } },
  ];
  const messageOf = (call: Promise<unknown>) =>
    call.then(
      () => 'ok',
      (err: unknown) => (err as { rawMessage: string }).rawMessage,
    );
  for (const config of refused) {
    expect(await codeOf(viam.appClient.updateRobotPart(m.partId, m.partName, sdk.Struct.fromJson(config)))).toBe('InvalidArgument');
    expect(await codeOf(wire.updateRobotPart({ id: m.partId, name: m.partName, robotConfigJson: JSON.stringify(config) }))).toBe(
      'InvalidArgument',
    );
    const asStruct = await messageOf(viam.appClient.updateRobotPart(m.partId, m.partName, sdk.Struct.fromJson(config)));
    const asText = await messageOf(wire.updateRobotPart({ id: m.partId, name: m.partName, robotConfigJson: JSON.stringify(config) }));
    expect(asText.replace('robot_config_json', 'robot_config')).toBe(asStruct);
  }
  expect((await fx.app.getRobotPartHistory({ id: m.partId })).history).toHaveLength(0);
});

test('a write with neither field is InvalidArgument', async () => {
  const m = await machine('json-none');
  expect(await codeOf(wire.updateRobotPart({ id: m.partId, name: m.partName }))).toBe('InvalidArgument');
  expect(await codeOf(wire.updateRobotPart({ id: m.partId, name: m.partName, robotConfigJson: '' }))).toBe('InvalidArgument');
});
