/** The helper that names where a synthesized config first differs from the stored one. */
import { differenceLine, firstDifference } from './first-difference';

test('equal JSON, key order aside, has no difference', () => {
  expect(firstDifference({ a: 1, b: [{ x: 1, y: 2 }] }, { b: [{ y: 2, x: 1 }], a: 1 })).toBeUndefined();
});

test('the first differing path is named, an absent key as absent, list entries by index', () => {
  expect(firstDifference({ components: [] }, {})).toEqual({ path: 'components', expected: '(absent)', actual: '[]' });
  expect(firstDifference({ fragments: [{ id: 'f' }] }, { fragments: ['f'] })).toEqual({
    path: 'fragments[0]',
    expected: '"f"',
    actual: '{"id":"f"}',
  });
  expect(firstDifference({ a: { 'odd key': 1, z: 2 } }, { a: { 'odd key': 2, z: 3 } })?.path).toBe('a["odd key"]');
  expect(differenceLine('x.json', { services: [] }, {})).toBe('x.json: at services the config holds (absent), synth gives []');
});
