import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { FleetProvider, Machine } from '../../src';
import { openEmulatorProject, type EmulatorProject } from '../e2e/fleet-fixture';

let project: EmulatorProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

/** One machine named `picker` at construct id `id`, optionally moved from another id. */
function synthPicker(outdir: string, id: string, movedFrom?: string): void {
  const app = new App({ outdir });
  const stack = new TerraformStack(app, 'fleet');
  new FleetProvider(stack, 'cloud', {});
  const machine = new Machine(stack, id, { name: 'picker' });
  if (movedFrom) machine.moveFromId(`fleetform_machine.${movedFrom}`);
  app.synth();
}

/** The pid of a process that has ended (and been reaped). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.on('close', resolve));
  return child.pid as number;
}

test('a renamed construct is refused with the move to make; moveFromId and state mv move it without touching the service', async () => {
  project = await openEmulatorProject('ff-move-');
  synthPicker(project.outdir, 'old');
  expect((await project.run('apply', '--auto-approve')).code).toBe(0);
  const [machine] = await project.client.appClient.listMachines(project.credentials.locationId);

  synthPicker(project.outdir, 'renamed');
  const refused = await project.run('plan');
  expect(refused.code).toBe(1);
  expect(refused.stdout).toContain('fleetform state mv fleetform_machine.old fleetform_machine.renamed');

  synthPicker(project.outdir, 'renamed', 'old');
  const plan = await project.run('plan');
  expect(plan.stdout).toContain('fleetform_machine.old has moved to fleetform_machine.renamed');
  expect(plan.stdout).toContain('0 to add, 0 to change, 0 to destroy');
  expect((await project.run('apply', '--auto-approve')).code).toBe(0);

  synthPicker(project.outdir, 'third');
  const mv = await project.runBare('state', 'mv', 'fleetform_machine.renamed', 'fleetform_machine.third');
  expect(mv.code).toBe(0);
  expect((await project.run('plan', '--detailed-exitcode')).code).toBe(0);
  expect((await project.client.appClient.listMachines(project.credentials.locationId)).map((m) => m.id)).toEqual([machine?.id]);
}, 120_000);

test('a lock left by a dead process is reported stale; --break-stale-lock takes it over and the printed force-unlock works as printed', async () => {
  project = await openEmulatorProject('ff-lock-');
  synthPicker(project.outdir, 'old');
  const dir = path.join(project.dir, '.fleetform', 'state');
  await fs.mkdir(dir, { recursive: true });
  const lock = (id: string, pid: number) =>
    fs.writeFile(
      path.join(dir, 'fleet.lock'),
      JSON.stringify({
        id,
        operation: 'apply',
        who: 'ci@host',
        created: new Date().toISOString(),
        pid,
        host: os.hostname(),
        process_start: 1,
        command: 'fleetform apply',
      }),
    );

  await lock('lock-1', await deadPid());
  const refused = await project.run('plan');
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('no longer running');
  const printed = /fleetform (force-unlock \S+)/.exec(refused.stderr)?.[1];
  expect(printed).toBe('force-unlock lock-1');
  expect((await project.runBare(...(printed as string).split(' '))).code).toBe(0);

  await lock('lock-2', await deadPid());
  const taken = await project.run('apply', '--auto-approve', '--break-stale-lock');
  expect(taken.code).toBe(0);
  expect(taken.stderr).toContain('Taking over a stale state lock');
  // Harmless without a stale lock.
  expect((await project.run('plan', '--break-stale-lock', '--detailed-exitcode')).code).toBe(0);
  const list = await project.runBare('state', 'list');
  expect(list.stdout).toContain('fleetform_machine.old');
}, 120_000);
