import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { ModuleConfigSchema } from '../../src/domain/config';
import { ResourceEntrySchema } from '../../src/domain/config-language';
import { asIsTest } from '../../src/domain/schema-as-is';

/** An object holding exactly these own keys (assignment would set a prototype for "__proto__"). */
function own(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

const leaf = fc.oneof(fc.string({ maxLength: 6 }), fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined));
const key = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'name', 'api', 'model', 'attributes', 'depends_on', 'frame'),
  fc.string({ maxLength: 6 }),
);
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('v'), { maxLength: 3 }),
    fc.array(fc.tuple(key, tie('v')), { maxLength: 3 }).map(own),
  ),
})).v;
/** Entries near the schema's forms: its fields with values of their type or of another. */
const entry = fc
  .record(
    {
      name: fc.oneof(fc.string({ maxLength: 6 }), value),
      api: fc.oneof(
        fc.constant('rdk:component:arm'),
        fc.record({ namespace: fc.string(), type: fc.string(), subtype: fc.string() }),
        value,
      ),
      model: fc.oneof(fc.constant('acme:arm:six'), value),
      attributes: fc.oneof(fc.array(fc.tuple(key, value), { maxLength: 4 }).map(own), value),
      depends_on: fc.oneof(fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }), value),
      frame: value,
      service_configs: value,
      disabled: fc.oneof(fc.boolean(), value),
      extra: value,
    },
    { requiredKeys: [] },
  )
  .chain((r) => fc.array(fc.tuple(key, value), { maxLength: 2 }).map((more) => own([...Object.entries(r), ...more])));

describe('a schema taking a value as it is', () => {
  test.each([
    ['a resource entry', ResourceEntrySchema, entry],
    ['a module entry', ModuleConfigSchema, entry],
    ['any value as a resource entry', ResourceEntrySchema, value],
  ] as const)('%s: taken as it is only where zod gives back equal data', (_, schema, arbitrary) => {
    const test = asIsTest(schema);
    let taken = 0;
    fc.assert(
      fc.property(arbitrary, (v) => {
        if (!test(v)) return;
        taken++;
        const parsed = schema.safeParse(v);
        expect(parsed.success).toBe(true);
        expect(isDeepStrictEqual(parsed.data, v)).toBe(true);
      }),
      { numRuns: 3000, seed: 63 },
    );
    // The test takes some values: it is not one that never says yes.
    if (arbitrary === entry) expect(taken).toBeGreaterThan(10);
  });

  test('the common entry of a config is taken as it is; one with its own "__proto__", a hole or a number out of range is left to zod', () => {
    const test = asIsTest(ResourceEntrySchema);
    expect(
      test({ name: 'arm', api: 'rdk:component:arm', model: 'acme:arm:six', attributes: { host: '10.0.0.1' }, depends_on: ['board'] }),
    ).toBe(true);
    expect(test({ name: 'arm', attributes: own([['__proto__', { x: 1 }]]) })).toBe(false);
    expect(test({ name: 'arm', depends_on: Object.assign(new Array<string>(2), { 0: 'a' }) })).toBe(false);
    expect(
      test({ name: 'arm', service_configs: [{ type: 'data_manager', attributes: { capture_methods: [{ capture_queue_size: 1 }] } }] }),
    ).toBe(false);
    expect(test({ name: 1 })).toBe(false);
  });

  test('a schema that fills in or changes values never takes one as it is', () => {
    expect(asIsTest(z.looseObject({ a: z.string().default('x') }))({})).toBe(false);
    expect(asIsTest(z.looseObject({ a: z.string().trim() }))({ a: 'x' })).toBe(false);
    expect(asIsTest(z.object({ a: z.string() }))({ a: 'x', b: 1 })).toBe(false);
    expect(asIsTest(z.union([z.string().transform((s) => s.length), z.string()]))('abc')).toBe(false);
    expect(asIsTest(z.number())(Infinity)).toBe(false);
  });
});
