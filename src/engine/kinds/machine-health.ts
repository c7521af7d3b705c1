/**
 * What each managed machine runs and how it is doing: the app's online state of its main
 * part, and the machine's own GetMachineStatus (config revision it ingested, modules and
 * resources with their state). A config has landed when the machine runs the revision of
 * the part's latest config write and every module and resource is ready at it.
 */
import type { ServiceClient } from '../../api/client';
import { FleetformError } from '../../domain/errors';
import { judgeHealth, summarizeJob, type JobRunsReport } from '../../domain/rollout';
import { serviceStatusSource } from '../health/service-status-source';
import type { OnlineState } from '../health/machine-status-source';
import { isObject } from '../json';
import type { State } from '../state/schema';
import { machineKind } from './machine';

export type OnlineStateName = OnlineState;

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

export interface JobHealth {
  readonly name: string;
  /** Its newest run's outcome among those the machine keeps. */
  readonly last: 'succeeded' | 'failed' | 'not run';
  /** When that run was (RFC 3339), when it ran. */
  readonly lastAt?: string;
  /** Of the recent runs the machine keeps, how many failed, out of how many. */
  readonly failed: number;
  readonly runs: number;
}

function jobHealth(job: JobRunsReport): JobHealth {
  const s = summarizeJob(job);
  const base = { name: s.name, failed: s.failed, runs: s.runs };
  return s.last
    ? { ...base, last: s.last.ok ? 'succeeded' : 'failed', lastAt: new Date(s.last.at).toISOString() }
    : { ...base, last: 'not run' };
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
  /**
   * `healthy` (landed: latest revision, running, all ready), `starting`, `unhealthy`, `behind`,
   * `held` (behind because its maintenance window holds the latest revision) or `unreachable`.
   */
  readonly health: 'healthy' | 'starting' | 'unhealthy' | 'behind' | 'held' | 'unreachable';
  /** Why the maintenance window holds the latest revision, when it does. */
  readonly heldByMaintenance?: string;
  readonly modules: readonly ModuleHealth[];
  readonly resources: readonly ResourceHealth[];
  /** The machine's packages and their download states (absent from the status of machines that report none). */
  readonly packages?: readonly PackageHealth[];
  /** The machine's scheduled jobs and their recent runs (absent when it reports none). */
  readonly jobs?: readonly JobHealth[];
  /** Why the machine's status could not be read. */
  readonly unreachable?: string;
  /**
   * The fragment error of each import its config names that it runs without (a fragment its
   * organization cannot read), as the service reports it: the machine runs the rest, and its
   * health is judged on that.
   */
  readonly fragmentErrors?: readonly string[];
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

/** Health of every machine in the given states, read through the machine status source. */
export async function machineHealth(client: ServiceClient, states: readonly State[]): Promise<MachineHealth[]> {
  const source = await serviceStatusSource(client);
  return Promise.all(
    managedMachines(states).map(async (m): Promise<MachineHealth> => {
      const reading = await source.read(m.partId);
      if (!reading.reachable && reading.partUnreadable) {
        throw new FleetformError(`machine ${m.machine}: its part ${m.partId} could not be read: ${reading.reason}`, {
          path: m.machine,
          hint: 'check the connection and the API key; if the machine was deleted on the service, run plan to see it',
        });
      }
      const latestRevision = reading.latestRevision;
      const base = {
        ...m,
        online: reading.online,
        secondsSinceOnline: reading.presence?.secondsSinceOnline ?? 0,
        lastAccess: reading.presence?.lastAccess,
        latestRevision,
        ...(reading.fragmentErrors && reading.fragmentErrors.length > 0 ? { fragmentErrors: reading.fragmentErrors } : {}),
      };
      if (!reading.reachable)
        return { ...base, runningRevision: undefined, health: 'unreachable', modules: [], resources: [], unreachable: reading.reason };
      const { status } = reading;
      const modules = status.modules.map((x) => ({
        name: x.name,
        state: x.state,
        consecutiveFailures: x.consecutiveFailures,
        error: x.error,
      }));
      const resources = status.resources.map((r) => ({ name: r.name, api: r.api, state: r.state, revision: r.revision, error: r.error }));
      const packages = (status.packages ?? []).map((x) => ({
        name: x.name,
        type: x.type ?? 'unknown',
        version: x.version ?? '',
        state: x.state,
        error: x.error,
      }));
      const jobs = (status.jobs ?? []).map(jobHealth);
      const runningRevision = status.revision;
      // The domain's rule, judged against the config the machine runs; one that runs an older one is behind.
      const verdict = judgeHealth(status, runningRevision);
      const held =
        runningRevision !== latestRevision && source.maintenanceHold ? await source.maintenanceHold(m.partId, latestRevision) : undefined;
      const health =
        verdict.health === 'unhealthy'
          ? 'unhealthy'
          : held !== undefined
            ? 'held'
            : runningRevision !== latestRevision
              ? 'behind'
              : verdict.health === 'healthy'
                ? 'healthy'
                : 'starting';
      return {
        ...base,
        runningRevision,
        health,
        modules,
        resources,
        ...(packages.length > 0 ? { packages } : {}),
        ...(jobs.length > 0 ? { jobs } : {}),
        ...(held !== undefined ? { heldByMaintenance: held } : {}),
      };
    }),
  );
}
