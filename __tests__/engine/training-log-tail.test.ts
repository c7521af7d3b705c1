import { jobLogTailData, jobLogTailOf, logLineText, logTail, logTailLines, logTailNote } from '../../src/engine/kinds/training-log-tail';

const at = (s: number): Date => new Date(Date.UTC(2026, 11, 2, 13, 0, s));
const entries = Array.from({ length: 8 }, (_, i) => ({ level: i === 7 ? 'error' : 'info', time: at(i), message: `line ${i}` }));

test('a line is its UTC time to the second, its level and its message; one without a time has none', () => {
  expect(logLineText({ level: 'error', time: at(5), message: 'training failed: x' })).toBe('2026-12-02 13:00:05Z error training failed: x');
  expect(logLineText({ level: 'info', message: 'no time' })).toBe('info no time');
});

test('the tail keeps the last lines, oldest first, and all of a shorter log', () => {
  expect(logTail(entries)).toEqual([3, 4, 5, 6, 7].map((i) => logLineText(entries[i]!)));
  expect(logTail(entries, 2)).toEqual([logLineText(entries[6]!), logLineText(entries[7]!)]);
  expect(logTail(entries.slice(0, 1))).toEqual([logLineText(entries[0]!)]);
  expect(logTail([])).toEqual([]);
});

test("an error's text heads the lines with the job; an empty or unreadable log says so", () => {
  expect(logTailLines('job-1', { lines: ['a', 'b'] })).toEqual(['the last lines training job job-1 logged:', '  a', '  b']);
  expect(logTailLines('job-1', { lines: [] })).toEqual(['training job job-1 logged nothing']);
  expect(logTailLines('job-1', { unreadable: 'unavailable' })).toEqual(['the log of training job job-1 could not be read: unavailable']);
});

test('a plan note carries the lines as its value, and none when there are none', () => {
  expect(logTailNote('job-1', { lines: ['a'] }, 'packages.m.version')).toEqual({
    level: 'warning',
    path: 'packages.m.version',
    message: 'the last lines training job job-1 logged:',
    value: ['a'],
  });
  expect(logTailNote('job-1', { lines: [] })).toEqual({ level: 'warning', message: 'training job job-1 logged nothing' });
});

test('an observation keeps the tail as JSON and reads back what it kept, nothing else', () => {
  for (const tail of [{ lines: ['a', 'b'] }, { lines: [] }, { unreadable: 'gone' }])
    expect(jobLogTailOf(jobLogTailData(tail))).toEqual(tail);
  expect(jobLogTailOf(undefined)).toBeUndefined();
  expect(jobLogTailOf('lines')).toBeUndefined();
  expect(jobLogTailOf({ lines: 'a' })).toBeUndefined();
  expect(jobLogTailOf({ lines: ['a', 3] })).toEqual({ lines: ['a'] });
});
