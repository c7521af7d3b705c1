/**
 * What the sensors of simulated machines read, as set through the control service: per
 * machine part and sensor name, a map of readings. A maintenance window reads its key there:
 * `true` allows reconfiguring, `false` holds it, and a key that is absent or not a bool makes
 * the read fail (which holds it too), as the machine server treats its sensor's readings.
 */
import type { MaintenanceAnswer } from './machine-faults';

/** A sensor's readings: JSON values by name. */
export type Readings = Readonly<Record<string, unknown>>;

export class SensorReadings {
  private readonly byPart = new Map<string, Map<string, Readings>>();

  /** Sets what the part's sensor reads; no readings clears it. */
  set(partId: string, sensor: string, readings: Readings): void {
    let sensors = this.byPart.get(partId);
    if (Object.keys(readings).length === 0) {
      sensors?.delete(sensor);
      if (sensors?.size === 0) this.byPart.delete(partId);
      return;
    }
    if (!sensors) this.byPart.set(partId, (sensors = new Map()));
    sensors.set(sensor, { ...readings });
  }

  /** What the part's sensor reads, when set. */
  get(partId: string, sensor: string): Readings | undefined {
    return this.byPart.get(partId)?.get(sensor);
  }

  /** The maintenance window's answer from the sensor's readings at `key`; undefined when nothing was set. */
  maintenanceAnswer(partId: string, sensor: string, key: string): MaintenanceAnswer | undefined {
    const readings = this.get(partId, sensor);
    if (readings === undefined) return undefined;
    if (!Object.hasOwn(readings, key)) return { error: `it has no reading at key ${JSON.stringify(key)}` };
    const value = readings[key];
    if (typeof value !== 'boolean') return { error: `its reading at key ${JSON.stringify(key)} is ${JSON.stringify(value)}, not a bool` };
    return value ? 'open' : 'closed';
  }
}
