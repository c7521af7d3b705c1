import { Struct, type JsonObject } from '@bufbuild/protobuf';
import * as fc from 'fast-check';
import { decodeStruct, encodeStruct, type StructObject } from '../../src/api/struct-codec';

/** JSON objects as a config holds them (finite numbers; Struct has no integers apart from doubles). */
const json = fc.letrec<{ value: unknown; object: Record<string, unknown> }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string(),
    fc.array(tie('value'), { maxLength: 3 }),
    tie('object'),
  ),
  object: fc.dictionary(fc.string({ maxLength: 6 }), tie('value'), { maxKeys: 4 }),
})).object;

describe('the Struct codec', () => {
  test('writes the bytes protobuf-es writes for the same object, and reads them back equal', () => {
    fc.assert(
      fc.property(json, (object) => {
        const theirs = Struct.fromJson(object as JsonObject).toBinary();
        expect(Buffer.from(encodeStruct(object as StructObject)).equals(Buffer.from(theirs))).toBe(true);
        expect(decodeStruct(theirs)).toEqual(Struct.fromBinary(theirs).toJson());
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  test('keeps keys named after Object.prototype members, where a decoded Struct message loses __proto__', () => {
    const object = JSON.parse('{"__proto__":{"constructor":{"__proto__":[1,"x"]}},"toString":true,"hasOwnProperty":null}') as StructObject;
    const bytes = encodeStruct(object);
    expect(JSON.stringify(decodeStruct(bytes))).toBe(JSON.stringify(object));
    expect(Object.keys(Struct.fromBinary(bytes).fields)).not.toContain('__proto__');
  });
});
