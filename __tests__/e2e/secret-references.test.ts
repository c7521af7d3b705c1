/**
 * A secret by reference through fleetform's engine: the synthesized stack holds the
 * reference; a plan without the variable stops before any call, naming the machine, the
 * field and the variable; with it, apply gives the module the value, state keeps a digest,
 * and a new value is a change.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Secret } from '../../src';
import { openEmulatorProject, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(120_000);

const VARIABLE = 'FF_TEST_ACME_TOKEN';
const TOKEN = 'ref-Secret-Qz7w1';
const NEXT_TOKEN = 'ref-Secret-Lm4p9';
let p: EmulatorProject;

beforeEach(async () => {
  p = await openEmulatorProject('ff-secret-ref-');
});

afterEach(async () => {
  await p?.close();
});

async function moduleEnv(name: string): Promise<Record<string, string> | undefined> {
  const partId = (await p.backend().read('fleet')).resources[`fleetform_machine.${name}`]?.ids.part_id;
  if (!partId) throw new Error(`no part of ${name} in state`);
  const config = JSON.parse(JSON.stringify((await p.client.appClient.getMachinePart(partId)).config)) as {
    modules: Array<{ env?: Record<string, string> }>;
  };
  return config.modules[0]?.env;
}

async function machinesOnService(): Promise<number> {
  const locations = await p.client.appClient.listLocations(p.credentials.organizationId);
  let n = 0;
  for (const l of locations) n += (await p.client.appClient.listMachines(l.id)).length;
  return n;
}

test('the stack holds the reference; plan stops without the variable; apply stores the value; a new value is a change', async () => {
  p.synth({ machines: ['picker-1'], tokenRef: Secret.fromEnv(VARIABLE) });
  const written = JSON.parse(await fs.readFile(path.join(p.outdir, 'stacks', 'fleet', 'cdk.tf.json'), 'utf8')) as {
    resource: { fleetform_machine: Record<string, { config: string; secrets?: unknown; secret_env?: unknown }> };
  };
  const machine = written.resource.fleetform_machine['picker-1'];
  expect(machine?.secrets).toEqual({ 'modules.acme_sensors.env.API_TOKEN': { from: 'env', name: VARIABLE } });
  expect(machine?.secret_env).toBeUndefined();
  expect(machine?.config).not.toContain('API_TOKEN');

  const missing = await p.run('plan');
  expect(missing.code).not.toBe(0);
  const said = missing.stdout + missing.stderr;
  expect(said).toContain('picker-1');
  expect(said).toContain(
    'fleetform_machine.picker-1.secrets["modules.acme_sensors.env.API_TOKEN"]: machine picker-1 needs the secret modules.acme_sensors.env.API_TOKEN',
  );
  expect(said).toContain(`environment variable ${VARIABLE} is not set`);
  expect(missing.stdout).toContain(`"API_TOKEN": "(not given: environment variable ${VARIABLE} is not set; export ${VARIABLE} `);
  expect((await p.run('apply', '--auto-approve')).code).not.toBe(0);
  expect(await machinesOnService()).toBe(0);

  p.env[VARIABLE] = TOKEN;
  const apply = await p.run('apply', '--auto-approve');
  expect(apply.code).toBe(0);
  expect(apply.stdout + apply.stderr).not.toContain(TOKEN);
  expect((await moduleEnv('picker-1'))?.API_TOKEN).toBe(TOKEN);
  const state = JSON.stringify(await p.backend().read('fleet'));
  expect(state).not.toContain(TOKEN);
  expect(state).toContain('API_TOKEN":"sensitive:hmac-sha256:');
  expect((await p.run('plan', '--detailed-exitcode')).code).toBe(0);

  // A secret not given where the plan runs is refused, never shown as the entry's removal.
  delete p.env[VARIABLE];
  const unset = await p.run('plan');
  expect(unset.code).toBe(1);
  expect(unset.stdout).toContain(`environment variable ${VARIABLE} is not set`);
  expect(unset.stdout).not.toMatch(/- config\.modules\.acme_sensors\.env\.API_TOKEN/);
  // The value line says the variable is unset and how to set it.
  expect(unset.stdout).toContain(
    `config.modules.acme_sensors.env.API_TOKEN = (sensitive) -> (not given: environment variable ${VARIABLE} is not set; export ${VARIABLE} with the secret in the shell or job that runs the plan and the apply)`,
  );

  p.env[VARIABLE] = NEXT_TOKEN;
  const plan = await p.run('plan', '--detailed-exitcode');
  expect(plan.code).toBe(2);
  expect(plan.stdout).toContain('API_TOKEN');
  expect(plan.stdout).toContain('(sensitive)');
  const json = await p.run('plan', '--json');
  for (const secret of [TOKEN, NEXT_TOKEN]) expect(plan.stdout + plan.stderr + json.stdout + json.stderr).not.toContain(secret);
  expect((await p.run('apply', '--auto-approve')).code).toBe(0);
  expect((await moduleEnv('picker-1'))?.API_TOKEN).toBe(NEXT_TOKEN);
  expect((await p.run('plan', '--detailed-exitcode')).code).toBe(0);
});

test('a file reference reads the file where the plan runs, one trailing line break dropped', async () => {
  const file = path.join(p.dir, 'acme-token');
  await fs.writeFile(path.join(p.dir, 'acme-token'), `${TOKEN}\n`, { mode: 0o600 });
  p.synth({ machines: ['picker-1'], tokenRef: Secret.fromFile(file) });
  expect((await p.run('apply', '--auto-approve')).code).toBe(0);
  expect((await moduleEnv('picker-1'))?.API_TOKEN).toBe(TOKEN);
  await fs.rm(file);
  const missing = await p.run('plan');
  expect(missing.code).not.toBe(0);
  expect(missing.stdout + missing.stderr).toContain(`file ${file} cannot be read: no such file`);
});
