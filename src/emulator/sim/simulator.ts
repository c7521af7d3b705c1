/**
 * Simulated machines: one timer checks every machine part in at each interval. A check-in
 * records the part's access, fetches its config when it changed (the versions its registry
 * modules run are those the app's deployments resolved from their policies), steps what the
 * machine runs (see machine-state) and stores that and its log lines, all in one
 * transaction per tick.
 */
import * as crypto from 'node:crypto';
import type { Db } from '../db/database';
import { allCheckins, appendLog, deployedVersions, partsToCheckIn, recordCheckin, trimLogs, type CheckinPart } from '../store/checkins';
import { getPart } from '../store/machines';
import { resolvePackageVersion } from '../store/packages';
import { fragmentGeneration } from '../store/fragments';
import { machineRevision, resolvePart } from '../logic/fragment-resolution';
import { isLatestPackageVersion, splitPackageId, type PackageConfig } from '../../domain/packages';
import type { MachineFaults } from './machine-faults';
import type { SensorReadings } from './sensor-readings';
import { maintenanceSensorShortName } from '../../domain/maintenance';
import { readMachineConfig, type MachineConfigRead } from './machine-config';
import {
  checkIn,
  ResourceState,
  type FetchedConfig,
  type FetchedPackage,
  type FetchedRemote,
  type PartRun,
  type Timings,
} from './machine-state';
import { partByHost } from '../logic/part-address';
import { findRegistryItem } from '../logic/registry-items';
import { registryVersions } from '../store/registry';
import { errorMessage } from '../../domain/errors';
import { isObject } from '../../domain/json-value';
import { missedCheckIns } from './catch-up';
import { onlineThresholdMs } from '../logic/online';
import { lastAccesses, notificationTimes, partIdentity, recordLiveness, recordNotification, seenLiveness } from '../store/triggers';
import {
  deliverWebhook,
  dueNotifications,
  emailLine,
  livenessEvent,
  livenessHeaders,
  triggerLogger,
  type FiredEvent,
  type WebhookRequest,
} from './triggers';
import {
  ingestionBody,
  ingestionFirings,
  ingestionHeaders,
  type Ingested,
  type IngestedPoint,
  type IngestionFiring,
} from './trigger-ingestion';
import { captureSources, captureTimes, capturedReadings, linesDue, stateLogRates } from './captured-data';
import { appendCaptured, trimCaptured } from '../store/captured';
import type { RunningVersions } from './machine-faults';

/** Log lines kept per part. */
const LOGS_KEPT = 1000;
/** How long captured points are kept, and how often a part's older ones are dropped. */
const CAPTURED_KEPT_MS = 30 * 60_000;
const CAPTURED_TRIM_EVERY_MS = 60_000;

/** The revision of a config: the time of the part's config write it comes from (RFC 3339). */
export function configRevision(lastUpdated: number): string {
  return new Date(lastUpdated).toISOString();
}

interface Known {
  readonly lastUpdated: number;
  /** The fragment generation its config was resolved at; undefined when it imports no fragment. */
  readonly generation: number | undefined;
  readonly config: MachineConfigRead & { readonly revision: string };
  /** The packages as the registry had them at the last check-in; looked up again while one is missing. */
  fetchedPackages: readonly FetchedPackage[] | undefined;
  run: PartRun | undefined;
  /** A digest of the run's JSON as last stored. */
  runDigest: string | undefined;
  /** When it last checked in (what it captures and logs by rate covers the time since). */
  lastCheckIn?: number;
  /** The fraction of a line each log fault owes it, by fault. */
  logsOwed?: Map<string, number>;
  lastTrim?: number;
  /** The part's own `triggers` section, as stored. */
  readonly triggers: unknown;
}

/**
 * Reads a part's config as its machine sees it, its fragments resolved (a config importing
 * fragments has a revision naming their revisions too); an unreadable config runs nothing.
 */
function readConfig(db: Db, partId: string, lastUpdated: number): Known['config'] & { usesFragments: boolean; triggers: unknown } {
  const part = getPart(db, partId);
  const stored: unknown = part ? JSON.parse(part.config) : {};
  const usesFragments = part !== undefined && stored !== null && typeof stored === 'object' && 'fragments' in stored;
  const resolution = usesFragments && part ? resolvePart(db, part) : undefined;
  return {
    usesFragments,
    triggers: isObject(stored) ? stored.triggers : undefined,
    revision: resolution ? machineRevision(lastUpdated, resolution) : configRevision(lastUpdated),
    ...readMachineConfig(resolution ? resolution.config : stored),
  };
}

/** A package entry as the registry gives it: the version to download, or why there is none. */
function fetchPackage(db: Db, entry: PackageConfig): FetchedPackage {
  const base = { name: entry.name, packageId: entry.package, type: entry.type ?? '' };
  const wanted = entry.version ?? '';
  const id = splitPackageId(entry.package);
  const found = id ? resolvePackageVersion(db, id.organizationId, id.name, wanted) : undefined;
  if (found && found.type === entry.type) return { ...base, version: found.version, totalBytes: found.size };
  const written = isLatestPackageVersion(wanted) ? 'latest' : wanted;
  const missing = found
    ? `the registry's ${entry.package}@${found.version} is a ${found.type} package, not ${entry.type}`
    : isLatestPackageVersion(wanted)
      ? `the registry has no package ${entry.package}`
      : `the registry has no version ${wanted} of ${entry.package}`;
  return { ...base, version: written, totalBytes: 0, missing };
}

export interface SimulatorOptions extends Timings {
  readonly checkInIntervalMs: number;
}

export class MachineSimulator {
  private readonly known = new Map<string, Known>();
  /** The part each remote address names (null: none), looked up once until the set of parts changes. */
  private readonly addresses = new Map<string, string | null>();
  private partCount = -1;
  private readonly models = new Map<string, readonly string[]>();
  /** Parts that did not check in at this tick (offline). */
  private offline = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  /** What each part last reported, as stored: where its run goes on from in this process. */
  private readonly resumed = new Map<string, PartRun>();
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly faults: MachineFaults,
    private readonly options: SimulatorOptions,
    private readonly now: () => number,
    private readonly readings?: SensorReadings,
  ) {}

  /**
   * Checks every part in now and then at every interval until stop(). First each part goes on
   * from what it last reported, through the check-ins it missed while no emulator ran.
   */
  start(): void {
    try {
      this.catchUp();
    } catch (err) {
      process.stderr.write(`simulated machines: catching up failed: ${errorMessage(err)}\n`);
    }
    const loop = (): void => {
      if (this.stopped) return;
      const began = Date.now();
      try {
        this.tick();
      } catch (err) {
        // A closed database ends the loop; anything else is reported and the loop goes on.
        if (this.stopped || !this.db.open) return;
        process.stderr.write(`simulated machines: check-in failed: ${errorMessage(err)}\n`);
      }
      this.timer = setTimeout(loop, Math.max(0, this.options.checkInIntervalMs - (Date.now() - began)));
      this.timer.unref();
    };
    loop();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /** Takes up each part's last reported run, then replays the check-ins missed since the earliest of them. */
  private catchUp(): void {
    const records = allCheckins(this.db).filter((r) => r.run !== undefined && r.lastAccess !== undefined);
    for (const r of records) this.resumed.set(r.partId, JSON.parse(r.run as string) as PartRun);
    if (records.length === 0) return;
    const from = Math.min(...records.map((r) => r.lastAccess as number));
    // Check-ins replayed are no news: triggers fire on what happens from now on.
    for (const at of missedCheckIns(from, this.now(), this.options.checkInIntervalMs)) this.tick(at, false);
  }

  /** One check-in of every part that is not offline, at `now` (the clock's, unless catching up, when triggers do not fire). */
  tick(now = this.now(), live = true): void {
    const { db } = this;
    const requests: WebhookRequest[] = [];
    db.transaction(() => {
      const parts = partsToCheckIn(db);
      const versions = deployedVersions(db);
      const generation = fragmentGeneration(db);
      const present = new Set<string>();
      if (parts.length !== this.partCount) {
        this.addresses.clear();
        this.partCount = parts.length;
      }
      this.offline = new Set(parts.filter((p) => this.faults.offline({ machineId: p.robotId, machineName: p.robotName })).map((p) => p.id));
      for (const part of parts) {
        present.add(part.id);
        if (this.offline.has(part.id)) continue;
        const ingested = this.checkInPart(part, versions.get(part.id), now, generation);
        if (live) requests.push(...this.fireIngestion(part.id, ingested, now));
      }
      for (const id of this.known.keys()) if (!present.has(id)) this.known.delete(id);
      if (live) requests.push(...this.fireLiveness(parts, now));
    }).immediate();
    // Requests go out once the check-in that fired them is stored.
    for (const request of requests) void deliverWebhook(request, (partId, logger, message) => this.logLater(partId, logger, message));
  }

  /**
   * Fires the triggers of each part whose online state changed since triggers last saw it:
   * e-mails are log lines now, webhook requests are returned to be made after the transaction.
   */
  private fireLiveness(parts: readonly CheckinPart[], now: number): WebhookRequest[] {
    const { db } = this;
    const seen = seenLiveness(db);
    const accessed = lastAccesses(db);
    const threshold = onlineThresholdMs(this.options.checkInIntervalMs);
    const requests: WebhookRequest[] = [];
    for (const part of parts) {
      const last = accessed.get(part.id);
      if (last === undefined) continue;
      const online = now - last <= threshold;
      const before = seen.get(part.id);
      if (before !== (online ? 'online' : 'offline')) recordLiveness(db, part.id, online);
      const event = livenessEvent(before, online);
      if (event !== undefined) requests.push(...this.notify(part.id, event, now));
    }
    return requests;
  }

  /** The triggers what a part's check-in ingested fires, notified as on any event. */
  private fireIngestion(partId: string, ingested: Ingested, now: number): WebhookRequest[] {
    const firings = ingestionFirings(this.known.get(partId)?.triggers, ingested);
    const events = [...new Set(firings.map((f) => f.event))];
    return events.flatMap((event) =>
      this.notify(
        partId,
        event,
        now,
        firings.filter((f) => f.event === event),
      ),
    );
  }

  /**
   * The notifications a part's triggers send on an event (for what was ingested, only the
   * triggers it fired): recorded as sent, e-mails logged, webhook requests returned.
   */
  private notify(partId: string, event: FiredEvent, now: number, firings?: readonly IngestionFiring[]): WebhookRequest[] {
    const { db } = this;
    let triggers = this.known.get(partId)?.triggers;
    if (firings === undefined) {
      const stored = getPart(db, partId)?.config;
      const config: unknown = stored === undefined ? undefined : JSON.parse(stored);
      triggers = isObject(config) ? config.triggers : undefined;
    }
    const byName = new Map(firings?.map((f) => [f.triggerName, f]));
    const fired = firings === undefined ? undefined : (name: string): boolean => byName.has(name);
    const due = dueNotifications(triggers, event, notificationTimes(db, partId), now, fired);
    const who = due.length > 0 ? partIdentity(db, partId) : undefined;
    if (who === undefined) return [];
    const requests: WebhookRequest[] = [];
    for (const n of due) {
      recordNotification(db, partId, n.triggerName, n.index, now);
      const firing = byName.get(n.triggerName);
      if (n.type === 'email') appendLog(db, partId, now, 'info', triggerLogger(n.triggerName), emailLine(n.value, event, who));
      else
        requests.push({
          partId,
          triggerName: n.triggerName,
          event,
          url: n.value,
          headers: { ...livenessHeaders(who), ...(firing ? ingestionHeaders(firing) : {}) },
          ...(firing ? { body: ingestionBody(firing) } : {}),
        });
    }
    return requests;
  }

  /** A log line told after a tick (a webhook's failure), while the database is open. */
  private logLater(partId: string, logger: string, message: string): void {
    if (this.stopped || !this.db.open) return;
    try {
      appendLog(this.db, partId, this.now(), 'error', logger, message);
    } catch (err) {
      process.stderr.write(`simulated machines: a trigger's log line was lost: ${errorMessage(err)}\n`);
    }
  }

  private checkInPart(
    part: CheckinPart,
    versions: Map<string, { moduleId: string; version: string }> | undefined,
    now: number,
    generation: number,
  ): Ingested {
    const { db } = this;
    let known = this.known.get(part.id);
    if (!known || known.lastUpdated !== part.lastUpdated || (known.generation !== undefined && known.generation !== generation)) {
      const { usesFragments, triggers, ...config } = readConfig(db, part.id, part.lastUpdated);
      known = {
        lastUpdated: part.lastUpdated,
        triggers,
        generation: usesFragments ? generation : undefined,
        config,
        fetchedPackages: undefined,
        run: known?.run ?? this.resumed.get(part.id),
        runDigest: known?.runDigest,
        ...(known?.lastCheckIn === undefined ? {} : { lastCheckIn: known.lastCheckIn }),
        ...(known?.logsOwed === undefined ? {} : { logsOwed: known.logsOwed }),
        ...(known?.lastTrim === undefined ? {} : { lastTrim: known.lastTrim }),
      };
      this.known.set(part.id, known);
    }
    if (known.fetchedPackages === undefined || known.fetchedPackages.some((p) => p.missing !== undefined)) {
      known.fetchedPackages = known.config.packages.map((entry) => fetchPackage(db, entry));
    }
    const modules: FetchedConfig['modules'][number][] = [];
    const unresolved: FetchedConfig['unresolved'][number][] = [];
    for (const m of known.config.modules) {
      if (m.moduleId === undefined) {
        modules.push({ name: m.name, moduleId: '', version: '' });
        continue;
      }
      const deployed = versions?.get(m.name);
      if (deployed && deployed.moduleId === m.moduleId)
        modules.push({
          name: m.name,
          moduleId: m.moduleId,
          version: deployed.version,
          models: this.modelsOf(m.moduleId, deployed.version),
        });
      else
        unresolved.push({ name: m.name, reason: `the registry has no version of ${m.moduleId} that ${JSON.stringify(m.policy)} admits` });
    }
    const machine = { machineId: part.robotId, machineName: part.robotName };
    const remotes = known.config.remotes.map((r) => this.fetchRemote(machine, part.id, r));
    const { run, logs } = checkIn(
      known.run,
      { ...known.config, modules, unresolved, packages: known.fetchedPackages, remotes },
      now,
      this.options,
      {
        crashes: (moduleId, version) => this.faults.crashes(machine, moduleId, version),
        unhealthy: (model) => this.faults.unhealthy(machine, model),
        packageFails: (p) =>
          this.faults.packageFails(machine, [p.name, p.packageId, splitPackageId(p.packageId)?.name ?? p.packageId], p.version),
        // A maintenance fault naming the machine wins over the sensor's readings; open when neither says.
        maintenanceReading: (settings) =>
          this.faults.maintenanceFault(machine) ??
          this.readings?.maintenanceAnswer(part.id, maintenanceSensorShortName(settings.sensorName), settings.key) ??
          'open',
        jobFails: (job) => this.faults.jobFails(machine, job),
      },
      part.restartRequested,
    );
    known.run = run;
    const json = JSON.stringify(run);
    const digest = crypto.createHash('sha1').update(json).digest('base64');
    const changed = digest !== known.runDigest;
    known.runDigest = digest;
    recordCheckin(db, part.id, now, changed ? json : undefined);
    const { lines: faultLines, points } = this.captureAndLog(part.id, known, run, machine, now);
    const lines = [...logs, ...faultLines];
    for (const line of lines) appendLog(db, part.id, now, line.level, line.logger, line.message);
    if (lines.length > 0) trimLogs(db, part.id, LOGS_KEPT);
    return { points, lines: lines.map((l) => ({ ...l, time: now })) };
  }

  /**
   * What the part captured since its last check-in (its ready resources' capture methods,
   * from the readings set for them) and the lines its state and its log faults owe it:
   * stores the points, returns the lines.
   */
  private captureAndLog(
    partId: string,
    known: Known,
    run: PartRun,
    machine: { machineId: string; machineName: string },
    now: number,
  ): { lines: { level: string; logger: string; message: string }[]; points: IngestedPoint[] } {
    const since = known.lastCheckIn;
    known.lastCheckIn = now;
    const points: IngestedPoint[] = [];
    if (since === undefined || now <= since) return { lines: [], points };
    const running: RunningVersions = {
      modules: run.modules.filter((m) => m.moduleId !== ''),
      packages: (run.packages ?? []).map((p) => ({
        names: [p.name, p.packageId, splitPackageId(p.packageId)?.name ?? p.packageId],
        version: p.version,
      })),
    };
    const ready = new Map(run.resources.filter((r) => r.state === ResourceState.READY).map((r) => [r.name, r]));
    for (const source of captureSources(known.config.resources)) {
      const resource = ready.get(source.resourceName);
      const readings = this.readings?.get(partId, source.resourceName);
      if (!resource || readings === undefined) continue;
      const subtype = `${resource.namespace}:${resource.type}:${resource.subtype}`;
      for (const time of captureTimes(since, now, source.hz)) {
        const captured = capturedReadings(readings, `${partId}\0${source.resourceName}`, time, (field) =>
          this.faults.signalFactor(machine, running, field),
        );
        const payload = source.methodName === 'Readings' ? { readings: captured } : captured;
        const point = { resourceName: source.resourceName, resourceSubtype: subtype, methodName: source.methodName, time, payload };
        appendCaptured(this.db, partId, point);
        points.push(point);
      }
    }
    if (known.lastTrim === undefined || now - known.lastTrim >= CAPTURED_TRIM_EVERY_MS) {
      known.lastTrim = now;
      trimCaptured(this.db, partId, now - CAPTURED_KEPT_MS);
    }
    const owed = (known.logsOwed ??= new Map());
    const lines: { level: string; logger: string; message: string }[] = [];
    const rates = [
      ...stateLogRates(run.resources.filter((r) => r.state !== ResourceState.READY)),
      ...this.faults
        .logRates(machine, running)
        .map((r) => ({ ...r, key: `fault\0${r.text}`, logger: 'rdk.modmanager', message: `simulated ${r.level} line (${r.text})` })),
    ];
    for (const rate of rates) {
      const due = linesDue(rate.perMinute, now - since, owed.get(rate.key) ?? 0);
      owed.set(rate.key, due.carried);
      for (let i = 0; i < due.lines; i++) lines.push({ level: rate.level, logger: rate.logger, message: rate.message });
    }
    return { lines, points };
  }

  /** The models a registry module's version registers (looked up once per version). */
  private modelsOf(moduleId: string, version: string): readonly string[] {
    const key = `${moduleId}@${version}`;
    let models = this.models.get(key);
    if (models === undefined) {
      const item = findRegistryItem(this.db, moduleId);
      models = item
        ? (registryVersions(this.db, item.itemId)
            .find((v) => v.version === version)
            ?.models.map((m) => m.model) ?? [])
        : [];
      this.models.set(key, models);
    }
    return models;
  }

  /** A remote as this machine reaches it: the ready resources of the part at its address, as that part's last check-in left them. */
  private fetchRemote(
    machine: { machineId: string; machineName: string },
    selfId: string,
    r: MachineConfigRead['remotes'][number],
  ): FetchedRemote {
    const base = { name: r.name, address: r.address, prefix: r.prefix };
    if (this.faults.remoteUnreachable(machine, [r.name, r.address])) return { ...base, resources: [], unreachable: 'connection refused' };
    let target = this.addresses.get(r.address);
    if (target === undefined) {
      target = r.address === '' ? null : (partByHost(this.db, r.address)?.id ?? null);
      this.addresses.set(r.address, target);
    }
    if (target === null) return { ...base, resources: [], unreachable: `no machine answers at ${JSON.stringify(r.address)}` };
    if (target === selfId) return { ...base, resources: [], unreachable: 'the address is this machine itself' };
    const run = this.known.get(target)?.run;
    if (this.offline.has(target) || run === undefined)
      return { ...base, resources: [], unreachable: `the machine at ${r.address} is offline` };
    const resources = run.resources
      .filter((res) => res.entry !== '' && res.state === ResourceState.READY)
      .map(({ namespace, type, subtype, name }) => ({ namespace, type, subtype, name }));
    return { ...base, resources };
  }
}
