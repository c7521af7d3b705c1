/**
 * BSON (bsonspec.org, version 1.1) for JSON values: what a data pipeline's MQL stages travel
 * as. A document's keys keep their order; strings are UTF-8; a whole number within 32 bits
 * is an int32, any other number a double; null is null. Reading takes the same types and a
 * 64-bit integer (as a number when it is exact); any other BSON type is refused by name.
 */
import { FleetformError } from './errors';
import type { JsonObject, JsonValue } from './json-value';

/** Bytes that are not a BSON document fleetform reads, or a value BSON cannot carry. */
export class BsonError extends FleetformError {}

const TYPE = { double: 0x01, string: 0x02, document: 0x03, array: 0x04, boolean: 0x08, null: 0x0a, int32: 0x10, int64: 0x12 } as const;

const TYPE_NAMES: Readonly<Record<number, string>> = {
  0x05: 'binary data',
  0x06: 'undefined',
  0x07: 'ObjectId',
  0x09: 'UTC datetime',
  0x0b: 'regular expression',
  0x0c: 'DBPointer',
  0x0d: 'JavaScript code',
  0x0e: 'symbol',
  0x0f: 'JavaScript code with scope',
  0x11: 'timestamp',
  0x13: 'decimal128',
  0xff: 'min key',
  0x7f: 'max key',
};

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Appends bytes while encoding. */
class Writer {
  private readonly chunks: Uint8Array[] = [];
  length = 0;

  push(bytes: Uint8Array): void {
    this.chunks.push(bytes);
    this.length += bytes.length;
  }

  int32(n: number): void {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setInt32(0, n, true);
    this.push(b);
  }

  byte(n: number): void {
    this.push(Uint8Array.of(n));
  }

  cstring(text: string, where: string): void {
    if (text.includes('\u0000')) throw new BsonError(`${where}: a BSON key cannot hold the NUL character`, { path: where });
    this.push(encoder.encode(text));
    this.byte(0);
  }

  bytes(): Uint8Array {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}

function isInt32(n: number): boolean {
  return Number.isInteger(n) && n >= -0x80000000 && n <= 0x7fffffff && !Object.is(n, -0);
}

function encodeElement(w: Writer, key: string, value: JsonValue, where: string): void {
  if (value === null) {
    w.byte(TYPE.null);
    w.cstring(key, where);
  } else if (typeof value === 'boolean') {
    w.byte(TYPE.boolean);
    w.cstring(key, where);
    w.byte(value ? 1 : 0);
  } else if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new BsonError(`${where}: ${value} is not a JSON number`, { path: where });
    const b = new Uint8Array(isInt32(value) ? 4 : 8);
    const view = new DataView(b.buffer);
    if (isInt32(value)) view.setInt32(0, value, true);
    else view.setFloat64(0, value, true);
    w.byte(isInt32(value) ? TYPE.int32 : TYPE.double);
    w.cstring(key, where);
    w.push(b);
  } else if (typeof value === 'string') {
    const text = encoder.encode(value);
    w.byte(TYPE.string);
    w.cstring(key, where);
    w.int32(text.length + 1);
    w.push(text);
    w.byte(0);
  } else {
    w.byte(Array.isArray(value) ? TYPE.array : TYPE.document);
    w.cstring(key, where);
    w.push(encodeBody(Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value), where));
  }
}

function encodeBody(entries: readonly (readonly [string, JsonValue])[], where: string): Uint8Array {
  const w = new Writer();
  for (const [key, value] of entries) encodeElement(w, key, value, `${where}.${key}`);
  const body = w.bytes();
  const out = new Writer();
  out.int32(body.length + 5);
  out.push(body);
  out.byte(0);
  return out.bytes();
}

/** One JSON object as a BSON document. */
export function encodeBsonDocument(document: JsonObject, where = 'document'): Uint8Array {
  return encodeBody(Object.entries(document), where);
}

/** Reads while decoding; every read is bounds-checked. */
class Reader {
  constructor(
    private readonly bytes: Uint8Array,
    public at: number,
    private readonly end: number,
  ) {}

  private need(n: number): void {
    if (this.at + n > this.end) throw new BsonError('the BSON document ends inside a value');
  }

  byte(): number {
    this.need(1);
    return this.bytes[this.at++] as number;
  }

  int32(): number {
    this.need(4);
    const n = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.at, 4).getInt32(0, true);
    this.at += 4;
    return n;
  }

  float64(): number {
    this.need(8);
    const n = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.at, 8).getFloat64(0, true);
    this.at += 8;
    return n;
  }

  int64(): number {
    this.need(8);
    const n = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.at, 8).getBigInt64(0, true);
    this.at += 8;
    if (n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER))
      throw new BsonError(`the 64-bit integer ${n} is beyond what a JSON number holds exactly`);
    return Number(n);
  }

  text(length: number): string {
    this.need(length);
    const slice = this.bytes.subarray(this.at, this.at + length);
    this.at += length;
    try {
      return decoder.decode(slice);
    } catch {
      throw new BsonError('a BSON string is not UTF-8');
    }
  }

  cstring(): string {
    const nul = this.bytes.indexOf(0, this.at);
    if (nul < 0 || nul >= this.end) throw new BsonError('a BSON key has no end');
    const text = this.text(nul - this.at);
    this.at += 1;
    return text;
  }
}

function decodeValue(r: Reader, type: number, key: string): JsonValue {
  switch (type) {
    case TYPE.double:
      return r.float64();
    case TYPE.string: {
      const length = r.int32();
      if (length < 1) throw new BsonError(`the string ${key} has a length below 1`);
      const text = r.text(length - 1);
      if (r.byte() !== 0) throw new BsonError(`the string ${key} does not end with NUL`);
      return text;
    }
    case TYPE.document:
      return Object.fromEntries(decodeBody(r, key));
    case TYPE.array:
      return decodeBody(r, key).map(([, v]) => v);
    case TYPE.boolean: {
      const b = r.byte();
      if (b > 1) throw new BsonError(`the boolean ${key} is neither 0 nor 1`);
      return b === 1;
    }
    case TYPE.null:
      return null;
    case TYPE.int32:
      return r.int32();
    case TYPE.int64:
      return r.int64();
    default:
      throw new BsonError(`${key} holds BSON type ${TYPE_NAMES[type] ?? `0x${type.toString(16)}`}, which has no JSON form fleetform reads`);
  }
}

function decodeBody(r: Reader, where: string): [string, JsonValue][] {
  const start = r.at;
  const size = r.int32();
  if (size < 5) throw new BsonError(`${where}: a BSON document is at least 5 bytes, not ${size}`);
  const end = start + size;
  const entries: [string, JsonValue][] = [];
  for (;;) {
    if (r.at >= end) throw new BsonError(`${where}: the BSON document has no terminating NUL`);
    const type = r.byte();
    if (type === 0) break;
    const key = r.cstring();
    entries.push([key, decodeValue(r, type, `${where}.${key}`)]);
  }
  if (r.at !== end) throw new BsonError(`${where}: the BSON document's length says ${size} bytes, its elements end at ${r.at - start}`);
  return entries;
}

/** A BSON document as a JSON object (keys in their order). */
export function decodeBsonDocument(bytes: Uint8Array, where = 'document'): JsonObject {
  const r = new Reader(bytes, 0, bytes.length);
  const doc = Object.fromEntries(decodeBody(r, where));
  if (r.at !== bytes.length) throw new BsonError(`${where}: ${bytes.length - r.at} bytes follow the BSON document`);
  return doc;
}
