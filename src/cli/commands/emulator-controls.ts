/**
 * `fleetform emulator publish|jobs|clock|status|organization|machine-faults|sensor-reading|module-version|viam-server`: the emulator's controls, called through the
 * connection every command uses (FLEETFORM_ENDPOINT and key, else the embedded emulator)
 * with an organization-owner key.
 */
import type { Command } from 'commander';
import { InputError } from '../../domain/errors';
import { emulatorGroup } from './emulator-serve';
import type { ModuleVersionOptions, OrganizationOptions } from './emulator-controls-run';
import { runOf } from './runs';

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

export function register(program: Command): void {
  const emulator = emulatorGroup(program);

  const publish = emulator.command('publish').description('publish a registry version in the emulator');
  publish
    .command('module <module_id> <version>')
    .description('publish a module version; machines whose update policy admits it move to it and restart')
    .option('--model <api=model>', 'a model the version provides (repeatable; default: those of the newest version)', parseModelFlag, [])
    .option('--min-viam-server <version>', 'the oldest viam-server the version runs on (policies of machines running an older one skip it)')
    .action((moduleId: string, version: string, opts: { model: { api: string; model: string }[]; minViamServer?: string }) =>
      runOf('emulator-controls').publishModule(moduleId, version, opts),
    );
  publish
    .command('script <item_id> <version>')
    .description('publish a training script version (<namespace>:<name>)')
    .action((itemId: string, version: string) => runOf('emulator-controls').publishScript(itemId, version));

  const jobs = emulator.command('jobs').description('move training jobs along in the emulator');
  jobs
    .command('advance <job_id>')
    .description('one step: PENDING -> IN_PROGRESS -> COMPLETED, CANCELING -> CANCELED')
    .option('--to-end', 'step until the job is completed (or canceled)')
    .action((id: string, opts: { toEnd?: boolean }) => runOf('emulator-controls').advanceJob(id, opts));
  jobs
    .command('fail <job_id>')
    .description('make a job that has not finished FAILED')
    .option('--message <text>', 'the error message the job reports', 'training failed')
    .action((id: string, opts: { message: string }) => runOf('emulator-controls').failJob(id, opts));

  const clock = emulator
    .command('clock')
    .description("show the emulator's clock: what time it is, whether it is frozen, the training duration")
    .action(() => runOf('emulator-controls').showClock());
  clock
    .command('freeze')
    .description('stop the clock: training jobs and cancels stay where they are until stepped')
    .action(() => runOf('emulator-controls').freezeClock());
  clock
    .command('resume')
    .description('let a frozen clock run again from where it stands')
    .action(() => runOf('emulator-controls').resumeClock());
  clock
    .command('step <duration>')
    .description('move the clock forward (e.g. 6s, 1m30s, 250ms); jobs whose phases end move on')
    .action((duration: string) => runOf('emulator-controls').stepClock(duration));

  emulator
    .command('status')
    .description('the module card of every machine module: policy, deployed version, registry latest')
    .option('--json', 'print the cards as JSON')
    .action((opts: { json?: boolean }) => runOf('emulator-controls').showModuleCards(opts));

  emulator
    .command('organization <name>')
    .description(
      'create another organization, with a fragment of its own (--fragment): machines of yours import it as the service lets them (public and unlisted ones, not private ones)',
    )
    .option('--namespace <namespace>', 'its public namespace (lowercase letters, digits and "-")')
    .option('--fragment <name>', 'create a fragment of that name in it')
    .option('--visibility <visibility>', 'who may read the fragment: public, unlisted or private', 'public')
    .option('--fragment-config <json>', "the fragment's config, a JSON object (quoted for the shell)", '{}')
    .option('--json', 'print the ids as JSON')
    .action((name: string, opts: OrganizationOptions) => runOf('emulator-controls').createOrganization(name, opts));

  emulator
    .command('machine-faults [specs...]')
    .description(
      'replace the faults of the simulated machines (e.g. module=acme:sensors@1.3.0:crash machine=picker-3:offline:30%); none clears them',
    )
    .action((specs: string[]) => runOf('emulator-controls').setMachineFaults(specs));

  emulator
    .command('sensor-reading <machine> <sensor> [readings]')
    .description(
      "set what a simulated machine's sensor reads, as a JSON object (e.g. '{\"allowed\": true}' for its maintenance window); none clears it",
    )
    .action((machine: string, sensor: string, readings: string | undefined) =>
      runOf('emulator-controls').setSensorReading(machine, sensor, readings),
    );

  emulator
    .command('module-version <module_id> <version>')
    .description(
      'set what the registry says of a module version: deprecated or not, the oldest viam-server it runs on; version policies skip a deprecated version and one needing a newer viam-server than the machine runs',
    )
    .option('--deprecate [message]', 'deprecate it, with a message')
    .option('--undeprecate', 'deprecate it no more')
    .option('--min-viam-server <version>', 'the oldest viam-server it runs on ("" for none)')
    .action((moduleId: string, version: string, opts: ModuleVersionOptions) =>
      runOf('emulator-controls').setModuleVersionStatus(moduleId, version, opts),
    );

  emulator
    .command('viam-server <machine> <version>')
    .description('set the viam-server version a simulated machine reports ("" reports none: not known)')
    .action((machine: string, version: string) => runOf('emulator-controls').setViamServerVersion(machine, version));
}
