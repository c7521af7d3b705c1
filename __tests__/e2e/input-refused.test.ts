/**
 * Input no service call could succeed with is refused before any call: output of the app
 * that is not JSON, env entries no process can receive, a machine config over the
 * service's message limit; and the hints of those refusals say what is true.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { App, TerraformStack, Testing } from 'cdktf';
import { Construct } from 'constructs';
import { FleetProvider, Machine, ModularResource, Module } from '../../src';
import { fleetform, openEmulatorProject, synthFleet, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(60_000);

/** A project whose app is `node app.js` with the given source. */
async function nodeAppProject(p: EmulatorProject, source: string): Promise<void> {
  await fs.writeFile(path.join(p.dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'node app.js' }));
  await fs.writeFile(path.join(p.dir, 'app.js'), source);
}

const WRITES_BROKEN_STACK = `
const fs = require('node:fs');
const out = process.env.CDKTF_OUTDIR;
fs.mkdirSync(out + '/stacks/s', { recursive: true });
fs.writeFileSync(out + '/manifest.json', JSON.stringify({ version: '0.21.0', stacks: { s: { name: 's', synthesizedStackPath: 'stacks/s/cdk.tf.json' } } }));
fs.writeFileSync(out + '/stacks/s/cdk.tf.json', '{"resource": {"fleetform_machine": {');
`;

describe('an app whose output is not JSON', () => {
  let p: EmulatorProject;
  beforeEach(async () => {
    p = await openEmulatorProject('ff-refused-json-');
  });
  afterEach(() => p.close());

  test('synth and validate fail naming the file, and synth writes nothing', async () => {
    await nodeAppProject(p, WRITES_BROKEN_STACK);
    for (const command of ['synth', 'validate']) {
      const r = await p.runBare(command);
      expect([command, r.code]).toEqual([command, 1]);
      expect(r.stderr).toContain('error: the app wrote stacks/s/cdk.tf.json, which is not valid JSON: ');
      expect(r.stdout).toBe('');
    }
    await expect(fs.stat(path.join(p.dir, 'cdktf.out'))).rejects.toThrow(/ENOENT/);
  });

  test('plan stops with the same error, not with "synthesize again"', async () => {
    await nodeAppProject(p, WRITES_BROKEN_STACK);
    const r = await p.runBare('plan');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the app wrote stacks/s/cdk.tf.json, which is not valid JSON');
    expect(r.stderr).not.toContain('synthesize again');
  });

  test('a manifest that does not parse is named, not reported as "synthesized nothing"', async () => {
    await nodeAppProject(p, "require('node:fs').writeFileSync(process.env.CDKTF_OUTDIR + '/manifest.json', '{');");
    const r = await p.runBare('validate');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the app wrote manifest.json, which is not valid JSON');
    expect(r.stderr).not.toContain('synthesized nothing');
  });
});

describe('env entries no process can receive', () => {
  test('are synth errors', async () => {
    const p = await openEmulatorProject('ff-refused-env-');
    try {
      expect(() => synthFleet(p.outdir, { machines: ['f-a'], env: { 'A=B': 'x' } })).toThrow(
        /env\["A=B"\]: environment variable name "A=B" holds "=", which ends a name/,
      );
      expect(() => synthFleet(p.outdir, { machines: ['f-a'], env: { 'A\0B': 'x' } })).toThrow(/holds a NUL character/);
    } finally {
      await p.close();
    }
  });

  test('`fleetform env` refuses an output that holds one, printing no environment', async () => {
    const p = await openEmulatorProject('ff-refused-env-');
    try {
      p.synth({ machines: ['f-a'] });
      const file = path.join(p.outdir, 'stacks', 'fleet', 'cdk.tf.json');
      const doc = JSON.parse(await fs.readFile(file, 'utf8')) as { resource: { fleetform_machine: Record<string, { config: string }> } };
      const machine = doc.resource.fleetform_machine['f-a'];
      if (!machine) throw new Error('no machine f-a in the synthesized stack');
      const config = JSON.parse(machine.config) as { modules: { env?: Record<string, string> }[] };
      const module = config.modules[0];
      if (!module) throw new Error('no module in the machine config');
      module.env = { ...module.env, 'A=B': 'x' };
      machine.config = JSON.stringify(config);
      await fs.writeFile(file, JSON.stringify(doc));
      const r = await p.run('env', 'fleetform_machine.f-a', 'acme_sensors');
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('environment variable name "A=B" holds "="');
      expect(r.stdout).not.toMatch(/^A=B=/m);
    } finally {
      await p.close();
    }
  });
});

describe('a machine config over the message limit', () => {
  test('is a plan error naming the limit, and apply creates nothing', async () => {
    const p = await openEmulatorProject('ff-refused-size-');
    try {
      // Six attributes of 900,000 characters: each under its own limit, 5.4 MB together.
      const app = new App({ outdir: p.outdir });
      const stack = new TerraformStack(app, 'fleet');
      new FleetProvider(stack, 'cloud', {});
      const machine = new Machine(stack, 'big', { name: 'big' });
      const sensors = new Module(machine, 'sensors', { moduleId: 'acme:sensors', version: '~1.2' });
      const attributes = Object.fromEntries([0, 1, 2, 3, 4, 5].map((i) => [`table_${i}`, 'x'.repeat(900_000)]));
      new ModularResource(machine, 'board', { name: 'board-1', api: 'rdk:component:board', model: sensors.model('pi-board'), attributes });
      app.synth();
      const plan = await p.run('plan');
      expect(plan.code).toBe(1);
      const output = plan.stdout + plan.stderr;
      expect(output).toContain('needs a 5.2 MiB (5,400,');
      expect(output).toContain("UpdateRobotPart message, over the service's message limit of 4.0 MiB (4,194,304 bytes)");
      const apply = await p.run('apply', '--auto-approve');
      expect(apply.code).toBe(1);
      expect(await p.client.appClient.listMachines(p.credentials.locationId)).toEqual([]);
    } finally {
      await p.close();
    }
  });
});

describe('hints say what is true', () => {
  test('validate --help promises no main.ts fallback', async () => {
    const r = await fleetform(process.cwd(), ['validate', '--help'], {});
    expect(r.stdout).toContain('the command in cdktf.json "app"');
    expect(r.stdout).not.toContain('main.ts');
  });

  test('the address-collision hint says how ids become addresses: "/" in an id is "--", nesting is "_"', () => {
    const app = Testing.app();
    const stack = new TerraformStack(app, 's');
    const slashed = new Machine(stack, 'a/b_c', { name: 'one' });
    const nested = new Machine(new Construct(stack, 'a--b'), 'c', { name: 'two' });
    // What the hint says is what the addresses are.
    expect([slashed.friendlyUniqueId, nested.friendlyUniqueId]).toEqual(['a--b_c', 'a--b_c']);
    expect(() => Testing.synth(stack, true)).toThrow(
      /fleetform_machine\.a--b_c is also the address of s\/a--b_c \(hint: an address joins the construct ids below the stack with "_"; a "\/" inside one id becomes "--"/,
    );
  });

  test('a cdktf.json without "app" asks for "app", not for a cdktf.json', async () => {
    const p = await openEmulatorProject('ff-refused-hint-');
    try {
      await fs.writeFile(path.join(p.dir, 'cdktf.json'), JSON.stringify({ language: 'typescript' }));
      const r = await p.runBare('validate');
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('cdktf.json has no "app"');
      expect(r.stderr).toContain('hint: add "app" to cdktf.json');
      expect(r.stderr).not.toContain('add cdktf.json');
    } finally {
      await p.close();
    }
  });
});
