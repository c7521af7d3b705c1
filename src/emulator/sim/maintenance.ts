/**
 * The maintenance window of a simulated machine, as the machine server keeps it: before
 * taking a new config revision (never at start), it reads its maintenance sensor. A sensor
 * name that is not a full resource name, or a sensor the machine does not run, allows the
 * reconfigure (the error is logged); a sensor that reads closed, fails to read or is not
 * ready blocks it.
 */
import { maintenanceHoldMessage, parseFullResourceName } from '../../domain/maintenance';
import type { MaintenanceAnswer } from './machine-faults';
import { ResourceState, type LogLine, type ResourceView } from './states';

export interface MaintenanceSettings {
  /** `maintenance.sensor_name` as written. */
  readonly sensorName: string;
  readonly key: string;
}

export interface MaintenanceHold {
  readonly level: LogLine['level'];
  readonly reason: string;
  message(revision: string): string;
}

/** Why the running machine holds the new revision back, or undefined when it takes it (logging why, when the sensor is unusable). */
export function maintenanceHold(
  running: { readonly resources: readonly ResourceView[] },
  settings: MaintenanceSettings | undefined,
  reading: MaintenanceAnswer,
  logs: LogLine[],
): MaintenanceHold | undefined {
  if (settings === undefined || settings.sensorName === '') return undefined;
  const parsed = parseFullResourceName(settings.sensorName);
  if (!parsed) {
    logs.push({
      level: 'error',
      logger: 'rdk.maintenance',
      message: `maintenance sensor name ${JSON.stringify(settings.sensorName)} is not a full resource name; reconfiguring is allowed`,
    });
    return undefined;
  }
  const sensor = running.resources.find(
    (r) => r.namespace === parsed.namespace && r.type === parsed.type && r.subtype === parsed.subtype && r.name === parsed.name,
  );
  if (!sensor) {
    logs.push({
      level: 'error',
      logger: 'rdk.maintenance',
      message: `maintenance sensor ${settings.sensorName} not found; reconfiguring is allowed`,
    });
    return undefined;
  }
  const hold = (level: LogLine['level'], reason: string): MaintenanceHold => ({
    level,
    reason,
    message: (revision) => maintenanceHoldMessage(revision, reason),
  });
  if (sensor.state !== ResourceState.READY)
    return hold(
      'error',
      `maintenance sensor ${settings.sensorName} could not be read: it is not ready${sensor.error ? ` (${sensor.error})` : ''}`,
    );
  if (typeof reading === 'object') return hold('error', `maintenance sensor ${settings.sensorName} could not be read: ${reading.error}`);
  if (reading === 'error')
    return hold('error', `maintenance sensor ${settings.sensorName} could not be read: its readings returned an error`);
  if (reading === 'closed') return hold('info', `maintenance sensor ${settings.sensorName} reads ${settings.key || '(no key)'}=false`);
  if (settings.key === '')
    return hold('error', `maintenance sensor ${settings.sensorName} has no reading at key "" (maintenance_allowed_key is not set)`);
  return undefined;
}
