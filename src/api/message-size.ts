/**
 * The size of a request on the wire, computed from the JSON it carries without encoding
 * it, so a plan can refuse what the service would refuse. The service's gRPC servers take
 * messages up to 4 MiB (gRPC's default receive limit, which the emulator applies too): a
 * machine config whose UpdateRobotPart request is larger can never be written.
 */

/** The largest request message the service accepts. */
export const SERVICE_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    size += 1;
  }
  return size;
}

/** A length-delimited field of `length` bytes with a one-byte tag (field numbers 1..15). */
function delimited(length: number): number {
  return 1 + varintSize(length) + length;
}

function stringField(s: string): number {
  return delimited(Buffer.byteLength(s, 'utf8'));
}

/** Bytes of a google.protobuf.Value holding `value` (its kind field only). */
function valueSize(value: unknown): number {
  if (value === null || value === undefined) return 2; // null_value = 1: tag and enum 0
  switch (typeof value) {
    case 'number':
      return 9; // number_value = 2: tag and a double
    case 'boolean':
      return 2; // bool_value = 4
    case 'string':
      return stringField(value); // string_value = 3
    case 'object':
      if (Array.isArray(value)) return delimited(listSize(value)); // list_value = 6
      return delimited(structSize(value as Record<string, unknown>)); // struct_value = 5
    default:
      return 2;
  }
}

/** Bytes of a google.protobuf.ListValue: `values = 1` repeated. */
function listSize(values: readonly unknown[]): number {
  let size = 0;
  for (const v of values) size += delimited(valueSize(v));
  return size;
}

/**
 * Bytes of a google.protobuf.Struct holding `fields`: each a map entry `{ key = 1, value = 2 }`
 * of `fields = 1`. A `__proto__` key is not sent (the message's map drops it).
 */
export function structSize(fields: Readonly<Record<string, unknown>>): number {
  let size = 0;
  for (const key of Object.keys(fields)) {
    if (key === '__proto__') continue;
    const entry = stringField(key) + delimited(valueSize(fields[key]));
    size += delimited(entry);
  }
  return size;
}

/** A part id as the service makes them (a UUID), and a last-known-update Timestamp at its largest. */
const PART_ID_BYTES = delimited(36);
const TIMESTAMP_BYTES = delimited(1 + 10 + 1 + 5);

/** Bytes of the UpdateRobotPart request writing `config` under `name` (at most; the id and timestamp are counted at their largest). */
export function updateRobotPartRequestSize(name: string, config: Readonly<Record<string, unknown>>): number {
  return PART_ID_BYTES + stringField(name) + delimited(structSize(config)) + TIMESTAMP_BYTES;
}
