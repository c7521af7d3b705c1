import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createServiceClient, type ServiceClient } from '../../src/api/client';
import { startEmulator, type ClockMode, type EmulatorCredentials } from '../../src/emulator';
import { LocalStateBackend } from '../../src/engine/state/local-backend';
import { App, LocalBackend, TerraformStack } from 'cdktf';
import { Dataset, FleetProvider, Machine, ModelType, ModularResource, Module, Secret, TrainingJob } from '../../src';

export interface FleetShape {
  readonly machines?: readonly string[];
  readonly timeoutMs?: number;
  readonly policy?: string;
  readonly token?: string;
  /** The token by reference (Secret.fromEnv, Secret.fromFile), in place of `token`. */
  readonly tokenRef?: Secret;
  /** Model version of the training job; undefined = no job. */
  readonly jobVersion?: string;
  readonly jobTags?: readonly string[];
  /** Extra env entries of each machine's module. */
  readonly env?: Readonly<Record<string, string>>;
  /** Extra attributes of each machine's ultrasonic sensor. */
  readonly sensorAttributes?: Readonly<Record<string, string>>;
  /** Declares more constructs in each machine (triggers, remotes, ...). */
  readonly inEachMachine?: (machine: Machine) => void;
}

/** Synthesizes a small fleet with the real constructs into `outdir`. */
export function synthFleet(outdir: string, shape: FleetShape = {}): void {
  const app = new App({ outdir });
  const stack = new TerraformStack(app, 'fleet');
  // Terraform's own state (when the stack is run by terraform) stays in the scratch project.
  new LocalBackend(stack, { path: path.join(path.dirname(path.resolve(outdir)), 'terraform.fleet.tfstate') });
  new FleetProvider(stack, 'cloud', {});
  for (const name of shape.machines ?? ['picker-1', 'picker-2']) {
    const machine = new Machine(stack, name, { name });
    const sensors = new Module(machine, 'sensors', {
      moduleId: 'acme:sensors',
      version: shape.policy ?? '~1.2',
      env: { PATH: '/opt/acme/bin:${environment.PATH}', ...shape.env },
      sensitiveEnv: { API_TOKEN: shape.tokenRef ?? Secret.plainText(shape.token ?? 'token-one') },
    });
    const board = new ModularResource(machine, 'board', { name: 'board-1', api: 'rdk:component:board', model: sensors.model('pi-board') });
    new ModularResource(machine, 'ultrasonic', {
      name: 'ultrasonic-1',
      api: 'rdk:component:sensor',
      model: sensors.model('hc-sr04'),
      attributes: {
        trigger_pin: '11',
        echo_interrupt_pin: '13',
        board: 'board-1',
        timeout_ms: shape.timeoutMs ?? 150,
        ...shape.sensorAttributes,
      },
      dependsOn: [board],
    });
    shape.inEachMachine?.(machine);
  }
  const boxes = new Dataset(stack, 'boxes', { name: 'boxes' });
  if (shape.jobVersion !== undefined) {
    new TrainingJob(stack, 'detector', {
      dataset: boxes,
      modelName: 'box-detector',
      modelVersion: shape.jobVersion,
      modelType: ModelType.OBJECT_DETECTION,
      tags: [...(shape.jobTags ?? ['box'])],
    });
  }
  app.synth();
}

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const BIN = path.resolve(__dirname, '../../bin/fleetform.js');

/** A running `fleetform` command: its result once it ends, and what it has written to stderr so far. */
export interface RunningCli {
  readonly result: Promise<CliResult>;
  /** Resolves once stderr holds `text`; rejects if the command ends first. */
  stderrShows(text: string): Promise<void>;
  /** Resolves once stdout holds `text`; rejects if the command ends first. */
  stdoutShows(text: string): Promise<void>;
}

/** Starts the real `fleetform` command in `cwd`. */
export function startFleetform(cwd: string, args: readonly string[], env: Record<string, string>): RunningCli {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const result = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
  const shows = (stream: NodeJS.ReadableStream, read: () => string, name: string) => (text: string) =>
    new Promise<void>((resolve, reject) => {
      const check = (): void => {
        if (!read().includes(text)) return;
        stream.off('data', check);
        resolve();
      };
      stream.on('data', check);
      check();
      void result.then(
        () => reject(new Error(`fleetform ended without writing ${JSON.stringify(text)} on ${name}; stdout: ${stdout}; stderr: ${stderr}`)),
        reject,
      );
    });
  return { result, stderrShows: shows(child.stderr, () => stderr, 'stderr'), stdoutShows: shows(child.stdout, () => stdout, 'stdout') };
}

/**
 * Simulated machines that check in every 50 ms and start modules and resources at once (a
 * gate settles in a fraction of a second), set in this process's environment, which the
 * emulator reads when it starts, until the returned function puts the environment back.
 */
export function quickMachines(): () => void {
  const settings: Record<string, string> = {
    FLEETFORM_EMULATOR_CHECK_IN_INTERVAL: '50',
    FLEETFORM_EMULATOR_MODULE_START_TIME: '0',
    FLEETFORM_EMULATOR_RESOURCE_CONFIGURE_TIME: '0',
  };
  const before = Object.keys(settings).map((key) => [key, process.env[key]] as const);
  Object.assign(process.env, settings);
  return () => {
    for (const [key, value] of before) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
}

/** Runs the real `fleetform` command in `cwd`. */
export function fleetform(cwd: string, args: readonly string[], env: Record<string, string>): Promise<CliResult> {
  return startFleetform(cwd, args, env).result;
}

/** A project folder with its own emulator, the env that points the command at it, and a client. */
export interface EmulatorProject {
  readonly dir: string;
  readonly env: Record<string, string>;
  readonly client: ServiceClient;
  readonly outdir: string;
  /** The emulator's seeded organization, location and key. */
  readonly credentials: EmulatorCredentials;
  synth(shape?: FleetShape): void;
  /** Runs an engine command on the synthesized output (`--synth-out` appended). */
  run(...args: string[]): Promise<CliResult>;
  /** Runs a command that reads no app (`state list|show|rm`), in the project folder. */
  runBare(...args: string[]): Promise<CliResult>;
  backend(): LocalStateBackend;
  /** Stops the emulator and removes the folder, unless `keep` (a copy may then seed another project). */
  close(options?: { keep?: boolean }): Promise<void>;
}

/** `options.clock` `frozen`: training jobs and cancels move only when a test advances them. */
/**
 * A suite's project on simulated machines that check in quickly: opened before the suite's
 * tests (handed to `take`), closed after them, the machines' settings restored.
 */
export function suiteOnQuickMachines(prefix: string, take: (project: EmulatorProject) => void): void {
  let restoreEnv: (() => void) | undefined;
  let project: EmulatorProject | undefined;
  beforeAll(async () => {
    restoreEnv = quickMachines();
    project = await openEmulatorProject(prefix);
    take(project);
  });
  afterAll(async () => {
    await project?.close();
    restoreEnv?.();
  });
}

/**
 * `options.from`: the folder of a closed, kept project, copied first, so the new project starts
 * with its emulator's data and its state (what a setup apply left, made once for many trials).
 */
export async function openEmulatorProject(prefix: string, options: { clock?: ClockMode; from?: string } = {}): Promise<EmulatorProject> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  if (options.from) await fs.cp(options.from, dir, { recursive: true });
  const emulator = await startEmulator({
    dataDir: path.join(dir, 'emulator'),
    port: 0,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const { apiKey, apiKeyId } = emulator.credentials;
  const env = { FLEETFORM_ENDPOINT: emulator.url, FLEETFORM_API_KEY: apiKey, FLEETFORM_API_KEY_ID: apiKeyId };
  const client = await createServiceClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey },
  });
  const outdir = path.join(dir, 'cdktf.out');
  return {
    dir,
    env,
    client,
    outdir,
    credentials: emulator.credentials,
    synth: (shape = {}) => synthFleet(outdir, shape),
    run: (...args) => fleetform(dir, [...args, '--synth-out', outdir], env),
    runBare: (...args) => fleetform(dir, args, env),
    backend: () => new LocalStateBackend(path.join(dir, '.fleetform', 'state')),
    close: async ({ keep = false } = {}) => {
      await client.close();
      await emulator.close();
      if (!keep) await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A fleet applied once per suite into a kept, closed project, made by the first test that
 * asks (`prepare` synthesizes it); each test opens its own copy with `openEmulatorProject(..., { from })`.
 * The seed's folder is removed after the suite.
 */
export function appliedSeed(prefix: string, prepare: (seed: EmulatorProject) => void): () => Promise<string> {
  let seeding: Promise<string> | undefined;
  afterAll(async () => {
    const seed = await seeding?.catch(() => undefined);
    if (seed) await fs.rm(seed, { recursive: true, force: true });
  });
  return () => {
    seeding ??= (async () => {
      const seed = await openEmulatorProject(prefix);
      prepare(seed);
      const applied = await seed.run('apply', '--auto-approve');
      await seed.close({ keep: true });
      if (applied.code !== 0) throw new Error(`the seed apply failed: ${applied.stdout}${applied.stderr}`);
      return seed.dir;
    })();
    return seeding;
  };
}

/**
 * An empty project for `fleetform adopt` to write into: a package.json and a node_modules
 * holding this checkout as fleetform beside its cdktf, constructs and tsx.
 */
export async function newAdoptionProject(prefix: string, name: string): Promise<string> {
  const root = path.resolve(__dirname, '../..');
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  await fs.mkdir(path.join(dir, 'node_modules'));
  for (const m of ['cdktf', 'constructs', 'tsx', '@types'])
    await fs.symlink(path.join(root, 'node_modules', m), path.join(dir, 'node_modules', m));
  await fs.symlink(root, path.join(dir, 'node_modules', 'fleetform'));
  await fs.writeFile(path.join(dir, 'package.json'), JSON.stringify({ name, private: true, dependencies: { cdktf: '*', fleetform: '*' } }));
  return dir;
}

/** The id of the training job a run going on now (an apply) submitted, once it has. */
export async function submittedTrainingJob(p: EmulatorProject, deadlineMs = 120_000): Promise<string> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const [job] = await p.client.mlTrainingClient.listTrainingJobs(p.credentials.organizationId);
    if (job) return job.id;
    if (Date.now() > until) throw new Error('the run submitted no training job');
    await new Promise((resolve) => setImmediate(resolve));
  }
}
