/**
 * A machine's config write reports the revision it made (the part's last_updated after
 * it), so a rollout gates each machine on its own write without reading the part again; a
 * write that changes nothing reports none.
 */
import { readStacks } from '../../src/engine/desired/read-stacks';
import { Engine } from '../../src/engine/engine';
import { attributesOfView } from '../../src/engine/kind';
import { defaultKinds } from '../../src/engine/kinds';
import { machineKind } from '../../src/engine/kinds/machine';
import { openEmulatorProject, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(120_000);

let p: EmulatorProject;

beforeEach(async () => {
  p = await openEmulatorProject('ff-machine-revision-');
});

afterEach(async () => {
  await p?.close();
});

test('an update that writes the config reports the revision the part then has; one that writes nothing reports none', async () => {
  p.synth({ machines: ['picker-1'], token: 'a-Secret-1' });
  expect((await p.run('apply', '--auto-approve')).code).toBe(0);
  const engine = new Engine({ client: p.client, backend: p.backend(), kinds: defaultKinds(), parallelism: 2, lockTimeoutMs: 0 });
  const [stack] = await readStacks(p.outdir);
  if (!stack) throw new Error('no stack');
  const ctx = await engine.context(stack.provider);
  const entry = (await p.backend().read('fleet')).resources['fleetform_machine.picker-1'];
  const partId = entry?.ids.part_id;
  if (!entry || !partId) throw new Error('picker-1 is not in state');
  const observed = await machineKind.observe(ctx, entry);
  if (!observed) throw new Error('picker-1 is not on the service');
  const attributes = attributesOfView(machineKind, observed.view, { secret_env: { 'acme_sensors.API_TOKEN': 'old' } });

  const same = await machineKind.desire(ctx, machineKind.declaration.schema.parse(attributes), entry);
  const unchanged = await machineKind.update(ctx, entry, same.view, observed.version);
  expect(unchanged.revision).toBeUndefined();

  const config = JSON.parse(String(attributes.config)) as { components: Array<{ attributes?: Record<string, unknown> }> };
  const first = config.components[0];
  if (!first) throw new Error('picker-1 has no component');
  first.attributes = { ...first.attributes, timeout_ms: 250 };
  const changed = await machineKind.desire(
    ctx,
    machineKind.declaration.schema.parse({ ...attributes, config: JSON.stringify(config) }),
    entry,
  );
  const made = await machineKind.update(ctx, entry, changed.view, observed.version);
  const part = await p.client.appClient.getMachinePart(partId);
  expect(made.revision).toBe(part.lastUpdated?.toISOString());
  expect(made.revision).not.toBe(observed.version);
});
