/**
 * One simulated machine run on its own, without the emulator: a config (fragments already
 * resolved) checked in until it settles. Registry modules run the version their entry names
 * (models not known); remotes reach the machines `remoteResources` lists by address.
 */
import { readMachineConfig } from './machine-config';
import { checkIn, MachineState, type FetchedConfig, type Health, type LogLine, type PartRun, type RemoteResource } from './machine-state';

export interface StandaloneOptions {
  readonly health?: Partial<Health>;
  /** Resources of the machines at these addresses; any other address is unreachable. */
  readonly remoteResources?: Readonly<Record<string, readonly RemoteResource[]>>;
  readonly revision?: string;
  /** The run to step from (a machine already running an older config). */
  readonly previous?: PartRun;
  /** When the first check-in happens (ms); each next one comes `intervalMs` later. */
  readonly now?: number;
  readonly intervalMs?: number;
  /** Check-ins at most. */
  readonly maxCheckIns?: number;
}

/** The config as the machine fetches it, with nothing from a registry but the versions written. */
export function standaloneConfig(raw: unknown, options: StandaloneOptions = {}): FetchedConfig {
  const read = readMachineConfig(raw);
  return {
    revision: options.revision ?? 'r1',
    modules: read.modules.map((m) => ({
      name: m.name,
      moduleId: m.moduleId ?? '',
      version: m.moduleId === undefined ? '' : m.policy || 'latest',
    })),
    resources: read.resources,
    unresolved: [],
    packages: [],
    remotes: read.remotes.map((r) => {
      const found = options.remoteResources?.[r.address];
      return { ...r, resources: found ?? [], ...(found ? {} : { unreachable: `no machine answers at ${JSON.stringify(r.address)}` }) };
    }),
    jobs: read.jobs,
    processes: read.processes,
    ...(read.maintenance ? { maintenance: read.maintenance } : {}),
  };
}

/** Checks the machine in until it runs (nothing starting or configuring), at most `maxCheckIns` times; every log line in order. */
export function runStandalone(raw: unknown, options: StandaloneOptions = {}): { run: PartRun; logs: LogLine[]; config: FetchedConfig } {
  const config = standaloneConfig(raw, options);
  const health: Health = { crashes: () => false, unhealthy: () => false, ...options.health };
  const timings = { moduleStartMs: 0, resourceConfigureMs: 0 };
  const logs: LogLine[] = [];
  let run = options.previous;
  let now = options.now ?? 0;
  for (let i = 0; i < (options.maxCheckIns ?? 10); i += 1, now += options.intervalMs ?? 1000) {
    const step = checkIn(run, config, now, timings, health, false);
    run = step.run;
    logs.push(...step.logs);
    if (i > 0 && run.state === MachineState.RUNNING) break;
  }
  return { run: run as PartRun, logs, config };
}
