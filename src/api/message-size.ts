/**
 * The size of a request on the wire, computed from the JSON it carries without encoding the
 * message, so a plan can refuse what the service would refuse. The service's gRPC servers
 * take messages up to 4 MiB (gRPC's default receive limit, which the emulator applies too): a
 * machine config whose UpdateRobotPart request is larger can never be written.
 */

import { configText } from '../domain/config-text';

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

/** A part id as the service makes them (a UUID), and a last-known-update Timestamp at its largest. */
const PART_ID_BYTES = delimited(36);
const TIMESTAMP_BYTES = delimited(1 + 10 + 1 + 5);

/**
 * Bytes of the UpdateRobotPart request writing `config` under `name` as its JSON text
 * (`robot_config_json`, as fleetform sends it); the id and timestamp are counted at their largest.
 */
export function updateRobotPartRequestSize(name: string, config: Readonly<Record<string, unknown>>): number {
  return PART_ID_BYTES + stringField(name) + stringField(configText(config)) + TIMESTAMP_BYTES;
}

/** The UpdateRobotPart request of {@link updateRobotPartRequestSize} for a config text of `configBytes` UTF-8 bytes. */
export function updateRobotPartRequestSizeFor(name: string, configBytes: number): number {
  return PART_ID_BYTES + stringField(name) + delimited(configBytes) + TIMESTAMP_BYTES;
}
