import { decode, encode, ExtData } from '@msgpack/msgpack';
import { FleetformError, errorMessage } from '../../domain/errors';
import type { TerraformType } from '../../engine/provider-core';
import { Unknown as UnknownValue, unknownValue } from '../../domain/plan-values';

/** A value Terraform does not know yet (e.g. the id of an object still to be created): the engine's own unknown. */
export { UnknownValue, unknownValue };

/** A value of a Terraform type: null, unknown, or data of that type. */
export type TerraformValue = null | UnknownValue | string | number | boolean | TerraformValue[] | { [key: string]: TerraformValue };
export type TerraformObject = { [key: string]: TerraformValue };

/** Thrown when bytes from Terraform do not hold a value of the schema's type. */
export class ValueDecodeError extends FleetformError {}

/** Terraform marks an unknown with a msgpack extension (type 0, or 12 when refined): any extension is one. */
const unknownExtension = new ExtData(0, new Uint8Array([0]));

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof ExtData) && !(v instanceof Uint8Array);
}

/**
 * What to do with an object attribute the type does not have: Terraform never sends one,
 * so in its values it is an error (as Terraform's own decoder has it); in state written
 * by a former layout, or a value read from the service, it is dropped.
 */
export type ExtraAttributes = 'drop' | 'error';

/** Reads decoded msgpack (or parsed JSON) as a value of `type`; `path` names the place in errors. */
export function conform(raw: unknown, type: TerraformType, path: string, extra: ExtraAttributes = 'drop'): TerraformValue {
  if (raw === null || raw === undefined) return null;
  if (raw instanceof ExtData || raw instanceof UnknownValue) return unknownValue;
  const wrong = () => new ValueDecodeError(`expected a value of type ${JSON.stringify(type)}`, { path: path || '(root)' });
  if (type === 'string') {
    if (typeof raw !== 'string') throw wrong();
    return raw;
  }
  if (type === 'number') {
    // Terraform's numbers have no negative zero: -0 is read as 0.
    if (typeof raw === 'number') return raw === 0 ? 0 : raw;
    if (typeof raw === 'bigint') return Number(raw);
    // Numbers too large for msgpack's types travel as their decimal text.
    if (typeof raw === 'string' && raw.trim() !== '' && Number.isFinite(Number(raw))) return Number(raw);
    throw wrong();
  }
  if (type === 'bool') {
    if (typeof raw !== 'boolean') throw wrong();
    return raw;
  }
  const [shape, inner] = type;
  if (shape === 'list') {
    if (!Array.isArray(raw)) throw wrong();
    return raw.map((v, i) => conform(v, inner, `${path}[${i}]`, extra));
  }
  if (!isRecord(raw)) throw wrong();
  if (shape === 'map') {
    const out: TerraformObject = {};
    for (const [k, v] of Object.entries(raw)) out[k] = conform(v, inner, `${path}[${JSON.stringify(k)}]`, extra);
    return out;
  }
  if (extra === 'error') {
    const stray = Object.keys(raw).find((k) => !Object.hasOwn(inner, k));
    if (stray !== undefined) {
      throw new ValueDecodeError(`unsupported attribute ${JSON.stringify(stray)}`, {
        path: path ? `${path}.${stray}` : stray,
        hint: `the attributes here: ${Object.keys(inner).join(', ')}`,
      });
    }
  }
  const out: TerraformObject = {};
  for (const [name, t] of Object.entries(inner))
    out[name] = conform(Object.hasOwn(raw, name) ? raw[name] : null, t, path ? `${path}.${name}` : name, extra);
  return out;
}

/** The msgpack form of a value: every attribute of an object present (null when unset, own properties only), unknowns as extensions. */
function toWire(value: TerraformValue | undefined, type: TerraformType): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof UnknownValue) return unknownExtension;
  if (type === 'number') return value === 0 ? 0 : value;
  if (typeof type === 'string') return value;
  const [shape, inner] = type;
  if (shape === 'list') return Array.isArray(value) ? value.map((v) => toWire(v, inner)) : null;
  if (typeof value !== 'object' || Array.isArray(value)) return null;
  const out: Record<string, unknown> = {};
  if (shape === 'map') {
    for (const [k, v] of Object.entries(value)) out[k] = toWire(v, inner);
  } else {
    for (const [name, t] of Object.entries(inner)) out[name] = toWire(Object.hasOwn(value, name) ? value[name] : null, t);
  }
  return out;
}

/** Decodes a DynamicValue's msgpack bytes as a value of `type`; empty bytes are null, an attribute `type` lacks is an error. */
export function decodeMsgpack(bytes: Uint8Array, type: TerraformType): TerraformValue {
  if (bytes.length === 0) return null;
  let raw: unknown;
  try {
    raw = decode(bytes, { useBigInt64: false });
  } catch (err) {
    throw new ValueDecodeError(`undecodable value from Terraform: ${errorMessage(err)}`, { path: '(root)' });
  }
  return conform(raw, type, '', 'error');
}

/** Encodes a value of `type` as a DynamicValue's msgpack bytes. */
export function encodeMsgpack(value: TerraformValue, type: TerraformType): Uint8Array<ArrayBuffer> {
  return new Uint8Array(encode(toWire(value, type), { ignoreUndefined: false }));
}

/** True when the value or anything inside it is unknown. */
export function hasUnknown(value: TerraformValue | undefined): boolean {
  if (value instanceof UnknownValue) return true;
  if (Array.isArray(value)) return value.some(hasUnknown);
  if (value !== null && typeof value === 'object') return Object.values(value).some(hasUnknown);
  return false;
}
