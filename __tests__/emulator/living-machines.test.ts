/**
 * Simulated machines: they check in, run their config's modules and resources, fail as armed,
 * and the official SDK sees it (online fields, machine summaries, part logs, restart requests);
 * the machine's own GetMachineStatus is read through the emulator's port.
 */
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { EmulatorService } from '../../src/api/emulator-control';
import { loadSdk, type Sdk } from '../../src/api/sdk';
import { loadServices, type AppServiceType, type RobotStatusServiceType } from '../../src/api/services';
import type { MachineStatusReply } from '../../src/api/generated/viam/robot/v1/machine_status_pb';
import { parseMachineFault } from '../../src/emulator';
import { useEmulator } from './fixture';
import { clientOf, codeOf, newMachine, tokenFor, transport } from './helpers';

type ViamClient = Awaited<ReturnType<Sdk['createViamClient']>>;

const fx = useEmulator({
  simulation: {
    simulate: true,
    checkInIntervalMs: 40,
    moduleStartMs: 0,
    resourceConfigureMs: 0,
    machineFaults: [parseMachineFault('model=acme:sensors:hc-sr04:unhealthy', 'test')],
  },
});

let sdk: Sdk;
let viam: ViamClient;
let app: Client<AppServiceType>;
let controls: Client<typeof EmulatorService>;
let token: string;

beforeAll(async () => {
  sdk = await loadSdk();
  const services = await loadServices();
  viam = await sdk.createViamClient({
    serviceHost: fx.emulator.url,
    credentials: { type: 'api-key', authEntity: fx.emulator.credentials.apiKeyId, payload: fx.emulator.credentials.apiKey },
  });
  app = await clientOf(fx.emulator, services.app);
  controls = await clientOf(fx.emulator, EmulatorService);
  token = await tokenFor(fx.emulator.url, fx.emulator.credentials.apiKeyId, fx.emulator.credentials.apiKey);
});

/** Polls `read` until `ok` holds of its result; fails with the last result after the deadline. */
async function waitFor<T>(read: () => Promise<T>, ok: (value: T) => boolean, deadlineMs = 10_000): Promise<T> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > until)
      throw new Error(
        `condition not met before the deadline; last value: ${JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`,
      );
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function machineStatus(host: string): Promise<MachineStatusReply> {
  const services = await loadServices();
  const robot: Client<RobotStatusServiceType> = createClient(
    services.robotStatus,
    transport(fx.emulator.url, 'grpc', { authorization: `Bearer ${token}`, 'rpc-host': host }),
  );
  return robot.getMachineStatus({});
}

/** The machine's status once it has checked in (undefined before: it cannot be reached yet). */
async function statusOnceUp(host: string): Promise<MachineStatusReply | undefined> {
  try {
    return await machineStatus(host);
  } catch (err) {
    if (err instanceof ConnectError && err.code === Code.Unavailable) return undefined;
    throw err;
  }
}

/** The machine's status once `ok` holds of it. */
async function waitForStatus(host: string, ok: (s: MachineStatusReply) => boolean): Promise<MachineStatusReply> {
  const status = await waitFor(
    () => statusOnceUp(host),
    (s) => s !== undefined && ok(s),
  );
  if (!status) throw new Error('unreachable');
  return status;
}

async function configure(partId: string, config: Record<string, unknown>): Promise<string> {
  const part = (await viam.appClient.getRobotPart(partId)).part;
  if (!part) throw new Error('no part');
  const { part: written } = await app.updateRobotPart({ id: partId, name: part.name, robotConfig: sdk.Struct.fromJson(config as never) });
  return (written?.lastUpdated?.toDate() as Date).toISOString();
}

const sensorConfig = (version: string, model = 'acme:sensors:pi-board') => ({
  components: [{ name: 'board1', api: 'rdk:component:board', model }],
  modules: [{ type: 'registry', name: 'sensors', module_id: 'acme:sensors', version }],
});

test("a part checks in: the SDK's part and machine summaries show it online", async () => {
  const { partId, robotId } = await newMachine(app, fx.emulator.credentials.locationId, 'online-1');
  const part = await waitFor(
    async () => (await viam.appClient.getRobotPart(partId)).part,
    (p) => p?.onlineState === sdk.appApi.OnlineState.ONLINE,
  );
  expect(part?.lastAccess).toBeDefined();
  expect(part?.secondsSinceOnline).toBe(0n);
  await waitFor(
    () => viam.appClient.getRobot(robotId),
    (robot) => robot?.onlineState === sdk.appApi.OnlineState.ONLINE,
  );

  // Read until online: a test process held up for longer than the threshold sees its machines offline for a moment.
  const summaries = await waitFor(
    () => viam.appClient.listMachineSummaries(fx.emulator.credentials.organizationId),
    (all) =>
      all.some((l) =>
        l.machineSummaries.some((m) => m.machineId === robotId && m.partSummaries[0]?.onlineState === sdk.appApi.OnlineState.ONLINE),
      ),
  );
  const location = summaries.find((l) => l.locationId === fx.emulator.credentials.locationId);
  const machine = location?.machineSummaries.find((m) => m.machineId === robotId);
  expect(machine?.machineName).toBe('online-1');
  expect(machine?.partSummaries[0]).toMatchObject({ partId, isMainPart: true, onlineState: sdk.appApi.OnlineState.ONLINE });
  expect(machine?.partSummaries[0]?.lastAccess).toBeDefined();
  // Narrowed to another location, and limited.
  expect(await viam.appClient.listMachineSummaries(fx.emulator.credentials.organizationId, [], ['no-such-location'])).toEqual([]);
  const one = await viam.appClient.listMachineSummaries(fx.emulator.credentials.organizationId, [], [], 1);
  expect(one.flatMap((l) => l.machineSummaries)).toHaveLength(1);
});

test("a part's FQDN reaches its machine whatever characters its name has (upper case, spaces, underscores)", async () => {
  const hosts: Array<{ partId: string; fqdn: string; revision: string }> = [];
  for (const name of ['Dock-Picker-7', 'dock picker_8', 'dock-picker-9']) {
    const { partId } = await newMachine(app, fx.emulator.credentials.locationId, name);
    const revision = await configure(partId, sensorConfig('~1.2'));
    await waitForStatus(partId, (s) => s.config?.revision === revision);
    const fqdn = (await viam.appClient.getRobotPart(partId)).part?.fqdn ?? '';
    hosts.push({ partId, fqdn, revision });
  }
  expect(new Set(hosts.map((h) => h.fqdn)).size).toBe(3);
  for (const h of hosts) {
    expect(h.fqdn).toMatch(/^[a-z0-9-]+\.[^.]+\.emulator\.fleetform\.local$/);
    expect((await machineStatus(h.fqdn)).config?.revision).toBe(h.revision);
    expect((await machineStatus(h.fqdn.toUpperCase())).config?.revision).toBe(h.revision);
  }
  const unknown = await machineStatus(`nobody-main.${fx.emulator.credentials.locationId}.emulator.fleetform.local`).then(
    () => undefined,
    (err: unknown) => ConnectError.from(err).code,
  );
  expect(unknown).toBeDefined();
});

test('a config lands: the machine runs its revision, modules at the version the policy resolves to, resources ready', async () => {
  const { partId } = await newMachine(app, fx.emulator.credentials.locationId, 'lands-1');
  const revision = await configure(partId, sensorConfig('~1.2'));
  const status = await waitForStatus(
    partId,
    (s) => s.config?.revision === revision && s.state === 2 && s.resources.every((r) => r.state === 3),
  );
  expect(status.modules).toEqual([expect.objectContaining({ moduleName: 'sensors', state: 3, consecutiveFailures: 0 })]);
  expect(status.resources).toEqual([
    expect.objectContaining({
      name: expect.objectContaining({ namespace: 'rdk', type: 'component', subtype: 'board', name: 'board1' }),
      revision,
      error: '',
    }),
  ]);
  // The part's FQDN reaches the same machine.
  const part = (await viam.appClient.getRobotPart(partId)).part;
  expect((await machineStatus(part?.fqdn ?? '')).config?.revision).toBe(revision);
  const logs = await viam.appClient.getRobotPartLogs(partId);
  expect(logs.logs.map((l) => l.message)).toEqual(
    expect.arrayContaining([expect.stringContaining('starting module sensors (acme:sensors@1.2.5)')]),
  );
});

test("a machine's status tells its jobs' recent runs: when each succeeded and when each failed, oldest first", async () => {
  const { partId } = await newMachine(app, fx.emulator.credentials.locationId, 'jobs-1');
  const revision = await configure(partId, {
    ...sensorConfig('~1.2'),
    jobs: [
      { name: 'probe', schedule: '50ms', resource: 'board1', method: 'DoCommand' },
      { name: 'ghost', schedule: '50ms', resource: 'nothing', method: 'DoCommand' },
    ],
  });
  const byName = (s: MachineStatusReply, name: string) => s.jobStatuses.find((j) => j.jobName === name);
  const status = await waitForStatus(
    partId,
    (s) =>
      s.config?.revision === revision &&
      (byName(s, 'probe')?.recentSuccessfulRuns.length ?? 0) >= 2 &&
      (byName(s, 'ghost')?.recentFailedRuns.length ?? 0) >= 2,
  );
  const times = (ts: readonly { seconds: bigint; nanos: number }[]) => ts.map((t) => Number(t.seconds) * 1000 + t.nanos / 1e6);
  const probe = times(byName(status, 'probe')?.recentSuccessfulRuns ?? []);
  expect(probe).toEqual([...probe].sort((a, b) => a - b));
  expect(probe[0]).toBeGreaterThanOrEqual(Date.parse(revision));
  expect(byName(status, 'ghost')?.recentSuccessfulRuns).toEqual([]);
  expect(status.jobStatuses.map((j) => j.jobName).sort()).toEqual(['ghost', 'probe']);
});

test('a model armed unhealthy never becomes ready, and says why', async () => {
  const { partId } = await newMachine(app, fx.emulator.credentials.locationId, 'unhealthy-1');
  const revision = await configure(partId, sensorConfig('1.2.5', 'acme:sensors:hc-sr04'));
  const status = await waitForStatus(partId, (s) => s.config?.revision === revision && s.resources.some((r) => r.state === 5));
  expect(status.resources[0]?.error).toMatch(/did not become ready/);
  const errors = await viam.appClient.getRobotPartLogs(partId, undefined, ['error']);
  expect(errors.logs.length).toBeGreaterThan(0);
  expect(errors.logs.every((l) => l.level === 'error')).toBe(true);
});

test('a module version armed to crash at run time: unhealthy, failures counted, crashes in the logs; cleared, it recovers', async () => {
  const { partId } = await newMachine(app, fx.emulator.credentials.locationId, 'crash-1');
  expect(await codeOf(controls.setMachineFaults({ specs: ['module=acme:sensors@1.3.0:crsh'] }))).toBe('InvalidArgument');
  await controls.setMachineFaults({ specs: ['module=acme:sensors@1.3.0:crash'] });
  const revision = await configure(partId, sensorConfig('1.3.0'));
  const status = await waitForStatus(partId, (s) => s.config?.revision === revision && (s.modules[0]?.consecutiveFailures ?? 0) >= 2);
  expect(status.modules[0]).toMatchObject({ moduleName: 'sensors', state: 4 });
  expect(status.resources[0]).toMatchObject({ state: 5, error: 'module sensors is not running' });
  const crashes = await viam.appClient.getRobotPartLogs(partId, 'crashed', ['error']);
  expect(crashes.logs[0]?.message).toMatch(/module sensors \(acme:sensors@1\.3\.0\) crashed/);

  await controls.setMachineFaults({ specs: [] });
  await waitForStatus(partId, (s) => s.modules[0]?.state === 3 && s.modules[0].consecutiveFailures === 0 && s.resources[0]?.state === 3);
});

test('a machine armed offline stops checking in; the part reads offline and its status cannot be reached', async () => {
  const { partId } = await newMachine(app, fx.emulator.credentials.locationId, 'picker-3');
  await waitFor(
    async () => (await viam.appClient.getRobotPart(partId)).part,
    (p) => p?.onlineState === sdk.appApi.OnlineState.ONLINE,
  );
  await controls.setMachineFaults({ specs: ['machine=picker-3:offline'] });
  const part = await waitFor(
    async () => (await viam.appClient.getRobotPart(partId)).part,
    (p) => p?.onlineState === sdk.appApi.OnlineState.OFFLINE,
  );
  expect(part?.lastAccess).toBeDefined();
  expect(await codeOf(machineStatus(partId))).toBe('Unavailable');
  await controls.setMachineFaults({ specs: [] });
  await waitFor(
    async () => (await viam.appClient.getRobotPart(partId)).part,
    (p) => p?.onlineState === sdk.appApi.OnlineState.ONLINE,
  );
});

test('markPartForRestart: the machine restarts at its next check-in and the request is cleared', async () => {
  const { partId } = await newMachine(app, fx.emulator.credentials.locationId, 'restart-1');
  const revision = await configure(partId, sensorConfig('~1.2'));
  await waitForStatus(partId, (s) => s.config?.revision === revision && s.state === 2);
  await viam.appClient.markPartForRestart(partId);
  await viam.appClient.markPartForRestart(partId);
  const restarts = await waitFor(
    () => viam.appClient.getRobotPartLogs(partId, 'restarting the machine server'),
    (r) => r.logs.length > 0,
  );
  expect(restarts.logs).toHaveLength(1);
  await waitForStatus(partId, (s) => s.config?.revision === revision && s.state === 2);
  expect(await codeOf(viam.appClient.markPartForRestart('no-such-part'))).not.toBe('ok');
});

test('log pages: the next page token continues where a page ended', async () => {
  const { partId } = await newMachine(app, fx.emulator.credentials.locationId, 'pages-1');
  await configure(partId, sensorConfig('~1.2'));
  await waitFor(
    () => viam.appClient.getRobotPartLogs(partId),
    (r) => r.logs.length >= 3,
  );
  const first = await app.getRobotPartLogs({ id: partId, limit: 1n });
  expect(first.logs).toHaveLength(1);
  expect(first.nextPageToken).not.toBe('');
  const second = await app.getRobotPartLogs({ id: partId, limit: 1n, pageToken: first.nextPageToken });
  expect(second.logs).toHaveLength(1);
  expect(second.logs[0]?.message).not.toBe(first.logs[0]?.message);
});

test("the official SDK's robot client dials a machine directly at its address and reads its status", async () => {
  const { partId } = await newMachine(app, fx.emulator.credentials.locationId, 'direct-1');
  const revision = await configure(partId, sensorConfig('~1.2'));
  await waitForStatus(partId, (s) => s.config?.revision === revision && s.state === 2);
  // The emulator answers from this process: the child runs asynchronously.
  const run = await promisify(execFile)(
    process.execPath,
    [
      path.join(__dirname, 'robot-client-child.mjs'),
      `http://localhost:${fx.emulator.port}/machines/${partId}`,
      fx.emulator.credentials.apiKeyId,
      fx.emulator.credentials.apiKey,
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  expect(run.stderr).toBe('');
  const status = sdk.robotApi.GetMachineStatusResponse.fromJsonString(run.stdout.trim());
  expect(status.config?.revision).toBe(revision);
  expect(status.state).toBe(sdk.robotApi.GetMachineStatusResponse_State.RUNNING);
  expect(status.resources).toEqual([
    expect.objectContaining({
      name: expect.objectContaining({ subtype: 'board', name: 'board1' }),
      state: sdk.robotApi.ResourceStatus_State.READY,
      revision,
    }),
  ]);
  // Only the machine's own services are at its address.
  const services = await loadServices();
  const appAtMachine = createClient(
    services.app,
    transport(`${fx.emulator.url}/machines/${partId}`, 'grpc-web', { authorization: `Bearer ${token}` }),
  );
  expect(await codeOf(appAtMachine.listOrganizations({}))).toBe('Unimplemented');
});
