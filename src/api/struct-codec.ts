/**
 * google.protobuf.Struct in binary, to and from plain JSON, keeping every key. A decoded
 * Struct message holds its fields in an ordinary object, where a key named `__proto__` sets
 * the object's prototype instead of becoming a key: such a key of a machine config would be
 * lost without a word. These functions read and write the same bytes as the Struct message.
 *
 * Struct { map<string, Value> fields = 1 }; Value { oneof kind { NullValue null_value = 1;
 * double number_value = 2; string string_value = 3; bool bool_value = 4; Struct
 * struct_value = 5; ListValue list_value = 6 } }; ListValue { repeated Value values = 1 }.
 */
import { BinaryReader, BinaryWriter, WireType, type IBinaryWriter } from '@bufbuild/protobuf';
import { setOwn } from '../domain/own-keys';

export type StructJson = null | boolean | number | string | StructJson[] | { [key: string]: StructJson };
export type StructObject = { [key: string]: StructJson };

function readValue(bytes: Uint8Array): StructJson {
  const reader = new BinaryReader(bytes);
  let value: StructJson = null;
  while (reader.pos < reader.len) {
    const [no, wireType] = reader.tag();
    if (no === 1 && wireType === WireType.Varint) {
      reader.int32();
      value = null;
    } else if (no === 2 && wireType === WireType.Bit64) value = reader.double();
    else if (no === 3 && wireType === WireType.LengthDelimited) value = reader.string();
    else if (no === 4 && wireType === WireType.Varint) value = reader.bool();
    else if (no === 5 && wireType === WireType.LengthDelimited) value = decodeStruct(reader.bytes());
    else if (no === 6 && wireType === WireType.LengthDelimited) value = readList(reader.bytes());
    else reader.skip(wireType);
  }
  return value;
}

function readList(bytes: Uint8Array): StructJson[] {
  const reader = new BinaryReader(bytes);
  const values: StructJson[] = [];
  while (reader.pos < reader.len) {
    const [no, wireType] = reader.tag();
    if (no === 1 && wireType === WireType.LengthDelimited) values.push(readValue(reader.bytes()));
    else reader.skip(wireType);
  }
  return values;
}

/** The JSON object an encoded Struct stands for, with every key it holds. */
export function decodeStruct(bytes: Uint8Array): StructObject {
  const reader = new BinaryReader(bytes);
  const out: StructObject = {};
  while (reader.pos < reader.len) {
    const [no, wireType] = reader.tag();
    if (no !== 1 || wireType !== WireType.LengthDelimited) {
      reader.skip(wireType);
      continue;
    }
    const entry = new BinaryReader(reader.bytes());
    let key = '';
    let value: StructJson = null;
    while (entry.pos < entry.len) {
      const [entryNo, entryType] = entry.tag();
      if (entryNo === 1 && entryType === WireType.LengthDelimited) key = entry.string();
      else if (entryNo === 2 && entryType === WireType.LengthDelimited) value = readValue(entry.bytes());
      else entry.skip(entryType);
    }
    setOwn(out, key, value);
  }
  return out;
}

function writeValue(writer: IBinaryWriter, value: StructJson): void {
  if (value === null) writer.tag(1, WireType.Varint).int32(0);
  else if (typeof value === 'number') writer.tag(2, WireType.Bit64).double(value);
  else if (typeof value === 'string') writer.tag(3, WireType.LengthDelimited).string(value);
  else if (typeof value === 'boolean') writer.tag(4, WireType.Varint).bool(value);
  else if (Array.isArray(value)) {
    writer.tag(6, WireType.LengthDelimited).fork();
    for (const item of value) {
      writer.tag(1, WireType.LengthDelimited).fork();
      writeValue(writer, item);
      writer.join();
    }
    writer.join();
  } else {
    writer.tag(5, WireType.LengthDelimited).fork();
    writeFields(writer, value);
    writer.join();
  }
}

function writeFields(writer: IBinaryWriter, object: StructObject): void {
  for (const key of Object.keys(object)) {
    writer.tag(1, WireType.LengthDelimited).fork();
    writer.tag(1, WireType.LengthDelimited).string(key);
    writer.tag(2, WireType.LengthDelimited).fork();
    writeValue(writer, object[key] as StructJson);
    writer.join();
    writer.join();
  }
}

/** The encoded Struct of a JSON object, every own key included. */
export function encodeStruct(object: StructObject): Uint8Array {
  const writer = new BinaryWriter();
  writeFields(writer, object);
  return writer.finish();
}
