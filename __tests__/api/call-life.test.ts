/** Calls' deadlines on the shared coarse timer: they fire, once, and only for calls still running. */
import { Code, ConnectError } from '@connectrpc/connect';
import { CallLife, DeadlineWheel, SLOT_MS } from '../../src/api/client/call-life';

/** Resolves when `check` holds; fails after `withinMs`. */
async function until(check: () => boolean, withinMs: number): Promise<void> {
  const deadline = performance.now() + withinMs;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`not within ${withinMs} ms`);
    await new Promise((r) => setImmediate(r));
  }
}

test('a call past its deadline is cancelled with DEADLINE_EXCEEDED, at most a slot late', async () => {
  const wheel = new DeadlineWheel();
  const started = performance.now();
  const life = new CallLife(undefined, 30, wheel);
  const reasons: unknown[] = [];
  life.onCancel = (reason) => reasons.push(reason);
  await until(() => life.cancelled, 2000);
  const elapsed = performance.now() - started;
  expect(elapsed).toBeGreaterThanOrEqual(29);
  expect(reasons).toHaveLength(1);
  expect(life.failure(new Error('socket closed'))).toMatchObject({ code: Code.DeadlineExceeded });
  expect(life.signal().aborted).toBe(true);
  life.finish();
  expect(SLOT_MS).toBeLessThanOrEqual(50);
});

test('finished calls leave the wheel: the others keep their deadlines', async () => {
  const wheel = new DeadlineWheel();
  const lives = Array.from({ length: 50 }, () => new CallLife(undefined, 40, wheel));
  for (const life of lives.slice(0, 49)) life.finish();
  const last = lives[49] as CallLife;
  await until(() => last.cancelled, 2000);
  expect(lives.slice(0, 49).every((l) => !l.cancelled)).toBe(true);
  last.finish();
});

test("the caller's signal cancels with its reason, before or during the call", () => {
  const wheel = new DeadlineWheel();
  const before = new AbortController();
  before.abort(new ConnectError('stopped first', Code.Canceled));
  const early = new CallLife(before.signal, 1000, wheel);
  expect(early.cancelled).toBe(true);
  expect(early.failure(new Error('x')).rawMessage).toBe('x');
  early.finish();

  const during = new AbortController();
  const life = new CallLife(during.signal, 1000, wheel);
  const signal = life.signal();
  during.abort(new ConnectError('stopped later', Code.Canceled));
  expect(life.reason).toMatchObject({ rawMessage: 'stopped later' });
  expect(signal.aborted).toBe(true);
  life.finish();
});
