import { planReadLimit } from '../../src/engine/engine';
import { runGraph } from '../../src/engine/graph';
import { planStack } from '../../src/engine/plan/planner';
import { startLoopStallClock } from '../../src/engine/loop-stall';
import { AdaptiveReadLimit } from '../../src/engine/read-concurrency';
import { notesStack, NotesWorld } from './fake-harness';
import { fakeContext } from './fake-kind';

/** Feeds `rounds` round trips of reads whose latency a model gives for the limit of the moment. */
function drive(limit: AdaptiveReadLimit, rounds: number, latency: (inFlight: number) => number): number[] {
  const seen: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const inFlight = limit.limit;
    for (let i = 0; i < inFlight; i++) limit.record(latency(inFlight), 'ok');
    seen.push(limit.limit);
  }
  return seen;
}

describe('adaptive read limit', () => {
  it('doubles per round trip while latency stays flat, up to the cap', () => {
    const limit = new AdaptiveReadLimit({ initial: 10, max: 64 });
    const seen = drive(limit, 4, () => 80);
    expect(seen[0]).toBe(20);
    expect(seen[1]).toBe(40);
    expect(seen[2]).toBe(64);
    expect(seen[3]).toBe(64);
    expect(limit.stats().peakLimit).toBe(64);
  });

  it('settles near what the service sustains when latency climbs with queueing', () => {
    // A service that runs 30 reads at a time; beyond that, reads wait their turn.
    const rtt = 80;
    const limit = new AdaptiveReadLimit({ initial: 10, max: 512 });
    const seen = drive(limit, 60, (n) => rtt * Math.max(1, n / 30));
    const last = seen.slice(-20);
    expect(Math.max(...last)).toBeLessThanOrEqual(2 * 30 + 2);
    expect(Math.min(...last)).toBeGreaterThanOrEqual(24);
  });

  it('halves on push-back and never falls below one', () => {
    const limit = new AdaptiveReadLimit({ initial: 8, max: 64 });
    limit.record(5, 'overload');
    expect(limit.limit).toBe(4);
    for (let i = 0; i < 5; i++) limit.record(5, 'overload');
    expect(limit.limit).toBe(1);
    expect(limit.stats().overloads).toBe(6);
  });

  it('does not fall below its start on latency alone, and ignores other failures', () => {
    const limit = new AdaptiveReadLimit({ initial: 10, max: 64 });
    limit.record(1, 'ok');
    for (let i = 0; i < 100; i++) limit.record(50, 'ok');
    expect(limit.limit).toBe(10);
    for (let i = 0; i < 100; i++) limit.record(1, 'error');
    expect(limit.limit).toBe(10);
  });

  it('does not count the time this process could not take answers as the service slowing down', async () => {
    const run = async (ownDelayPerRead: number) => {
      let now = 0;
      let own = 0;
      const limit = new AdaptiveReadLimit({ initial: 8, max: 64, ownDelayMs: () => own, now: () => now });
      const read = (ms: number, held: number) => async () => {
        now += ms;
        own += held;
      };
      for (let i = 0; i < 8; i++) await limit.measure(read(80, 0), () => 'error');
      // Each read takes 300 ms, most of them while the event loop was held up...
      for (let i = 0; i < 40; i++) await limit.measure(read(300, ownDelayPerRead), () => 'error');
      // ...and the reads after it take the network's 80 ms again: none of them is slow.
      for (let i = 0; i < 40; i++) await limit.measure(read(80, 0), () => 'error');
      return limit.stats();
    };
    const excused = await run(290);
    expect(excused.slowdowns).toBe(0);
    expect(excused.limit).toBeGreaterThan(16);
    const blamed = await run(0);
    expect(blamed.slowdowns).toBeGreaterThan(0);
    expect(blamed.limit).toBeLessThan(excused.limit);
  });

  it('starts above its floor and grows past 64 while reads answer as fast as the fastest', () => {
    const limit = new AdaptiveReadLimit({ initial: 128, floor: 10, max: 512 });
    expect(limit.limit).toBe(128);
    const seen = drive(limit, 4, () => 80);
    expect(seen).toEqual([256, 512, 512, 512]);
    expect(limit.stats().peakLimit).toBe(512);
  });

  it('starts no higher than its cap', () => {
    const limit = new AdaptiveReadLimit({ initial: 128, floor: 10, max: 64 });
    expect(limit.limit).toBe(64);
    expect(drive(limit, 3, () => 80)).toEqual([64, 64, 64]);
  });

  it('backs off on rising latency down to its floor, not to its start', () => {
    // A service that runs 20 reads at a time: from 128 in flight, reads queue at once.
    const rtt = 80;
    const limit = new AdaptiveReadLimit({ initial: 128, floor: 10, max: 512 });
    limit.record(rtt, 'ok');
    const seen = drive(limit, 80, (n) => rtt * Math.max(1, n / 20));
    expect(Math.min(...seen)).toBeGreaterThanOrEqual(10);
    expect(Math.max(...seen.slice(-20))).toBeLessThanOrEqual(2 * 20 + 2);
    expect(limit.stats().slowdowns).toBeGreaterThan(0);
    // Latency alone never takes it under the floor.
    for (let i = 0; i < 1000; i++) limit.record(10 * rtt, 'ok');
    expect(limit.limit).toBe(10);
  });

  it('halves on push-back below its floor, and latency does not lift it back to the floor', () => {
    const limit = new AdaptiveReadLimit({ initial: 128, floor: 10, max: 512 });
    limit.record(80, 'ok');
    for (let i = 0; i < 5; i++) limit.record(80, 'overload');
    expect(limit.limit).toBe(4);
    expect(limit.stats().overloads).toBe(5);
    for (let i = 0; i < 10; i++) limit.record(800, 'ok');
    expect(limit.limit).toBe(4);
    // Fast answers again: one more per round trip (push-back ended slow start).
    for (let i = 0; i < 4; i++) limit.record(80, 'ok');
    expect(limit.limit).toBe(5);
  });

  it('through measure with an injected clock: a fast round trip grows it, a slow one at 128 in flight shrinks it', async () => {
    let now = 0;
    const limit = new AdaptiveReadLimit({ initial: 128, floor: 10, max: 512, now: () => now });
    const round = async (ms: number) => {
      const gates: Array<() => void> = [];
      const reads = Array.from({ length: limit.limit }, () =>
        limit.measure(
          () => new Promise<void>((resolve) => gates.push(resolve)),
          () => 'error',
        ),
      );
      now += ms;
      gates.forEach((open) => open());
      await Promise.all(reads);
    };
    await round(80);
    expect(limit.stats().peakInFlight).toBe(128);
    expect(limit.limit).toBe(256);
    await round(400);
    expect(limit.limit).toBeLessThan(256);
    expect(limit.limit).toBeGreaterThanOrEqual(10);
  });

  it('stays fixed when the cap equals the start', () => {
    const limit = new AdaptiveReadLimit({ initial: 10, max: 10 });
    expect(drive(limit, 5, () => 1)).toEqual([10, 10, 10, 10, 10]);
  });

  it('counts reads in flight through measure, and passes failures on', async () => {
    const limit = new AdaptiveReadLimit({ initial: 2, max: 4 });
    const gates: Array<() => void> = [];
    const reads = [1, 2, 3].map(() =>
      limit.measure(
        () => new Promise<void>((resolve) => gates.push(resolve)),
        () => 'error',
      ),
    );
    expect(limit.stats().peakInFlight).toBe(3);
    gates.forEach((open) => open());
    await Promise.all(reads);
    await expect(
      limit.measure(
        () => Promise.reject(new Error('x')),
        () => 'overload',
      ),
    ).rejects.toThrow('x');
    expect(limit.stats()).toMatchObject({ reads: 4, overloads: 1 });
  });
});

describe("the engine's read limit", () => {
  it('starts at 128 capped by --read-parallelism, falls back to --parallelism, and is fixed when the two are equal', () => {
    expect(planReadLimit({ parallelism: 10, readParallelism: 512 })?.limit).toBe(128);
    expect(planReadLimit({ parallelism: 10, readParallelism: 64 })?.limit).toBe(64);
    expect(planReadLimit({ parallelism: 10, readParallelism: 10 })).toBeUndefined();
    expect(planReadLimit({ parallelism: 10 })).toBeUndefined();
    const limit = planReadLimit({ parallelism: 10, readParallelism: 512 }) as AdaptiveReadLimit;
    limit.record(80, 'ok');
    for (let i = 0; i < 1000; i++) limit.record(800, 'ok');
    expect(limit.limit).toBe(10);
  });

  it('sends every read of a 100-resource plan at once', async () => {
    const world = await NotesWorld.open();
    try {
      const stack = notesStack(Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`n${i}`, { title: `note ${i}` }])));
      const outcome = await world.apply(stack, await world.plan(stack));
      expect(outcome.failed).toEqual([]);
      const readLimit = planReadLimit({ parallelism: 10, readParallelism: 512 }) as AdaptiveReadLimit;
      const changes = await planStack({
        stack,
        state: await world.state(),
        kinds: world.kinds,
        ctx: fakeContext(),
        refresh: true,
        parallelism: 10,
        readLimit,
        destroy: false,
      });
      expect(changes.filter((c) => c.action !== 'no-op')).toEqual([]);
      expect(readLimit.stats()).toMatchObject({ reads: 100, peakInFlight: 100 });
    } finally {
      await world.close();
    }
  });
});

describe('runGraph with a moving bound', () => {
  it('asks the bound again before each start', async () => {
    let bound = 1;
    let running = 0;
    let most = 0;
    const pending: Array<() => void> = [];
    const nodes = Array.from({ length: 6 }, (_, i) => `n${i}`);
    const done = runGraph(
      nodes,
      () => [],
      () => bound,
      async () => {
        running++;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => pending.push(resolve));
        running--;
      },
    );
    expect(running).toBe(1);
    bound = 3;
    (pending.shift() as () => void)();
    await new Promise((resolve) => setImmediate(resolve));
    expect(running).toBe(3);
    while (pending.length > 0) {
      (pending.shift() as () => void)();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await done;
    expect(most).toBe(3);
  });
});

describe('loop stall clock', () => {
  it('adds up the time the event loop was held up', () => {
    const clock = startLoopStallClock(10);
    try {
      const until = performance.now() + 120;
      while (performance.now() < until) {
        // hold the loop
      }
      expect(clock.stalledMs()).toBeGreaterThanOrEqual(100);
    } finally {
      clock.stop();
    }
  });
});
