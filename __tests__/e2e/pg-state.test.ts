/**
 * Two working copies of one project (two folders, two processes, as two hosts would be)
 * managing one fleet through state in a real PostgreSQL server.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, PgBackend, TerraformStack } from 'cdktf';
import { FleetProvider, Machine, ModularResource, Module, Rollout } from '../../src';
import { fleetform, openEmulatorProject, quickMachines, startFleetform, type CliResult, type EmulatorProject } from './fleet-fixture';
import { startPostgres, type PgServer } from '../../scripts/postgres-server';

jest.setTimeout(180_000);

let server: PgServer;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(() => server?.stop());

interface Copy {
  readonly dir: string;
  readonly outdir: string;
}

let project: EmulatorProject | undefined;
const copies: string[] = [];
afterEach(async () => {
  await project?.close();
  project = undefined;
  for (const dir of copies.splice(0)) await fs.rm(dir, { recursive: true, force: true });
});

let schemas = 0;
/** A project with its emulator, and two working copies whose stacks keep state in one new schema. */
async function twoCopies(): Promise<{ p: EmulatorProject; a: Copy; b: Copy; schema: string }> {
  const p = await openEmulatorProject('ff-pg-');
  project = p;
  schemas += 1;
  const schema = `team_${process.pid}_${schemas}`;
  const a = { dir: p.dir, outdir: p.outdir };
  const bDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-pg-copy-'));
  copies.push(bDir);
  return { p, a, b: { dir: bDir, outdir: path.join(bDir, 'cdktf.out') }, schema };
}

function synth(copy: Copy, machines: readonly string[], backend: { connStr: string; schemaName: string } | undefined): void {
  const app = new App({ outdir: copy.outdir });
  const stack = new TerraformStack(app, 'fleet');
  if (backend) new PgBackend(stack, backend);
  new FleetProvider(stack, 'cloud', {});
  for (const name of machines) new Machine(stack, name, { name });
  app.synth();
}

/** A cdktf.json and an app that synthesizes the same stack as `synth`, where the command running it says. */
async function writeApp(copy: Copy, machines: readonly string[], backend: { connStr: string; schemaName: string }): Promise<void> {
  const root = path.resolve(__dirname, '../..');
  const lines = [
    `const { App, PgBackend, TerraformStack } = require(${JSON.stringify(path.join(root, 'node_modules', 'cdktf'))});`,
    `const { FleetProvider, Machine } = require(${JSON.stringify(path.join(root, 'dist'))});`,
    'const app = new App();',
    "const stack = new TerraformStack(app, 'fleet');",
    `new PgBackend(stack, ${JSON.stringify(backend)});`,
    "new FleetProvider(stack, 'cloud', {});",
    `for (const name of ${JSON.stringify(machines)}) new Machine(stack, name, { name });`,
    'app.synth();',
  ];
  await fs.writeFile(path.join(copy.dir, 'app.js'), `${lines.join('\n')}\n`);
  await fs.writeFile(
    path.join(copy.dir, 'cdktf.json'),
    JSON.stringify({ language: 'typescript', app: 'node app.js', output: path.relative(copy.dir, copy.outdir) }),
  );
}

function run(p: EmulatorProject, copy: Copy, ...args: string[]): Promise<CliResult> {
  return fleetform(copy.dir, [...args, '--synth-out', copy.outdir], p.env);
}

async function machineNames(p: EmulatorProject): Promise<string[]> {
  return (await p.client.appClient.listMachines(p.credentials.locationId)).map((m) => m.name).sort();
}

/** The fleet of `synth`, each machine running acme:sensors at `policy`, changed in one wave behind a gate. */
function synthRollout(copy: Copy, machines: readonly string[], policy: string, backend: { connStr: string; schemaName: string }): void {
  const app = new App({ outdir: copy.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new PgBackend(stack, backend);
  new FleetProvider(stack, 'cloud', {});
  for (const name of machines) {
    const machine = new Machine(stack, name, { name });
    const sensors = new Module(machine, 'sensors', { moduleId: 'acme:sensors', version: policy });
    new ModularResource(machine, 'board', { name: 'board-1', api: 'rdk:component:board', model: sensors.model('pi-board') });
  }
  new Rollout(stack, 'careful', { waves: [{ fraction: 1 }], gate: { timeout: '60s', settle: '0s' } });
  app.synth();
}

test("a rollout's journal is kept with the team's state: the other working copy sees where it stands", async () => {
  const restoreEnv = quickMachines();
  try {
    const { p, a, b, schema } = await twoCopies();
    const backend = { connStr: server.url, schemaName: schema };
    synthRollout(a, ['arm-1', 'arm-2'], '~1.2', backend);
    expect((await run(p, a, 'apply', '--auto-approve')).code).toBe(0);
    synthRollout(a, ['arm-1', 'arm-2'], '~1.3', backend);
    const staged = await run(p, a, 'apply', '--auto-approve');
    expect(staged.stderr).toBe('');
    expect(staged.code).toBe(0);
    expect(await fs.readdir(a.dir)).not.toContain('.fleetform');
    synthRollout(b, ['arm-1', 'arm-2'], '~1.3', backend);
    const status = await fleetform(b.dir, ['rollout', 'status', '--json'], p.env);
    expect(status.stderr).toBe('');
    const journals = JSON.parse(status.stdout) as Array<{
      stack: string;
      status: string;
      machines: Array<{ name: string; result: string }>;
    }>;
    expect(journals.map((j) => [j.stack, j.status])).toEqual([['fleet', 'completed']]);
    expect(journals[0]?.machines.map((m) => [m.name, m.result]).sort()).toEqual([
      ['arm-1', 'healthy'],
      ['arm-2', 'healthy'],
    ]);
  } finally {
    restoreEnv();
  }
});

test('an apply from one working copy is seen by a plan from the other: no changes', async () => {
  const { p, a, b, schema } = await twoCopies();
  const backend = { connStr: server.url, schemaName: schema };
  synth(a, ['arm-1', 'arm-2'], backend);
  synth(b, ['arm-1', 'arm-2'], backend);
  expect((await run(p, a, 'apply', '--auto-approve')).code).toBe(0);
  const plan = await run(p, b, 'plan', '--detailed-exitcode');
  expect(plan.stderr).toBe('');
  expect(plan.code).toBe(0);
  expect(plan.stdout).toContain('No changes.');
  expect(await fs.readdir(b.dir)).not.toContain('.fleetform');
  const list = await fleetform(b.dir, ['state', 'list'], p.env);
  expect(list.stdout).toBe('fleet\tfleetform_machine.arm-1\nfleet\tfleetform_machine.arm-2\n');
});

test('two applies at once from two copies: one fails naming the holder, nothing is lost or made twice', async () => {
  const { p, a, b, schema } = await twoCopies();
  const backend = { connStr: server.url, schemaName: schema };
  const fleet = Array.from({ length: 100 }, (_, i) => `arm-${i}`);
  synth(a, fleet, backend);
  synth(b, fleet, backend);
  // The second starts once the first holds the lock and is writing (one machine at a time, a hundred to go).
  const first = startFleetform(a.dir, ['apply', '--auto-approve', '--parallelism', '1', '--synth-out', a.outdir], p.env);
  await first.stdoutShows(': Creation complete');
  const second = await run(p, b, 'apply', '--auto-approve', '--parallelism', '1');
  expect((await first.result).code).toBe(0);
  expect(second.code).toBe(1);
  expect(second.stderr).toMatch(/state of stack "fleet" is locked by \S+ \(pid \d+, "fleetform apply --auto-approve/);
  expect(await machineNames(p)).toEqual([...fleet].sort());
  expect((await run(p, b, 'plan', '--detailed-exitcode')).code).toBe(0);
  expect((await run(p, a, 'plan', '--detailed-exitcode')).code).toBe(0);
});

test('a killed lock holder leaves no lock: the other copy applies at once and converges', async () => {
  const { p, a, b, schema } = await twoCopies();
  const backend = { connStr: server.url, schemaName: schema };
  synth(a, ['arm-1', 'arm-2', 'arm-3'], backend);
  synth(b, ['arm-1', 'arm-2', 'arm-3'], backend);
  const killed = await fleetform(a.dir, ['apply', '--auto-approve', '--parallelism', '1', '--synth-out', a.outdir], {
    ...p.env,
    FLEETFORM_TEST_KILL_AT_CALL: '4',
  });
  expect(killed.code).not.toBe(0);
  const recovery = await run(p, b, 'apply', '--auto-approve');
  expect(recovery.stderr).toBe('');
  expect(recovery.code).toBe(0);
  expect(await machineNames(p)).toEqual(['arm-1', 'arm-2', 'arm-3']);
  expect((await run(p, a, 'plan', '--detailed-exitcode')).code).toBe(0);
});

test('the server going away mid-apply is a clear error; once it is back the next apply converges', async () => {
  const { p, a, schema } = await twoCopies();
  const fleet = Array.from({ length: 30 }, (_, i) => `arm-${i}`);
  synth(a, fleet, { connStr: server.url, schemaName: schema });
  const apply = startFleetform(a.dir, ['apply', '--auto-approve', '--parallelism', '1', '--synth-out', a.outdir], p.env);
  const started = new Promise<void>((resolve) => {
    const check = setInterval(() => {
      void machineNames(p).then((names) => {
        if (names.length >= 2) {
          clearInterval(check);
          resolve();
        }
      });
    }, 50);
  });
  await started;
  server.kill();
  const failed = await apply.result;
  server.start();
  expect(failed.code).toBe(1);
  expect(failed.stdout + failed.stderr).toContain(`PostgreSQL state backend at postgres://fleetform@127.0.0.1:${server.port}/postgres`);
  const again = await run(p, a, 'apply', '--auto-approve');
  expect(again.stderr).toBe('');
  expect(again.code).toBe(0);
  expect(await machineNames(p)).toEqual([...fleet].sort());
  expect((await run(p, a, 'plan', '--detailed-exitcode')).code).toBe(0);
});

test('local state is migrated into PostgreSQL, verified, and kept as a backup; until then plans refuse to start over', async () => {
  const { p, a, b, schema } = await twoCopies();
  synth(a, ['arm-1'], undefined);
  expect((await run(p, a, 'apply', '--auto-approve')).code).toBe(0);
  synth(a, ['arm-1'], { connStr: server.url, schemaName: schema });
  const refused = await run(p, a, 'plan');
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('the state of fleet is in local files, but the stacks now keep state in pg (');
  expect(refused.stderr).toContain('hint: copy it there first: fleetform state migrate');

  // migrate runs the app, as plan does: no synthesized output is left to read.
  await writeApp(a, ['arm-1'], { connStr: server.url, schemaName: schema });
  await fs.rm(a.outdir, { recursive: true, force: true });
  const migrate = await fleetform(a.dir, ['state', 'migrate'], p.env);
  expect(migrate.stderr).toBe('');
  expect(migrate.stdout).toMatch(
    /^Migrated pg \(.*\): stack fleet \(1 resource, serial \d+\)\.\nThe local files are kept in \.fleetform\/state\/migrated-/,
  );
  expect((await run(p, a, 'plan', '--detailed-exitcode')).code).toBe(0);
  synth(b, ['arm-1'], { connStr: server.url, schemaName: schema });
  expect((await run(p, b, 'plan', '--detailed-exitcode')).code).toBe(0);
  expect(await machineNames(p)).toEqual(['arm-1']);
});
