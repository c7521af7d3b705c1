/**
 * JSON keys that are also names of Object.prototype's members (`__proto__`, `constructor`,
 * `toString`...) are data like any other: from the app's props through synth, the engine,
 * the client, the emulator and state, and back on the next plan.
 */
import { App, LocalBackend, TerraformStack } from 'cdktf';
import * as fc from 'fast-check';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { FleetProvider, Machine, ModularResource, Module } from '../../src';
import { stableStringify } from '../../src/engine/json';
import { openEmulatorProject, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(300_000);

let p: EmulatorProject;
beforeAll(async () => {
  p = await openEmulatorProject('ff-ownkeys-');
});
afterAll(async () => {
  await p?.close();
});

function synth(attributes: Record<string, unknown>): void {
  const app = new App({ outdir: p.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new LocalBackend(stack, { path: path.join(p.dir, 'terraform.fleet.tfstate') });
  new FleetProvider(stack, 'cloud', {});
  const machine = new Machine(stack, 'arm', { name: 'arm' });
  new Module(machine, 'sensors', { moduleId: 'acme:sensors', version: '~1.2' });
  new ModularResource(machine, 'sensor', {
    name: 'sensor-1',
    api: 'rdk:component:sensor',
    model: 'acme:sensors:hc-sr04',
    attributes: attributes as never,
  });
  app.synth();
}

async function storedAttributes(): Promise<unknown> {
  const machine = (await p.client.appClient.listMachines(p.credentials.locationId)).find((m) => m.name === 'arm');
  if (!machine) throw new Error('no machine arm on the service');
  const [main] = await p.client.appClient.getMachineParts(machine.id);
  const part = await p.client.appClient.getMachinePart(main?.id ?? '');
  const config = JSON.parse(JSON.stringify(part.config)) as { components: Array<{ attributes?: unknown }> };
  return config.components[0]?.attributes;
}

const RESERVED = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype'];

/** Objects whose keys are often the reserved ones, parsed from JSON as an app reading a file would get them. */
const attributesArb = fc
  .array(
    fc.tuple(
      fc.oneof(fc.constantFrom(...RESERVED), fc.constantFrom('depth', 'pin')),
      fc.oneof(
        fc.integer({ min: 0, max: 9 }),
        fc.constantFrom(...RESERVED),
        fc.constant(JSON.parse('{"__proto__":{"constructor":1}}') as unknown),
      ),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map(
    (entries) =>
      JSON.parse(`{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`) as Record<string, unknown>,
  );

test('every own key reaches the service and state, and the next plan has no changes', async () => {
  const seen: string[] = [];
  await fc.assert(
    fc.asyncProperty(attributesArb, async (attributes) => {
      synth(attributes);
      const written = JSON.parse(await fs.readFile(path.join(p.outdir, 'stacks', 'fleet', 'cdk.tf.json'), 'utf8')) as {
        resource: { fleetform_machine: { arm: { config: string } } };
      };
      const synthesized = JSON.parse(written.resource.fleetform_machine.arm.config) as { components: Array<{ attributes?: unknown }> };
      expect(JSON.stringify(synthesized.components[0]?.attributes)).toBe(JSON.stringify(attributes));
      const apply = await p.run('apply', '--auto-approve');
      expect(apply.stderr).toBe('');
      expect(apply.code).toBe(0);
      const stored = await storedAttributes();
      // Every key and value as the code has them; a key the last write stored keeps its place (a write keeps the stored order).
      expect(stableStringify(stored)).toBe(stableStringify(attributes));
      const again = await p.run('plan', '--detailed-exitcode');
      expect(again.stdout).toContain('No changes');
      expect(again.code).toBe(0);
      const state = JSON.stringify(await p.backend().read('fleet'));
      for (const key of Object.keys(attributes)) expect(state).toContain(JSON.stringify(key));
      seen.push(...Object.keys(attributes));
    }),
    { numRuns: Number(process.env.OWN_KEYS_RUNS ?? 6), seed: 28 },
  );
  expect(seen).toContain('__proto__');
});

test('a change under a __proto__ key is planned and applied like any other', async () => {
  const before = JSON.parse('{"__proto__":{"pin":1},"constructor":"a"}') as Record<string, unknown>;
  const after = JSON.parse('{"__proto__":{"pin":2},"constructor":"a"}') as Record<string, unknown>;
  synth(before);
  expect((await p.run('apply', '--auto-approve')).code).toBe(0);
  synth(after);
  const plan = await p.run('plan', '--detailed-exitcode');
  expect(plan.code).toBe(2);
  expect(plan.stdout).toContain('__proto__');
  expect((await p.run('apply', '--auto-approve')).code).toBe(0);
  expect(JSON.stringify(await storedAttributes())).toBe(JSON.stringify(after));
});
