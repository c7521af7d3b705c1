/**
 * Triggers under the real Terraform CLI: a `Trigger` whose webhook URL carries a token is
 * given by reference; the configuration, plans, plan files and state hold the reference, the
 * provider reads the value, the service stores the trigger whole, and the next plan is empty.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Secret, Trigger, TriggerEvent } from '../../src';
import { openEmulatorProject, type EmulatorProject } from '../e2e/fleet-fixture';
import { requireTerraform, terraform, terraformHome } from './terraform-cli';

jest.setTimeout(300_000);

const VARIABLE = 'FF_TF_HOOK_URL';
const HOOK = 'https://hooks.example.com/fleet?token=tf-hook-Secret-Zp4q7';

let project: EmulatorProject;
let env: NodeJS.ProcessEnv;
let stackDir: string;

beforeAll(async () => {
  requireTerraform();
  project = await openEmulatorProject('ff-tf-triggers-');
  env = await terraformHome(project.dir, project.env);
  stackDir = path.join(project.outdir, 'stacks', 'fleet');
});

afterAll(async () => {
  await project?.close();
});

const tf = (...args: string[]) => terraform(stackDir, { ...env, [VARIABLE]: HOOK }, ...args);

test('a trigger with a secret webhook goes through Terraform by reference and is stored whole', async () => {
  project.synth({
    machines: ['picker-1'],
    inEachMachine: (machine) => {
      new Trigger(machine, 'offline-alert', {
        event: TriggerEvent.partOffline(),
        notifications: [
          { type: 'webhook', url: Secret.fromEnv(VARIABLE), secondsBetweenNotifications: 300 },
          { type: 'email', address: 'ops@example.com' },
        ],
      });
    },
  });
  const synthesized = await fs.readFile(path.join(stackDir, 'cdk.tf.json'), 'utf8');
  expect(synthesized).toContain('offline-alert');
  expect(synthesized).not.toContain('tf-hook-Secret');
  expect((await tf('init', '-input=false', '-no-color')).code).toBe(0);

  const plan = await tf('plan', '-input=false', '-no-color', '-out=first.tfplan');
  expect(plan.code).toBe(0);
  expect(plan.stdout).toContain('"triggers.offline-alert.notifications[0].value" = {');
  // The config shows in the plan, the trigger and its e-mail with it.
  expect(plan.stdout).toContain('ops@example.com');
  const apply = await tf('apply', '-input=false', '-no-color', 'first.tfplan');
  expect(apply.stdout).toContain('Apply complete! Resources: 2 added');

  const machine = (await project.client.appClient.listMachines(project.credentials.locationId)).find((m) => m.name === 'picker-1');
  const parts = await project.client.appClient.getMachineParts(machine?.id ?? '');
  const config = (parts.find((p) => p.mainPart)?.config ?? {}) as { triggers?: unknown };
  expect(config.triggers).toEqual([
    {
      name: 'offline-alert',
      event: { type: 'part_offline' },
      notifications: [
        { type: 'webhook', value: HOOK, seconds_between_notifications: 300 },
        { type: 'email', value: 'ops@example.com' },
      ],
    },
  ]);
  expect((await tf('plan', '-input=false', '-no-color', '-detailed-exitcode')).code).toBe(0);

  const state = await fs.readFile(path.join(project.dir, 'terraform.fleet.tfstate'), 'utf8');
  for (const text of [state, plan.stdout, plan.stderr, apply.stdout, apply.stderr]) expect(text).not.toContain('tf-hook-Secret');
  expect((await fs.readFile(path.join(stackDir, 'first.tfplan'))).includes('tf-hook-Secret')).toBe(false);
});
