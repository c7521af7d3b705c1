/** A data pipeline's rules: BSON of its stages, each stage's one `$` key, its five-field cron schedule and the windows it implies. */
import { BsonError, decodeBsonDocument, encodeBsonDocument } from '../../src/domain/bson';
import { readStageText, scheduledWindows, scheduleProblem, stageProblem } from '../../src/domain/data-pipelines';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('BSON of JSON values', () => {
  test('the specification example {"hello": "world"}', () => {
    expect(hex(encodeBsonDocument({ hello: 'world' }))).toBe('160000000268656c6c6f0006000000776f726c640000');
  });

  test('int32 for whole numbers within 32 bits, double otherwise; nested documents and arrays', () => {
    expect(hex(encodeBsonDocument({ a: 1 }))).toBe('0c0000001061000100000000');
    expect(hex(encodeBsonDocument({ a: 1.5 }))).toBe('10000000016100000000000000f83f00');
    expect(hex(encodeBsonDocument({ a: 2 ** 31 }))).toBe('10000000016100000000000000e04100');
    expect(hex(encodeBsonDocument({ a: -(2 ** 31) }))).toBe('0c0000001061000000008000');
    expect(hex(encodeBsonDocument({ a: [true, null] }))).toBe('140000000461000c000000083000010a31000000');
  });

  test('a round trip keeps key order, UTF-8 beyond the BMP and CR LF as they are', () => {
    const doc = { $group: { z: 1, a: '🌡 temp\r\nline', m: [1, -2.25, { k: null, t: false }], e: {} } };
    const back = decodeBsonDocument(encodeBsonDocument(doc));
    expect(back).toEqual(doc);
    expect(Object.keys(back.$group as object)).toEqual(['z', 'a', 'm', 'e']);
  });

  test('an array is a document keyed 0, 1, ...: bytes per the specification', () => {
    // {"a": [true]}: type 04, key "a", inner document {"0": true}.
    expect(hex(encodeBsonDocument({ a: [true] }))).toBe('1100000004610009000000083000010000');
  });

  test('reads int64 exactly; refuses types without a JSON form by name, and malformed bytes', () => {
    const int64 = Buffer.from('100000001261000500000000000000' + '00', 'hex');
    int64.writeInt32LE(int64.length, 0);
    expect(decodeBsonDocument(new Uint8Array(int64))).toEqual({ a: 5 });
    const date = Buffer.from('10000000096400000000000000000000', 'hex');
    expect(() => decodeBsonDocument(new Uint8Array(date))).toThrow(/UTC datetime/);
    expect(() => decodeBsonDocument(Uint8Array.of(1, 2, 3))).toThrow(BsonError);
    const truncated = encodeBsonDocument({ hello: 'world' }).subarray(0, 10);
    expect(() => decodeBsonDocument(truncated)).toThrow(BsonError);
    expect(() => encodeBsonDocument({ 'a\u0000b': 1 })).toThrow(/NUL/);
  });
});

describe('stages', () => {
  test('a stage has exactly one key, its $ operator; the problem names the stage index', () => {
    expect(stageProblem({ $match: {} }, 0)).toBeUndefined();
    expect(stageProblem({ match: {} }, 2)).toMatchObject({
      path: 'query[2]',
      message: expect.stringContaining('stage 2 has the keys "match"'),
    });
    expect(stageProblem({ $match: {}, $limit: 1 }, 1)?.message).toMatch(/^stage 1 has the keys "\$match", "\$limit"/);
    expect(stageProblem({}, 0)?.message).toMatch(/^stage 0 has no key/);
    expect(stageProblem([{ $match: {} }], 3)?.message).toBe('stage 3 is not an object');
  });

  test('a stage as JSON text is read, or its problem named', () => {
    expect(readStageText('{"$limit": 5}', 0)).toEqual({ stage: { $limit: 5 } });
    expect(readStageText('{"$limit": ', 4)).toMatchObject({
      problem: { path: 'query[4]', message: expect.stringMatching(/^stage 4 is not JSON text/) },
    });
  });
});

describe('schedule', () => {
  test.each(['0 * * * *', '*/15 * * * *', '0 0 * * 1-5', ' 30 2 1 * * '])('%j is a schedule', (s) => {
    expect(scheduleProblem(s)).toBeUndefined();
  });

  test.each([
    ['0 * * *', /4 fields, not 5/],
    ['0 0 * * * *', /6 fields, not 5/],
    ['@hourly', /1 field, not 5/],
    ['61 * * * *', /not a cron expression/],
    ['0 25 * * *', /not a cron expression/],
  ])('%j is refused, naming the field', (s, message) => {
    expect(scheduleProblem(s)).toMatchObject({
      path: 'schedule',
      message: expect.stringMatching(message),
      hint: expect.stringContaining('five fields'),
    });
  });

  test('each run reads the data since the tick before its own, in UTC', () => {
    const t0 = Date.UTC(2026, 0, 1, 0, 30);
    const hour = 3_600_000;
    const windows = scheduledWindows('0 * * * *', t0, t0 + 3 * hour, 10);
    expect(windows.map((w) => [w.start, w.end])).toEqual([
      [t0 - hour / 2, t0 + hour / 2],
      [t0 + hour / 2, t0 + (3 * hour) / 2],
      [t0 + (3 * hour) / 2, t0 + (5 * hour) / 2],
    ]);
    expect(scheduledWindows('0 * * * *', t0, t0 + 3 * hour, 2).map((w) => w.end)).toEqual([t0 + (3 * hour) / 2, t0 + (5 * hour) / 2]);
    expect(scheduledWindows('0 0 * * *', t0, t0 + hour, 10)).toEqual([]);
  });
});
