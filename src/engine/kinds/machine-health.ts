/**
 * What each managed machine runs and how it is doing: the app's online state of its main
 * part, and the machine's own GetMachineStatus (config revision it ingested, modules and
 * resources with their state). A config has landed when the machine runs the revision of
 * the part's latest config write and every module and resource is ready at it.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import type { ServiceClient } from '../../api/client';
import { FleetformError } from '../../domain/errors';
import { loadServices, MACHINE_HOST_HEADER } from '../../api/services';
import { isObject } from '../json';
import type { State } from '../state/schema';
import { machineKind } from './machine';

export type OnlineStateName = 'online' | 'offline' | 'awaiting setup' | 'unknown';

export interface ModuleHealth {
  readonly name: string;
  readonly state: string;
  readonly consecutiveFailures: number;
  readonly error: string;
}

export interface ResourceHealth {
  readonly name: string;
  readonly api: string;
  readonly state: string;
  readonly revision: string;
  readonly error: string;
}

export interface PackageHealth {
  readonly name: string;
  readonly type: string;
  readonly version: string;
  /** `downloading`, `loading`, `first run`, `ready` or `failed`. */
  readonly state: string;
  readonly error: string;
}

export interface MachineHealth {
  readonly stack: string;
  readonly machine: string;
  readonly partId: string;
  readonly online: OnlineStateName;
  /** Seconds since the machine was last online, when offline. */
  readonly secondsSinceOnline: number;
  readonly lastAccess: string | undefined;
  /** The revision of the part's latest config (the time of its last write, RFC 3339). */
  readonly latestRevision: string;
  /** The revision the machine ingested; undefined when its status could not be read. */
  readonly runningRevision: string | undefined;
  /** `healthy` (landed: latest revision, running, all ready), `starting`, `unhealthy`, `behind` or `unreachable`. */
  readonly health: 'healthy' | 'starting' | 'unhealthy' | 'behind' | 'unreachable';
  readonly modules: readonly ModuleHealth[];
  readonly resources: readonly ResourceHealth[];
  /** The machine's packages and their download states (absent from the status of machines that report none). */
  readonly packages?: readonly PackageHealth[];
  /** Why the machine's status could not be read. */
  readonly unreachable?: string;
}

const ONLINE: Record<number, OnlineStateName> = { 1: 'online', 2: 'offline', 3: 'awaiting setup' };
const MODULE_STATES: Record<number, string> = { 1: 'pending', 2: 'starting', 3: 'ready', 4: 'unhealthy', 5: 'closing' };
const RESOURCE_STATES: Record<number, string> = { 1: 'unconfigured', 2: 'configuring', 3: 'ready', 4: 'removing', 5: 'unhealthy' };
const PACKAGE_STATES: Record<number, string> = { 1: 'downloading', 2: 'loading', 3: 'first run', 4: 'ready', 5: 'failed' };
const PACKAGE_TYPES: Record<number, string> = { 1: 'archive', 2: 'ml_model', 3: 'module', 4: 'slam_map', 5: 'ml_training' };

function iso(ts: { seconds: bigint; nanos: number } | undefined): string | undefined {
  return ts ? new Date(Number(ts.seconds) * 1000 + Math.floor(ts.nanos / 1e6)).toISOString() : undefined;
}

/** The managed machines of the given states: stack, name and main part id. */
function managedMachines(states: readonly State[]): { stack: string; machine: string; partId: string }[] {
  const out: { stack: string; machine: string; partId: string }[] = [];
  for (const state of states) {
    for (const [address, entry] of Object.entries(state.resources)) {
      const partId = entry.ids.part_id;
      if (entry.type !== machineKind.type || partId === undefined) continue;
      const name = isObject(entry.attributes) && typeof entry.attributes.name === 'string' ? entry.attributes.name : address;
      out.push({ stack: state.stack, machine: name, partId });
    }
  }
  return out;
}

/** Health of every machine in the given states. */
export async function machineHealth(client: ServiceClient, states: readonly State[]): Promise<MachineHealth[]> {
  const services = await loadServices();
  const app = client.clientFor(services.app);
  const robot = client.clientFor(services.robotStatus);
  return Promise.all(
    managedMachines(states).map(async (m): Promise<MachineHealth> => {
      let part;
      try {
        part = (await app.getRobotPart({ id: m.partId })).part;
      } catch (err) {
        const reason = err instanceof ConnectError ? err.rawMessage : String(err);
        throw new FleetformError(`machine ${m.machine}: its part ${m.partId} could not be read: ${reason}`, {
          path: m.machine,
          hint: 'check the connection and the API key; if the machine was deleted on the service, run plan to see it',
        });
      }
      const latestRevision = iso(part?.lastUpdated) ?? '';
      const base = {
        ...m,
        online: ONLINE[part?.onlineState ?? 0] ?? 'unknown',
        secondsSinceOnline: Number(part?.secondsSinceOnline ?? 0n),
        lastAccess: iso(part?.lastAccess),
        latestRevision,
      };
      let status;
      try {
        status = await robot.getMachineStatus({}, { headers: { [MACHINE_HOST_HEADER]: part?.fqdn || m.partId } });
      } catch (err) {
        const reason = err instanceof ConnectError ? (err.code === Code.Unimplemented ? 'the service does not reach machines for their status' : err.rawMessage) : String(err);
        return { ...base, runningRevision: undefined, health: 'unreachable', modules: [], resources: [], unreachable: reason };
      }
      const modules = status.modules.map((x) => ({ name: x.moduleName, state: MODULE_STATES[x.state] ?? 'unknown', consecutiveFailures: x.consecutiveFailures, error: x.error }));
      const resources = status.resources.map((r) => ({
        name: r.name?.name ?? '',
        api: r.name ? `${r.name.namespace}:${r.name.type}:${r.name.subtype}` : '',
        state: RESOURCE_STATES[r.state] ?? 'unknown',
        revision: r.revision,
        error: r.error,
      }));
      const packages = status.packages.map((x) => ({ name: x.name, type: PACKAGE_TYPES[x.type] ?? 'unknown', version: x.version, state: PACKAGE_STATES[x.state] ?? 'unknown', error: x.error }));
      const runningRevision = status.config?.revision ?? '';
      const bad = modules.some((x) => x.state === 'unhealthy') || resources.some((r) => r.state === 'unhealthy') || packages.some((x) => x.state === 'failed');
      const ready =
        status.state === 2 &&
        modules.every((x) => x.state === 'ready') &&
        resources.every((r) => r.state === 'ready' && r.revision === latestRevision) &&
        packages.every((x) => x.state === 'ready');
      const health = bad ? 'unhealthy' : runningRevision !== latestRevision ? 'behind' : ready ? 'healthy' : 'starting';
      return { ...base, runningRevision, health, modules, resources, ...(packages.length > 0 ? { packages } : {}) };
    }),
  );
}
