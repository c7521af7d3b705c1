/**
 * How the service stores a part's config. JSON text (`robot_config_json`) is kept as sent:
 * its key order and its integers as written. A config sent only as a Struct is stored from
 * the Struct, which is a map: its keys come back sorted (byte-wise, every object), its
 * numbers are doubles.
 */
import { setOwn } from '../../domain/own-keys';
import type { StructJson, StructObject } from '../../api/struct-codec';

/** A config as stored: the JSON text reads give, and whether it was stored as the text sent. */
export interface StoredConfig {
  readonly text: string;
  readonly asSent: boolean;
}

/** Byte-wise order of the UTF-8 forms, as a Go map's keys are sorted. */
function byUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** The value with every object's keys sorted, as a decoded Struct (a map) gives them. */
export function sortedKeys(value: StructJson): StructJson {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: StructObject = {};
  for (const key of Object.keys(value).sort(byUtf8)) setOwn(out, key, sortedKeys(value[key] as StructJson));
  return out;
}

/** A config sent only as a Struct, as the service stores it. */
export function storedFromStruct(config: StructObject): StoredConfig {
  return { text: JSON.stringify(sortedKeys(config)), asSent: false };
}

/** A config sent as JSON text, as the service stores it: the text exactly. */
export function storedFromText(text: string): StoredConfig {
  return { text, asSent: true };
}
