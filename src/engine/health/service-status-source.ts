/** Machine health read through the service: the part from the app, the status from the machine by its address. */
import type { ServiceClient } from '../../api/client';
import { connectErrorOf, statusCodeName } from '../../api/client/errors';
import { loadServices, MACHINE_HOST_HEADER } from '../../api/services';
import type { MachineStatusReport } from '../../domain/rollout';
import { MAINTENANCE_HOLD_PREFIX, parseMaintenanceHold } from '../../domain/maintenance';
import type { MachineReading, MachineStatusSource, OnlineState, PartPresence } from './machine-status-source';
import { latestConfigReading, partConfig, serviceFetch } from '../fragment-fetch';
import { errorMessage } from '../../domain/errors';

const ONLINE: Record<number, OnlineState> = { 1: 'online', 2: 'offline', 3: 'awaiting setup' };
const MACHINE_STATES: Record<number, MachineStatusReport['state']> = { 1: 'initializing', 2: 'running' };
const MODULE_STATES: Record<number, string> = { 1: 'pending', 2: 'starting', 3: 'ready', 4: 'unhealthy', 5: 'closing' };
const RESOURCE_STATES: Record<number, string> = { 1: 'unconfigured', 2: 'configuring', 3: 'ready', 4: 'removing', 5: 'unhealthy' };
const PACKAGE_STATES: Record<number, string> = { 1: 'downloading', 2: 'loading', 3: 'first run', 4: 'ready', 5: 'failed' };
const PACKAGE_TYPES: Record<number, string> = { 1: 'archive', 2: 'ml_model', 3: 'module', 4: 'slam_map', 5: 'ml_training' };

function iso(ts: { seconds: bigint; nanos: number } | undefined): string {
  return ts ? new Date(Number(ts.seconds) * 1000 + Math.floor(ts.nanos / 1e6)).toISOString() : '';
}

function ms(ts: { seconds: bigint; nanos: number } | undefined): number {
  return ts ? Number(ts.seconds) * 1000 + Math.floor(ts.nanos / 1e6) : 0;
}

function reasonOf(err: unknown): string {
  const connectError = connectErrorOf(err);
  if (connectError)
    return statusCodeName(connectError.code) === 'UNIMPLEMENTED'
      ? 'the service does not reach machines for their status'
      : connectError.rawMessage;
  return errorMessage(err);
}

/** Reads machines through the app (GetRobotPart, GetRobotPartLogs) and the machine's own GetMachineStatus. */
export async function serviceStatusSource(client: ServiceClient): Promise<MachineStatusSource> {
  const services = await loadServices();
  const app = client.clientFor(services.app);
  const robot = client.clientFor(services.robotStatus);
  // A part's address does not change: read once, then its status is asked for directly.
  const addresses = new Map<string, string>();

  // Each fragment at each version is read once for every machine of the source.
  const fragmentReads = new Map<string, Promise<unknown>>();
  const fetchFragment = serviceFetch(client.appClient, <T>(key: string, load: () => Promise<T>): Promise<T> => {
    if (!fragmentReads.has(key)) fragmentReads.set(key, load());
    return fragmentReads.get(key) as Promise<T>;
  });

  const readPart = async (partId: string) => {
    const { part, configJson } = await app.getRobotPart({ id: partId });
    addresses.set(partId, part?.fqdn || partId);
    return { part, configJson };
  };

  const machineStatus = async (
    address: string,
    online: OnlineState,
    latestRevision: string,
    presence?: PartPresence,
  ): Promise<MachineReading> => {
    try {
      const status = await robot.getMachineStatus({}, { headers: { [MACHINE_HOST_HEADER]: address } });
      return {
        reachable: true,
        online,
        latestRevision,
        ...(presence ? { presence } : {}),
        status: {
          revision: status.config?.revision ?? '',
          since: Math.max(
            ms(status.config?.lastUpdated),
            ...status.modules.map((m) => ms(m.lastUpdated)),
            ...status.resources.map((r) => ms(r.lastUpdated)),
          ),
          state: MACHINE_STATES[status.state] ?? 'unknown',
          ingestedAt: ms(status.config?.lastUpdated),
          jobs: status.jobStatuses.map((j) => ({
            name: j.jobName,
            succeededAt: j.recentSuccessfulRuns.map(ms),
            failedAt: j.recentFailedRuns.map(ms),
          })),
          modules: status.modules.map((m) => ({
            name: m.moduleName,
            state: MODULE_STATES[m.state] ?? 'unknown',
            error: m.error,
            consecutiveFailures: m.consecutiveFailures,
          })),
          resources: status.resources.map((r) => ({
            name: r.name?.name ?? '',
            api: r.name ? `${r.name.namespace}:${r.name.type}:${r.name.subtype}` : '',
            state: RESOURCE_STATES[r.state] ?? 'unknown',
            revision: r.revision,
            error: r.error,
          })),
          packages: status.packages.map((p) => ({
            name: p.name,
            type: PACKAGE_TYPES[p.type] ?? 'unknown',
            version: p.version,
            state: PACKAGE_STATES[p.state] ?? 'unknown',
            error: p.error,
          })),
        },
      };
    } catch (err) {
      return { reachable: false, online, latestRevision, ...(presence ? { presence } : {}), reason: reasonOf(err) };
    }
  };

  const unreadable = (err: unknown): MachineReading => ({
    reachable: false,
    online: 'unknown',
    latestRevision: '',
    reason: reasonOf(err),
    partUnreadable: true,
  });

  const source: MachineStatusSource = {
    async read(partId) {
      let read;
      let latest;
      try {
        read = await readPart(partId);
        // A config importing fragments is a new revision when a fragment it reaches is.
        latest = await latestConfigReading(
          iso(read.part?.lastUpdated),
          partConfig(read.configJson, read.part?.robotConfig),
          partId,
          fetchFragment,
        );
      } catch (err) {
        return unreadable(err);
      }
      const { part } = read;
      const presence = {
        secondsSinceOnline: Number(part?.secondsSinceOnline ?? 0n),
        lastAccess: part?.lastAccess ? iso(part.lastAccess) : undefined,
      };
      const reading = await machineStatus(part?.fqdn || partId, ONLINE[part?.onlineState ?? 0] ?? 'unknown', latest.revision, presence);
      return latest.fragmentErrors.length > 0 ? { ...reading, fragmentErrors: latest.fragmentErrors } : reading;
    },

    async status(partId) {
      let address = addresses.get(partId);
      if (address === undefined) {
        try {
          address = (await readPart(partId)).part?.fqdn || partId;
        } catch (err) {
          return unreadable(err);
        }
      }
      const reading = await machineStatus(address, 'unknown', '');
      // Unreachable: the part says whether the machine is offline.
      return reading.reachable ? reading : source.read(partId);
    },

    async maintenanceHold(partId, revision) {
      try {
        const { logs } = await app.getRobotPartLogs({ id: partId, filter: MAINTENANCE_HOLD_PREFIX, limit: 1n });
        const hold = logs[0] ? parseMaintenanceHold(logs[0].message) : undefined;
        return hold?.revision === revision ? hold.reason : undefined;
      } catch {
        return undefined;
      }
    },

    async errorLines(partId, limit) {
      try {
        const { logs } = await app.getRobotPartLogs({ id: partId, levels: ['error'], limit: BigInt(limit) });
        return logs.map((l) => `${iso(l.time)} ${l.loggerName}: ${l.message}`);
      } catch (err) {
        return [`(its log could not be read: ${reasonOf(err)})`];
      }
    },
  };
  return source;
}
