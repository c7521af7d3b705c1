/**
 * What the app knows of running machines: a part's online state from its last check-in,
 * machine summaries, the machine's log lines and restart requests (AppService), and the
 * machine's own GetMachineStatus (RobotService, reached through the emulator's port).
 */
import type { ServiceImpl } from '@connectrpc/connect';
import { MACHINE_HOST_HEADER, type AppServiceType, type RobotStatusServiceType } from '../../api/services';
import { knowsOrganization, organizationsOf, roleOn, type Principal } from '../auth/principal';
import { PackageState, type PartRun } from '../sim/machine-state';
import type { StoredPackageType } from '../store/packages';
import { partViamServerVersion } from '../store/server-versions';
import { packageTypeNumber } from './packages';
import * as accounts from '../store/accounts';
import { checkinsOfRobot, getCheckin, partLogs, requestRestart, type CheckinRecord } from '../store/checkins';
import * as machines from '../store/machines';
import { partFor } from './access';
import { principalOf, timestamp, type Backend } from './context';
import { invalidArgument, notFound, permissionDenied, unavailable } from './errors';
import { partByHost } from '../logic/part-address';
import { onlineThresholdMs } from '../logic/online';

/** viam.app.v1.OnlineState numbers. */
export const OnlineState = { ONLINE: 1, OFFLINE: 2, AWAITING_SETUP: 3 } as const;

export interface OnlineFields {
  lastAccess?: { seconds: bigint; nanos: number };
  onlineState: number;
  secondsSinceOnline: bigint;
}

/** The app's view of a part's machine: never seen (awaiting setup), online, or offline for so many seconds. */
export function onlineFields(backend: Backend, lastAccess: number | undefined): OnlineFields {
  if (lastAccess === undefined) return { onlineState: OnlineState.AWAITING_SETUP, secondsSinceOnline: 0n };
  const age = Math.max(0, backend.now() - lastAccess);
  if (age <= onlineThresholdMs(backend.checkInIntervalMs)) {
    return { lastAccess: timestamp(lastAccess), onlineState: OnlineState.ONLINE, secondsSinceOnline: 0n };
  }
  return { lastAccess: timestamp(lastAccess), onlineState: OnlineState.OFFLINE, secondsSinceOnline: BigInt(Math.floor(age / 1000)) };
}

/** A machine's fields from its parts' check-ins: the latest access of any part. */
export function robotOnlineFields(backend: Backend, robotId: string): OnlineFields {
  const times = [...checkinsOfRobot(backend.db, robotId).values()].flatMap((c) => (c.lastAccess === undefined ? [] : [c.lastAccess]));
  return onlineFields(backend, times.length === 0 ? undefined : Math.max(...times));
}

/** The fragment ids a config names (`fragments`: ids or `{id}` objects). */
function fragmentsOf(config: string): string[] {
  const parsed = JSON.parse(config) as { fragments?: unknown };
  if (!Array.isArray(parsed.fragments)) return [];
  return parsed.fragments.flatMap((f: unknown) => {
    if (typeof f === 'string') return [f];
    if (typeof f === 'object' && f !== null && typeof (f as { id?: unknown }).id === 'string') return [(f as { id: string }).id];
    return [];
  });
}

const DEFAULT_SUMMARY_LIMIT = 100;

/** PartSummary.viam_server_version, a release version in its `major` form; absent when the part reports none. */
function viamServerVersionField(version: string | undefined) {
  return version === undefined ? {} : { viamServerVersion: { version: { case: 'major' as const, value: version } } };
}
const DEFAULT_LOG_LIMIT = 100;
const MAX_LOG_LIMIT = 10_000;
const LEVELS = ['debug', 'info', 'warn', 'error'];

export function liveMachineHandlers(
  backend: Backend,
): Pick<ServiceImpl<AppServiceType>, 'listMachineSummaries' | 'getRobotPartLogs' | 'markPartForRestart'> {
  const { db } = backend;

  function partSummary(part: machines.PartRecord, checkin: CheckinRecord | undefined) {
    const online = onlineFields(backend, checkin?.lastAccess);
    return {
      partId: part.id,
      partName: part.name,
      isMainPart: part.mainPart,
      ...online,
      ...(checkin?.lastAccess === undefined ? {} : { lastOnline: timestamp(checkin.lastAccess) }),
      ...viamServerVersionField(partViamServerVersion(db, part.id, checkin?.lastAccess !== undefined)),
      os: 'linux',
      platform: 'linux/emulated',
      fragments: fragmentsOf(part.config).map((id) => ({ id })),
    };
  }

  return {
    listMachineSummaries(req, ctx) {
      const p: Principal = principalOf(ctx);
      if (req.organizationId !== '' && (!accounts.getOrganization(db, req.organizationId) || !knowsOrganization(p, req.organizationId))) {
        throw permissionDenied(`no permission on organization ${req.organizationId}`);
      }
      const limit = req.limit ?? DEFAULT_SUMMARY_LIMIT;
      if (limit < 0) throw invalidArgument('limit: must not be negative');
      const orgs = req.organizationId !== '' ? [req.organizationId] : organizationsOf(p);
      const wantedLocations = new Set(req.locationIds);
      const wantedFragments = new Set(req.fragmentIds);
      let left = limit === 0 ? DEFAULT_SUMMARY_LIMIT : limit;
      const locationSummaries = [];
      for (const orgId of orgs) {
        for (const loc of accounts.listLocations(db, orgId)) {
          if (wantedLocations.size > 0 && !wantedLocations.has(loc.id)) continue;
          const machineSummaries = [];
          for (const robot of machines.listRobots(db, loc.id)) {
            if (left === 0) break;
            if (roleOn(p, { organizationId: orgId, locationId: loc.id, robotId: robot.id }) === undefined) continue;
            const parts = machines.listParts(db, robot.id);
            if (wantedFragments.size > 0 && !parts.some((part) => fragmentsOf(part.config).some((f) => wantedFragments.has(f)))) continue;
            const checkins = checkinsOfRobot(db, robot.id);
            machineSummaries.push({
              machineId: robot.id,
              machineName: robot.name,
              partSummaries: parts.map((part) => partSummary(part, checkins.get(part.id))),
            });
            left -= 1;
          }
          if (machineSummaries.length > 0) locationSummaries.push({ locationId: loc.id, locationName: loc.name, machineSummaries });
        }
      }
      return { locationSummaries };
    },

    getRobotPartLogs(req, ctx) {
      const part = partFor(db, principalOf(ctx), req.id, 'read');
      const limit = req.limit === undefined || req.limit === 0n ? DEFAULT_LOG_LIMIT : Number(req.limit);
      if (limit < 0 || limit > MAX_LOG_LIMIT) throw invalidArgument(`limit: must be from 0 to ${MAX_LOG_LIMIT}`);
      let before: number | undefined;
      if (req.pageToken) {
        before = Number(req.pageToken);
        if (!/^\d+$/.test(req.pageToken)) throw invalidArgument('page_token: not a token this service gave');
      }
      const levels = new Set((req.errorsOnly ? ['error'] : req.levels).map((l) => l.toLowerCase()));
      for (const l of levels)
        if (!LEVELS.includes(l)) throw invalidArgument(`levels: unknown level ${JSON.stringify(l)}; use ${LEVELS.join(', ')}`);
      const start = req.start ? Number(req.start.seconds) * 1000 + Math.floor(req.start.nanos / 1e6) : undefined;
      const end = req.end ? Number(req.end.seconds) * 1000 + Math.floor(req.end.nanos / 1e6) : undefined;
      const filter = req.filter?.toLowerCase();
      const out = [];
      let cursor = before;
      let last: number | undefined;
      // Reads pages of the newest lines until `limit` match or the log is exhausted.
      for (;;) {
        const page = partLogs(db, part.id, cursor, Math.max(limit, 100));
        for (const line of page) {
          last = line.id;
          if (levels.size > 0 && !levels.has(line.level)) continue;
          if (start !== undefined && line.time < start) continue;
          if (end !== undefined && line.time > end) continue;
          if (filter && !line.message.toLowerCase().includes(filter)) continue;
          out.push(line);
          if (out.length === limit) break;
        }
        if (out.length === limit || page.length === 0) break;
        cursor = page[page.length - 1]?.id;
      }
      const full = out.length === limit && limit > 0;
      return {
        logs: out.map((l) => ({
          host: part.name,
          level: l.level,
          time: timestamp(l.time),
          loggerName: l.logger,
          message: l.message,
          stack: '',
          fields: [],
        })),
        nextPageToken: full && last !== undefined ? String(out[out.length - 1]?.id ?? last) : '',
      };
    },

    markPartForRestart(req, ctx) {
      const part = partFor(db, principalOf(ctx), req.partId, 'write');
      requestRestart(db, part.id);
      return {};
    },
  };
}

/**
 * The machine's own RobotService. The part is named by the `rpc-host` header (its FQDN or
 * id, as the service's dialing names the machine), which the gate sets for calls to the
 * machine's address `/machines/<part id>`. A machine that is not online cannot be reached.
 */
export function liveMachineStatus(backend: Backend): ServiceImpl<RobotStatusServiceType> {
  return {
    getOperations(_req, ctx) {
      const host = ctx.requestHeader.get(MACHINE_HOST_HEADER) ?? '';
      const found = host === '' ? undefined : partByHost(backend.db, host);
      if (!found) throw notFound(`no machine part at ${JSON.stringify(host)}`);
      const part = partFor(backend.db, principalOf(ctx), found.id, 'read');
      if (onlineFields(backend, getCheckin(backend.db, part.id)?.lastAccess).onlineState !== OnlineState.ONLINE) {
        throw unavailable(`machine part ${part.name} (${part.id}) is not online`);
      }
      return { operations: [] };
    },

    getMachineStatus(_req, ctx) {
      const host = ctx.requestHeader.get(MACHINE_HOST_HEADER) ?? '';
      if (host === '') throw invalidArgument(`the ${MACHINE_HOST_HEADER} header must name the machine part (its FQDN or id)`);
      const found = partByHost(backend.db, host);
      if (!found) throw notFound(`no machine part at ${host}`);
      const part = partFor(backend.db, principalOf(ctx), found.id, 'read');
      const checkin = getCheckin(backend.db, part.id);
      const online = onlineFields(backend, checkin?.lastAccess);
      if (checkin?.run === undefined || online.onlineState !== OnlineState.ONLINE) {
        throw unavailable(`machine part ${part.name} (${part.id}) is not online`);
      }
      const run = JSON.parse(checkin.run) as PartRun;
      const cloudMetadata = {
        primaryOrgId: part.organizationId,
        locationId: part.locationId,
        machineId: part.robotId,
        machinePartId: part.id,
      };
      return {
        resources: run.resources.map((r) => ({
          name: { namespace: r.namespace, type: r.type, subtype: r.subtype, name: r.name },
          state: r.state,
          lastUpdated: timestamp(r.lastUpdated),
          revision: r.revision,
          error: r.error,
          cloudMetadata,
        })),
        config: { revision: run.revision, lastUpdated: timestamp(run.ingestedAt) },
        state: run.state,
        jobStatuses: (run.jobs ?? []).map((j) => ({
          jobName: j.name,
          recentSuccessfulRuns: (j.succeededAt ?? []).map(timestamp),
          recentFailedRuns: (j.failedAt ?? []).map(timestamp),
        })),
        modules: run.modules.map((m) => ({
          moduleName: m.name,
          state: m.state,
          lastUpdated: timestamp(m.lastUpdated),
          error: m.error,
          consecutiveFailures: m.consecutiveFailures,
        })),
        packages: (run.packages ?? []).map((p) => ({
          name: p.name,
          type: packageTypeNumber(p.type as StoredPackageType),
          state: p.state,
          error: p.error,
          lastUpdated: timestamp(p.lastUpdated),
          version: p.version,
          bytesDownloaded: BigInt(p.state === PackageState.READY ? p.totalBytes : 0),
          totalBytes: BigInt(p.totalBytes),
        })),
      };
    },
  };
}
