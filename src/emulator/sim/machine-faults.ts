/**
 * Faults of simulated machines, as users write them:
 * - `module=<namespace>:<name>[@<version>]:crash`: the module (that version, or any) exits on start;
 * - `model=<namespace>:<family>:<model>:unhealthy`: resources of that model never become ready;
 * - `machine=<machine name or id>:offline`: the machine never checks in;
 * - `package=<name>[@<version>]:fail`: the package (that version, or any) fails to load; the name is
 *   its local name on the machine, its registry name or its id `<organization id>/<name>`;
 * - `maintenance=<machine name or id>:closed|open|error`: the machine's maintenance sensor reads
 *   reconfiguring as not allowed, allowed (the default), or fails to read (which blocks it too);
 * - `remote=<remote name or address>:unreachable`: machines using that remote cannot reach it;
 * - `job=<job name>:fail`: every run of jobs of that name fails;
 * - `signal=<module id or package>[@<version>]:<field>*<factor>`: on machines running that module
 *   (or package) version, the captured readings' field is scaled by the factor (`*0.7`: 70%);
 * - `logs=<module id or package>[@<version>]:<level>:<n>/min`: those machines log n lines a minute
 *   at that level;
 * each optionally followed by `:<percent>%`, the share of machines it hits (chosen by a hash of
 * the spec and the machine id, so the same machines every run).
 */
import * as crypto from 'node:crypto';
import { InputError } from '../../domain/errors';
import { isModelTriplet, isModuleId } from '../../domain/triplet';

/** The environment variable holding machine fault specs (comma-separated) for emulators started without flags. */
export const MACHINE_FAULTS_ENV = 'FLEETFORM_EMULATOR_MACHINE_FAULT';

export type MachineFault =
  | { readonly kind: 'crash'; readonly moduleId: string; readonly version?: string; readonly percent: number; readonly text: string }
  | { readonly kind: 'unhealthy'; readonly model: string; readonly percent: number; readonly text: string }
  | { readonly kind: 'offline'; readonly machine: string; readonly percent: number; readonly text: string }
  | { readonly kind: 'package-fails'; readonly name: string; readonly version?: string; readonly percent: number; readonly text: string }
  | {
      readonly kind: 'maintenance';
      readonly machine: string;
      readonly reading: MaintenanceReading;
      readonly percent: number;
      readonly text: string;
    }
  | { readonly kind: 'remote-unreachable'; readonly remote: string; readonly percent: number; readonly text: string }
  | { readonly kind: 'job-fails'; readonly job: string; readonly percent: number; readonly text: string }
  | {
      readonly kind: 'signal';
      readonly target: RunTarget;
      readonly field: string;
      readonly factor: number;
      readonly percent: number;
      readonly text: string;
    }
  | {
      readonly kind: 'logs';
      readonly target: RunTarget;
      readonly level: string;
      readonly perMinute: number;
      readonly percent: number;
      readonly text: string;
    };

/** What a signal or logs fault names: a registry module (by id) or a package (by name), at a version or any. */
export interface RunTarget {
  readonly module?: string;
  readonly pkg?: string;
  readonly version?: string;
}

/** The modules and packages a machine runs, as signal and logs faults match them. */
export interface RunningVersions {
  readonly modules: readonly { readonly moduleId: string; readonly version: string }[];
  /** Each package's names (local, registry, id) and its version. */
  readonly packages: readonly { readonly names: readonly string[]; readonly version: string }[];
}

const LOG_FAULT_LEVELS = ['debug', 'info', 'warn', 'error'];

function runs(target: RunTarget, running: RunningVersions): boolean {
  const at = (version: string): boolean => target.version === undefined || target.version === version;
  if (target.module !== undefined) return running.modules.some((m) => m.moduleId === target.module && at(m.version));
  return running.packages.some((p) => p.names.includes(target.pkg ?? '') && at(p.version));
}

/** Reads `<module id or package>[@<version>]`. */
function runTarget(target: string, text: string, path: string, example: string): RunTarget {
  const at = target.lastIndexOf('@');
  const name = at < 0 ? target : target.slice(0, at);
  const version = at < 0 ? undefined : target.slice(at + 1);
  if (name.trim() === '' || version === '' || (name.includes(':') && !isModuleId(name)))
    fail(text, path, `${JSON.stringify(target)} is not a module id or a package, with an optional version`, `write it like ${example}`);
  return { ...(name.includes(':') ? { module: name } : { pkg: name }), ...(version === undefined ? {} : { version }) };
}

/** What a machine's maintenance sensor reads: reconfiguring allowed, not allowed, or the read fails. */
export const MAINTENANCE_READINGS = ['open', 'closed', 'error'] as const;
export type MaintenanceReading = (typeof MAINTENANCE_READINGS)[number];
/** What a maintenance sensor answers: a reading, or why the read fails. */
export type MaintenanceAnswer = MaintenanceReading | { readonly error: string };

const EXAMPLES =
  'module=acme:sensors@1.3.0:crash, model=acme:sensors:hc-sr04:unhealthy, machine=picker-3:offline, package=box-detector@3:fail, maintenance=picker-3:closed, remote=arm-cell:unreachable, job=hourly-check:fail, signal=acme:picker@1.4.0:picks_per_hour*0.7, logs=acme:picker@1.4.0:error:12/min, each optionally ending in :30%';

function fail(text: string, path: string, why: string, hint: string): never {
  throw new InputError(`machine fault ${JSON.stringify(text)}: ${why}`, { path, hint });
}

/** Splits a trailing `:<n>%` off; 100 when there is none. */
function splitPercent(body: string, text: string, path: string): { body: string; percent: number } {
  const m = /^(.*):([^:]*%)$/.exec(body);
  if (!m) return { body, percent: 100 };
  const digits = (m[2] as string).slice(0, -1);
  const percent = Number(digits);
  if (!/^\d+$/.test(digits) || percent < 1 || percent > 100) {
    fail(
      text,
      path,
      `the share ${JSON.stringify(m[2])} is not a whole percent from 1 to 100`,
      'write it like :30%, or leave it out to hit every machine',
    );
  }
  return { body: m[1] as string, percent };
}

/** Splits `<target>:<effect>`; the effect is the last colon-separated word. */
function splitEffect(body: string, expected: string, text: string, path: string): string {
  const at = body.lastIndexOf(':');
  const effect = at < 0 ? '' : body.slice(at + 1);
  if (effect !== expected) {
    fail(
      text,
      path,
      `expected the effect ${JSON.stringify(expected)} at the end, not ${JSON.stringify(effect)}`,
      `write it like ${EXAMPLES}`,
    );
  }
  return body.slice(0, at);
}

/** Reads one spec; `path` names the flag or variable in errors. */
export function parseMachineFault(raw: string, path: string): MachineFault {
  const text = raw.trim();
  const eq = text.indexOf('=');
  const key = eq < 0 ? '' : text.slice(0, eq);
  const { body, percent } = splitPercent(text.slice(eq + 1), text, path);
  switch (key) {
    case 'module': {
      const target = splitEffect(body, 'crash', text, path);
      const [moduleId = '', version, ...more] = target.split('@');
      if (!isModuleId(moduleId) || more.length > 0 || version === '') {
        fail(
          text,
          path,
          `${JSON.stringify(target)} is not a module id with an optional version`,
          'write the module as namespace:name or namespace:name@1.3.0, e.g. module=acme:sensors@1.3.0:crash',
        );
      }
      return { kind: 'crash', moduleId, ...(version === undefined ? {} : { version }), percent, text };
    }
    case 'model': {
      const model = splitEffect(body, 'unhealthy', text, path);
      if (!isModelTriplet(model)) {
        fail(
          text,
          path,
          `${JSON.stringify(model)} is not a model triplet`,
          'write the model as namespace:family:name, e.g. model=acme:sensors:hc-sr04:unhealthy',
        );
      }
      return { kind: 'unhealthy', model, percent, text };
    }
    case 'machine': {
      const machine = splitEffect(body, 'offline', text, path);
      if (machine.trim() === '') fail(text, path, 'the machine is missing', 'name the machine (or its id), e.g. machine=picker-3:offline');
      return { kind: 'offline', machine, percent, text };
    }
    case 'package': {
      const target = splitEffect(body, 'fail', text, path);
      const at = target.lastIndexOf('@');
      const name = at < 0 ? target : target.slice(0, at);
      const version = at < 0 ? undefined : target.slice(at + 1);
      if (name.trim() === '' || version === '') {
        fail(
          text,
          path,
          `${JSON.stringify(target)} is not a package with an optional version`,
          'write the package as NAME or NAME@VERSION, e.g. package=box-detector@3:fail',
        );
      }
      return { kind: 'package-fails', name, ...(version === undefined ? {} : { version }), percent, text };
    }
    case 'maintenance': {
      const at = body.lastIndexOf(':');
      const reading = at < 0 ? '' : body.slice(at + 1);
      const machine = at < 0 ? '' : body.slice(0, at);
      if (!(MAINTENANCE_READINGS as readonly string[]).includes(reading)) {
        fail(
          text,
          path,
          `expected the reading closed, open or error at the end, not ${JSON.stringify(reading)}`,
          'write it like maintenance=picker-3:closed',
        );
      }
      if (machine.trim() === '')
        fail(text, path, 'the machine is missing', 'name the machine (or its id), e.g. maintenance=picker-3:closed');
      return { kind: 'maintenance', machine, reading: reading as MaintenanceReading, percent, text };
    }
    case 'remote': {
      const remote = splitEffect(body, 'unreachable', text, path);
      if (remote.trim() === '')
        fail(
          text,
          path,
          'the remote is missing',
          'name the remote (its name in the config or its address), e.g. remote=arm-cell:unreachable',
        );
      return { kind: 'remote-unreachable', remote, percent, text };
    }
    case 'job': {
      const job = splitEffect(body, 'fail', text, path);
      if (job.trim() === '') fail(text, path, 'the job is missing', 'name the job as the config does, e.g. job=hourly-check:fail');
      return { kind: 'job-fails', job, percent, text };
    }
    case 'signal': {
      const example = 'signal=acme:picker@1.4.0:picks_per_hour*0.7';
      const m = /^(.*):([^:*]+)\*([^:*]+)$/.exec(body);
      const factor = Number(m?.[3]);
      if (!m || !Number.isFinite(factor) || factor < 0)
        fail(text, path, 'expected <module or package>[@version]:<field>*<factor> with a factor from 0', `write it like ${example}`);
      return { kind: 'signal', target: runTarget(m[1] as string, text, path, example), field: m[2] as string, factor, percent, text };
    }
    case 'logs': {
      const example = 'logs=acme:picker@1.4.0:error:12/min';
      const m = /^(.*):([a-z]+):(\d+(?:\.\d+)?)\/min$/.exec(body);
      if (!m || !LOG_FAULT_LEVELS.includes(m[2] as string))
        fail(text, path, `expected <module or package>[@version]:<${LOG_FAULT_LEVELS.join('|')}>:<n>/min`, `write it like ${example}`);
      const target = runTarget(m[1] as string, text, path, example);
      return { kind: 'logs', target, level: m[2] as string, perMinute: Number(m[3]), percent, text };
    }
    default:
      return fail(
        text,
        path,
        `unknown target ${JSON.stringify(key)}`,
        `start with module=, model=, machine=, package=, maintenance=, remote=, job=, signal= or logs=: ${EXAMPLES}`,
      );
  }
}

/** Specs from the environment variable (comma-separated); none when unset. */
export function machineFaultsFromEnv(env: NodeJS.ProcessEnv): MachineFault[] {
  const text = env[MACHINE_FAULTS_ENV];
  if (!text) return [];
  return text
    .split(',')
    .filter((s) => s.trim() !== '')
    .map((s) => parseMachineFault(s, MACHINE_FAULTS_ENV));
}

/** Whether a fault with a share hits this machine: the same answer for the same spec and machine, every run. */
function hits(fault: MachineFault, machineId: string): boolean {
  if (fault.percent >= 100) return true;
  const digest = crypto.createHash('sha256').update(`${fault.text}\0${machineId}`).digest();
  return digest.readUInt32BE(0) % 100 < fault.percent;
}

/** The machine a check-in is for, as faults match it. */
export interface FaultTarget {
  readonly machineId: string;
  readonly machineName: string;
}

/** The faults in force (set at start, replaced at run time through the control service). */
export class MachineFaults {
  private faults: readonly MachineFault[] = [];

  constructor(initial: readonly MachineFault[] = []) {
    this.faults = [...initial];
  }

  list(): readonly MachineFault[] {
    return this.faults;
  }

  replace(faults: readonly MachineFault[]): void {
    this.faults = [...faults];
  }

  offline(m: FaultTarget): boolean {
    return this.faults.some(
      (f) => f.kind === 'offline' && (f.machine === m.machineName || f.machine === m.machineId) && hits(f, m.machineId),
    );
  }

  crashes(m: FaultTarget, moduleId: string, version: string): boolean {
    return this.faults.some(
      (f) => f.kind === 'crash' && f.moduleId === moduleId && (f.version === undefined || f.version === version) && hits(f, m.machineId),
    );
  }

  /** Whether the package fails to load: `names` are its local name, registry name and id. */
  packageFails(m: FaultTarget, names: readonly string[], version: string): boolean {
    return this.faults.some(
      (f) =>
        f.kind === 'package-fails' && names.includes(f.name) && (f.version === undefined || f.version === version) && hits(f, m.machineId),
    );
  }

  /** The machine's maintenance sensor reading: the last fault naming the machine wins; open when none does. */
  maintenanceReading(m: FaultTarget): MaintenanceReading {
    return this.maintenanceFault(m) ?? 'open';
  }

  /** The reading the last maintenance fault naming the machine sets; undefined when none does. */
  maintenanceFault(m: FaultTarget): MaintenanceReading | undefined {
    let reading: MaintenanceReading | undefined;
    for (const f of this.faults) {
      if (f.kind === 'maintenance' && (f.machine === m.machineName || f.machine === m.machineId) && hits(f, m.machineId))
        reading = f.reading;
    }
    return reading;
  }

  /** Whether a remote (by its name in the config or its address) cannot be reached from this machine. */
  remoteUnreachable(m: FaultTarget, names: readonly string[]): boolean {
    return this.faults.some((f) => f.kind === 'remote-unreachable' && names.includes(f.remote) && hits(f, m.machineId));
  }

  jobFails(m: FaultTarget, job: string): boolean {
    return this.faults.some((f) => f.kind === 'job-fails' && f.job === job && hits(f, m.machineId));
  }

  /** The factor a machine's captured readings of `field` are scaled by: every signal fault on what it runs, multiplied. */
  signalFactor(m: FaultTarget, running: RunningVersions, field: string): number {
    let factor = 1;
    for (const f of this.faults)
      if (f.kind === 'signal' && f.field === field && runs(f.target, running) && hits(f, m.machineId)) factor *= f.factor;
    return factor;
  }

  /** The extra log lines a minute a machine writes, by fault, for what it runs. */
  logRates(m: FaultTarget, running: RunningVersions): { readonly level: string; readonly perMinute: number; readonly text: string }[] {
    return this.faults.flatMap((f) =>
      f.kind === 'logs' && runs(f.target, running) && hits(f, m.machineId)
        ? [{ level: f.level, perMinute: f.perMinute, text: f.text }]
        : [],
    );
  }

  unhealthy(m: FaultTarget, model: string): boolean {
    return this.faults.some((f) => f.kind === 'unhealthy' && f.model === model && hits(f, m.machineId));
  }
}
