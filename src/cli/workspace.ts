import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { InputError } from '../domain/errors';
import { defaultKinds, type DesiredStack, Engine, readStacks } from '../engine';
import { assertNothingLeftBehind, backendFor, declaredBackend, type ProjectStateBackend } from './state-backend';
import { appEndpointAllowed, appEndpointOf, chosenEndpoint, openConnection, type Connection } from './connection';
import { timePhase } from './phase-timings';
import { rolloutJournals } from './rollout-output';
import type { AppRunner } from './app-runner';
import { durationFlag, staleLockPolicy, type EngineCommandOptions } from './engine-options';

function positiveInt(text: string | undefined, flag: string, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 1000)
    throw new InputError(`expected a whole number from 1 to 1000, not ${JSON.stringify(text)}`, { path: flag });
  return n;
}

/** Everything an engine command needs: the synthesized stacks, a connection and an engine. */
export interface Workspace {
  readonly cwd: string;
  readonly stacks: DesiredStack[];
  readonly engine: Engine;
  readonly connection: Connection;
  readonly backend: ProjectStateBackend;
  close(): Promise<void>;
}

/** A connection opened before the stacks are known, on a guess of where they point. */
interface EarlyConnection {
  /** The endpoint the guess connects to; undefined for the embedded emulator. */
  readonly endpoint: string | undefined;
  readonly opened: Promise<{ connection: Connection } | { error: unknown }>;
}

/**
 * While the app synthesizes, the connection can already open when its target does not
 * depend on the stacks: FLEETFORM_ENDPOINT overrides them, and a project whose embedded
 * emulator already has its folder most likely uses it again. A wrong guess is closed and
 * the right one opened; nothing is created that the run would not create anyway.
 */
function openEarly(cwd: string, maxConnections: number): EarlyConnection | undefined {
  const fromEnv = process.env.FLEETFORM_ENDPOINT || undefined;
  if (!fromEnv && !existsSync(path.join(cwd, '.fleetform', 'emulator'))) return undefined;
  const opened = openConnection({ cwd, env: process.env, maxConnections }).then(
    (connection) => ({ connection }),
    (error: unknown) => ({ error }),
  );
  return { endpoint: fromEnv, opened };
}

async function discardEarly(early: EarlyConnection | undefined): Promise<void> {
  const r = await early?.opened;
  if (r && 'connection' in r) await r.connection.close();
}

/** The connection the stacks need: the early one when its guess was right, else a new one. */
async function connectionFor(
  early: EarlyConnection | undefined,
  cwd: string,
  maxConnections: number,
  stacksEndpoint: { endpoint: string; stack: string } | undefined,
): Promise<Connection> {
  // The app's endpoint is checked against the pinned one before any connection is claimed (a refusal closes the early one).
  let needed: string | undefined;
  try {
    needed = chosenEndpoint(process.env.FLEETFORM_ENDPOINT || undefined, stacksEndpoint, appEndpointAllowed(process.env));
  } catch (err) {
    await discardEarly(early);
    throw err;
  }
  if (early && early.endpoint === needed) {
    const r = await early.opened;
    if ('error' in r) throw r.error;
    return r.connection;
  }
  await discardEarly(early);
  return openConnection({
    cwd,
    env: process.env,
    maxConnections,
    ...(stacksEndpoint ? { providerEndpoint: stacksEndpoint.endpoint, providerStack: stacksEndpoint.stack } : {}),
  });
}

export async function openWorkspace(options: EngineCommandOptions, apps: AppRunner, cwd = process.cwd()): Promise<Workspace> {
  const parallelism = positiveInt(options.parallelism, '--parallelism', 10);
  const readParallelism = Math.max(parallelism, positiveInt(options.readParallelism, '--read-parallelism', 512));
  const lockTimeoutMs = durationFlag(options.lockTimeout, '--lock-timeout');
  const trainingWaitMs = durationFlag(options.waitForTraining, '--wait-for-training');
  const early = options.synthOut ? undefined : openEarly(cwd, readParallelism);
  let stacks: DesiredStack[];
  let stacksEndpoint: { endpoint: string; stack: string } | undefined;
  try {
    const outdir = options.synthOut ? path.resolve(cwd, options.synthOut) : (await timePhase('synth', () => apps.run({ cwd }))).outdir;
    stacks = await timePhase('read_stacks', () => readStacks(outdir, options.stack));
    stacksEndpoint = appEndpointOf(stacks);
  } catch (err) {
    await discardEarly(early);
    throw err;
  }
  const foreign = stacks.flatMap((s) => s.foreign);
  if (foreign.length > 0) {
    process.stderr.write(
      `note: leaving ${foreign.length} resource${foreign.length === 1 ? '' : 's'} of other providers to Terraform (cdktf deploy): ${foreign.join(', ')}\n`,
    );
  }
  const connection = await timePhase('connect', () => connectionFor(early, cwd, readParallelism, stacksEndpoint));
  let backend: ProjectStateBackend;
  try {
    backend = backendFor(declaredBackend(stacks), cwd);
    await assertNothingLeftBehind(
      backend,
      cwd,
      stacks.map((s) => s.name),
    );
  } catch (err) {
    await connection.close();
    throw err;
  }
  const engine = new Engine({
    client: connection.client,
    backend,
    kinds: defaultKinds(),
    parallelism,
    readParallelism,
    lockTimeoutMs,
    breakStaleLock: staleLockPolicy(Boolean(options.breakStaleLock)),
    onLockWait: (stack) =>
      process.stderr.write(`waiting up to ${options.lockTimeout} for the state lock of stack ${stack}, held by another run...\n`),
    rolloutJournal: rolloutJournals(backend, cwd),
    defaults: {
      ...(connection.organizationId ? { organizationId: connection.organizationId } : {}),
      ...(connection.locationId ? { locationId: connection.locationId } : {}),
    },
    run: { trainingWaitMs, progress: (line) => process.stderr.write(`${line}\n`) },
  });
  return { cwd, stacks, engine, connection, backend, close: () => connection.close() };
}

/** The first line of a plan: which service it talks to. */
export function serviceLine(connection: Connection): string {
  return `Service: ${connection.endpoint}${connection.embedded ? ' (the embedded emulator)' : ''}\n\n`;
}

/** Runs `fn` with a workspace (its app run by `apps`) and closes it (and the embedded emulator) afterwards. */
export async function withWorkspace<T>(options: EngineCommandOptions, apps: AppRunner, fn: (ws: Workspace) => Promise<T>): Promise<T> {
  const ws = await openWorkspace(options, apps);
  try {
    return await fn(ws);
  } finally {
    await ws.close();
  }
}
