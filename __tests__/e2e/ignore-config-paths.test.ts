/**
 * ignore_changes with a path into a machine's config, as plans show it: what a technician
 * changed on the service under that path stays, everything else follows the code.
 */
import { App, LocalBackend, TerraformStack } from 'cdktf';
import * as path from 'node:path';
import { FleetProvider, Machine, ModularResource, Module } from '../../src';
import { openEmulatorProject, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(120_000);

let p: EmulatorProject;
beforeAll(async () => {
  p = await openEmulatorProject('ff-ignorepath-');
});
afterAll(async () => {
  await p?.close();
});

function synth(timeoutMs: number, level: string): void {
  const app = new App({ outdir: p.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new LocalBackend(stack, { path: path.join(p.dir, 'terraform.fleet.tfstate') });
  new FleetProvider(stack, 'cloud', {});
  const machine = new Machine(stack, 'arm', { name: 'arm' });
  machine.lifecycle = { ignoreChanges: ['config.components.sensor-1.attributes'] };
  new Module(machine, 'sensors', { moduleId: 'acme:sensors', version: '~1.2', env: { LEVEL: level } });
  new ModularResource(machine, 'sensor', {
    name: 'sensor-1',
    api: 'rdk:component:sensor',
    model: 'acme:sensors:hc-sr04',
    attributes: { timeout_ms: timeoutMs },
  });
  app.synth();
}

async function part() {
  const machine = (await p.client.appClient.listMachines(p.credentials.locationId)).find((m) => m.name === 'arm');
  const [main] = await p.client.appClient.getMachineParts(machine?.id ?? '');
  return p.client.appClient.getMachinePart(main?.id ?? '');
}

type Config = { components: Array<{ attributes: Record<string, unknown> }>; modules: Array<{ env: Record<string, string> }> };

test('a value changed by hand under an ignored path stays; the rest of the config follows the code', async () => {
  synth(150, 'info');
  expect((await p.run('apply', '--auto-approve')).code).toBe(0);
  const made = await part();
  const byHand = JSON.parse(JSON.stringify(made.config)) as Config;
  (byHand.components[0] as { attributes: Record<string, unknown> }).attributes = { timeout_ms: 999, tuned: true };
  await p.client.appClient.updateMachinePart(made.id, made.name, byHand, made.lastUpdated);

  synth(200, 'debug');
  const plan = await p.run('plan', '--detailed-exitcode');
  expect(plan.code).toBe(2);
  expect(plan.stdout).toContain('LEVEL');
  expect(plan.stdout).not.toContain('timeout_ms');
  expect((await p.run('apply', '--auto-approve')).code).toBe(0);
  const config = (await part()).config as unknown as Config;
  expect(config.components[0]?.attributes).toEqual({ timeout_ms: 999, tuned: true });
  expect(config.modules[0]?.env).toEqual({ LEVEL: 'debug' });
  expect((await p.run('plan', '--detailed-exitcode')).code).toBe(0);
});
