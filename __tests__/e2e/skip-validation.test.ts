/**
 * An app made with `skipValidation` asks no construct for its problems at synth, so a
 * machine's config is not checked then; `fleetform plan` checks it with the same rules
 * before it plans, and refuses it.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { FleetProvider, Machine, ModularResource, Module } from '../../src';
import { openEmulatorProject, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(120_000);

let p: EmulatorProject;

beforeEach(async () => {
  p = await openEmulatorProject('ff-skip-validation-');
});

afterEach(async () => {
  await p?.close();
});

test('a machine config synth did not check is refused by plan, the problem named', async () => {
  const app = new App({ outdir: p.outdir, skipValidation: true });
  const stack = new TerraformStack(app, 'fleet');
  new FleetProvider(stack, 'cloud', {});
  // A bind address the machine server cannot parse: it would refuse the whole config.
  const machine = new Machine(stack, 'picker-1', { network: { bind_address: 'nowhere' } });
  new Module(machine, 'sensors', { moduleId: 'acme:sensors', version: '~1.2' });
  new ModularResource(machine, 'arm', { api: 'rdk:component:arm', model: 'acme:sensors:six-axis' });
  app.synth();
  const written = JSON.parse(await fs.readFile(path.join(p.outdir, 'stacks', 'fleet', 'cdk.tf.json'), 'utf8')) as {
    resource: { fleetform_machine: Record<string, { config: string }> };
  };
  expect(JSON.parse(written.resource.fleetform_machine['picker-1']?.config ?? '{}').network).toEqual({ bind_address: 'nowhere' });

  const plan = await p.run('plan');
  expect(plan.code).not.toBe(0);
  expect(plan.stdout + plan.stderr).toMatch(/bind_address "nowhere" is not host:port/);
  expect(
    await p
      .backend()
      .read('fleet')
      .then((s) => Object.keys(s.resources)),
  ).toEqual([]);
});
