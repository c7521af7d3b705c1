/** `fleetform emulator serve`: runs the cloud emulator in the foreground until SIGINT/SIGTERM. */
import * as path from 'node:path';
import type { Command } from 'commander';
import { FleetformError, InputError } from '../../domain/errors';
import { CREDENTIALS_FILE, describeFaultReport, faultSpecsFromEnv, LIMIT_ENV, parseFaultSpec, parseLimit, startEmulator, type FaultSpec, type ServerLimits } from '../../emulator';

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

export function register(program: Command): void {
  emulatorGroup(program)
    .command('serve')
    .description('serve the emulated cloud APIs (gRPC, gRPC-web and Connect on one port) from a data folder')
    .requiredOption('--port <port>', 'TCP port (0 picks a free one)')
    .requiredOption('--data <dir>', 'data folder: SQLite database and credentials.json (seeded on first start)')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--max-message-bytes <n>', `largest request message, compressed or not (default 4194304; env ${LIMIT_ENV.maxMessageBytes})`)
    .option('--header-timeout-ms <n>', `close connections whose request headers are not complete in time (default 30000; env ${LIMIT_ENV.headerTimeoutMs})`)
    .option('--idle-timeout-ms <n>', `close connections without traffic for this long (default 120000; env ${LIMIT_ENV.idleTimeoutMs})`)
    .option('--max-concurrent-streams <n>', `streams one HTTP/2 connection may hold (default 100; env ${LIMIT_ENV.maxConcurrentStreams})`)
    .option(
      '--fail <METHOD[:CODE[:COUNT]]>',
      'make calls of an RPC fail (e.g. CancelTrainingJob:unavailable:2; CODE default unavailable, COUNT default every call); repeatable; how often each fired is printed on stop',
      (value: string, prior: FaultSpec[]) => [...prior, parseFaultSpec(value, '--fail')],
      [] as FaultSpec[],
    )
    .action(async (opts: { port: string; data: string; host: string; fail: FaultSpec[] } & Partial<Record<keyof ServerLimits, string>>) => {
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
      const dataDir = path.resolve(opts.data);
      let emulator;
      try {
        emulator = await startEmulator({ dataDir, port, host: opts.host, limits, faults });
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE') {
          throw new FleetformError(`port ${port} on ${opts.host} is already in use`, { path: '--port', hint: 'pick another port, or 0 for any free one' });
        }
        if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
          throw new FleetformError(`cannot listen on ${opts.host}`, { path: '--host', hint: 'use an address of this computer, e.g. 127.0.0.1' });
        }
        throw err;
      }
      const stopped = untilSignal();
      process.stdout.write(`listening on ${emulator.url}\n`);
      process.stdout.write(`owner API key of organization ${emulator.credentials.organizationId} in ${path.join(dataDir, CREDENTIALS_FILE)}\n`);
      const signal = await stopped;
      await emulator.close();
      for (const line of describeFaultReport(emulator.faults())) process.stdout.write(`${line}\n`);
      process.stdout.write(`stopped (${signal})\n`);
    });
}
