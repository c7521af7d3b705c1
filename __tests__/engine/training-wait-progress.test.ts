import { reportsProgress } from '../../src/engine/kinds/machine-models';

test('a training wait reports at its first poll, when the status changes, and every 15 s otherwise, not at every poll', () => {
  expect(reportsProgress(undefined, 'pending', 0)).toBe(true);
  const last = { state: 'training job j is TRAINING_STATUS_PENDING', at: 0 };
  expect(reportsProgress(last, last.state, 1000)).toBe(false);
  expect(reportsProgress(last, last.state, 14_999)).toBe(false);
  expect(reportsProgress(last, last.state, 15_000)).toBe(true);
  expect(reportsProgress(last, 'training job j is TRAINING_STATUS_IN_PROGRESS', 2000)).toBe(true);
});
