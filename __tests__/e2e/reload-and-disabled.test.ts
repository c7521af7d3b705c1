/**
 * Through the real CLI on the emulator: a disabled component is applied and the simulated
 * machine does not build it; a hot reload another client writes on a module is not planned
 * away as drift, and the plan says it is in place.
 */
import { App, LocalBackend, TerraformStack } from 'cdktf';
import * as path from 'node:path';
import { Component, FleetProvider, Machine, Module } from '../../src';
import { serviceStatusSource } from '../../src/engine/health/service-status-source';
import { suiteOnQuickMachines, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(180_000);

let p: EmulatorProject;
suiteOnQuickMachines('ff-reload-', (project) => {
  p = project;
});

function synth(camDisabled = true): void {
  const app = new App({ outdir: p.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new LocalBackend(stack, { path: path.join(p.dir, 'terraform.fleet.tfstate') });
  new FleetProvider(stack, 'cloud', {});
  const machine = new Machine(stack, 'arm', { name: 'arm', healthGate: { timeout: '60s' } });
  new Module(machine, 'sensors', { moduleId: 'acme:sensors', version: '~1.2' });
  new Component(machine, 'board', { api: 'rdk:component:board', model: 'fake' });
  new Component(machine, 'cam', { api: 'rdk:component:camera', model: 'fake', disabled: camDisabled });
  app.synth();
}

async function mainPart(): Promise<{ id: string; name: string; config: Record<string, unknown>; lastUpdated?: Date }> {
  const machine = (await p.client.appClient.listMachines(p.credentials.locationId)).find((m) => m.name === 'arm');
  if (!machine) throw new Error('no machine arm on the service');
  const [main] = await p.client.appClient.getMachineParts(machine.id);
  const part = await p.client.appClient.getMachinePart(main?.id ?? '');
  return {
    id: part.id,
    name: part.name,
    config: JSON.parse(JSON.stringify(part.config)) as Record<string, unknown>,
    lastUpdated: part.lastUpdated,
  };
}

test('a disabled component is stored and not built; a hot reload written by another client is left as it is; enabling plans as such', async () => {
  synth();
  const apply = await p.run('apply', '--auto-approve');
  expect(apply.stderr).toBe('');
  expect(apply.code).toBe(0);

  const part = await mainPart();
  const components = part.config.components as Record<string, unknown>[];
  expect(components.find((c) => c.name === 'cam')?.disabled).toBe(true);
  // The health gate passed: the machine runs this config; it built the board alone.
  const reading = await (await serviceStatusSource(p.client)).read(part.id);
  if (!reading.reachable) throw new Error(`machine not reachable: ${reading.reason}`);
  expect(reading.status.resources.map((r) => r.name)).toContain('board');
  expect(reading.status.resources.map((r) => r.name)).not.toContain('cam');

  // A developer's hot reload, written as another client writes it.
  const modules = (part.config.modules as Record<string, unknown>[]).map((m) =>
    m.module_id === 'acme:sensors'
      ? {
          ...m,
          version: 'latest-with-prerelease',
          reload_enabled: true,
          reload_path: '/home/dev/sensors/module.tar.gz',
          reload_user: 'dev@example.com',
          reload_time: '2026-11-30T10:00:00Z',
          reload_annotation: 'new filter',
        }
      : m,
  );
  await p.client.appClient.updateMachinePart(part.id, part.name, { ...part.config, modules }, part.lastUpdated, []);

  const plan = await p.run('plan', '--detailed-exitcode');
  expect(plan.stdout).toContain('No changes');
  expect(plan.stdout).toContain(
    'config.modules.acme_sensors: a hot reload by dev@example.com at 2026-11-30T10:00:00Z is in place (version latest-with-prerelease); left as it is',
  );
  expect(plan.code).toBe(0);
  const after = await p.run('apply', '--auto-approve');
  expect(after.code).toBe(0);
  const kept = ((await mainPart()).config.modules as Record<string, unknown>[]).find((m) => m.module_id === 'acme:sensors');
  expect(kept).toMatchObject({ version: 'latest-with-prerelease', reload_enabled: true, reload_user: 'dev@example.com' });

  synth(false);
  const enable = await p.run('plan', '--detailed-exitcode');
  expect(enable.code).toBe(2);
  expect(enable.stdout).toContain('~ config.components.cam.disabled = true -> false');
  // The reload stays while the component is enabled: the write keeps it, and says so.
  expect(enable.stdout).toContain('warning: config.modules.acme_sensors: a hot reload by dev@example.com');
  expect(enable.stdout).not.toContain('config.modules.acme_sensors.version = "latest-with-prerelease" -> "~1.2"');
});
