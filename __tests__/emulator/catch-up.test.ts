import { missedCheckIns } from '../../src/emulator/sim/catch-up';

test('no check-in is missed before one interval has passed', () => {
  expect(missedCheckIns(1000, 1000, 5000)).toEqual([]);
  expect(missedCheckIns(1000, 5999, 5000)).toEqual([]);
  expect(missedCheckIns(1000, 2000, 0)).toEqual([]);
});

test('each interval passed is one check-in at the instant it would have happened', () => {
  expect(missedCheckIns(0, 12_000, 5000)).toEqual([5000, 10_000]);
  expect(missedCheckIns(0, 15_000, 5000)).toEqual([5000, 10_000, 15_000]);
});

test('a long gap is covered by at most the given number of evenly spaced check-ins, the last at now', () => {
  const times = missedCheckIns(0, 3_600_000, 5000, 4);
  expect(times).toEqual([900_000, 1_800_000, 2_700_000, 3_600_000]);
});
