/**
 * Secrets by reference under the real Terraform CLI: the configuration, plans, plan files
 * and state hold the reference; the provider reads the value from the environment Terraform
 * runs in; a missing variable is a plan error naming the machine, the field and the
 * variable; a new value behind the same reference is a change (secrets_digest).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Secret } from '../../src';
import { openEmulatorProject, type EmulatorProject } from '../e2e/fleet-fixture';
import { requireTerraform, terraform, terraformHome } from './terraform-cli';

jest.setTimeout(300_000);

const VARIABLE = 'FF_TF_ACME_TOKEN';
const TOKEN = 'tf-ref-Secret-Hq2v8';
const NEXT_TOKEN = 'tf-ref-Secret-Ws5k3';

let project: EmulatorProject;
let env: NodeJS.ProcessEnv;
let stackDir: string;

beforeAll(async () => {
  requireTerraform();
  project = await openEmulatorProject('ff-tf-secret-ref-');
  env = await terraformHome(project.dir, project.env);
  stackDir = path.join(project.outdir, 'stacks', 'fleet');
});

afterAll(async () => {
  await project?.close();
});

const tf = (variables: Record<string, string>, ...args: string[]) => terraform(stackDir, { ...env, ...variables }, ...args);

async function apiToken(name: string): Promise<unknown> {
  const machine = (await project.client.appClient.listMachines(project.credentials.locationId)).find((m) => m.name === name);
  if (!machine) throw new Error(`no machine ${name} on the service`);
  const parts = await project.client.appClient.getMachineParts(machine.id);
  const config = (parts.find((p) => p.mainPart)?.config ?? {}) as { modules?: Array<{ env?: Record<string, unknown> }> };
  return config.modules?.[0]?.env?.API_TOKEN;
}

test('the reference goes through Terraform; the provider reads the value; a new value is a change', async () => {
  project.synth({ machines: ['picker-1'], tokenRef: Secret.fromEnv(VARIABLE) });
  expect((await tf({}, 'init', '-input=false', '-no-color')).code).toBe(0);

  const missing = await tf({}, 'plan', '-input=false', '-no-color');
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain(
    `machine picker-1 needs the secret modules.acme_sensors.env.API_TOKEN: environment variable ${VARIABLE} is not set`,
  );
  expect(missing.stderr).toContain('fleetform_machine.picker-1');

  const plan = await tf({ [VARIABLE]: TOKEN }, 'plan', '-input=false', '-no-color', '-out=first.tfplan');
  expect(plan.code).toBe(0);
  expect(plan.stdout).toContain('"modules.acme_sensors.env.API_TOKEN" = {');
  expect(plan.stdout).toContain(`+ "name" = "${VARIABLE}"`);
  const apply = await tf({ [VARIABLE]: TOKEN }, 'apply', '-input=false', '-no-color', 'first.tfplan');
  expect(apply.stdout).toContain('Apply complete! Resources: 2 added');
  expect(await apiToken('picker-1')).toBe(TOKEN);
  expect((await tf({ [VARIABLE]: TOKEN }, 'plan', '-input=false', '-no-color', '-detailed-exitcode')).code).toBe(0);

  const rotated = await tf({ [VARIABLE]: NEXT_TOKEN }, 'plan', '-input=false', '-no-color', '-detailed-exitcode', '-out=second.tfplan');
  expect(rotated.code).toBe(2);
  expect(rotated.stdout).toMatch(/~ secrets_digest += "hmac-sha256:[0-9a-f]+" -> "hmac-sha256:[0-9a-f]+"/);
  const shown = await tf({}, 'show', '-json', 'second.tfplan');
  expect((await tf({ [VARIABLE]: NEXT_TOKEN }, 'apply', '-input=false', '-no-color', 'second.tfplan')).stdout).toContain(
    '0 added, 1 changed, 0 destroyed',
  );
  expect(await apiToken('picker-1')).toBe(NEXT_TOKEN);

  const state = await fs.readFile(path.join(project.dir, 'terraform.fleet.tfstate'), 'utf8');
  for (const secret of [TOKEN, NEXT_TOKEN]) {
    for (const text of [state, plan.stdout, plan.stderr, rotated.stdout, rotated.stderr, shown.stdout, apply.stdout, apply.stderr])
      expect(text).not.toContain(secret);
    for (const file of ['first.tfplan', 'second.tfplan'])
      expect((await fs.readFile(path.join(stackDir, file))).includes(secret)).toBe(false);
  }
});
