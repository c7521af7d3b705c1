import { checkJsonLimits } from '../../src/domain/json-limits';

const small = { maxDepth: 3, maxValues: 12, maxStringLength: 4 };

describe('checkJsonLimits', () => {
  test('a value within every limit has no issue', () => {
    expect(checkJsonLimits({ a: [1, 'abcd', { b: null }] }, '', small)).toBeUndefined();
    expect(checkJsonLimits('abcd', 'x', small)).toBeUndefined();
  });

  test('nesting: the first object or array at the limit, by its path', () => {
    expect(checkJsonLimits({ a: [1, { b: [2] }] }, 'cfg', small)).toMatchObject({ code: 'too-deep', path: 'cfg.a[1].b' });
    expect(checkJsonLimits({ a: [1, { b: 'ok' }] }, '', small)).toBeUndefined();
  });

  test('values: more than the limit in the whole document, at the base path', () => {
    expect(checkJsonLimits({ a: Array.from({ length: 11 }, () => 1) }, 'cfg', small)).toMatchObject({ code: 'too-large', path: 'cfg' });
    expect(checkJsonLimits({ a: Array.from({ length: 10 }, () => 1) }, 'cfg', small)).toBeUndefined();
  });

  test('strings and keys longer than the limit, by the path of the string or of the object holding the key', () => {
    expect(checkJsonLimits({ a: [{ b: 'abcde' }] }, '', small)).toMatchObject({ code: 'too-large', path: 'a[0].b' });
    expect(checkJsonLimits({ a: [{ abcde: 1 }] }, '', small)).toMatchObject({ code: 'too-large', path: 'a[0]' });
  });

  test('limits deeper than the quick walk allows are checked all the same', () => {
    const deep = { maxDepth: 1000, maxValues: 100, maxStringLength: 4 };
    expect(checkJsonLimits({ a: ['abcde'] }, '', deep)).toMatchObject({ code: 'too-large', path: 'a[0]' });
    expect(checkJsonLimits({ a: ['abcd'] }, '', deep)).toBeUndefined();
  });
});
