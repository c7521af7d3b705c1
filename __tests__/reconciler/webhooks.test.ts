import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ReconcilerEventSchema, type ReconcilerEvent } from '../../src/reconciler/events';
import { eventText, WebhookNotifier, webhooksFromEnv, webhookTarget } from '../../src/reconciler/webhooks';

const EVENT: ReconcilerEvent = {
  type: 'approval-needed',
  at: '2026-11-27T10:00:00.000Z',
  cycle: 3,
  stack: 'fleet',
  reason: 'it destroys 3 object(s), more than --max-destroy 0',
  add: 0,
  change: 1,
  destroy: 3,
};

/** A receiver that answers 500 to the first `failures` requests, then 204. */
async function receiver(failures: number): Promise<{ url: string; bodies: string[]; close(): Promise<void> }> {
  const bodies: string[] = [];
  let seen = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      seen += 1;
      if (seen <= failures) return void res.writeHead(500).end();
      bodies.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook?token=secret-token`,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

test('a delivery is retried with backoff until the receiver takes it; the JSON body is the event', async () => {
  const r = await receiver(2);
  try {
    const notifier = new WebhookNotifier([webhookTarget(r.url)], { backoffMs: 10 });
    notifier.notify(EVENT);
    await notifier.drain();
    expect(r.bodies.map((b) => JSON.parse(b) as unknown)).toEqual([EVENT]);
  } finally {
    await r.close();
  }
});

test('a slack: target gets one line of text; giving up names the receiver by position, never its URL', async () => {
  const r = await receiver(100);
  const ok = await receiver(0);
  const given: string[] = [];
  try {
    const notifier = new WebhookNotifier([webhookTarget(r.url), webhookTarget(`slack:${ok.url}`)], {
      backoffMs: 1,
      attempts: 3,
      onGiveUp: (who, e, why) => given.push(`${who} ${e.type} ${why}`),
    });
    notifier.notify(EVENT);
    await notifier.drain();
    expect(given).toEqual(['webhook #1 approval-needed HTTP 500']);
    expect(JSON.parse(ok.bodies[0] ?? '{}')).toEqual({ text: eventText(EVENT) });
    expect(eventText(EVENT)).toContain('fleetform reconcile approve fleet');
  } finally {
    await r.close();
    await ok.close();
  }
});

test('URLs carrying tokens come from the environment', () => {
  expect(webhooksFromEnv({ FLEETFORM_WEBHOOK_URLS: 'https://a.example/x?t=1, slack:https://hooks.example/T/B/C' })).toEqual([
    { url: 'https://a.example/x?t=1', format: 'json' },
    { url: 'https://hooks.example/T/B/C', format: 'slack' },
  ]);
});

test("a measurement of a rollout's analysis is an event of its own: its JSON holds the values, its Slack line says them", () => {
  const measured: ReconcilerEvent = ReconcilerEventSchema.parse({
    type: 'rollout-measurement',
    at: '2026-11-27T10:00:00.000Z',
    cycle: 4,
    stack: 'fleet',
    rollout: 'careful',
    wave: 1,
    analysis: 'picks',
    result: 'fail',
    value: 70.1234,
    baseline: 100,
    why: "mean of counter.Readings picks_per_hour 70.123 (picker-1 70.123) is 0.701x the baseline's 100 (2 machine(s)); the bound is at least 0.9x the baseline",
  });
  expect(eventText(measured)).toBe(
    "fleetform: stack fleet: rollout careful: wave 1 analysis picks: FAIL 70.123 (baseline 100): mean of counter.Readings picks_per_hour 70.123 (picker-1 70.123) is 0.701x the baseline's 100 (2 machine(s)); the bound is at least 0.9x the baseline",
  );
  const { baseline: _b, value: _v, ...noData } = measured as Extract<ReconcilerEvent, { type: 'rollout-measurement' }>;
  expect(eventText({ ...noData, result: 'inconclusive', why: '0 of 1 machine(s) reported' })).toBe(
    'fleetform: stack fleet: rollout careful: wave 1 analysis picks: INCONCLUSIVE no data: 0 of 1 machine(s) reported',
  );
  expect(() => ReconcilerEventSchema.parse({ ...measured, result: 'maybe' })).toThrow();
});
