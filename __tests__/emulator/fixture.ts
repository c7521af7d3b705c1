/**
 * Per-file set-up of the emulator tests. Each fixture registers jest hooks where it is called
 * (a test file's top level): set-up in beforeAll, clean-up in afterAll. What beforeAll starts
 * is read through the returned object, in tests and in hooks declared after the call.
 */
import * as fs from 'node:fs';
import type { Client } from '@connectrpc/connect';
import { EmulatorService, type EmulatorServiceType } from '../../src/api/emulator-control';
import { loadServices, type AppServiceType, type Services } from '../../src/api/services';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator';
import { clientOf, tempDir, type Protocol } from './helpers';

/** A value set in beforeAll; reading it earlier is a mistake in the test file. */
function started<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is set up in beforeAll: read it in a test or a later hook`);
  return value;
}

/** A maker of fresh temp folders for the calling file; every folder it made is removed after the file's tests. */
export function scratchDirs(): () => string {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });
  return () => {
    const d = tempDir();
    dirs.push(d);
    return d;
  };
}

/** The emulator of a test file. */
export interface EmulatorFixture {
  readonly emulator: RunningEmulator;
  /** Its data folder (database and credentials.json). */
  readonly dataDir: string;
}

/** Whether a fixture is made once for the file's tests, or afresh for each test (tests that change what others read). */
export type FixtureScope = 'file' | 'test';

/**
 * An emulator for the calling file: started on port 0 in a fresh temp folder before its tests
 * (before each test with `per: 'test'`), closed and its folder removed after them.
 * Other options go to startEmulator (e.g. a clock).
 */
export function useEmulator(options: Omit<EmulatorOptions, 'dataDir' | 'port'> & { per?: FixtureScope } = {}): EmulatorFixture {
  const { per = 'file', ...emulatorOptions } = options;
  let running: { emulator: RunningEmulator; dataDir: string } | undefined;
  (per === 'test' ? beforeEach : beforeAll)(async () => {
    const dataDir = tempDir();
    running = { emulator: await startEmulator({ ...emulatorOptions, dataDir, port: 0 }), dataDir };
  });
  (per === 'test' ? afterEach : afterAll)(async () => {
    if (!running) return;
    await running.emulator.close();
    fs.rmSync(running.dataDir, { recursive: true, force: true });
  });
  return {
    get emulator() {
      return started(running, 'the emulator').emulator;
    },
    get dataDir() {
      return started(running, 'the data folder').dataDir;
    },
  };
}

/** The emulator of a test file and clients of the seeded owner key. */
export interface OwnerFixture extends EmulatorFixture {
  readonly services: Services;
  /** AppService over gRPC-web. */
  readonly app: Client<AppServiceType>;
  /** The emulator controls, over `controlsProtocol` (default gRPC-web). */
  readonly controls: Client<EmulatorServiceType>;
}

/** {@link useEmulator} plus the seeded owner's AppService and controls clients, made once before the file's tests. */
export function useOwnerClients(options: { controlsProtocol?: Protocol; per?: FixtureScope } = {}): OwnerFixture {
  const fixture = useEmulator({ per: options.per ?? 'file' });
  let clients: { services: Services; app: Client<AppServiceType>; controls: Client<EmulatorServiceType> } | undefined;
  (options.per === 'test' ? beforeEach : beforeAll)(async () => {
    const services = await loadServices();
    const app = await clientOf(fixture.emulator, services.app);
    const controls = await clientOf(fixture.emulator, EmulatorService, { protocol: options.controlsProtocol });
    clients = { services, app, controls };
  });
  return {
    get emulator() {
      return fixture.emulator;
    },
    get dataDir() {
      return fixture.dataDir;
    },
    get services() {
      return started(clients, 'the services').services;
    },
    get app() {
      return started(clients, 'the app client').app;
    },
    get controls() {
      return started(clients, 'the controls client').controls;
    },
  };
}
