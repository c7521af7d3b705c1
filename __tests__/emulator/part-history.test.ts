/**
 * Part history: every config write of a part is recorded, and GetRobotPartHistory answers
 * with the part as it was before each edit, newest first, paged as the service's proto
 * has it; the official SDK reads it unchanged.
 */
import type { JsonObject } from '@bufbuild/protobuf';
import { Code } from '@connectrpc/connect';
import { loadSdk, type Sdk } from '../../src/api/sdk';
import { useOwnerClients } from './fixture';
import { codeOf, newMachine } from './helpers';

type ViamClient = Awaited<ReturnType<Sdk['createViamClient']>>;

const fx = useOwnerClients();
let sdk: Sdk;
let viam: ViamClient;
beforeAll(async () => {
  sdk = await loadSdk();
  const c = fx.emulator.credentials;
  viam = await sdk.createViamClient({
    serviceHost: fx.emulator.url,
    credentials: { type: 'api-key', authEntity: c.apiKeyId, payload: c.apiKey },
  });
});

const configs: JsonObject[] = [
  { components: [{ name: 'cam', api: 'rdk:component:camera', model: 'rdk:builtin:fake' }] },
  { components: [{ name: 'cam', api: 'rdk:component:camera', model: 'rdk:builtin:fake', attributes: { width: 640 } }] },
  { services: [] },
];

/** A machine whose part was written once per config (the last one renames it); returns the part's last_updated after each write. */
async function editedMachine(name: string) {
  const m = await newMachine(fx.app, fx.emulator.credentials.locationId, name);
  const writes: number[] = [];
  for (const [i, config] of configs.entries()) {
    const partName = i === configs.length - 1 ? `${m.partName}-renamed` : m.partName;
    const { part } = await fx.app.updateRobotPart({ id: m.partId, name: partName, robotConfig: fx.services.sdk.Struct.fromJson(config) });
    writes.push(part?.lastUpdated?.toDate().getTime() ?? NaN);
  }
  return { ...m, writes };
}

test('the official SDK reads the part as it was before each edit, newest edit first', async () => {
  const m = await editedMachine('history-sdk');
  const created = (await viam.appClient.getRobotParts(m.robotId))[0];
  const history = await viam.appClient.getRobotPartHistory(m.partId);
  expect(history).toHaveLength(3);
  expect(history.map((h) => h.part)).toEqual([m.partId, m.partId, m.partId]);
  expect(history.map((h) => h.robot)).toEqual([m.robotId, m.robotId, m.robotId]);
  // `when` is the edit's write; `old` the part before it.
  expect(history.map((h) => h.when?.toDate().getTime())).toEqual([...m.writes].reverse());
  expect(history.map((h) => h.old?.robotConfig?.toJson())).toEqual([configs[1], configs[0], {}]);
  expect(history.map((h) => h.old?.name)).toEqual([m.partName, m.partName, m.partName]);
  expect(history[0]?.old?.lastUpdated?.toDate().getTime()).toBe(m.writes[1]);
  expect(history[2]?.old?.lastUpdated?.toDate().getTime()).toBe(created?.createdOn?.toDate().getTime());
  expect(history[0]?.old).toMatchObject({ id: m.partId, robot: m.robotId, mainPart: true, locationId: fx.emulator.credentials.locationId });
  expect(history[0]?.editedBy).toMatchObject({
    type: sdk.appApi.AuthenticationType.API_KEY,
    value: fx.emulator.credentials.apiKeyId,
    isDeactivated: false,
  });

  // Rollback: writing an entry's old config back restores it (and is itself recorded).
  const before = history[1]?.old;
  await viam.appClient.updateRobotPart(m.partId, before?.name ?? '', before?.robotConfig ?? new sdk.Struct());
  expect((await viam.appClient.getRobotPart(m.partId))?.part?.robotConfig?.toJson()).toEqual(configs[0]);
  expect(await viam.appClient.getRobotPartHistory(m.partId)).toHaveLength(4);
});

test('a part never edited has no history; an unknown or deleted part is NotFound', async () => {
  const m = await newMachine(fx.app, fx.emulator.credentials.locationId, 'history-none');
  expect(await viam.appClient.getRobotPartHistory(m.partId)).toEqual([]);
  await expect(viam.appClient.getRobotPartHistory('no-such-part')).rejects.toMatchObject({ code: Code.NotFound });
  expect(await codeOf(fx.app.getRobotPartHistory({ id: '' }))).toBe('InvalidArgument');
  const edited = await editedMachine('history-deleted');
  await fx.app.deleteRobot({ id: edited.robotId });
  await expect(viam.appClient.getRobotPartHistory(edited.partId)).rejects.toMatchObject({ code: Code.NotFound });
});

test('writes the service refuses record nothing', async () => {
  const m = await editedMachine('history-refused');
  const stale = fx.app.updateRobotPart({
    id: m.partId,
    name: m.partName,
    robotConfig: fx.services.sdk.Struct.fromJson({ services: [] }),
    lastKnownUpdate: { seconds: 1n, nanos: 0 } as never,
  });
  expect(await codeOf(stale)).toBe('FailedPrecondition');
  const invalid = fx.app.updateRobotPart({
    id: m.partId,
    name: m.partName,
    robotConfig: fx.services.sdk.Struct.fromJson({ components: 'no' }),
  });
  expect(await codeOf(invalid)).toBe('InvalidArgument');
  expect((await fx.app.getRobotPartHistory({ id: m.partId })).history).toHaveLength(3);
});

test('paging: page_limit entries per page with a next_page_token, start and end bound the edits', async () => {
  const m = await editedMachine('history-pages');
  const first = await fx.app.getRobotPartHistory({ id: m.partId, pageLimit: 2n });
  expect(first.history.map((h) => h.when?.toDate().getTime())).toEqual([m.writes[2], m.writes[1]]);
  expect(first.nextPageToken).not.toBe('');
  const second = await fx.app.getRobotPartHistory({ id: m.partId, pageLimit: 2n, pageToken: first.nextPageToken });
  expect(second.history.map((h) => h.when?.toDate().getTime())).toEqual([m.writes[0]]);
  expect(second.history[0]?.old?.robotConfig?.toJson()).toEqual({});
  expect(second.nextPageToken).toBe('');
  // A page that ends exactly at the last entry has no next page.
  expect((await fx.app.getRobotPartHistory({ id: m.partId, pageLimit: 3n })).nextPageToken).toBe('');
  // Without a limit: everything.
  expect((await fx.app.getRobotPartHistory({ id: m.partId })).history).toHaveLength(3);
  // Written as Structs: stored from them, with no JSON text of their own.
  expect(first.history[0]?.old?.robotConfigJson).toBeUndefined();

  const at = (ms: number) => ({ seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 });
  const ranged = await fx.app.getRobotPartHistory({ id: m.partId, start: at(m.writes[1] as number), end: at(m.writes[1] as number) });
  expect(ranged.history.map((h) => h.when?.toDate().getTime())).toEqual([m.writes[1]]);

  expect(await codeOf(fx.app.getRobotPartHistory({ id: m.partId, pageToken: 'bogus' }))).toBe('InvalidArgument');
  expect(await codeOf(fx.app.getRobotPartHistory({ id: m.partId, pageLimit: -1n }))).toBe('InvalidArgument');
  expect(await codeOf(fx.app.getRobotPartHistory({ id: m.partId, start: at(2_000_000), end: at(1_000_000) }))).toBe('InvalidArgument');
});
