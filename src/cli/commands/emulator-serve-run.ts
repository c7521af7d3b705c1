/** What `fleetform emulator serve` does when it runs, loaded then; its name, flags and help are in emulator-serve.ts. */
import * as path from 'node:path';
import { parseDuration } from '../../domain/duration';
import { FleetformError, InputError } from '../../domain/errors';
import { startEmulator } from '../../emulator';
import type { ClockMode } from '../../emulator/clock/settings';
import { CREDENTIALS_FILE } from '../../emulator/credentials';
import { describeFaultReport, faultSpecsFromEnv, type FaultSpec } from '../../emulator/rpc/fault-spec';
import { parseLimit, type ServerLimits } from '../../emulator/server/limits';
import type { MachineFault } from '../../emulator/sim/machine-faults';
import type { SimulationSettings } from '../../emulator/sim/options';

export { parseFaultSpec } from '../../emulator/rpc/fault-spec';

export type ServeOptions = { port: string; data: string; host: string; fail: FaultSpec[] } & SimulationFlags &
  ClockFlags &
  Partial<Record<keyof ServerLimits, string>>;

/** The simulated machines' flags, as given. */
export interface SimulationFlags {
  readonly simulate: boolean;
  readonly checkInInterval?: string;
  readonly moduleStartTime?: string;
  readonly resourceConfigureTime?: string;
  readonly machineFault: MachineFault[];
}

/** The clock flags, parsed. */
export interface ClockFlags {
  readonly trainingDuration?: number;
  readonly clock?: ClockMode;
}

function parsePort(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isInteger(n) || n > 65535) {
    throw new InputError(`must be a whole number from 0 to 65535, not ${JSON.stringify(text)}`, {
      path: '--port',
      hint: 'use 0 to let the system pick a free port',
    });
  }
  return n;
}

/** Resolves on the first SIGINT or SIGTERM. */
function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      resolve(signal);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}

/** The emulator options the clock flags set. */
function clockOptions(opts: ClockFlags): { trainingDurationMs?: number; clock?: ClockMode } {
  return {
    ...(opts.trainingDuration === undefined ? {} : { trainingDurationMs: opts.trainingDuration }),
    ...(opts.clock === undefined ? {} : { clock: opts.clock }),
  };
}

/** `fleetform emulator serve`: serves the emulator until SIGINT or SIGTERM, then prints how often each fault fired. */
export async function serve(opts: ServeOptions): Promise<void> {
  const port = parsePort(opts.port);
  const faults = [...faultSpecsFromEnv(process.env), ...opts.fail];
  const limits: Partial<Record<keyof ServerLimits, number>> = {};
  const flags: Record<keyof ServerLimits, string> = {
    maxMessageBytes: '--max-message-bytes',
    headerTimeoutMs: '--header-timeout-ms',
    idleTimeoutMs: '--idle-timeout-ms',
    maxConcurrentStreams: '--max-concurrent-streams',
  };
  for (const key of Object.keys(flags) as (keyof ServerLimits)[]) {
    const text = opts[key];
    if (text !== undefined) limits[key] = parseLimit(text, flags[key]);
  }
  const simulation: Partial<SimulationSettings> = {
    // Off when the flag says so; otherwise the variable (or the default) decides.
    ...(opts.simulate ? {} : { simulate: false }),
    ...(opts.checkInInterval === undefined
      ? {}
      : { checkInIntervalMs: parseDuration(opts.checkInInterval, '--check-in-interval', { minimumMs: 1 }) }),
    ...(opts.moduleStartTime === undefined ? {} : { moduleStartMs: parseDuration(opts.moduleStartTime, '--module-start-time') }),
    ...(opts.resourceConfigureTime === undefined
      ? {}
      : { resourceConfigureMs: parseDuration(opts.resourceConfigureTime, '--resource-configure-time') }),
    machineFaults: opts.machineFault,
  };
  const dataDir = path.resolve(opts.data);
  let emulator;
  try {
    emulator = await startEmulator({ dataDir, port, host: opts.host, limits, faults, simulation, ...clockOptions(opts) });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new FleetformError(`port ${port} on ${opts.host} is already in use`, {
        path: '--port',
        hint: 'pick another port, or 0 for any free one',
      });
    }
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
      throw new FleetformError(`cannot listen on ${opts.host}`, {
        path: '--host',
        hint: 'use an address of this computer, e.g. 127.0.0.1',
      });
    }
    throw err;
  }
  const stopped = untilSignal();
  process.stdout.write(`listening on ${emulator.url}\n`);
  const credentialsFile = path.join(dataDir, CREDENTIALS_FILE);
  process.stdout.write(`owner API key of organization ${emulator.credentials.organizationId} in ${credentialsFile}\n`);
  for (const line of exportLines(emulator.url, credentialsFile)) process.stdout.write(`${line}\n`);
  process.stdout.write(
    emulator.simulation.simulate
      ? `simulated machines check in every ${emulator.simulation.checkInIntervalMs} ms${emulator.simulation.machineFaults.length > 0 ? ` (faults: ${emulator.simulation.machineFaults.map((f) => f.text).join(', ')})` : ''}\n`
      : 'simulated machines are off\n',
  );
  const signal = await stopped;
  await emulator.close();
  for (const line of describeFaultReport(emulator.faults())) process.stdout.write(`${line}\n`);
  process.stdout.write(`stopped (${signal})\n`);
}

/** `text` in single quotes for a POSIX shell: nothing in it is expanded, a quote in it closed, escaped and reopened. */
function shellQuoted(text: string): string {
  return `'${text.split("'").join("'\\''")}'`;
}

/** What another shell exports to use this emulator: the key is read from its file, never printed. */
export function exportLines(url: string, credentialsFile: string): string[] {
  const field = (name: string): string => `"$(node -p ${shellQuoted(`require(${JSON.stringify(credentialsFile)}).${name}`)})"`;
  return [
    'to use it from another shell:',
    `  export FLEETFORM_ENDPOINT=${url}`,
    `  export FLEETFORM_API_KEY_ID=${field('apiKeyId')}`,
    `  export FLEETFORM_API_KEY=${field('apiKey')}`,
  ];
}
