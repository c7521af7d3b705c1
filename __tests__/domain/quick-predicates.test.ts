/**
 * The quick predicates agree with the parsers they stand for.
 */
import fc from 'fast-check';
import { findPlaceholders, mayHoldPlaceholder } from '../../src/domain/placeholders';
import {
  isApiTriplet,
  isModelTriplet,
  isModuleId,
  isServiceApi,
  parseApiTriplet,
  parseModelTriplet,
  parseModuleId,
} from '../../src/domain/triplet';
import { isVersionPolicy, tryParseVersionPolicy } from '../../src/domain/version-policy';
import { conventionalModuleName } from '../../src/domain/names';

const SEED = 23;
const RUNS = 3000;

/** An object holding exactly these own keys (assignment would set a prototype for "__proto__"). */
function own(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

const key = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'toString', 'name', 'env'), fc.string({ maxLength: 6 }));
const leaf = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined));
const tripletLike = fc.oneof(
  fc.constantFrom('rdk:component:arm', 'rdk:service:nav', 'rdk:widget:x', 'a:b', 'a:b:c:d', 'A-b:c_d:E', 'rdk::x', 'a:b:c\n', ''),
  fc.stringMatching(/^[a-z:_\-\n ]{0,12}$/),
);

test('the triplet and module id predicates agree with the parsers', () => {
  fc.assert(
    fc.property(tripletLike, (s) => {
      expect(isApiTriplet(s)).toBe(parseApiTriplet(s) !== undefined);
      expect(isServiceApi(s)).toBe(parseApiTriplet(s)?.type === 'service');
      expect(isModelTriplet(s)).toBe(parseModelTriplet(s) !== undefined);
      expect(isModuleId(s)).toBe(parseModuleId(s) !== undefined);
      const id = parseModuleId(s);
      expect(conventionalModuleName(s)).toBe(id ? `${id.namespace}_${id.name}` : undefined);
    }),
    { numRuns: RUNS, seed: SEED },
  );
});

test('isVersionPolicy agrees with tryParseVersionPolicy, asked once or again', () => {
  const texts = fc.oneof(
    fc.constantFrom('1.2.3', '~1.2', '1.2.*', '^1', '1.*', 'latest', 'latest-with-prerelease', '01.2.3', '1.2', 'x'),
    fc.stringMatching(/^[0-9.~^*a-z-]{0,8}$/),
  );
  fc.assert(
    fc.property(texts, (t) => {
      const expected = tryParseVersionPolicy(t) !== undefined;
      expect(isVersionPolicy(t)).toBe(expected);
      expect(isVersionPolicy(t)).toBe(expected);
    }),
    { numRuns: RUNS, seed: SEED },
  );
});

test('a value mayHoldPlaceholder rules out holds no placeholder findPlaceholders finds', () => {
  const withText = fc.letrec((tie) => ({
    v: fc.oneof({ depthSize: 'small' }, fc.constantFrom('${environment.A}', '${bad}', '${', 'x', '$'), leaf, tie('o'), tie('a')),
    o: fc.array(fc.tuple(key, tie('v')), { maxLength: 3 }).map(own),
    a: fc.array(tie('v'), { maxLength: 3 }),
  })).v;
  fc.assert(
    fc.property(withText, (v) => {
      if (!mayHoldPlaceholder(v)) expect(findPlaceholders(v, 'x')).toEqual([]);
    }),
    { numRuns: RUNS, seed: SEED },
  );
  expect(mayHoldPlaceholder({ a: [{ b: '${environment.X}' }] })).toBe(true);
});
