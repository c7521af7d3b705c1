/**
 * `fleetform emulator publish|jobs|clock|status|machine-faults`: the emulator's controls, called through the
 * connection every command uses (FLEETFORM_ENDPOINT and key, else the embedded emulator)
 * with an organization-owner key.
 */
import type { Command } from 'commander';
import { Struct, type JsonObject } from '@bufbuild/protobuf';
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { EmulatorService, type ClockState, type EmulatorServiceType, type ModuleCard } from '../../api/emulator-control';
import { statusCodeName } from '../../api/client';
import { FleetformError, InputError } from '../../domain/errors';
import { formatGoDuration, trainingStatusName, type TrainingStatus } from '../../domain';
import { parseTrainingDuration } from '../../emulator/clock/settings';
import { openConnection } from '../connection';
import { parseMachineFault } from '../../emulator/sim/machine-faults';
import { emulatorGroup } from './emulator-serve';

type Controls = Client<EmulatorServiceType>;

/** Runs `fn` with the control client, turning status errors into FleetformErrors. */
async function withControls(method: string, fn: (controls: Controls) => Promise<void>): Promise<void> {
  const connection = await openConnection({ cwd: process.cwd(), env: process.env });
  try {
    await fn(connection.client.clientFor(EmulatorService));
  } catch (err) {
    if (err instanceof ConnectError) {
      throw new FleetformError(`${statusCodeName(err.code)}: ${err.rawMessage}`, {
        path: `EmulatorService.${method}`,
        ...(err.code === Code.Unimplemented
          ? { hint: `${connection.endpoint} is not a fleetform emulator (the controls exist only there)` }
          : {}),
      });
    }
    throw err;
  } finally {
    await connection.close();
  }
}

function parseModelFlag(text: string, previous: { api: string; model: string }[]): { api: string; model: string }[] {
  const eq = text.indexOf('=');
  if (eq <= 0 || eq === text.length - 1) {
    throw new InputError(`takes api=model, not ${JSON.stringify(text)}`, {
      path: '--model',
      hint: 'e.g. --model rdk:component:sensor=acme:sensors:hc-sr04',
    });
  }
  return [...previous, { api: text.slice(0, eq), model: text.slice(eq + 1) }];
}

function statusText(n: number): string {
  return trainingStatusName(n as TrainingStatus);
}

/** The clock as `fleetform emulator clock` prints it. */
export function formatClock(state: ClockState): string {
  const at = state.now ? state.now.toDate().toISOString() : '-';
  return `${at} ${state.frozen ? 'frozen' : 'running'}; training takes ${formatGoDuration(Number(state.trainingDurationMs))}\n`;
}

/** Left-aligned columns. */
export function formatTable(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows
    .map(
      (r) =>
        `${r
          .map((cell, i) => cell.padEnd(widths[i] ?? 0))
          .join('  ')
          .trimEnd()}\n`,
    )
    .join('');
}

/** The module cards as a table. */
export function formatModuleCards(cards: readonly ModuleCard[]): string {
  const rows = [['MACHINE', 'PART', 'MODULE', 'MODULE ID', 'POLICY', 'DEPLOYED', 'REGISTRY LATEST', 'RESTARTS']];
  for (const c of cards) {
    const latest =
      c.registryLatestPrerelease !== '' && c.registryLatestPrerelease !== c.registryLatest
        ? `${c.registryLatest || '-'} (prerelease ${c.registryLatestPrerelease})`
        : c.registryLatest || '-';
    rows.push([c.machineName, c.partName, c.moduleName, c.moduleId, c.policy, c.deployedVersion, latest, String(c.restartCount)]);
  }
  return formatTable(rows);
}

export function register(program: Command): void {
  const emulator = emulatorGroup(program);

  const publish = emulator.command('publish').description('publish a registry version in the emulator');
  publish
    .command('module <module_id> <version>')
    .description('publish a module version; machines whose update policy admits it move to it and restart')
    .option('--model <api=model>', 'a model the version provides (repeatable; default: those of the newest version)', parseModelFlag, [])
    .action(async (moduleId: string, version: string, opts: { model: { api: string; model: string }[] }) => {
      await withControls('PublishModuleVersion', async (controls) => {
        const res = await controls.publishModuleVersion({ moduleId, version, models: opts.model });
        process.stdout.write(`published ${res.moduleId} ${res.version}\n`);
        if (res.updates.length === 0) {
          process.stdout.write('no machine moved (patch pins and policies that do not admit it stay)\n');
        }
        for (const u of res.updates) {
          process.stdout.write(`  ${u.machineName} ${u.moduleName}: ${u.fromVersion} -> ${u.toVersion} (restart #${u.restartCount})\n`);
        }
      });
    });
  publish
    .command('script <item_id> <version>')
    .description('publish a training script version (<namespace>:<name>)')
    .action(async (itemId: string, version: string) => {
      await withControls('PublishTrainingScript', async (controls) => {
        const res = await controls.publishTrainingScript({ itemId, version });
        process.stdout.write(`published training script ${res.itemId} ${res.version}\n`);
      });
    });

  const jobs = emulator.command('jobs').description('move training jobs along in the emulator');
  jobs
    .command('advance <job_id>')
    .description('one step: PENDING -> IN_PROGRESS -> COMPLETED, CANCELING -> CANCELED')
    .option('--to-end', 'step until the job is completed (or canceled)')
    .action(async (id: string, opts: { toEnd?: boolean }) => {
      await withControls('AdvanceTrainingJob', async (controls) => {
        const res = await controls.advanceTrainingJob({ id, toEnd: opts.toEnd === true });
        process.stdout.write(`${res.id}: ${statusText(res.previousStatus)} -> ${statusText(res.status)}\n`);
      });
    });
  jobs
    .command('fail <job_id>')
    .description('make a job that has not finished FAILED')
    .option('--message <text>', 'the error message the job reports', 'training failed')
    .action(async (id: string, opts: { message: string }) => {
      await withControls('FailTrainingJob', async (controls) => {
        const res = await controls.failTrainingJob({ id, message: opts.message });
        process.stdout.write(`${res.id}: ${statusText(res.previousStatus)} -> ${statusText(res.status)}\n`);
      });
    });

  const clock = emulator
    .command('clock')
    .description("show the emulator's clock: what time it is, whether it is frozen, the training duration")
    .action(async () => {
      await withControls('GetClock', async (controls) => {
        process.stdout.write(formatClock(await controls.getClock({})));
      });
    });
  clock
    .command('freeze')
    .description('stop the clock: training jobs and cancels stay where they are until stepped')
    .action(async () => {
      await withControls('FreezeClock', async (controls) => {
        process.stdout.write(formatClock(await controls.freezeClock({})));
      });
    });
  clock
    .command('resume')
    .description('let a frozen clock run again from where it stands')
    .action(async () => {
      await withControls('ResumeClock', async (controls) => {
        process.stdout.write(formatClock(await controls.resumeClock({})));
      });
    });
  clock
    .command('step <duration>')
    .description('move the clock forward (e.g. 6s, 1m30s, 250ms); jobs whose phases end move on')
    .action(async (duration: string) => {
      const ms = parseTrainingDuration(duration, '<duration>');
      await withControls('StepClock', async (controls) => {
        process.stdout.write(formatClock(await controls.stepClock({ milliseconds: BigInt(ms) })));
      });
    });

  emulator
    .command('status')
    .description('the module card of every machine module: policy, deployed version, registry latest')
    .option('--json', 'print the cards as JSON')
    .action(async (opts: { json?: boolean }) => {
      await withControls('ListModuleCards', async (controls) => {
        const { cards } = await controls.listModuleCards({});
        if (opts.json) {
          process.stdout.write(
            `${JSON.stringify(
              cards.map((c) => c.toJson({ emitDefaultValues: true })),
              null,
              2,
            )}\n`,
          );
        } else if (cards.length === 0) {
          process.stdout.write('no machine runs a registry module yet\n');
        } else {
          process.stdout.write(formatModuleCards(cards));
        }
      });
    });

  emulator
    .command('machine-faults [specs...]')
    .description(
      'replace the faults of the simulated machines (e.g. module=acme:sensors@1.3.0:crash machine=picker-3:offline:30%); none clears them',
    )
    .action(async (specs: string[]) => {
      // Checked here first, so a misspelt spec names the argument and the fix.
      specs.forEach((spec, i) => parseMachineFault(spec, `specs[${i}]`));
      await withControls('SetMachineFaults', async (controls) => {
        const res = await controls.setMachineFaults({ specs });
        process.stdout.write(res.specs.length === 0 ? 'no machine faults\n' : `machine faults: ${res.specs.join(', ')}\n`);
      });
    });

  emulator
    .command('sensor-reading <machine> <sensor> [readings]')
    .description(
      "set what a simulated machine's sensor reads, as a JSON object (e.g. '{\"allowed\": true}' for its maintenance window); none clears it",
    )
    .action(async (machine: string, sensor: string, readings: string | undefined) => {
      const parsed = sensorReadings(readings);
      await withControls('SetSensorReading', async (controls) => {
        const res = await controls.setSensorReading({ machine, sensor, readings: Struct.fromJson(parsed) });
        process.stdout.write(`${machine} ${sensor} reads ${res.readings?.toJsonString() ?? '{}'}\n`);
      });
    });
}

/** The readings argument: a JSON object; none is no readings. */
function sensorReadings(text: string | undefined): JsonObject {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InputError(`readings: ${JSON.stringify(text)} is not a JSON object`, {
      path: 'readings',
      hint: 'write it like \'{"allowed": true}\' (quoted for the shell)',
    });
  }
  return value as JsonObject;
}
