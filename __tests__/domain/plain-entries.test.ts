/**
 * The checks that skip zod for well-formed config entries recognize only entries their
 * schema accepts, and give the fields the schema gives; the quick predicates agree with
 * the parsers they stand for.
 */
import fc from 'fast-check';
import { ModularResourceSchema, ModuleConfigSchema } from '../../src/domain/config';
import { plainModuleEntry, plainResourceEntry } from '../../src/domain/plain-entries';
import { findPlaceholders, mayHoldPlaceholder } from '../../src/domain/placeholders';
import { isApiTriplet, isModelTriplet, isModuleId, isServiceApi, parseApiTriplet, parseModelTriplet, parseModuleId } from '../../src/domain/triplet';
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
const { value } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, leaf, tie('object'), tie('array'), fc.constant(Object.create(null)), fc.constant(new Date(0))),
  object: fc.array(fc.tuple(key, tie('value')), { maxLength: 4 }).map(own),
  array: fc.array(tie('value'), { maxLength: 3 }),
}));
const stringsOr = (...texts: string[]) => fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...texts) }, { weight: 1, arbitrary: value });

/** Entries with each field present or not, usually of the right type, sometimes not. */
function entry(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> {
  const picks = Object.entries(fields).map(([k, arb]) => fc.option(arb.map((v) => [k, v] as const), { freq: 5 }));
  return fc.tuple(fc.tuple(...picks), fc.array(fc.tuple(key, value), { maxLength: 2 })).map(([fixed, extra]) =>
    own([...fixed.filter((e): e is readonly [string, unknown] => e !== null), ...extra]),
  );
}

const resource = entry({
  name: stringsOr('arm', ''),
  model: stringsOr('acme:x:y'),
  api: stringsOr('rdk:component:arm'),
  attributes: fc.oneof({ weight: 6, arbitrary: fc.array(fc.tuple(key, value), { maxLength: 3 }).map(own) }, { weight: 1, arbitrary: value }),
  depends_on: fc.oneof({ weight: 6, arbitrary: fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }) }, { weight: 1, arbitrary: value }),
});
const moduleEntry = entry({
  type: stringsOr('registry', 'local', 'other'),
  name: stringsOr('m'),
  module_id: stringsOr('acme:m'),
  version: stringsOr('1.0.0'),
  executable_path: stringsOr('/bin/x'),
});

test('a resource entry recognized without zod is one the schema accepts, with the same fields', () => {
  fc.assert(
    fc.property(resource, (item) => {
      const plain = plainResourceEntry(item);
      if (plain === undefined) return;
      const parsed = ModularResourceSchema.safeParse(item);
      expect(parsed.success).toBe(true);
      if (!parsed.success) return;
      for (const field of ['name', 'model', 'api', 'depends_on'] as const) expect(plain[field]).toEqual(parsed.data[field]);
    }),
    { numRuns: RUNS, seed: SEED },
  );
});

test('a module entry recognized without zod is one the schema accepts without its env, with the same fields', () => {
  fc.assert(
    fc.property(moduleEntry, (item) => {
      const plain = plainModuleEntry(item);
      if (plain === undefined) return;
      const withoutEnv = own(Object.entries(item).filter(([k]) => k !== 'env'));
      const parsed = ModuleConfigSchema.safeParse(withoutEnv);
      expect(parsed.success).toBe(true);
      if (!parsed.success) return;
      for (const field of ['type', 'name', 'module_id', 'version', 'executable_path'] as const) expect(plain[field]).toEqual(parsed.data[field]);
    }),
    { numRuns: RUNS, seed: SEED },
  );
});

test('the common entries are recognized', () => {
  expect(plainResourceEntry({ name: 'a', api: 'rdk:component:arm', model: 'acme:x:y', attributes: { k: [1] }, depends_on: ['b'] })).toBeDefined();
  expect(plainModuleEntry({ type: 'registry', name: 'acme_x', module_id: 'acme:x', version: '1.0.0', env: { A: 'b' } })).toBeDefined();
  expect(plainResourceEntry({ name: 'a', api: 'rdk:component:arm', model: 'acme:x:y', attributes: { constructor: 1 } })).toBeUndefined();
  expect(plainModuleEntry(Object.defineProperty({ type: 'local' }, 'name', { value: 'hidden' }))).toBeUndefined();
});

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
  const texts = fc.oneof(fc.constantFrom('1.2.3', '~1.2', '1.2.*', '^1', '1.*', 'latest', 'latest-with-prerelease', '01.2.3', '1.2', 'x'), fc.stringMatching(/^[0-9.~^*a-z-]{0,8}$/));
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
