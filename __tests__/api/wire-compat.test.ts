/**
 * The bytes our client sends for each training call decode, with the official SDK's own
 * message classes, to the request the official client sends. Both clients talk to real
 * servers on 127.0.0.1 that record each request body and answer with canned responses:
 * an HTTP/1.1 server (gRPC-web: the official client, ours by default) and an HTTP/2
 * server (gRPC: ours with transport 'grpc').
 */
import * as http from 'node:http';
import * as http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { createServiceClient, type ServiceClient } from '../../src/api/client';
import { GetRobotPartReply } from '../../src/api/get-robot-part-reply';
import * as own from '../../src/api/own-messages';
import { loadSdk, type Sdk } from '../../src/api/sdk';
import { ModelFramework, ModelType, TrainingStatus } from '../../src/domain/training';

interface Captured {
  readonly path: string;
  readonly body: Buffer;
  readonly authorization: string | undefined;
}

const KEY_ID = 'key-id-0001';
const KEY = 'api-key-secret-0001';
const TOKEN = 'token-0001';
const ML = '/viam.app.mltraining.v1.MLTrainingService';

/** One length-prefixed gRPC frame. */
function frame(flag: number, payload: Uint8Array): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(flag, 0);
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

/** The message of a request body holding exactly one uncompressed frame. */
function unframe(body: Buffer): Buffer {
  expect(body.length).toBeGreaterThanOrEqual(5);
  expect(body.readUInt8(0)).toBe(0);
  const len = body.readUInt32BE(1);
  expect(body.length).toBe(5 + len);
  return body.subarray(5);
}

let sdk: Sdk;
let responses: Map<string, Uint8Array>;
let captured: Captured[] = [];
let h1: http.Server;
let h2: http2.Http2Server;
const h2Sessions = new Set<http2.ServerHttp2Session>();

async function listen(server: http.Server | http2.Http2Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  sdk = await loadSdk();
  const m = sdk.mlTrainingApi;
  const job = new m.TrainingJobMetadata({ id: 'job-1', modelName: 'boxes', status: m.TrainingStatus.PENDING });
  responses = new Map<string, Uint8Array>([
    ['/proto.rpc.v1.AuthService/Authenticate', new own.AuthenticateResponse({ accessToken: TOKEN }).toBinary()],
    [`${ML}/SubmitTrainingJob`, new m.SubmitTrainingJobResponse({ id: 'job-1' }).toBinary()],
    [`${ML}/SubmitCustomTrainingJob`, new m.SubmitCustomTrainingJobResponse({ id: 'job-2' }).toBinary()],
    [`${ML}/GetTrainingJob`, new m.GetTrainingJobResponse({ metadata: job }).toBinary()],
    [`${ML}/ListTrainingJobs`, new m.ListTrainingJobsResponse({ jobs: [job] }).toBinary()],
    [`${ML}/CancelTrainingJob`, new m.CancelTrainingJobResponse().toBinary()],
    [`${ML}/DeleteCompletedTrainingJob`, new m.DeleteCompletedTrainingJobResponse().toBinary()],
  ]);

  h1 = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      captured.push({ path, body: unframe(Buffer.concat(chunks)), authorization: req.headers.authorization });
      const out = responses.get(path);
      const status = out === undefined ? 'grpc-status: 12\r\ngrpc-message: unknown method\r\n' : 'grpc-status: 0\r\n';
      res.writeHead(200, { 'content-type': 'application/grpc-web+proto' });
      const frames = out === undefined ? [] : [frame(0, out)];
      res.end(Buffer.concat([...frames, frame(0x80, Buffer.from(status))]));
    });
  });

  h2 = http2.createServer();
  h2.on('session', (s) => h2Sessions.add(s));
  h2.on('stream', (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      const path = String(headers[':path']);
      const auth = headers.authorization;
      captured.push({ path, body: unframe(Buffer.concat(chunks)), authorization: typeof auth === 'string' ? auth : undefined });
      const out = responses.get(path);
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () =>
        stream.sendTrailers(out === undefined ? { 'grpc-status': '12', 'grpc-message': 'unknown method' } : { 'grpc-status': '0' }),
      );
      stream.end(out === undefined ? undefined : frame(0, out));
    });
  });
});

/** The requests (other than Authenticate) that `run` causes, in order. */
async function capture(run: () => Promise<unknown>): Promise<Captured[]> {
  captured = [];
  await run();
  return captured.filter((c) => !c.path.startsWith('/proto.rpc.v1.AuthService/'));
}

type Official = Awaited<ReturnType<Sdk['createViamClient']>>;
let h1Url: string;
let h2Url: string;
let ours: ServiceClient;
let oursGrpc: ServiceClient;
let official: Official;
let authBodies: { ours: Buffer; oursGrpc: Buffer; official: Buffer };

beforeAll(async () => {
  h1Url = await listen(h1);
  h2Url = await listen(h2);
  const credentials = { type: 'api-key', authEntity: KEY_ID, payload: KEY } as const;
  const authBody = async (connect: () => Promise<void>): Promise<Buffer> => {
    captured = [];
    await connect();
    const auth = captured.filter((c) => c.path === '/proto.rpc.v1.AuthService/Authenticate');
    expect(auth).toHaveLength(1);
    return auth[0]!.body;
  };
  authBodies = {
    ours: await authBody(async () => void (ours = await createServiceClient({ serviceHost: h1Url, credentials }))),
    oursGrpc: await authBody(
      async () => void (oursGrpc = await createServiceClient({ serviceHost: h2Url, credentials, transport: 'grpc' })),
    ),
    official: await authBody(async () => void (official = await sdk.createViamClient({ serviceHost: h1Url, credentials }))),
  };
});

afterAll(async () => {
  await ours.close();
  await oursGrpc.close();
  // the official client keeps fetch's keep-alive connections open
  h1.closeAllConnections();
  for (const s of h2Sessions) s.destroy();
  await new Promise((r) => h1.close(r));
  await new Promise((r) => h2.close(r));
});

/**
 * Runs one call with the official client and with ours over both transports, and checks
 * that each of ours sent the same single request, decoded with the SDK's class `I`.
 */
async function expectSameRequest(
  path: string,
  I: { fromBinary(b: Uint8Array): { equals(o: unknown): boolean; toJson(): unknown } },
  runOfficial: (c: Official) => Promise<unknown>,
  runOurs: (c: ServiceClient) => Promise<unknown>,
): Promise<unknown> {
  const theirs = await capture(() => runOfficial(official));
  expect(theirs.map((c) => c.path)).toEqual([path]);
  const expected = I.fromBinary(theirs[0]!.body);
  for (const client of [ours, oursGrpc]) {
    const mine = await capture(() => runOurs(client));
    expect(mine.map((c) => c.path)).toEqual([path]);
    const decoded = I.fromBinary(mine[0]!.body);
    expect(decoded.toJson()).toEqual(expected.toJson());
    expect(decoded.equals(expected)).toBe(true);
    expect(mine[0]!.body.equals(theirs[0]!.body)).toBe(true);
    expect(mine[0]!.authorization).toBe(`Bearer ${TOKEN}`);
  }
  expect(theirs[0]!.authorization).toBe(`Bearer ${TOKEN}`);
  return expected.toJson();
}

describe('our requests equal the official client requests', () => {
  test('Authenticate', () => {
    const decode = (b: Buffer) => own.AuthenticateRequest.fromBinary(b);
    expect(decode(authBodies.official).toJson()).toEqual({ entity: KEY_ID, credentials: { type: 'api-key', payload: KEY } });
    expect(decode(authBodies.ours).equals(decode(authBodies.official))).toBe(true);
    expect(decode(authBodies.oursGrpc).equals(decode(authBodies.official))).toBe(true);
  });

  test('SubmitTrainingJob', async () => {
    const json = await expectSameRequest(
      `${ML}/SubmitTrainingJob`,
      sdk.mlTrainingApi.SubmitTrainingJobRequest,
      (c) => c.mlTrainingClient.submitTrainingJob('org-1', 'ds-1', 'boxes', '1', sdk.ModelType.OBJECT_DETECTION, ['box', 'lid']),
      (c) => c.mlTrainingClient.submitTrainingJob('org-1', 'ds-1', 'boxes', '1', ModelType.OBJECT_DETECTION, ['box', 'lid']),
    );
    expect(json).toEqual({
      datasetId: 'ds-1',
      organizationId: 'org-1',
      modelName: 'boxes',
      modelVersion: '1',
      modelType: 'MODEL_TYPE_OBJECT_DETECTION',
      tags: ['box', 'lid'],
    });
  });

  test('SubmitCustomTrainingJob', async () => {
    const json = await expectSameRequest(
      `${ML}/SubmitCustomTrainingJob`,
      sdk.mlTrainingApi.SubmitCustomTrainingJobRequest,
      (c) => c.mlTrainingClient.submitCustomTrainingJob('org-1', 'ds-1', 'acme:trainer', '0.3.0', 'boxes-custom', '1'),
      (c) => c.mlTrainingClient.submitCustomTrainingJob('org-1', 'ds-1', 'acme:trainer', '0.3.0', 'boxes-custom', '1'),
    );
    expect(json).toEqual({
      datasetId: 'ds-1',
      registryItemId: 'acme:trainer',
      registryItemVersion: '0.3.0',
      organizationId: 'org-1',
      modelName: 'boxes-custom',
      modelVersion: '1',
    });
  });

  test('GetTrainingJob', async () => {
    await expectSameRequest(
      `${ML}/GetTrainingJob`,
      sdk.mlTrainingApi.GetTrainingJobRequest,
      (c) => c.mlTrainingClient.getTrainingJob('job-1'),
      (c) => c.mlTrainingClient.getTrainingJob('job-1'),
    );
  });

  test('ListTrainingJobs with a status, and without one (= UNSPECIFIED)', async () => {
    const json = await expectSameRequest(
      `${ML}/ListTrainingJobs`,
      sdk.mlTrainingApi.ListTrainingJobsRequest,
      (c) => c.mlTrainingClient.listTrainingJobs('org-1', sdk.TrainingStatus.IN_PROGRESS),
      (c) => c.mlTrainingClient.listTrainingJobs('org-1', TrainingStatus.IN_PROGRESS),
    );
    expect(json).toEqual({ organizationId: 'org-1', status: 'TRAINING_STATUS_IN_PROGRESS' });
    const all = await expectSameRequest(
      `${ML}/ListTrainingJobs`,
      sdk.mlTrainingApi.ListTrainingJobsRequest,
      (c) => c.mlTrainingClient.listTrainingJobs('org-1', sdk.TrainingStatus.UNSPECIFIED),
      (c) => c.mlTrainingClient.listTrainingJobs('org-1'),
    );
    expect(all).toEqual({ organizationId: 'org-1' });
  });

  test('CancelTrainingJob', async () => {
    await expectSameRequest(
      `${ML}/CancelTrainingJob`,
      sdk.mlTrainingApi.CancelTrainingJobRequest,
      (c) => c.mlTrainingClient.cancelTrainingJob('job-1'),
      (c) => c.mlTrainingClient.cancelTrainingJob('job-1'),
    );
  });

  test('DeleteCompletedTrainingJob', async () => {
    await expectSameRequest(
      `${ML}/DeleteCompletedTrainingJob`,
      sdk.mlTrainingApi.DeleteCompletedTrainingJobRequest,
      (c) => c.mlTrainingClient.deleteCompletedTrainingJob('job-1'),
      (c) => c.mlTrainingClient.deleteCompletedTrainingJob('job-1'),
    );
  });

  test('the optional extras add exactly their own fields', async () => {
    const m = sdk.mlTrainingApi;
    const [sent] = await capture(() =>
      ours.mlTrainingClient.submitTrainingJob('org-1', 'ds-1', 'boxes', '1', ModelType.OBJECT_DETECTION, ['box'], {
        modelFramework: ModelFramework.TFLITE,
      }),
    );
    expect(m.SubmitTrainingJobRequest.fromBinary(sent!.body).modelFramework).toBe(m.ModelFramework.TFLITE);
    const [custom] = await capture(() =>
      ours.mlTrainingClient.submitCustomTrainingJob('org-1', 'ds-1', 'acme:trainer', '0.3.0', 'boxes-custom', '1', {
        arguments: { epochs: '3' },
        containerVersion: 'tf-2.15',
      }),
    );
    const decoded = m.SubmitCustomTrainingJobRequest.fromBinary(custom!.body);
    expect(decoded.arguments).toEqual({ epochs: '3' });
    expect(decoded.containerVersion).toBe('tf-2.15');
  });
});

describe('our client reads what the official messages encode', () => {
  const APP = '/viam.app.v1.AppService';
  const config = {
    components: [
      { name: 'cam', api: 'rdk:component:camera', model: 'acme:sensors:cam', attributes: { fps: 30, hd: true, tags: ['a'], none: null } },
    ],
    modules: [{ type: 'registry', name: 'sensors', module_id: 'acme:sensors', version: '~1.2' }],
  };
  const updated = new Date('2026-03-01T00:00:00.123Z');
  const partFields = { id: 'p1', name: 'main', robot: 'm1', locationId: 'loc', mainPart: true, secret: 'part-secret' };
  const partOf = (robotConfig: typeof config) =>
    new sdk.appApi.RobotPart({
      ...partFields,
      robotConfig: sdk.Struct.fromJson(robotConfig),
      lastUpdated: sdk.Timestamp.fromDate(updated),
    });
  const expected = { id: 'p1', name: 'main', machineId: 'm1', locationId: 'loc', mainPart: true, config, lastUpdated: updated };

  test('GetRobotPart: the config from config_json, the Struct beside it left encoded', async () => {
    const configJson = JSON.stringify(config, null, 2);
    const response = new sdk.appApi.GetRobotPartResponse({ part: partOf(config), configJson });
    responses.set(`${APP}/GetRobotPart`, response.toBinary());
    for (const client of [ours, oursGrpc]) {
      const [sent] = await capture(async () => expect(await client.appClient.getMachinePart('p1')).toEqual({ ...expected, configJson }));
      expect(sdk.appApi.GetRobotPartRequest.fromBinary(sent!.body).id).toBe('p1');
    }
  });

  test('GetRobotPart without config_json: the config from the Struct', async () => {
    responses.set(`${APP}/GetRobotPart`, new sdk.appApi.GetRobotPartResponse({ part: partOf(config) }).toBinary());
    for (const client of [ours, oursGrpc]) expect(await client.appClient.getMachinePart('p1')).toEqual(expected);
  });

  test("GetRobotPart(s) with the part's robot_config_json (field 18): the config from it", async () => {
    const text = '{"modules":[],"components":[{"name":"cam","attributes":{"serial":9007199254740993}}]}';
    const part = partOf(config);
    // Field 18 as the service sends it; the pinned SDK's RobotPart carries it among its unknown fields.
    const withField = sdk.appApi.RobotPart.fromBinary(
      new Uint8Array([...part.toBinary(), ...own.RobotPartWithEncodedConfig.fromJson({ robotConfigJson: text }).toBinary()]),
    );
    responses.set(`${APP}/GetRobotPart`, new sdk.appApi.GetRobotPartResponse({ part: withField }).toBinary());
    responses.set(`${APP}/GetRobotParts`, new sdk.appApi.GetRobotPartsResponse({ parts: [withField] }).toBinary());
    for (const client of [ours, oursGrpc]) {
      const read = await client.appClient.getMachinePart('p1');
      expect(read.configJson).toBe(text);
      expect(Object.keys(read.config)).toEqual(['modules', 'components']);
      // The parts list reads it too, in place of the Struct beside it.
      const [listed] = await client.appClient.getMachineParts('m1');
      expect(listed?.configJson).toBe(text);
      expect(Object.keys(listed?.config ?? {})).toEqual(['modules', 'components']);
    }
  });

  test('UpdateRobotPart sends the config as robot_config_json (field 5) alone, keys in order, integers as read', async () => {
    responses.set(`${APP}/UpdateRobotPart`, new sdk.appApi.UpdateRobotPartResponse({ part: partOf(config) }).toBinary());
    const read = '{"components":[{"name":"cam","attributes":{"serial":9007199254740993}}]}';
    const unsorted = {
      services: [],
      components: [{ name: 'cam', attributes: { serial: JSON.parse(read).components[0].attributes.serial, fps: 30 } }],
    };
    const expectedText = '{"services":[],"components":[{"name":"cam","attributes":{"serial":9007199254740993,"fps":30}}]}';
    for (const client of [ours, oursGrpc]) {
      const [sent] = await capture(() => client.appClient.updateMachinePart('p1', 'main', unsorted, updated, [read]));
      expect(sent!.path).toBe(`${APP}/UpdateRobotPart`);
      // The official message reads every field it knows, and no Struct.
      const official = sdk.appApi.UpdateRobotPartRequest.fromBinary(sent!.body);
      expect(official.id).toBe('p1');
      expect(official.name).toBe('main');
      expect(official.robotConfig).toBeUndefined();
      expect(official.lastKnownUpdate?.toDate()).toEqual(updated);
      // Field 5 is the one field it does not know: a string, the text.
      const unknown = sdk.appApi.UpdateRobotPartRequest.runtime.bin.listUnknownFields(official);
      expect(unknown.map((f) => [f.no, f.wireType])).toEqual([[5, 2]]);
      expect(own.UpdateRobotPartRequestWithEncodedConfig.fromBinary(sent!.body).robotConfigJson).toBe(expectedText);
    }
  });

  test('the message with the config left encoded writes the bytes the official message writes', () => {
    const official = new sdk.appApi.GetRobotPartResponse({ part: partOf(config), configJson: '{}' });
    const mine = new own.GetRobotPartResponseWithEncodedConfig({
      part: {
        ...partFields,
        robotConfig: new Uint8Array(sdk.Struct.fromJson(config).toBinary()),
        lastUpdated: { seconds: official.part!.lastUpdated!.seconds, nanos: official.part!.lastUpdated!.nanos },
      },
      configJson: '{}',
    });
    expect(Buffer.from(mine.toBinary()).equals(Buffer.from(official.toBinary()))).toBe(true);
  });

  test('an empty config is written present, as the official empty Struct is', () => {
    const official = new sdk.appApi.GetRobotPartResponse({
      part: new sdk.appApi.RobotPart({ id: 'p1', robotConfig: sdk.Struct.fromJson({}) }),
      configJson: '{}',
    });
    const mine = new own.GetRobotPartResponseWithEncodedConfig({ part: { id: 'p1', robotConfig: new Uint8Array(0) }, configJson: '{}' });
    expect(Buffer.from(mine.toBinary()).equals(Buffer.from(official.toBinary()))).toBe(true);
    expect(GetRobotPartReply.fromBinary(official.toBinary()).part?.robotConfig).toEqual(new Uint8Array(0));
  });

  test('in JSON the reply reads and writes the official form, robot_config as an object', () => {
    const official = new sdk.appApi.GetRobotPartResponse({ part: partOf(config), configJson: JSON.stringify(config) });
    for (const useProtoFieldName of [false, true]) {
      const json = official.toJson({ useProtoFieldName });
      const reply = GetRobotPartReply.fromJson(json);
      expect(reply).toBeInstanceOf(GetRobotPartReply);
      expect(sdk.Struct.fromBinary(reply.part?.robotConfig ?? new Uint8Array()).toJson()).toEqual(config);
      expect(reply.toJson({ useProtoFieldName })).toEqual(json);
      expect(JSON.parse(GetRobotPartReply.fromJsonString(official.toJsonString()).toJsonString())).toEqual(official.toJson());
    }
  });
});
