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
import { InputError } from '../domain/errors';
import { setOwn } from '../domain/own-keys';

/**
 * Message levels Go's protobuf decoder reads before it refuses a message
 * (`protowire.DefaultRecursionLimit`, what `proto.Unmarshal` and so gRPC-Go use): each
 * Struct, Value and ListValue is one level, and so is the request holding the Struct.
 */
export const GO_RECURSION_LIMIT = 10_000;

/** Encoded Struct bytes the service would refuse to decode: nested too deep, or a string not UTF-8. */
export class StructDecodeError extends InputError {}

/** Strings of a proto3 message are UTF-8: the service refuses others when it decodes. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Levels still allowed below the one being read; refuses the level when none is left. */
function level(budget: number): number {
  if (budget <= 0)
    throw new StructDecodeError(`the Struct is nested deeper than the ${GO_RECURSION_LIMIT} message levels the service decodes`);
  return budget - 1;
}

function readerOf(bytes: Uint8Array): BinaryReader {
  return new BinaryReader(bytes, UTF8);
}

export type StructJson = null | boolean | number | string | StructJson[] | { [key: string]: StructJson };
export type StructObject = { [key: string]: StructJson };

function readValue(bytes: Uint8Array, budget: number): StructJson {
  const left = level(budget);
  const reader = readerOf(bytes);
  let value: StructJson = null;
  while (reader.pos < reader.len) {
    const [no, wireType] = reader.tag();
    if (no === 1 && wireType === WireType.Varint) {
      reader.int32();
      value = null;
    } else if (no === 2 && wireType === WireType.Bit64) value = reader.double();
    else if (no === 3 && wireType === WireType.LengthDelimited) value = reader.string();
    else if (no === 4 && wireType === WireType.Varint) value = reader.bool();
    else if (no === 5 && wireType === WireType.LengthDelimited) value = readStruct(reader.bytes(), left);
    else if (no === 6 && wireType === WireType.LengthDelimited) value = readList(reader.bytes(), left);
    else reader.skip(wireType);
  }
  return value;
}

function readList(bytes: Uint8Array, budget: number): StructJson[] {
  const left = level(budget);
  const reader = readerOf(bytes);
  const values: StructJson[] = [];
  while (reader.pos < reader.len) {
    const [no, wireType] = reader.tag();
    if (no === 1 && wireType === WireType.LengthDelimited) values.push(readValue(reader.bytes(), left));
    else reader.skip(wireType);
  }
  return values;
}

/**
 * The JSON object an encoded Struct stands for, with every key it holds. Refused with a
 * StructDecodeError where the service's decoder refuses: a string not UTF-8, more levels
 * than `levels` (default: Go's limit less the request's own level), or deeper than this
 * process's stack reaches (a few thousand levels; configs are checked to 64).
 */
export function decodeStruct(bytes: Uint8Array, levels = GO_RECURSION_LIMIT - 1): StructObject {
  try {
    return readStruct(bytes, levels);
  } catch (err) {
    if (err instanceof StructDecodeError) throw err;
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof RangeError && /call stack/i.test(message))
      throw new StructDecodeError('the Struct is nested deeper than this process can read');
    if (err instanceof TypeError && /utf-8/i.test(message))
      throw new StructDecodeError('the Struct holds a string that is not valid UTF-8');
    throw new StructDecodeError(`the Struct's bytes are malformed (${message})`);
  }
}

function readStruct(bytes: Uint8Array, budget: number): StructObject {
  const left = level(budget);
  const reader = readerOf(bytes);
  const out: StructObject = {};
  while (reader.pos < reader.len) {
    const [no, wireType] = reader.tag();
    if (no !== 1 || wireType !== WireType.LengthDelimited) {
      reader.skip(wireType);
      continue;
    }
    const entry = readerOf(reader.bytes());
    let key = '';
    let value: StructJson = null;
    while (entry.pos < entry.len) {
      const [entryNo, entryType] = entry.tag();
      if (entryNo === 1 && entryType === WireType.LengthDelimited) key = entry.string();
      else if (entryNo === 2 && entryType === WireType.LengthDelimited) value = readValue(entry.bytes(), left);
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
