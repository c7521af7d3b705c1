/** `fleetform emulator serve`: runs the cloud emulator in the foreground until SIGINT/SIGTERM. */
import * as path from 'node:path';
import type { Command } from 'commander';
import { parseDuration } from '../../domain/duration';
import { FleetformError, InputError } from '../../domain/errors';
import { CLOCK_ENV, parseClockMode, parseTrainingDuration, TRAINING_DURATION_ENV, type ClockMode } from '../../emulator/clock/settings';
import { CREDENTIALS_FILE } from '../../emulator/credentials';
import { describeFaultReport, faultSpecsFromEnv, parseFaultSpec, type FaultSpec } from '../../emulator/rpc/fault-spec';
import { LIMIT_ENV, parseLimit, type ServerLimits } from '../../emulator/server/limits';
import { MACHINE_FAULTS_ENV, parseMachineFault, type MachineFault } from '../../emulator/sim/machine-faults';
import { DEFAULT_SIMULATION, SIMULATION_ENV, type SimulationSettings } from '../../emulator/sim/options';

/** The `emulator` command group, created by whichever `emulator ...` file registers first. */
export function emulatorGroup(program: Command): Command {
  return (
    program.commands.find((c) => c.name() === 'emulator') ??
    program.command('emulator').description('Run and drive the local cloud emulator')
  );
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

type ServeOptions = { port: string; data: string; host: string; fail: FaultSpec[] } & SimulationFlags &
  ClockFlags &
  Partial<Record<keyof ServerLimits, string>>;

/** The simulated machines' flags, as given. */
interface SimulationFlags {
  readonly simulate: boolean;
  readonly checkInInterval?: string;
  readonly moduleStartTime?: string;
  readonly resourceConfigureTime?: string;
  readonly machineFault: MachineFault[];
}

/** The clock flags, parsed. */
interface ClockFlags {
  readonly trainingDuration?: number;
  readonly clock?: ClockMode;
}

/** The emulator options the clock flags set. */
function clockOptions(opts: ClockFlags): { trainingDurationMs?: number; clock?: ClockMode } {
  return {
    ...(opts.trainingDuration === undefined ? {} : { trainingDurationMs: opts.trainingDuration }),
    ...(opts.clock === undefined ? {} : { clock: opts.clock }),
  };
}

export function register(program: Command): void {
  emulatorGroup(program)
    .command('serve')
    .description('serve the emulated cloud APIs (gRPC, gRPC-web and Connect on one port) from a data folder')
    .requiredOption('--port <port>', 'TCP port (0 picks a free one)')
    .requiredOption('--data <dir>', 'data folder: SQLite database and credentials.json (seeded on first start)')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--max-message-bytes <n>', `largest request message, compressed or not (default 4194304; env ${LIMIT_ENV.maxMessageBytes})`)
    .option(
      '--header-timeout-ms <n>',
      `close connections whose request headers are not complete in time (default 30000; env ${LIMIT_ENV.headerTimeoutMs})`,
    )
    .option('--idle-timeout-ms <n>', `close connections without traffic for this long (default 120000; env ${LIMIT_ENV.idleTimeoutMs})`)
    .option('--max-concurrent-streams <n>', `streams one HTTP/2 connection may hold (default 100; env ${LIMIT_ENV.maxConcurrentStreams})`)
    .option(
      '--training-duration <duration>',
      `how long a training job takes from submission to completion, e.g. 2m, 30s, 500ms (default 1m0s; env ${TRAINING_DURATION_ENV})`,
      (value: string) => parseTrainingDuration(value, '--training-duration'),
    )
    .option(
      '--clock <mode>',
      `frozen: start with the clock stopped (move it with \`fleetform emulator clock step\`); running: let it run (default: as the data folder left it; env ${CLOCK_ENV})`,
      (value: string) => parseClockMode(value, '--clock'),
    )
    .option(
      '--fail <METHOD[:CODE[:COUNT]]>',
      'make calls of an RPC fail (e.g. CancelTrainingJob:unavailable:2; CODE default unavailable, COUNT default every call); repeatable; how often each fired is printed on stop',
      (value: string, prior: FaultSpec[]) => [...prior, parseFaultSpec(value, '--fail')],
      [] as FaultSpec[],
    )
    .option('--no-simulate', `do not run simulated machines: parts never check in (env ${SIMULATION_ENV.simulate}=0)`)
    .option(
      '--check-in-interval <duration>',
      `how often simulated machines check in, e.g. 5s or 200ms (default ${DEFAULT_SIMULATION.checkInIntervalMs}ms; env ${SIMULATION_ENV.checkInIntervalMs})`,
    )
    .option(
      '--module-start-time <duration>',
      `how long a simulated module takes to start (default ${DEFAULT_SIMULATION.moduleStartMs}ms; env ${SIMULATION_ENV.moduleStartMs})`,
    )
    .option(
      '--resource-configure-time <duration>',
      `how long a simulated resource takes to configure (default ${DEFAULT_SIMULATION.resourceConfigureMs}ms; env ${SIMULATION_ENV.resourceConfigureMs})`,
    )
    .option(
      '--machine-fault <SPEC>',
      `make simulated machines fail: module=acme:sensors@1.3.0:crash, model=acme:sensors:hc-sr04:unhealthy, machine=picker-3:offline, maintenance=picker-3:closed (or open, error), remote=arm-cell:unreachable, job=read-window:fail, each optionally ending in :30%; repeatable (env ${MACHINE_FAULTS_ENV}, comma-separated)`,
      (value: string, prior: MachineFault[]) => [...prior, parseMachineFault(value, '--machine-fault')],
      [] as MachineFault[],
    )
    .action(async (opts: ServeOptions) => {
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
        // Loaded when it starts: registering the command (as every command line does) spares it.
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when it runs
        const { startEmulator } = require('../../emulator') as typeof import('../../emulator');
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
      process.stdout.write(
        `owner API key of organization ${emulator.credentials.organizationId} in ${path.join(dataDir, CREDENTIALS_FILE)}\n`,
      );
      process.stdout.write(
        emulator.simulation.simulate
          ? `simulated machines check in every ${emulator.simulation.checkInIntervalMs} ms${emulator.simulation.machineFaults.length > 0 ? ` (faults: ${emulator.simulation.machineFaults.map((f) => f.text).join(', ')})` : ''}\n`
          : 'simulated machines are off\n',
      );
      const signal = await stopped;
      await emulator.close();
      for (const line of describeFaultReport(emulator.faults())) process.stdout.write(`${line}\n`);
      process.stdout.write(`stopped (${signal})\n`);
    });
}
