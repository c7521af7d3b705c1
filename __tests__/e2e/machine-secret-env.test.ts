/**
 * A machine's secret module env travels in `secret_env` (sensitive as a whole to
 * Terraform), not in `config` (shown and diffed in the clear); fleetform's engine merges
 * it back, so the service's module env holds it and plans mask it as before. attributesOf
 * gives back, from what the service holds, the attributes code gives.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { unescapeTemplate } from '../../src/domain';
import { readStacks } from '../../src/engine/desired/read-stacks';
import { resolveReferences } from '../../src/engine/desired/references';
import { Engine } from '../../src/engine/engine';
import type { JsonObject } from '../../src/engine/json';
import { attributesOfView } from '../../src/engine/kind';
import { defaultKinds } from '../../src/engine/kinds';
import { machineKind } from '../../src/engine/kinds/machine';
import { openEmulatorProject, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(120_000);

const TOKEN = 'first-Secret-8Hw3';
const NEXT_TOKEN = 'second-Secret-5Rv1';
let p: EmulatorProject;

beforeEach(async () => {
  p = await openEmulatorProject('ff-secret-env-');
});

afterEach(async () => {
  await p?.close();
});

interface WrittenMachine {
  config: string;
  secret_env?: Record<string, string>;
  sensitive_env?: unknown;
}

async function writtenMachine(name: string): Promise<WrittenMachine> {
  const doc = JSON.parse(await fs.readFile(path.join(p.outdir, 'stacks', 'fleet', 'cdk.tf.json'), 'utf8')) as {
    resource: { fleetform_machine: Record<string, WrittenMachine> };
  };
  const machine = doc.resource.fleetform_machine[name];
  if (!machine) throw new Error(`no machine ${name} synthesized`);
  return machine;
}

async function moduleEnv(name: string): Promise<Record<string, string> | undefined> {
  const partId = (await p.backend().read('fleet')).resources[`fleetform_machine.${name}`]?.ids.part_id;
  if (!partId) throw new Error(`no part of ${name} in state`);
  const config = JSON.parse(JSON.stringify((await p.client.appClient.getMachinePart(partId)).config)) as {
    modules: Array<{ env?: Record<string, string> }>;
  };
  return config.modules[0]?.env;
}

test('the secret is synthesized in secret_env, not in config; apply gives it to the module; plans mask it', async () => {
  p.synth({ machines: ['picker-1'], token: TOKEN });
  const written = await writtenMachine('picker-1');
  expect(written.config).not.toContain(TOKEN);
  expect(written.config).not.toContain('API_TOKEN');
  expect(written.secret_env).toEqual({ 'acme_sensors.API_TOKEN': TOKEN });
  expect(written.sensitive_env).toBeUndefined();

  const apply = await p.run('apply', '--auto-approve');
  expect(apply.code).toBe(0);
  expect(apply.stdout + apply.stderr).not.toContain(TOKEN);
  expect(await moduleEnv('picker-1')).toEqual({ PATH: '/opt/acme/bin:${environment.PATH}', API_TOKEN: TOKEN });
  const state = JSON.stringify(await p.backend().read('fleet'));
  expect(state).not.toContain(TOKEN);
  expect(state).toContain('API_TOKEN');
  expect((await p.run('plan', '--detailed-exitcode')).code).toBe(0);

  // A new secret value is a change of the module env, shown masked as before.
  p.synth({ machines: ['picker-1'], token: NEXT_TOKEN });
  const plan = await p.run('plan', '--detailed-exitcode');
  expect(plan.code).toBe(2);
  expect(plan.stdout).toContain('API_TOKEN');
  expect(plan.stdout).toContain('(sensitive)');
  for (const secret of [TOKEN, NEXT_TOKEN]) expect(plan.stdout + plan.stderr).not.toContain(secret);
  const json = await p.run('plan', '--json');
  for (const secret of [TOKEN, NEXT_TOKEN]) expect(json.stdout).not.toContain(secret);
  expect((await p.run('apply', '--auto-approve')).code).toBe(0);
  expect((await moduleEnv('picker-1'))?.API_TOKEN).toBe(NEXT_TOKEN);
});

test('attributesOf of what the service holds gives the attributes code synthesized, secrets in secret_env', async () => {
  p.synth({ machines: ['picker-1'], token: TOKEN });
  expect((await p.run('apply', '--auto-approve')).code).toBe(0);
  const written = await writtenMachine('picker-1');

  const engine = new Engine({ client: p.client, backend: p.backend(), kinds: defaultKinds(), parallelism: 2, lockTimeoutMs: 0 });
  const [stack] = await readStacks(p.outdir);
  if (!stack) throw new Error('no stack');
  const ctx = await engine.context(stack.provider);
  const entry = (await p.backend().read('fleet')).resources['fleetform_machine.picker-1'];
  if (!entry) throw new Error('picker-1 is not in state');
  const observed = await machineKind.observe(ctx, entry);
  if (!observed) throw new Error('picker-1 is not on the service');

  const attributes = attributesOfView(machineKind, observed.view, { secret_env: { 'acme_sensors.API_TOKEN': 'old' } });
  expect(attributes.secret_env).toEqual({ 'acme_sensors.API_TOKEN': TOKEN });
  expect(attributes.name).toBe('picker-1');
  expect(attributes.location_id).toBe(observed.view.location_id);
  expect(JSON.parse(attributes.config as string)).toEqual(JSON.parse(unescapeTemplate(written.config)));

  // And back: desire of those attributes is the view the service holds.
  const desired = await machineKind.desire(ctx, machineKind.declaration.schema.parse(attributes), entry);
  expect(desired.problems).toEqual([]);
  expect(desired.view).toEqual(observed.view);

  // The synthesized attributes, read as the engine reads them, desire the same view.
  const synthesized = resolveReferences(
    stack.resources.find((r) => r.address === 'fleetform_machine.picker-1')?.attributes ?? {},
    () => undefined,
  ) as JsonObject;
  expect((await machineKind.desire(ctx, machineKind.declaration.schema.parse(synthesized), entry)).view).toEqual(observed.view);
});
