/**
 * The maintenance window: a machine reconfigures only while a sensor's reading at a key is
 * `true`. What the sensor name must look like, and the words a machine's log uses when it
 * holds a new config back, so that a health gate can tell "held" from "unhealthy".
 */

/** `<namespace>:<component|service>:<api>/<name>`: the form `maintenance.sensor_name` takes. */
const FULL_RESOURCE_NAME = /^([\w-]+):(component|service):([\w-]+)\/(.+)$/;

/** A full resource name's parts, or undefined when it is not one. */
export function parseFullResourceName(text: string): { namespace: string; type: string; subtype: string; name: string } | undefined {
  const m = FULL_RESOURCE_NAME.exec(text);
  if (!m) return undefined;
  const [, namespace, type, subtype, name] = m as unknown as [string, string, string, string, string];
  return { namespace, type, subtype, name };
}

/** The short name of a maintenance sensor written as a full name (`rdk:component:sensor/gate` is `gate`); the text when not one. */
export function maintenanceSensorShortName(sensorName: string): string {
  return parseFullResourceName(sensorName)?.name ?? sensorName;
}

import { RESOURCE_LISTS } from './config';
import { normalApi } from './resource-forms';

/**
 * Why a config's maintenance window can never hold a config back (its sensor is not a full
 * name, or no resource of the config is that sensor), or undefined when it can or there is
 * none. Fragments' resources are not looked at: a sensor they bring is not found here.
 */
export function unconfiguredMaintenanceSensor(config: unknown): string | undefined {
  if (typeof config !== 'object' || config === null) return undefined;
  const root = config as Record<string, unknown>;
  if (Array.isArray(root.fragments) && root.fragments.length > 0) return undefined;
  const maintenance = root.maintenance;
  if (typeof maintenance !== 'object' || maintenance === null) return undefined;
  const sensorName = (maintenance as Record<string, unknown>).sensor_name;
  if (typeof sensorName !== 'string' || sensorName === '') return undefined;
  const parsed = parseFullResourceName(sensorName);
  if (!parsed) return `maintenance sensor ${JSON.stringify(sensorName)} is not a full resource name (rdk:component:sensor/<name>)`;
  const api = `${parsed.namespace}:${parsed.type}:${parsed.subtype}`;
  const found = RESOURCE_LISTS.some((list) => {
    const entries = root[list];
    return (
      Array.isArray(entries) &&
      entries.some(
        (e) =>
          typeof e === 'object' &&
          e !== null &&
          (e as Record<string, unknown>).name === parsed.name &&
          normalApi(e as Record<string, unknown>, list) === api,
      )
    );
  });
  return found ? undefined : `maintenance sensor ${sensorName} is not configured on it`;
}

/** The words every log line starts with while a machine holds a config back for its maintenance window. */
export const MAINTENANCE_HOLD_PREFIX = 'reconfiguration blocked by maintenance';

/** The log line of a machine holding `revision` back, for `reason`. */
export function maintenanceHoldMessage(revision: string, reason: string): string {
  return `${MAINTENANCE_HOLD_PREFIX}: ${reason}; config revision ${revision} pending (network, cloud and auth changes still apply)`;
}

/** Whether a log message says the machine holds a config back for its maintenance window. */
export function isMaintenanceHold(message: string): boolean {
  return message.startsWith(MAINTENANCE_HOLD_PREFIX);
}

/** What a hold line says: the revision held back and why; undefined when the message is no hold line. */
export function parseMaintenanceHold(message: string): { revision: string; reason: string } | undefined {
  if (!isMaintenanceHold(message)) return undefined;
  const m = /^[^:]*: (.*); config revision (\S+) pending /.exec(message);
  return m ? { reason: m[1] as string, revision: m[2] as string } : undefined;
}

const HELD_WHY = 'config pending, held by maintenance';

/** The gate's word for a machine whose maintenance window holds the revision it waits for. */
export function heldByMaintenanceWhy(reason: string): string {
  return `${HELD_WHY} (${reason})`;
}

/** Whether a gate's reason is a maintenance hold. */
export function isHeldByMaintenanceWhy(why: string): boolean {
  return why.startsWith(HELD_WHY);
}
