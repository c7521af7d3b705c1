import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { FleetProvider, Machine, ReconcilePolicy } from '../../src';
import { readStacks } from '../../src/engine/desired/read-stacks';
import { stackPolicy } from '../../src/reconciler/policy';
import { parseWindow } from '../../src/domain/sync-windows';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ff-reconcile-policy-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test("a stack's ReconcilePolicy is synthesized, read back, and overrides the flags field by field; windows add up", async () => {
  const app = new App({ outdir: dir });
  const own = new TerraformStack(app, 'own');
  new FleetProvider(own, 'cloud', {});
  new Machine(own, 'a', { name: 'a' });
  new ReconcilePolicy(own, 'reconcile', { apply: 'approve', windows: ['allow:0 22 * * *:6h:Europe/Berlin'] });
  const plain = new TerraformStack(app, 'plain');
  new FleetProvider(plain, 'cloud', {});
  app.synth();
  const stacks = await readStacks(dir);
  const flags = { apply: 'auto' as const, drift: 'heal' as const, windows: [parseWindow('deny:0 9 * * 1-5:8h')] };
  const byName = new Map(stacks.map((s) => [s.name, stackPolicy(s, flags)]));
  expect(byName.get('own')).toMatchObject({ apply: 'approve', drift: 'heal' });
  expect(byName.get('own')?.windows.map((w) => w.text)).toEqual(['deny:0 9 * * 1-5:8h', 'allow:0 22 * * *:6h:Europe/Berlin']);
  expect(byName.get('plain')).toMatchObject({ apply: 'auto', drift: 'heal' });
});

test('a policy with an unknown value is refused at synth, naming the field', () => {
  const app = new App({ outdir: dir });
  const stack = new TerraformStack(app, 'fleet');
  expect(() => new ReconcilePolicy(stack, 'reconcile', { drift: 'fix' as never })).toThrow(/ReconcilePolicy: drift/);
  expect(() => new ReconcilePolicy(stack, 'reconcile2', { windows: ['deny:0 9 * * *:8h:Mars/Olympus'] })).toThrow(
    /ReconcilePolicy: windows\[0\]: unknown time zone/,
  );
});
