/** `fleetform emulator serve`: runs the cloud emulator in the foreground until SIGINT/SIGTERM. */
import type { Command } from 'commander';
import { CLOCK_ENV, parseClockMode, parseTrainingDuration, TRAINING_DURATION_ENV } from '../../emulator/clock/settings';
import type { FaultSpec } from '../../emulator/rpc/fault-spec';
import { LIMIT_ENV } from '../../emulator/server/limits';
import { MACHINE_FAULTS_ENV, parseMachineFault, type MachineFault } from '../../emulator/sim/machine-faults';
import { DEFAULT_SIMULATION, SIMULATION_ENV } from '../../emulator/sim/options';
import type { ServeOptions } from './emulator-serve-run';
import { runOf } from './runs';

/** The `emulator` command group, created by whichever `emulator ...` file registers first. */
export function emulatorGroup(program: Command): Command {
  return (
    program.commands.find((c) => c.name() === 'emulator') ??
    program.command('emulator').description('Run and drive the local cloud emulator')
  );
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
      (value: string, prior: FaultSpec[]) => [...prior, runOf('emulator-serve').parseFaultSpec(value, '--fail')],
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
    .action((opts: ServeOptions) => runOf('emulator-serve').serve(opts));
}
