/**
 * Triggers of simulated machines fire on the emulator's own liveness events: a webhook
 * served by this test on 127.0.0.1 is requested when the part first checks in, when it goes
 * offline (armed offline, the clock stepped past the threshold) and when it is back; a
 * disabled trigger never fires, an e-mail is a log line, seconds_between_notifications holds
 * a notification back, and a failing webhook is logged without its token. What a check-in
 * ingests fires too: captured points (any tabular data, a reading crossing a condition) and
 * log lines at a level are POSTed to the webhooks their triggers name.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@connectrpc/connect';
import { EmulatorService } from '../../src/api/emulator-control';
import { loadSdk, type Sdk } from '../../src/api/sdk';
import { loadServices, type AppServiceType } from '../../src/api/services';
import { dueNotifications, livenessEvent } from '../../src/emulator/sim/triggers';
import { useEmulator } from './fixture';
import { clientOf, newMachine } from './helpers';

const fx = useEmulator({
  clock: 'frozen',
  simulation: { simulate: true, checkInIntervalMs: 40, moduleStartMs: 0, resourceConfigureMs: 0, machineFaults: [] },
});

interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

const received: Received[] = [];
let hooks: http.Server;
let hookBase = '';
let sdk: Sdk;
let app: Client<AppServiceType>;
let controls: Client<typeof EmulatorService>;

beforeAll(async () => {
  hooks = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.statusCode = req.url?.startsWith('/fail') ? 500 : 200;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
  hookBase = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}`;
  sdk = await loadSdk();
  app = await clientOf(fx.emulator, (await loadServices()).app);
  controls = await clientOf(fx.emulator, EmulatorService);
});

afterAll(async () => {
  await new Promise<void>((resolve) => hooks.close(() => resolve()));
});

/** Polls `read` until `ok` holds of its result; fails with the last result after the deadline. */
async function waitFor<T>(read: () => T | Promise<T>, ok: (value: T) => boolean, deadlineMs = 15_000): Promise<T> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > until) throw new Error(`condition not met before the deadline; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const requestsTo = (path: string): Received[] => received.filter((r) => r.url.split('?')[0] === path);

describe('which notifications are due (pure)', () => {
  test('online on the first check-in and back from offline, offline after online, nothing before triggers saw the part', () => {
    expect(livenessEvent(undefined, true)).toBe('part_online');
    expect(livenessEvent('offline', true)).toBe('part_online');
    expect(livenessEvent('online', false)).toBe('part_offline');
    expect(livenessEvent('online', true)).toBeUndefined();
    expect(livenessEvent('unseen', false)).toBeUndefined();
    expect(livenessEvent(undefined, undefined)).toBeUndefined();
  });

  test('disabled triggers, other events and notifications sent too recently are not due', () => {
    const triggers = [
      { name: 'a', event: { type: 'part_online' }, notifications: [{ type: 'email', value: 'x@y.z', seconds_between_notifications: 60 }] },
      { name: 'b', disabled: true, event: { type: 'part_online' }, notifications: [{ type: 'email', value: 'x@y.z' }] },
      { name: 'c', event: { type: 'part_offline' }, notifications: [{ type: 'email', value: 'x@y.z' }] },
    ];
    expect(dueNotifications(triggers, 'part_online', new Map(), 1000).map((n) => n.triggerName)).toEqual(['a']);
    expect(dueNotifications(triggers, 'part_online', new Map([['a#0', 1000]]), 59_999)).toEqual([]);
    expect(dueNotifications(triggers, 'part_online', new Map([['a#0', 1000]]), 61_000)).toHaveLength(1);
  });
});

test('a part going online, offline and back notifies its webhooks and e-mails, as its triggers say', async () => {
  const name = 'trig-1';
  // Held offline until its triggers are stored: its first check-in is then the first online event.
  await controls.setMachineFaults({ specs: [`machine=${name}:offline`] });
  const { partId, robotId, partName } = await newMachine(app, fx.emulator.credentials.locationId, name);
  const config = {
    triggers: [
      {
        name: 'came-online',
        event: { type: 'part_online' },
        notifications: [
          { type: 'webhook', value: `${hookBase}/online?token=tok-SECRET-123`, seconds_between_notifications: 1 },
          { type: 'email', value: 'ops@example.com', seconds_between_notifications: 3600 },
        ],
      },
      {
        name: 'went-offline',
        event: { type: 'part_offline' },
        notifications: [
          {
            type: 'webhook',
            value: `http://robot:pw-SECRET-456@${hookBase.slice('http://'.length)}/offline`,
            seconds_between_notifications: 1,
          },
        ],
      },
      { name: 'muted', disabled: true, event: { type: 'part_online' }, notifications: [{ type: 'webhook', value: `${hookBase}/muted` }] },
      {
        name: 'broken-hook',
        event: { type: 'part_online' },
        notifications: [{ type: 'webhook', value: `${hookBase}/fail?token=fail-SECRET-789` }],
      },
    ],
  };
  await app.updateRobotPart({ id: partId, name: partName, robotConfig: sdk.Struct.fromJson(config as never) });
  await controls.setMachineFaults({ specs: [] });

  const [online] = await waitFor(
    () => requestsTo('/online'),
    (r) => r.length === 1,
  );
  expect(online?.method).toBe('GET');
  expect(online?.url).toBe('/online?token=tok-SECRET-123');
  expect(online?.headers).toMatchObject({
    'part-id': partId,
    'part-name': partName,
    'robot-id': robotId,
    'machine-name': name,
    'location-id': fx.emulator.credentials.locationId,
    'org-id': fx.emulator.credentials.organizationId,
  });
  expect(online?.headers['organization-name']).toBeTruthy();
  expect(online?.headers['location-name']).toBeTruthy();
  const failed = await waitFor(
    async () =>
      (await app.getRobotPartLogs({ id: partId, levels: ['error'] })).logs.filter((l) => l.loggerName === 'app.trigger.broken-hook'),
    (logs) => logs.length > 0,
  );
  expect(failed[0]?.message).toContain(`Trigger failed to notify ${hookBase}/… for robotPartId ${partId}`);
  expect(failed[0]?.message).toContain('status code 500');

  // Offline: it stops checking in, and time passes beyond the threshold.
  await controls.setMachineFaults({ specs: [`machine=${name}:offline`] });
  await controls.stepClock({ milliseconds: 5_000n });
  const [offline] = await waitFor(
    () => requestsTo('/offline'),
    (r) => r.length === 1,
  );
  expect(offline?.method).toBe('GET');
  expect(offline?.headers.authorization).toBe(`Basic ${Buffer.from('robot:pw-SECRET-456').toString('base64')}`);
  expect(offline?.headers['part-id']).toBe(partId);

  // Back: online again, past the webhook's second but not the e-mail's hour.
  await controls.setMachineFaults({ specs: [] });
  await waitFor(
    () => requestsTo('/online'),
    (r) => r.length === 2,
  );
  const logs = (await app.getRobotPartLogs({ id: partId })).logs;
  const emails = logs.filter((l) => l.loggerName === 'app.trigger.came-online');
  expect(emails.map((l) => l.message)).toEqual([`would e-mail ops@example.com: part_online of machine ${name}, part ${partName}`]);
  expect(requestsTo('/muted')).toEqual([]);
  expect(JSON.stringify(logs)).not.toMatch(/SECRET/);
});

test('captured points and log lines fire the data and logs triggers, POSTed with what was ingested', async () => {
  const name = 'trig-data';
  await controls.setMachineFaults({ specs: [`machine=${name}:offline`] });
  const { partId, partName } = await newMachine(app, fx.emulator.credentials.locationId, name);
  const capture = [{ type: 'data_manager', attributes: { capture_methods: [{ method: 'Readings', capture_frequency_hz: 2 }] } }];
  const config = {
    modules: [{ type: 'registry', name: 'acme_sensors', module_id: 'acme:sensors', version: '1.2.3' }],
    components: [{ name: 'cpu', api: 'rdk:component:sensor', model: 'fake', service_configs: capture }],
    triggers: [
      {
        name: 'synced',
        event: { type: 'part_data_ingested', data_ingested: { data_types: ['tabular'] } },
        notifications: [{ type: 'webhook', value: `${hookBase}/synced`, seconds_between_notifications: 3600 }],
      },
      {
        name: 'hot',
        event: {
          type: 'conditional_data_ingested',
          conditional: {
            data_capture_method: 'sensor:cpu:Readings',
            condition: { evals: [{ operator: 'gt', value: { readings: { cpu: 80 } } }] },
          },
        },
        notifications: [
          { type: 'webhook', value: `${hookBase}/hot?token=hot-SECRET-321` },
          { type: 'email', value: 'ops@example.com', seconds_between_notifications: 3600 },
        ],
      },
      {
        name: 'errors',
        event: { type: 'conditional_logs_ingested', log_levels: ['error'] },
        notifications: [{ type: 'webhook', value: `${hookBase}/errors`, seconds_between_notifications: 3600 }],
      },
      {
        name: 'muted-data',
        disabled: true,
        event: { type: 'conditional_data_ingested', conditional: { data_capture_method: 'sensor:cpu:Readings' } },
        notifications: [{ type: 'webhook', value: `${hookBase}/muted-data` }],
      },
    ],
  };
  await app.updateRobotPart({ id: partId, name: partName, robotConfig: sdk.Struct.fromJson(config as never) });
  await controls.setSensorReading({ machine: name, sensor: 'cpu', readings: sdk.Struct.fromJson({ cpu: 40 }) });
  await controls.setMachineFaults({ specs: [] });
  // Checked in once (the clock is frozen: no time to capture over yet), then time passes.
  await waitFor(
    async () => (await app.getRobotPartLogs({ id: partId })).logs.length,
    (n) => n > 0,
  );
  await controls.stepClock({ milliseconds: 2_000n });
  const [synced] = await waitFor(
    () => requestsTo('/synced'),
    (r) => r.length === 1,
  );
  expect(synced?.method).toBe('POST');
  expect(synced?.headers).toMatchObject({
    'part-id': partId,
    'machine-name': name,
    'data-type': 'tabular',
    'content-type': 'application/json',
  });
  expect(JSON.parse(synced?.body ?? '{}')).toMatchObject({ data_type: 'tabular' });
  expect(requestsTo('/hot')).toEqual([]);

  // The reading crosses the condition: the hot trigger fires on the first point above it.
  await controls.setSensorReading({ machine: name, sensor: 'cpu', readings: sdk.Struct.fromJson({ cpu: 95 }) });
  await controls.stepClock({ milliseconds: 2_000n });
  const [hot] = await waitFor(
    () => requestsTo('/hot'),
    (r) => r.length === 1,
  );
  expect(hot?.method).toBe('POST');
  expect(hot?.url).toBe('/hot?token=hot-SECRET-321');
  expect(hot?.headers).toMatchObject({ 'component-name': 'cpu', 'component-type': 'rdk:component:sensor', 'method-name': 'Readings' });
  const cpu = (JSON.parse(hot?.body ?? '{}') as { data?: { readings?: { cpu?: number } } }).data?.readings?.cpu ?? 0;
  expect(cpu).toBeGreaterThan(80);

  // Error lines (a log fault on the module it runs) fire the logs trigger.
  await controls.setMachineFaults({ specs: ['logs=acme:sensors:error:600/min'] });
  await controls.stepClock({ milliseconds: 2_000n });
  const [errors] = await waitFor(
    () => requestsTo('/errors'),
    (r) => r.length === 1,
  );
  await controls.setMachineFaults({ specs: [] });
  expect(errors?.method).toBe('POST');
  const lines = (JSON.parse(errors?.body ?? '{}') as { logs: Array<{ level: string; message: string }> }).logs;
  expect(lines.length).toBeGreaterThan(0);
  expect(lines.every((l) => l.level === 'error' && l.message.startsWith('simulated error line'))).toBe(true);

  expect(requestsTo('/synced')).toHaveLength(1);
  expect(requestsTo('/muted-data')).toEqual([]);
  const logs = (await app.getRobotPartLogs({ id: partId })).logs;
  expect(logs.filter((l) => l.loggerName === 'app.trigger.hot').map((l) => l.message)).toEqual([
    `would e-mail ops@example.com: conditional_data_ingested of machine ${name}, part ${partName}`,
  ]);
  expect(JSON.stringify(logs)).not.toMatch(/SECRET/);
});
