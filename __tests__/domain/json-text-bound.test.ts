import { jsonTextBytesAtMost } from '../../src/domain/json-text-bound';
import { seededRandom } from '../seeded-random';

const bytes = (v: unknown): number => Buffer.byteLength(JSON.stringify(v), 'utf8');

describe('the bound of a JSON value text', () => {
  test('is never under the text JSON.stringify writes, whatever it escapes', () => {
    const values: unknown[] = [
      { a: '"\\\u0000\u001f\n', b: '\ud800', c: 'é😀', d: [null, true, false, undefined] },
      [-0.0000012345678901234567, -1.7976931348623157e308, -5e-324, 1e21, NaN, Infinity, -0],
      { nested: { list: [[[]], {}, ''], text: '\u2028\u2029' }, skipped: undefined },
      // A sparse list writes its holes as null.
      Object.assign(new Array<unknown>(3), { 0: 1, 2: 3 }),
      Object.assign(Object.create(null) as object, { bare: 'object' }),
    ];
    for (const v of values) expect(jsonTextBytesAtMost(v)).toBeGreaterThanOrEqual(bytes(v));
  });

  test('holds for random JSON data', () => {
    const next = seededRandom(63);
    const random = { int: (n: number) => Math.floor(next() * n), float: next };
    const leaf = (): unknown => {
      const pick = random.int(5);
      if (pick === 0) return random.float() * 10 ** (random.int(40) - 20);
      if (pick === 1) return String.fromCharCode(...Array.from({ length: random.int(12) }, () => random.int(0x10000)));
      if (pick === 2) return random.int(2) === 0;
      if (pick === 3) return null;
      return random.int(1000);
    };
    const value = (depth: number): unknown => {
      if (depth === 0 || random.int(3) === 0) return leaf();
      if (random.int(2) === 0) return Array.from({ length: random.int(5) }, () => value(depth - 1));
      return Object.fromEntries(Array.from({ length: random.int(5) }, (_, i) => [`k${i}${String(leaf())}`, value(depth - 1)]));
    };
    for (let i = 0; i < 300; i++) {
      const v = value(4);
      expect(jsonTextBytesAtMost(v)).toBeGreaterThanOrEqual(bytes(v));
    }
  });

  test('is unbounded for a value only its own text tells (toJSON, class instances)', () => {
    expect(jsonTextBytesAtMost({ when: new Date(0) })).toBe(Number.POSITIVE_INFINITY);
    expect(jsonTextBytesAtMost([{ toJSON: () => 'x'.repeat(100) }])).toBe(Number.POSITIVE_INFINITY);
    expect(jsonTextBytesAtMost({ n: 1n })).toBe(Number.POSITIVE_INFINITY);
  });

  test('stops counting past the limit, with a figure over it', () => {
    const big = { text: 'x'.repeat(1000), more: Array.from({ length: 1000 }, () => 'y'.repeat(100)) };
    const bound = jsonTextBytesAtMost(big, 5000);
    expect(bound).toBeGreaterThan(5000);
    expect(bound).toBeLessThan(jsonTextBytesAtMost(big));
  });
});
