/**
 * BSON for JSON values: what a data pipeline's MQL stages travel as. A document's keys keep
 * their order; a whole number within 32 bits is an int32, any other number a double. Reading
 * takes the JSON types and a 64-bit integer (as a number when it is exact); any other BSON
 * type is refused by name.
 */
import { BSON } from 'bson';
import { FleetformError, errorMessage } from './errors';
import type { JsonObject, JsonValue } from './json-value';

/** Bytes that are not a BSON document fleetform reads, or a value BSON cannot carry. */
export class BsonError extends FleetformError {}

/** The names of BSON's types that have no JSON form, by the library's `_bsontype`. */
const TYPE_NAMES: Readonly<Record<string, string>> = {
  Binary: 'binary data',
  ObjectId: 'ObjectId',
  BSONRegExp: 'regular expression',
  DBRef: 'DBPointer',
  Code: 'JavaScript code',
  BSONSymbol: 'symbol',
  Timestamp: 'timestamp',
  Decimal128: 'decimal128',
  MinKey: 'min key',
  MaxKey: 'max key',
  Long: '64-bit integer',
  Double: 'double',
  Int32: 'int32',
};

/** One JSON object as a BSON document. */
export function encodeBsonDocument(document: JsonObject, where = 'document'): Uint8Array {
  checkKeys(document, where);
  try {
    return BSON.serialize(document);
  } catch (err) {
    throw new BsonError(`${where}: ${errorMessage(err)}`, { path: where });
  }
}

/** A BSON key is NUL-terminated: one holding NUL is refused with its path. */
function checkKeys(value: JsonValue, where: string): void {
  if (value === null || typeof value !== 'object') return;
  for (const [key, inner] of Object.entries(value)) {
    const at = `${where}.${key}`;
    if (key.includes('\u0000')) throw new BsonError(`${at}: a BSON key cannot hold the NUL character`, { path: at });
    checkKeys(inner, at);
  }
}

/** A BSON document as a JSON object (keys in their order). */
export function decodeBsonDocument(bytes: Uint8Array, where = 'document'): JsonObject {
  let read: Record<string, unknown>;
  try {
    read = BSON.deserialize(bytes, { useBigInt64: true });
  } catch (err) {
    throw new BsonError(`${where}: ${errorMessage(err)}`, { path: where });
  }
  return jsonObject(read, where);
}

function jsonObject(value: Record<string, unknown>, where: string): JsonObject {
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonValue(v, `${where}.${k}`)]));
}

function jsonValue(value: unknown, where: string): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'bigint') {
    if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER))
      throw new BsonError(`${where}: the 64-bit integer ${value} is beyond what a JSON number holds exactly`, { path: where });
    return Number(value);
  }
  if (Array.isArray(value)) return value.map((v: unknown, i) => jsonValue(v, `${where}.${i}`));
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
    return jsonObject(value as Record<string, unknown>, where);
  throw new BsonError(`${where} holds BSON type ${typeName(value)}, which has no JSON form fleetform reads`, { path: where });
}

function typeName(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value instanceof Date) return 'UTC datetime';
  if (value instanceof RegExp) return 'regular expression';
  const tag =
    typeof value === 'object' && value !== null && '_bsontype' in value
      ? String((value as { _bsontype: unknown })._bsontype)
      : typeof value;
  return TYPE_NAMES[tag] ?? tag;
}
