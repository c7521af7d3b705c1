/**
 * What simulated machines capture for their data capture `service_configs`: each enabled
 * capture method of a ready resource takes a point every `1 / capture_frequency_hz`
 * seconds. A sensor's `Readings` point is what its readings are set to (see
 * sensor-readings), each number with a little deterministic noise (within 2%) and scaled
 * by the signal faults on what the machine runs; a resource with no readings set captures
 * nothing. A resource that failed to configure logs its failure again at each retry; log
 * faults add lines at their rate.
 */
import * as crypto from 'node:crypto';
import { isObject } from '../../domain/json-value';
import type { MachineConfigRead } from './machine-config';

/** One capture method of a resource. */
export interface CaptureSource {
  readonly resourceName: string;
  readonly methodName: string;
  readonly hz: number;
}

/** The most points one source captures in one check-in (a long gap is not filled in). */
export const MAX_POINTS_PER_CHECK_IN = 50;

const DATA_MANAGER_TYPES = new Set(['data_manager', 'rdk:service:data_manager']);

/** The enabled capture methods of a config's resources. */
export function captureSources(resources: MachineConfigRead['resources']): CaptureSource[] {
  return resources.flatMap(({ entry }) => {
    const name = typeof entry.name === 'string' ? entry.name : '';
    const configs = Array.isArray(entry.service_configs) ? (entry.service_configs as unknown[]) : [];
    return configs.flatMap((sc) => {
      if (!isObject(sc) || !DATA_MANAGER_TYPES.has(String(sc.type)) || !isObject(sc.attributes)) return [];
      const methods = Array.isArray(sc.attributes.capture_methods) ? (sc.attributes.capture_methods as unknown[]) : [];
      return methods.flatMap((m) => {
        if (!isObject(m) || m.disabled === true || typeof m.method !== 'string') return [];
        const hz = typeof m.capture_frequency_hz === 'number' ? m.capture_frequency_hz : 0;
        return name === '' || hz <= 0.0001 ? [] : [{ resourceName: name, methodName: m.method, hz }];
      });
    });
  });
}

/** The capture times of a source in (`from`, `to`]: multiples of its period, the newest `MAX_POINTS_PER_CHECK_IN`. */
export function captureTimes(from: number, to: number, hz: number): number[] {
  const period = 1000 / hz;
  const first = Math.max(Math.floor(from / period) + 1, Math.floor(to / period) - MAX_POINTS_PER_CHECK_IN + 1);
  const out: number[] = [];
  for (let k = first; k * period <= to; k++) out.push(Math.round(k * period));
  return out;
}

/** A number in [-1, 1) fixed by the seed. */
function noise(seed: string): number {
  return (crypto.createHash('sha1').update(seed).digest().readUInt32BE(0) / 0x100000000) * 2 - 1;
}

/**
 * The readings a point captures at `time`: each number near its set value (within 2%, the
 * same for the same part, field and time) times its field's factor; other values as set.
 */
export function capturedReadings(
  readings: Readonly<Record<string, unknown>>,
  seed: string,
  time: number,
  factor: (field: string) => number,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(readings)) {
    out[field] = typeof value === 'number' ? value * factor(field) * (1 + 0.02 * noise(`${seed}\0${field}\0${time}`)) : value;
  }
  return out;
}

/** How many lines a rate of `perMinute` owes over `elapsedMs`, with what it owed before: whole lines now, the rest carried. */
export function linesDue(perMinute: number, elapsedMs: number, carried: number): { lines: number; carried: number } {
  const owed = carried + (perMinute * elapsedMs) / 60_000;
  const lines = Math.floor(owed);
  return { lines, carried: owed - lines };
}

/** How often a machine retries configuring a resource that failed, logging the failure again each time (lines a minute). */
export const RETRY_LINES_PER_MINUTE = 6;

/** A rate of log lines a machine's state implies: its key (what owes it), the line and how many a minute. */
export interface StateLogRate {
  readonly key: string;
  readonly perMinute: number;
  readonly level: 'error';
  readonly logger: string;
  readonly message: string;
}

/**
 * What a machine in its state logs steadily: each resource that failed to configure is
 * retried, its failure logged again each time. (A crashing module's restarts log already.)
 */
export function stateLogRates(
  resources: readonly {
    readonly namespace: string;
    readonly type: string;
    readonly subtype: string;
    readonly name: string;
    readonly error: string;
  }[],
): StateLogRate[] {
  return resources.flatMap((r) =>
    r.error === ''
      ? []
      : [
          {
            key: `resource\0${r.name}`,
            perMinute: RETRY_LINES_PER_MINUTE,
            level: 'error' as const,
            logger: 'rdk.resource_manager',
            message: `resource ${r.namespace}:${r.type}:${r.subtype}/${r.name} failed to configure: ${r.error}`,
          },
        ],
  );
}
