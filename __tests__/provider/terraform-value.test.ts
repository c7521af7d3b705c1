/**
 * DynamicValue's msgpack form: unknowns as extensions, nulls, every object attribute
 * present, nested lists/maps/objects, numbers sent as text, errors that name the path,
 * and round trips over generated types and values.
 */
import { decode, encode, ExtData } from '@msgpack/msgpack';
import fc from 'fast-check';
import type { TerraformType } from '../../src/engine/kind-declaration';
import {
  conform,
  decodeMsgpack,
  encodeMsgpack,
  hasUnknown,
  unknownValue,
  ValueDecodeError,
  type TerraformValue,
} from '../../src/provider/values/terraform-value';

const JOB: TerraformType = [
  'object',
  {
    name: 'string',
    replicas: 'number',
    enabled: 'bool',
    tags: ['list', 'string'],
    env: ['map', 'string'],
    limits: ['object', { cpu: 'number', labels: ['map', ['list', 'string']] }],
  },
];

/** The bytes Terraform would send for `raw` (already in wire form). */
const wire = (raw: unknown): Uint8Array => encode(raw);

/** The ValueDecodeError decoding `raw` as `type` throws. */
function decodeError(raw: unknown, type: TerraformType): ValueDecodeError {
  try {
    decodeMsgpack(wire(raw), type);
  } catch (err) {
    if (err instanceof ValueDecodeError) return err;
    throw err;
  }
  throw new Error(`decoded ${JSON.stringify(raw)} as ${JSON.stringify(type)}`);
}

describe('unknowns', () => {
  test('extension type 0 (unknown) and 12 (refined unknown) decode as unknown, wherever they are', () => {
    expect(decodeMsgpack(wire(new ExtData(0, new Uint8Array([0]))), 'string')).toBe(unknownValue);
    // A refined unknown carries its refinements (here: not null, a prefix) in the extension's payload.
    const refined = new ExtData(12, new Uint8Array(encode({ 1: true, 2: 'ab' })));
    expect(decodeMsgpack(wire(refined), 'string')).toBe(unknownValue);
    expect(decodeMsgpack(wire(refined), ['list', 'number'])).toBe(unknownValue);
    const nested = decodeMsgpack(
      wire({
        name: 'a',
        replicas: refined,
        tags: ['x', new ExtData(0, new Uint8Array([0]))],
        env: new ExtData(0, new Uint8Array([0])),
        limits: null,
      }),
      JOB,
    );
    expect(nested).toEqual({
      name: 'a',
      replicas: unknownValue,
      enabled: null,
      tags: ['x', unknownValue],
      env: unknownValue,
      limits: null,
    });
    expect(hasUnknown(nested)).toBe(true);
    expect(hasUnknown({ a: ['x', { b: null }] })).toBe(false);
  });

  test('encode writes an unknown as extension type 0', () => {
    const raw = decode(encodeMsgpack({ name: unknownValue, tags: [unknownValue], env: unknownValue }, JOB)) as Record<string, unknown>;
    for (const v of [raw.name, (raw.tags as unknown[])[0], raw.env]) {
      expect(v).toBeInstanceOf(ExtData);
      expect((v as ExtData).type).toBe(0);
    }
    expect(Buffer.from(encodeMsgpack(unknownValue, 'string'))).toEqual(Buffer.from([0xd4, 0x00, 0x00]));
  });
});

describe('nulls and object attributes', () => {
  test('empty bytes and msgpack nil are null', () => {
    expect(decodeMsgpack(new Uint8Array(), JOB)).toBeNull();
    expect(decodeMsgpack(wire(null), JOB)).toBeNull();
    expect(Buffer.from(encodeMsgpack(null, JOB))).toEqual(Buffer.from([0xc0]));
  });

  test('encode writes every attribute of an object, null when unset, and no others', () => {
    const raw = decode(encodeMsgpack({ name: 'a', stray: 'dropped', limits: { cpu: 2 } }, JOB));
    expect(raw).toEqual({ name: 'a', replicas: null, enabled: null, tags: null, env: null, limits: { cpu: 2, labels: null } });
  });

  test('decode gives every attribute of an object, absent ones null', () => {
    expect(decodeMsgpack(wire({ enabled: false }), JOB)).toEqual({
      name: null,
      replicas: null,
      enabled: false,
      tags: null,
      env: null,
      limits: null,
    });
  });

  test('an attribute the object type does not have is an error naming it, as Terraform decodes', () => {
    const top = decodeError({ enabled: false, other: 1 }, JOB);
    expect(top.path).toBe('other');
    expect(top.message).toBe('unsupported attribute "other"');
    expect(top.hint).toContain('name, replicas, enabled');
    expect(decodeError({ limits: { cpu: 1, constructor: 'x' } }, JOB).path).toBe('limits.constructor');
  });

  test("attributes named like Object's own methods are read from the value only", () => {
    const fields = Object.fromEntries<TerraformType>([
      ['toString', 'string'],
      ['constructor', ['list', 'number']],
    ]);
    const type: TerraformType = ['object', fields];
    expect(decode(encodeMsgpack({}, type))).toEqual({ toString: null, constructor: null });
    expect(decodeMsgpack(wire({}), type)).toEqual({ toString: null, constructor: null });
    const value = Object.fromEntries<TerraformValue>([
      ['toString', 'a'],
      ['constructor', [1]],
    ]);
    expect(decodeMsgpack(encodeMsgpack(value, type), type)).toEqual(value);
  });

  test('null elements of lists and maps stay', () => {
    const value = { name: null, replicas: null, enabled: null, tags: ['a', null], env: { A: null, B: 'b' }, limits: null };
    expect(decodeMsgpack(encodeMsgpack(value, JOB), JOB)).toEqual(value);
  });
});

describe('nested values and numbers', () => {
  test('nested objects, lists and maps round trip', () => {
    const value: TerraformValue = {
      name: 'trainer',
      replicas: 3,
      enabled: true,
      tags: ['a', 'b'],
      env: { PATH: '/bin', EMPTY: '' },
      limits: { cpu: 1.5, labels: { zone: ['a', 'b'], none: [] } },
    };
    expect(decodeMsgpack(encodeMsgpack(value, JOB), JOB)).toEqual(value);
  });

  test('numbers sent as decimal text decode as numbers; other text is an error', () => {
    expect(decodeMsgpack(wire('12345678901234567890'), 'number')).toBe(Number('12345678901234567890'));
    expect(decodeMsgpack(wire('-0.25'), 'number')).toBe(-0.25);
    expect(decodeMsgpack(wire({ limits: { cpu: '4' } }), JOB)).toMatchObject({ limits: { cpu: 4 } });
    expect(decodeError('four', 'number').path).toBe('(root)');
    expect(decodeError('', 'number').path).toBe('(root)');
    expect(decodeError({ replicas: 'many' }, JOB).path).toBe('replicas');
  });

  test('64-bit integers decode as numbers', () => {
    expect(decodeMsgpack(wire(2 ** 40), 'number')).toBe(2 ** 40);
    expect(decodeMsgpack(new Uint8Array([0xcf, 0, 0, 0, 0, 0, 0, 0, 7]), 'number')).toBe(7);
  });
});

describe('decode errors name the path', () => {
  test.each<[string, unknown, TerraformType, string]>([
    ['a string where a bool is', 'yes', 'bool', '(root)'],
    ['a number where a string is', { name: 5 }, JOB, 'name'],
    ['a list element', { tags: ['a', 7] }, JOB, 'tags[1]'],
    ['a map value', { env: { HOME: true } }, JOB, 'env["HOME"]'],
    ['a map where an object is', { limits: ['x'] }, JOB, 'limits'],
    ['deep inside', { limits: { labels: { zone: ['a', {}] } } }, JOB, 'limits.labels["zone"][1]'],
    ['an object where a list is', { tags: { a: 'b' } }, JOB, 'tags'],
  ])('%s', (_what, raw, type, path) => {
    const err = decodeError(raw, type);
    expect(err.path).toBe(path);
    expect(err.message).toContain('expected a value of type');
  });

  test('bytes that are not msgpack are an error at the root', () => {
    const err = (() => {
      try {
        decodeMsgpack(new Uint8Array([0xc1]), 'string');
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(ValueDecodeError);
    expect((err as ValueDecodeError).path).toBe('(root)');
    expect((err as ValueDecodeError).message).toContain('undecodable');
  });
});

/** Attribute and map key names (a map key `__proto__` is refused by the msgpack decoder itself). */
const names = fc.string({ minLength: 1, maxLength: 6 }).filter((s) => s !== '__proto__');

const typeArb: fc.Arbitrary<TerraformType> = fc.letrec<{ type: TerraformType }>((tie) => ({
  type: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom<TerraformType>('string', 'number', 'bool'),
    tie('type').map((t): TerraformType => ['list', t]),
    tie('type').map((t): TerraformType => ['map', t]),
    fc.dictionary(names, tie('type'), { maxKeys: 4 }).map((fields): TerraformType => ['object', fields]),
  ),
})).type;

/** Values of `type` as decode gives them: null or unknown anywhere, every object attribute present. */
function valueOf(type: TerraformType): fc.Arbitrary<TerraformValue> {
  const special = fc.constantFrom<TerraformValue>(null, unknownValue);
  const data = ((): fc.Arbitrary<TerraformValue> => {
    if (type === 'string') return fc.string();
    // Terraform's numbers have no negative zero (a test below shows -0 travelling as 0).
    if (type === 'number')
      return fc.oneof(
        fc.integer(),
        fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (n === 0 ? 0 : n)),
      );
    if (type === 'bool') return fc.boolean();
    const [shape, inner] = type;
    if (shape === 'list') return fc.array(valueOf(inner), { maxLength: 3 });
    if (shape === 'map') return fc.dictionary(names, valueOf(inner), { maxKeys: 3 });
    return fc.record(
      Object.fromEntries(Object.entries(inner).map(([k, t]) => [k, valueOf(t)])) as Record<string, fc.Arbitrary<TerraformValue>>,
    );
  })();
  return fc.oneof({ weight: 1, arbitrary: special }, { weight: 4, arbitrary: data });
}

describe('negative zero', () => {
  test('-0 is written and read as 0, alone and inside a map', () => {
    expect(Object.is(decodeMsgpack(encodeMsgpack(-0, 'number'), 'number'), 0)).toBe(true);
    const back = decodeMsgpack(encodeMsgpack({ ' ': -0 }, ['map', 'number']), ['map', 'number']) as Record<string, number>;
    expect(Object.is(back[' '], 0)).toBe(true);
    expect(Object.is(conform(-0, 'number', 'n'), 0)).toBe(true);
  });
});

describe('round trips', () => {
  test('decode(encode(v)) is v for any type and value', () => {
    fc.assert(
      fc.property(
        typeArb.chain((type) => fc.tuple(fc.constant(type), valueOf(type))),
        ([type, value]) => {
          expect(decodeMsgpack(encodeMsgpack(value, type), type)).toEqual(value);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('encode(decode(b)) is b for the bytes encode writes', () => {
    fc.assert(
      fc.property(
        typeArb.chain((type) => fc.tuple(fc.constant(type), valueOf(type))),
        ([type, value]) => {
          const bytes = encodeMsgpack(value, type);
          expect(Buffer.from(encodeMsgpack(decodeMsgpack(bytes, type), type))).toEqual(Buffer.from(bytes));
        },
      ),
      { numRuns: 300 },
    );
  });
});
