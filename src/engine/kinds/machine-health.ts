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
import { decodeStruct } from '../../api/struct-codec';
import type { State } from '../state/schema';
import { machineKind } from './machine';
import { importsFragments, resolveFetching, serviceFetch, type FragmentFetch } from './machine-fragments';

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

export interface MachineHealth {
  readonly stack: string;
  readonly machine: string;
  readonly partId: string;
  readonly online: OnlineStateName;
  /** Seconds since the machine was last online, when offline. */
  readonly secondsSinceOnline: number;
  readonly lastAccess: string | undefined;
  /** The revision of the part's latest config (the time of its last write, RFC 3339, then each fragment revision it reaches). */
  readonly latestRevision: string;
  /** The revision the machine ingested; undefined when its status could not be read. */
  readonly runningRevision: string | undefined;
  /** `healthy` (landed: latest revision, running, all ready), `starting`, `unhealthy`, `behind` or `unreachable`. */
  readonly health: 'healthy' | 'starting' | 'unhealthy' | 'behind' | 'unreachable';
  readonly modules: readonly ModuleHealth[];
  readonly resources: readonly ResourceHealth[];
  /** Why the machine's status could not be read. */
  readonly unreachable?: string;
}

const ONLINE: Record<number, OnlineStateName> = { 1: 'online', 2: 'offline', 3: 'awaiting setup' };
const MODULE_STATES: Record<number, string> = { 1: 'pending', 2: 'starting', 3: 'ready', 4: 'unhealthy', 5: 'closing' };
const RESOURCE_STATES: Record<number, string> = { 1: 'unconfigured', 2: 'configuring', 3: 'ready', 4: 'removing', 5: 'unhealthy' };

function iso(ts: { seconds: bigint; nanos: number } | undefined): string | undefined {
  return ts ? new Date(Number(ts.seconds) * 1000 + Math.floor(ts.nanos / 1e6)).toISOString() : undefined;
}

/** A part's config as read: its JSON text, else its Struct. */
function partConfig(json: string, struct: Uint8Array | undefined): unknown {
  if (json) return JSON.parse(json) as unknown;
  return struct === undefined ? undefined : decodeStruct(struct);
}

/**
 * The revision of a part's latest config as its machine runs it: the time of its last
 * write, then ` +<fragment id>@<revision>` for each fragment its config reaches (in the
 * order the resolution meets them, disabled imports and unknown ones left out), so a new
 * revision of a fragment, or a tag moved, is a new config revision.
 */
async function configRevision(time: string, config: unknown, partId: string, fetch: FragmentFetch): Promise<string> {
  if (!isObject(config) || !importsFragments(config)) return time;
  const resolution = await resolveFetching(partId, config, fetch);
  const reached = resolution.imports.filter((i) => i.revision !== undefined && !i.disabled);
  return reached.length === 0 ? time : `${time} ${reached.map((i) => `+${i.id}@${i.revision}`).join(' ')}`;
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
  // Each fragment at each version is read once for every machine of the run.
  const read = new Map<string, Promise<unknown>>();
  const fetch = serviceFetch(client.appClient, <T>(key: string, load: () => Promise<T>): Promise<T> => {
    if (!read.has(key)) read.set(key, load());
    return read.get(key) as Promise<T>;
  });
  return Promise.all(
    managedMachines(states).map(async (m): Promise<MachineHealth> => {
      let part;
      let configJson = '';
      try {
        const res = await app.getRobotPart({ id: m.partId });
        part = res.part;
        configJson = res.configJson;
      } catch (err) {
        const reason = err instanceof ConnectError ? err.rawMessage : String(err);
        throw new FleetformError(`machine ${m.machine}: its part ${m.partId} could not be read: ${reason}`, {
          path: m.machine,
          hint: 'check the connection and the API key; if the machine was deleted on the service, run plan to see it',
        });
      }
      const latestRevision = await configRevision(iso(part?.lastUpdated) ?? '', partConfig(configJson, part?.robotConfig), m.partId, fetch);
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
      const runningRevision = status.config?.revision ?? '';
      const bad = modules.some((x) => x.state === 'unhealthy') || resources.some((r) => r.state === 'unhealthy');
      const ready = status.state === 2 && modules.every((x) => x.state === 'ready') && resources.every((r) => r.state === 'ready' && r.revision === latestRevision);
      const health = bad ? 'unhealthy' : runningRevision !== latestRevision ? 'behind' : ready ? 'healthy' : 'starting';
      return { ...base, runningRevision, health, modules, resources };
    }),
  );
}
