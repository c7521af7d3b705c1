/** A Rollout's pacing props: what they synthesize, and bad ones refused naming the field and the fix. */
import { Rollout, type RolloutProps } from '../../src';
import { parseStackDocument } from '../../src/engine/desired/read-stacks';
import { newStack } from './helpers';

function policyOf(props: RolloutProps): unknown {
  const { stack } = newStack();
  new Rollout(stack, 'careful', props);
  const doc = JSON.parse(JSON.stringify(stack.toTerraform())) as { '//': { fleetform_rollout: { pacing?: unknown } } };
  expect(parseStackDocument('stack', doc).rollout?.pacing).toEqual(doc['//'].fleetform_rollout.pacing);
  return doc['//'].fleetform_rollout.pacing;
}

/** The error a Rollout of `props` throws, with its hint. */
function refusal(props: unknown): { message: string; hint: string } {
  const { stack } = newStack();
  try {
    new Rollout(stack, 'careful', props as RolloutProps);
  } catch (err) {
    const e = err as Error & { hint?: string };
    return { message: e.message, hint: e.hint ?? '' };
  }
  throw new Error('the Rollout was not refused');
}

test('rates, pause steps, a schedule and late joiners synthesize into the policy, which the engine reads back', () => {
  const pacing = policyOf({
    waves: [{ pause: true }, { count: 1, perMinute: 5 }, { pause: true }, { fraction: 1 }],
    rate: { ramp: { start: 10, factor: 2, ceiling: 80, everyWritten: 20 } },
    schedule: { notBefore: new Date('2026-12-02T09:00:00Z'), stopBy: '2026-12-02T17:00:00+01:00', atStop: 'finish-wave' },
    lateJoiners: 'last-wave',
  });
  expect(pacing).toEqual({
    rate: { ramp: { start: 10, factor: 2, ceiling: 80, every_written: 20 } },
    wave_rates: [{ wave: 0, per_minute: 5 }],
    pauses: [0, 1],
    schedule: { not_before: '2026-12-02T09:00:00.000Z', stop_by: '2026-12-02T16:00:00.000Z', at_stop: 'finish-wave' },
    late_joiners: 'last-wave',
  });
  expect(policyOf({ waves: [{ fraction: 1 }], rate: { perMinute: 30 }, schedule: { stopBy: '2026-12-02T17:00:00Z' } })).toEqual({
    rate: { per_minute: 30 },
    schedule: { stop_by: '2026-12-02T17:00:00.000Z', at_stop: 'pause' },
  });
  expect(policyOf({ waves: [{ fraction: 1 }] })).toBeUndefined();
});

test('the hint of an unknown prop lists the pacing props with the rest', () => {
  const { message, hint } = refusal({ waves: [{ fraction: 1 }], rates: { perMinute: 5 } });
  expect(message).toMatch(/Rollout: .*"rates"/);
  expect(hint).toMatch(/Rollout takes: .*waves.*rate, schedule, lateJoiners/);
});

test.each([
  [{ rate: { perMinute: 0 } }, /"rate\.perMinute"/, /Rollout takes: .*rate/],
  [{ rate: { perMinute: 7000 } }, /"rate\.perMinute"/, /Rollout takes: .*rate/],
  [{ rate: { ramp: { start: 5, factor: 1, ceiling: 50 } } }, /"rate\.ramp\.factor"/, /Rollout takes: .*rate/],
  [{ rate: { ramp: { start: 50, factor: 2, ceiling: 10 } } }, /"rate\.ramp\.ceiling" is below its start/, /ceiling at or above the start/],
  [{ rate: 'fast' }, /"rate"/, /Rollout takes: .*rate/],
  [{ lateJoiners: 'first-wave' }, /"lateJoiners": expected one of "current-wave", "last-wave"/, /Rollout takes: .*lateJoiners/],
  [{ schedule: { atStop: 'halt' } }, /"schedule\.atStop"/, /Rollout takes: .*schedule/],
  [{ schedule: { notBefore: '2026-12-02 09:00' } }, /"schedule\.notBefore" is not a time with its zone/, /ISO 8601 time with its zone/],
  [{ schedule: { stopBy: 'tomorrow' } }, /"schedule\.stopBy" is not a time with its zone/, /ISO 8601 time with its zone/],
  [
    { schedule: { notBefore: '2026-12-02T10:00:00Z', stopBy: '2026-12-02T09:00:00Z' } },
    /stopBy 2026-12-02T09:00:00.000Z is not after notBefore/,
    /give a stopBy after notBefore/,
  ],
])('%j is refused naming the field and the fix', (pacing, message, hint) => {
  const refused = refusal({ waves: [{ fraction: 1 }], ...pacing });
  expect(refused.message).toMatch(message);
  expect(refused.hint).toMatch(hint);
});

test('pause steps and wave rates: refused where they hold nothing or are not rates', () => {
  expect(refusal({ waves: [{ fraction: 1 }, { pause: true }] })).toMatchObject({
    message: expect.stringMatching(/the last of the waves is a pause step/),
    hint: expect.stringMatching(/between two waves, or before the first/),
  });
  expect(refusal({ waves: [{ pause: true, fraction: 1 }, { fraction: 1 }] })).toMatchObject({
    message: expect.stringMatching(/waves\[0\] is a pause step: write it \{ pause: true \}/),
  });
  expect(refusal({ waves: [{ pause: false }, { fraction: 1 }] }).message).toMatch(/waves\[0\] is a pause step/);
  expect(refusal({ waves: [{ fraction: 1, perMinute: -1 }] })).toMatchObject({
    message: expect.stringMatching(/"waves\[0\]\.perMinute" must be a number above 0/),
    hint: expect.stringMatching(/like 20/),
  });
  expect(refusal({ waves: [null] }).message).toMatch(/Rollout: .*waves/);
});
