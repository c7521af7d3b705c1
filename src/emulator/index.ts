/**
 * The embedded cloud emulator: the service's real protobuf APIs (auth, app, dataset, ML
 * training) plus fleetform's own control service, on one plain-HTTP port speaking gRPC
 * (h2c), gRPC-web and Connect, persisted in SQLite in a data folder.
 */
import { EmulatorService } from '../api/emulator-control';
import { loadServices } from '../api/services';
import { loadDataService } from '../api/data-service';
import { dataService } from './rpc/data';
import { EmulatorClock } from './clock/clock';
import { resolveClockSettings, type ClockMode } from './clock/settings';
import type { EmulatorCredentials } from './credentials';
import { openDatabase } from './db/database';
import { appService } from './rpc/app';
import { authenticatedContext, authInterceptor, authService } from './rpc/auth';
import type { Backend } from './rpc/context';
import { controlService } from './rpc/control';
import { datasetService } from './rpc/dataset';
import { dataPipelinesService } from './rpc/data-pipelines';
import { CallCounter, callCounterInterceptor } from './rpc/call-counter';
import { FaultTable, faultInterceptor, type FaultReport } from './rpc/faults';
import { faultableMethodNames, installFaults, type FaultSpec } from './rpc/fault-spec';
import { mlTrainingService } from './rpc/ml-training';
import { packageService } from './rpc/packages';
import { ensureSeeded } from './seed';
import { gatedHandler } from './server/gate';
import { resolveLimits, type ServerLimits } from './server/limits';
import { listen } from './server/listener';
import { liveMachineStatus } from './rpc/live-machines';
import { MachineFaults } from './sim/machine-faults';
import { SensorReadings } from './sim/sensor-readings';
import { resolveSimulation, type SimulationSettings } from './sim/options';
import { MachineSimulator } from './sim/simulator';

export type { EmulatorCredentials } from './credentials';
export { CREDENTIALS_FILE, EmulatorCredentialsSchema, readCredentials } from './credentials';
export { DATABASE_FILE } from './db/database';
export { DEFAULT_LIMITS, LIMIT_ENV, parseLimit, resolveLimits, type ServerLimits } from './server/limits';
export { HEALTH_PATH } from './server/gate';
export { describeFaultReport, FAULTS_ENV, faultSpecsFromEnv, parseFaultSpec, type FaultSpec } from './rpc/fault-spec';
export type { FaultReport } from './rpc/faults';
export { MACHINE_FAULTS_ENV, machineFaultsFromEnv, parseMachineFault, type MachineFault } from './sim/machine-faults';
export { DEFAULT_SIMULATION, resolveSimulation, SIMULATION_ENV, type SimulationSettings } from './sim/options';
export {
  CLOCK_ENV,
  clockOptionsFromEnv,
  DEFAULT_TRAINING_DURATION_MS,
  parseClockMode,
  parseTrainingDuration,
  TRAINING_DURATION_ENV,
  type ClockMode,
} from './clock/settings';
export { SEED_MODULES, SEED_ORGANIZATION, SEED_TRAINING_SCRIPT } from './seed';

export interface EmulatorOptions {
  /** Folder holding the database and credentials.json (created when missing). */
  readonly dataDir: string;
  /** TCP port; 0 (the default) picks a free one. */
  readonly port?: number;
  /** Interface to listen on; default 127.0.0.1. */
  readonly host?: string;
  /** The base clock in milliseconds since the epoch (tests); default Date.now. The emulator's clock is this plus its steps, or frozen. */
  readonly now?: () => number;
  /** Submission to completion of a training job; else FLEETFORM_EMULATOR_TRAINING_DURATION, else one minute. */
  readonly trainingDurationMs?: number;
  /** `frozen` stops the clock at start, `running` lets it run; else FLEETFORM_EMULATOR_CLOCK, else as the data folder left it. */
  readonly clock?: ClockMode;
  /** Message size, timeouts and stream cap; unset ones come from FLEETFORM_EMULATOR_* variables, else the defaults. */
  readonly limits?: Partial<ServerLimits>;
  /** Calls that fail from the start (see `--fail`). */
  readonly faults?: readonly FaultSpec[];
  /** Simulated machines (on, check-in interval, start times, faults); unset ones come from FLEETFORM_EMULATOR_* variables, else the defaults. */
  readonly simulation?: Partial<SimulationSettings>;
}

export interface RunningEmulator {
  /** `http://<host>:<port>`, the serviceHost for clients. */
  readonly url: string;
  readonly port: number;
  /** The seeded organization's owner key and ids (also in DIR/credentials.json). */
  readonly credentials: EmulatorCredentials;
  /** Calls each service method received (by method name, e.g. `NewRobot`); the control service is not counted. */
  calls(): Readonly<Record<string, number>>;
  /** The simulated machines' settings in force (faults as set at start). */
  readonly simulation: SimulationSettings;
  /** Starts counting calls from zero. */
  resetCalls(): void;
  /** Every fault armed (by `faults` or the control service) and how many calls it failed. */
  faults(): FaultReport[];
  /** Stops serving (calls in flight may finish), closes open connections and the database. */
  close(): Promise<void>;
}

/** Starts an emulator on `dataDir`, seeding it on first start. */
export async function startEmulator(options: EmulatorOptions): Promise<RunningEmulator> {
  const host = options.host ?? '127.0.0.1';
  const services = await loadServices();
  const data = await loadDataService();
  const faults = new FaultTable();
  // Checked before the data folder is touched: a misspelt method stops the start.
  installFaults(
    faults,
    options.faults ?? [],
    faultableMethodNames([services.auth, services.app, services.dataset, services.mlTraining, data]),
  );
  const db = openDatabase(options.dataDir);
  try {
    const simulation = resolveSimulation(process.env, options.simulation);
    const settings = resolveClockSettings(process.env, options);
    const clock = new EmulatorClock(db, options.now ?? (() => Date.now()));
    if (settings.clock === 'frozen') clock.freeze();
    if (settings.clock === 'running') clock.resume();
    const backend: Backend = {
      db,
      services,
      faults,
      machineFaults: new MachineFaults(simulation.machineFaults),
      sensorReadings: new SensorReadings(),
      checkInIntervalMs: simulation.checkInIntervalMs,
      now: () => clock.now(),
      clock,
      trainingDurationMs: settings.trainingDurationMs,
    };
    const credentials = ensureSeeded(db, options.dataDir, backend.now());
    const counter = new CallCounter();
    const limits = resolveLimits(process.env, options.limits);
    const handler = gatedHandler({
      limits,
      authenticate: (serviceTypeName, authorization) => authenticatedContext(backend, serviceTypeName, authorization ?? null),
      interceptors: [
        callCounterInterceptor(counter, EmulatorService.typeName),
        faultInterceptor(backend.faults, EmulatorService.typeName),
        authInterceptor(backend),
      ],
      machineServices: [services.auth.typeName, services.robotStatus.typeName],
      routes: (router) => {
        router.service(services.auth, authService(backend));
        router.service(services.appWire, appService(backend));
        router.service(services.dataset, datasetService(backend));
        router.service(services.mlTraining, mlTrainingService(backend));
        router.service(EmulatorService, controlService(backend));
        router.service(services.robotStatus, liveMachineStatus(backend));
        router.service(services.packages, packageService(backend));
        router.service(services.dataPipelines, dataPipelinesService(backend));
        router.service(data, dataService(backend));
      },
    });
    const listener = await listen(handler, options.port ?? 0, host, limits);
    const simulator = simulation.simulate
      ? new MachineSimulator(db, backend.machineFaults, simulation, backend.now, backend.sensorReadings)
      : undefined;
    simulator?.start();
    const urlHost = host.includes(':') ? `[${host}]` : host;
    let closed: Promise<void> | undefined;
    return {
      url: `http://${urlHost}:${listener.port}`,
      port: listener.port,
      credentials,
      simulation,
      calls: () => counter.snapshot(),
      resetCalls: () => counter.reset(),
      faults: () => faults.report(),
      close: () => {
        simulator?.stop();
        closed ??= listener.close().then(() => {
          db.close();
        });
        return closed;
      },
    };
  } catch (err) {
    db.close();
    throw err;
  }
}
