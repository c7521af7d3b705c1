import fc from 'fast-check';
import {
  abortReason,
  fractionTarget,
  importedVersion,
  judgeHealth,
  rolloutJournalKey,
  withFragmentVersion,
  RolloutPolicySchema,
  splitWaves,
  stepGate,
  waveEndText,
  waveVerdict,
  type MachineStatusReport,
  type RolloutCandidate,
  type RolloutWave,
} from '../../src/domain/rollout';

const machines = (n: number, location = (i: number) => (i % 2 === 0 ? 'loc-a' : 'loc-b')): RolloutCandidate[] =>
  Array.from({ length: n }, (_, i) => ({ address: `fleetform_machine.m${i}`, locations: [location(i)] }));

describe('splitting changed machines into waves', () => {
  test('a named canary, then a quarter, then all', () => {
    const waves = splitWaves(machines(8), [{ machines: ['fleetform_machine.m3'] }, { fraction: 0.25 }, { fraction: 1 }]);
    expect(waves).toEqual([
      { rule: 'machines fleetform_machine.m3', machines: ['fleetform_machine.m3'], from: 0 },
      { rule: 'fraction 0.25', machines: ['fleetform_machine.m0'], from: 1 },
      {
        rule: 'fraction 1',
        machines: [
          'fleetform_machine.m1',
          'fleetform_machine.m2',
          'fleetform_machine.m4',
          'fleetform_machine.m5',
          'fleetform_machine.m6',
          'fleetform_machine.m7',
        ],
        from: 2,
      },
    ]);
  });

  test('location and count waves; machines left over go in a last wave', () => {
    const waves = splitWaves(machines(5), [{ location: 'loc-b' }, { count: 2 }]);
    expect(waves.map((w) => w.machines.length)).toEqual([2, 2, 1]);
    expect(waves[0]?.machines).toEqual(['fleetform_machine.m1', 'fleetform_machine.m3']);
    expect(waves[2]?.rule).toBe('the rest');
    expect(waves.map((w) => w.from)).toEqual([0, 1, 2]);
  });

  test('a wave that finds no changed machine is left out', () => {
    const waves = splitWaves(machines(2), [{ machines: ['fleetform_machine.unchanged'] }, { fraction: 1 }]);
    expect(waves).toEqual([{ rule: 'fraction 1', machines: ['fleetform_machine.m0', 'fleetform_machine.m1'], from: 1 }]);
  });

  test('a fraction reaches its share rounded up, without float noise', () => {
    expect(fractionTarget(0.7, 10)).toBe(7);
    expect(fractionTarget(0.1, 10)).toBe(1);
    expect(fractionTarget(0.25, 3)).toBe(1);
    expect(fractionTarget(0.01, 1000)).toBe(10);
  });

  const wave: fc.Arbitrary<RolloutWave> = fc.oneof(
    fc.record({
      machines: fc.array(
        fc.integer({ min: 0, max: 40 }).map((i) => `fleetform_machine.m${i}`),
        { minLength: 1, maxLength: 4 },
      ),
    }),
    fc.record({ location: fc.constantFrom('loc-a', 'loc-b', 'loc-c') }),
    fc.record({ count: fc.integer({ min: 1, max: 50 }) }),
    fc.record({ fraction: fc.double({ min: 0.001, max: 1, noNaN: true }) }),
  );

  test('every changed machine lands in exactly one wave, no wave is empty, and order is kept inside a wave', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 }), fc.array(wave, { minLength: 1, maxLength: 6 }), (n, rules) => {
        const all = machines(n);
        const waves = splitWaves(all, rules);
        const placed = waves.flatMap((w) => w.machines);
        expect([...placed].sort()).toEqual(all.map((m) => m.address).sort());
        for (const w of waves) {
          expect(w.machines.length).toBeGreaterThan(0);
          const order = w.machines.map((a) => all.findIndex((m) => m.address === a));
          expect(order).toEqual([...order].sort((a, b) => a - b));
        }
      }),
    );
  });

  test('fraction waves bring the total to their share, and take at least one machine while any is left', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.array(fc.double({ min: 0.001, max: 1, noNaN: true }), { minLength: 1, maxLength: 5 }),
        (n, fractions) => {
          const sorted = [...fractions].sort((a, b) => a - b);
          const waves = splitWaves(
            machines(n),
            sorted.map((fraction) => ({ fraction })),
          );
          let total = 0;
          for (const w of waves.filter((x) => x.rule !== 'the rest')) {
            total += w.machines.length;
            const f = Number(w.rule.slice('fraction '.length));
            expect(total).toBeGreaterThanOrEqual(Math.min(n, fractionTarget(f, n)));
          }
          expect(waves.length).toBeLessThanOrEqual(Math.max(sorted.length, 1) + 1);
        },
      ),
    );
  });
});

describe('abort thresholds', () => {
  test('max_failed is the number of failures tolerated', () => {
    expect(abortReason(1, 10, { max_failed: 1 })).toBeUndefined();
    expect(abortReason(2, 10, { max_failed: 1 })).toMatch(/2 machine\(s\) failed, more than max_failed 1/);
  });

  test('a failed share above max_failed_fraction stops, so a failed canary always stops a rollout below 100%', () => {
    expect(abortReason(1, 1, { max_failed: 5, max_failed_fraction: 0.1 })).toMatch(/1 of 1 machine\(s\) written failed \(100%\)/);
    expect(abortReason(1, 20, { max_failed: 5, max_failed_fraction: 0.1 })).toBeUndefined();
    expect(abortReason(3, 20, { max_failed: 5, max_failed_fraction: 0.1 })).toMatch(/15%/);
  });

  test('without thresholds any failure stops; without failures nothing does', () => {
    expect(abortReason(1, 100, {})).toBeDefined();
    expect(abortReason(0, 0, {})).toBeUndefined();
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (maxFailed, written, fraction) => {
          expect(abortReason(0, written, { max_failed: maxFailed, max_failed_fraction: fraction })).toBeUndefined();
        },
      ),
    );
  });

  test('more failures never turn an abort back into going on', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 0, max: 10 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (written, maxFailed, fraction) => {
          let stopped = false;
          for (let failed = 0; failed <= written; failed++) {
            const stops = abortReason(failed, written, { max_failed: maxFailed, max_failed_fraction: fraction }) !== undefined;
            if (stopped) expect(stops).toBe(true);
            stopped = stops;
          }
        },
      ),
    );
  });
});

describe('the canary wave', () => {
  test('a failure in the canary stops the rollout although max_failed tolerates it, unless canary_max_failed does', () => {
    expect(abortReason(1, 1, { max_failed: 1 })).toBeUndefined();
    expect(abortReason(1, 1, { max_failed: 1 }, 1)).toMatch(/1 machine\(s\) of the canary wave failed, more than canary_max_failed 0/);
    expect(abortReason(1, 1, { max_failed: 1, canary_max_failed: 1 }, 1)).toBeUndefined();
    expect(abortReason(2, 2, { max_failed: 1, canary_max_failed: 2 }, 2)).toMatch(/more than max_failed 1/);
    expect(abortReason(0, 1, {}, 0)).toBeUndefined();
  });

  test('a wave ends passed, with the failures tolerated and the threshold that tolerated them, or failed when every machine of it failed', () => {
    expect(waveVerdict(0, 3, { max_failed: 1 }, false)).toEqual({ verdict: 'passed', failed: 0 });
    expect(waveVerdict(1, 3, { max_failed: 1 }, false)).toEqual({ verdict: 'passed', failed: 1, tolerated: 'max_failed 1' });
    expect(waveVerdict(2, 2, { max_failed: 5, max_failed_fraction: 0.5 }, false)).toEqual({
      verdict: 'failed',
      failed: 2,
      tolerated: 'max_failed 5, max_failed_fraction 0.5',
    });
    expect(waveVerdict(1, 1, { max_failed: 1, canary_max_failed: 1 }, true)).toEqual({
      verdict: 'failed',
      failed: 1,
      tolerated: 'canary_max_failed 1',
    });
    expect(waveEndText(waveVerdict(1, 3, { max_failed: 1 }, false))).toBe('passed with 1 failure tolerated (max_failed 1)');
    expect(waveEndText(waveVerdict(2, 2, { max_failed: 5 }, false))).toBe(
      'FAILED on all 2 machine(s), tolerated (max_failed 5): the rollout goes on',
    );
    expect(waveEndText(waveVerdict(0, 2, {}, false))).toBe('passed');
  });
});

describe('what healthy means', () => {
  const rev = '2026-11-24T00:00:00.000Z';
  const good: MachineStatusReport = {
    revision: rev,
    state: 'running',
    modules: [{ name: 'sensors', state: 'ready', error: '', consecutiveFailures: 0 }],
    resources: [{ name: 'board-1', api: 'rdk:component:board', state: 'ready', revision: rev, error: '' }],
  };

  test('ingested, running, every module and resource ready, every package loaded', () => {
    expect(judgeHealth(good, rev)).toEqual({ health: 'healthy' });
    expect(judgeHealth({ ...good, packages: [{ name: 'model', state: 'ready', error: '' }] }, rev)).toEqual({ health: 'healthy' });
  });

  test('behind, starting or loading is pending', () => {
    expect(judgeHealth(good, '2026-11-25T00:00:00.000Z')).toMatchObject({
      health: 'pending',
      why: expect.stringContaining('not 2026-11-25'),
    });
    expect(judgeHealth({ ...good, state: 'initializing' }, rev)).toMatchObject({ health: 'pending' });
    expect(judgeHealth({ ...good, resources: [{ ...good.resources[0]!, revision: 'older' }] }, rev)).toMatchObject({
      health: 'pending',
      why: expect.stringContaining('older revision'),
    });
    expect(judgeHealth({ ...good, packages: [{ name: 'model', state: 'downloading', error: '' }] }, rev)).toMatchObject({
      health: 'pending',
    });
  });

  test('a failing module, resource or package is unhealthy, named with its error', () => {
    const sick = judgeHealth(
      {
        ...good,
        modules: [{ name: 'sensors', state: 'unhealthy', error: 'exited with code 1', consecutiveFailures: 3 }],
        resources: [{ ...good.resources[0]!, state: 'unhealthy', error: 'module sensors is not running' }],
        packages: [{ name: 'model', state: 'failed', error: 'checksum mismatch' }],
      },
      rev,
    );
    expect(sick).toEqual({
      health: 'unhealthy',
      problems: [
        { what: 'module sensors', error: 'exited with code 1' },
        { what: 'resource board-1 (rdk:component:board)', error: 'module sensors is not running' },
        { what: 'package model', error: 'checksum mismatch' },
      ],
    });
  });
});

describe('a gate requiring jobs to succeed', () => {
  const rev = '2026-11-24T00:00:00.000Z';
  const ingestedAt = Date.parse(rev) + 5000;
  const machine = (jobs: MachineStatusReport['jobs']): MachineStatusReport => ({
    revision: rev,
    state: 'running',
    modules: [],
    resources: [],
    ingestedAt,
    ...(jobs ? { jobs } : {}),
  });
  const after = (s: number) => ingestedAt + s * 1000;

  test('passes once each required job succeeded on the new config, its newest run not failed', () => {
    const status = machine([
      { name: 'calibrate', succeededAt: [after(-60), after(2)], failedAt: [after(1)] },
      { name: 'nightly', succeededAt: [], failedAt: [after(3)] },
    ]);
    // Healthy since the job's success after its failure, not since the machine's status changed.
    expect(judgeHealth(status, rev, ['calibrate'])).toEqual({ health: 'healthy', since: after(2) });
    expect(judgeHealth({ ...status, since: after(9) }, rev, ['calibrate'])).toEqual({ health: 'healthy', since: after(9) });
    // Without the requirement a job's failure does not count.
    expect(judgeHealth(status, rev)).toEqual({ health: 'healthy' });
  });

  test('a failed run after the last success is unhealthy, naming the job', () => {
    const status = machine([{ name: 'calibrate', succeededAt: [after(1)], failedAt: [after(-10), after(2), after(3)] }]);
    expect(judgeHealth(status, rev, ['calibrate'])).toEqual({
      health: 'unhealthy',
      problems: [{ what: 'job calibrate', error: 'its last run failed (2 of 3 run(s) on this config failed)' }],
    });
  });

  test('a job with no run on the new config, or not on the machine, stays pending: never a pass', () => {
    const old = machine([{ name: 'calibrate', succeededAt: [after(-1)], failedAt: [] }]);
    expect(judgeHealth(old, rev, ['calibrate'])).toEqual({ health: 'pending', why: 'job calibrate has not run on this config yet' });
    expect(judgeHealth(machine(undefined), rev, ['calibrate'])).toEqual({
      health: 'pending',
      why: "job calibrate is not among the machine's jobs",
    });
  });

  test('jobs are judged once the rest is healthy: a starting machine is pending, a sick one unhealthy for its own reasons', () => {
    const failing = [{ name: 'calibrate', succeededAt: [], failedAt: [after(1)] }];
    expect(judgeHealth({ ...machine(failing), state: 'initializing' }, rev, ['calibrate'])).toMatchObject({ health: 'pending' });
    const sick = { ...machine(failing), modules: [{ name: 'm', state: 'unhealthy', error: 'crashed', consecutiveFailures: 1 }] };
    expect(judgeHealth(sick, rev, ['calibrate'])).toEqual({ health: 'unhealthy', problems: [{ what: 'module m', error: 'crashed' }] });
  });

  test('the policy schema takes jobs_succeed as a list of names', () => {
    const policy = { name: 'r', waves: [{ count: 1 }], abort: {}, offline: 'wait', on_failure: 'halt' };
    expect(RolloutPolicySchema.safeParse({ ...policy, gate: { timeout_ms: 1, settle_ms: 0, jobs_succeed: ['calibrate'] } }).success).toBe(
      true,
    );
    expect(RolloutPolicySchema.safeParse({ ...policy, gate: { timeout_ms: 1, settle_ms: 0, jobs_succeed: [] } }).success).toBe(false);
  });
});

describe('the gate of one machine', () => {
  const gate = { timeout_ms: 1000, settle_ms: 100 };
  const start = { writtenAt: 0, verdict: 'pending' as const, since: 0 };

  test('healthy for settle passes; healthy then pending starts settling again', () => {
    let s = stepGate(start, { health: 'healthy' }, 10, gate);
    expect(s.outcome).toBe('waiting');
    s = stepGate(s.track, { health: 'pending', why: 'starting' }, 50, gate);
    s = stepGate(s.track, { health: 'healthy' }, 60, gate);
    expect(stepGate(s.track, { health: 'healthy' }, 150, gate).outcome).toBe('waiting');
    expect(stepGate(s.track, { health: 'healthy' }, 160, gate).outcome).toBe('passed');
  });

  test('a machine healthy since before the reading settles from then, never from before its write', () => {
    const written = { writtenAt: 1000, verdict: 'pending' as const, since: 1000 };
    expect(stepGate(written, { health: 'healthy', since: 1020 }, 1130, gate).outcome).toBe('passed');
    expect(stepGate(written, { health: 'healthy', since: 1050 }, 1130, gate).outcome).toBe('waiting');
    // A machine clock far behind cannot make it pass before settle has gone by since the write.
    expect(stepGate(written, { health: 'healthy', since: 0 }, 1090, gate).outcome).toBe('waiting');
    expect(stepGate(written, { health: 'healthy', since: 5000 }, 1090, gate).outcome).toBe('waiting');
  });

  test('unhealthy for settle fails with the problems; never healthy within the timeout fails', () => {
    const sick = { health: 'unhealthy' as const, problems: [{ what: 'module sensors', error: 'crashed' }] };
    const s = stepGate(start, sick, 10, gate);
    expect(stepGate(s.track, sick, 110, gate)).toMatchObject({ outcome: 'failed', problems: sick.problems });
    expect(stepGate(start, { health: 'unreachable', why: 'offline' }, 1000, gate)).toMatchObject({
      outcome: 'failed',
      why: expect.stringContaining('offline'),
    });
  });
});

test('the synthesized policy is checked strictly', () => {
  const ok = {
    name: 'careful',
    waves: [{ fraction: 1 }],
    gate: { timeout_ms: 1000, settle_ms: 0 },
    abort: {},
    offline: 'wait',
    on_failure: 'rollback',
  };
  expect(RolloutPolicySchema.safeParse(ok).success).toBe(true);
  expect(RolloutPolicySchema.safeParse({ ...ok, waves: [{ fraction: 0 }] }).success).toBe(false);
  expect(RolloutPolicySchema.safeParse({ ...ok, offline: 'later' }).success).toBe(false);
  expect(RolloutPolicySchema.safeParse({ ...ok, waves: [{ count: 2, fraction: 1 }] }).success).toBe(false);
});

describe('fragment pins', () => {
  const config = { components: [], fragments: ['frag-a', { id: 'frag-b', version: 'stable', prefix: 'front' }, { id: 'frag-c' }] };

  test("a pin sets one fragment's import version and keeps everything else; lifting it follows the latest again", () => {
    const pinned = withFragmentVersion(config, 'frag-b', '7');
    expect(pinned.fragments).toEqual(['frag-a', { id: 'frag-b', version: '7', prefix: 'front' }, { id: 'frag-c' }]);
    expect(withFragmentVersion(config, 'frag-a', '3').fragments).toEqual([
      { id: 'frag-a', version: '3' },
      config.fragments[1],
      config.fragments[2],
    ]);
    expect(withFragmentVersion(pinned, 'frag-b', undefined).fragments).toEqual([
      'frag-a',
      { id: 'frag-b', prefix: 'front' },
      { id: 'frag-c' },
    ]);
    expect(config.fragments[1]).toEqual({ id: 'frag-b', version: 'stable', prefix: 'front' });
  });

  test('the version an import follows: a tag or revision, the latest as empty, none when not imported', () => {
    expect(importedVersion(config, 'frag-a')).toBe('');
    expect(importedVersion(config, 'frag-b')).toBe('stable');
    expect(importedVersion(config, 'frag-c')).toBe('');
    expect(importedVersion(config, 'frag-z')).toBeUndefined();
    expect(importedVersion({}, 'frag-a')).toBeUndefined();
  });

  test("a fragment rollout is journaled apart from its stack's", () => {
    expect(rolloutJournalKey('fleet', { name: 'careful' })).toBe('fleet');
    expect(rolloutJournalKey('fleet', { name: 'rig-careful', fragment: 'fleetform_fragment.rig' })).toBe('fleet~rig-careful');
  });
});
