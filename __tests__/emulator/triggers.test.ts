/**
 * Triggers of simulated machines fire on the emulator's own liveness events: a webhook
 * served by this test on 127.0.0.1 is requested when the part first checks in, when it goes
 * offline (armed offline, the clock stepped past the threshold) and when it is back; a
 * disabled trigger never fires, an e-mail is a log line, seconds_between_notifications holds
 * a notification back, and a failing webhook is logged without its token.
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
}

const received: Received[] = [];
let hooks: http.Server;
let hookBase = '';
let sdk: Sdk;
let app: Client<AppServiceType>;
let controls: Client<typeof EmulatorService>;

beforeAll(async () => {
  hooks = http.createServer((req, res) => {
    received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    res.statusCode = req.url?.startsWith('/fail') ? 500 : 200;
    res.end('ok');
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
