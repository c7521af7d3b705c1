/** What every handler shares: the database, the SDK's message classes, the clock, faults, the training duration. */
import { createContextKey, type HandlerContext } from '@connectrpc/connect';
import type { Services } from '../../api/services';
import type { Db } from '../db/database';
import type { Principal } from '../auth/principal';
import type { EmulatorClock } from '../clock/clock';
import type { FaultTable } from './faults';
import type { MachineFaults } from '../sim/machine-faults';
import type { SensorReadings } from '../sim/sensor-readings';
import { unauthenticated } from './errors';

export interface Backend {
  readonly db: Db;
  readonly services: Services;
  readonly faults: FaultTable;
  /** Faults of the simulated machines. */
  readonly machineFaults: MachineFaults;
  /** What simulated machines' sensors read, as set through the control service. */
  readonly sensorReadings: SensorReadings;
  /** How often simulated machines check in: a part not seen for three intervals (at least a second) is offline. */
  readonly checkInIntervalMs: number;
  /** Milliseconds since the epoch, read from `clock`. */
  now(): number;
  /** The emulator's clock (frozen, stepped or running). */
  readonly clock: EmulatorClock;
  /** How long a training job takes from submission to completion on the emulator's clock. */
  readonly trainingDurationMs: number;
}

/** Set by the auth interceptor for every call but `Authenticate`. */
export const principalKey = createContextKey<Principal | undefined>(undefined, { description: 'authenticated API key' });

/** The authenticated caller; Unauthenticated when the interceptor did not set one. */
export function principalOf(ctx: HandlerContext): Principal {
  const p = ctx.values.get(principalKey);
  if (!p) throw unauthenticated('authentication required');
  return p;
}

/** A protobuf Timestamp (partial message) for milliseconds since the epoch. */
export function timestamp(ms: number): { seconds: bigint; nanos: number } {
  const seconds = Math.floor(ms / 1000);
  return { seconds: BigInt(seconds), nanos: (ms - seconds * 1000) * 1_000_000 };
}

/** Milliseconds since the epoch of a Timestamp (sub-millisecond digits dropped). */
export function millisOf(ts: { seconds: bigint; nanos: number }): number {
  return Number(ts.seconds) * 1000 + Math.floor(ts.nanos / 1_000_000);
}
