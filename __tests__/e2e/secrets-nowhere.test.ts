/**
 * The blunt proof that no secret is written anywhere: a fleet whose modules take secrets by
 * reference (an environment variable and a file) is planned in every format, saved as a plan
 * file, applied from it, rolled out in a health-gated wave with a new value, shown from
 * state, refused while a variable is missing, adopted into a second project and finished,
 * applied through the real Terraform CLI, and reconciled by `fleetform reconcile` (which rolls
 * the first value back, posts its events to webhooks and serves its dashboard and metrics);
 * then every file of the projects, every webhook body, every page and JSON document the
 * reconciler serves, every row of the PostgreSQL state backend and everything the commands
 * printed is searched for each
 * value in clear, base64, hex, URL-encoded and JSON-escaped forms. The service (the
 * emulator's own database) holds the values, as it must, and is the one place not searched.
 */
import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Client } from 'pg';
import { App, LocalBackend, PgBackend, TerraformStack } from 'cdktf';
import { FleetProvider, Machine, ModularResource, Module, Rollout, Secret } from '../../src';
import { startPostgres, type PgServer } from '../../scripts/postgres-server';
import { requireTerraform, terraform, terraformHome } from '../provider/terraform-cli';
import { fleetform, openEmulatorProject, quickMachines, type CliResult, type EmulatorProject } from './fleet-fixture';
import { searchFiles, searchTexts } from './secret-search';
import { startReconcile } from '../reconciler/fixture';
import { decodeFleet } from '../../src/dashboard/fleet-table';
import type { PageSnapshot } from '../../src/dashboard/view';

jest.setTimeout(900_000);

const TOKEN_VARIABLE = 'BLUNT_API_TOKEN';
const secret = (label: string): string => `${label}-${randomBytes(9).toString('base64url')}`;
const TOKEN = secret('tok1');
const NEXT_TOKEN = secret('tok2');
const FILE_SECRET = secret('file');
const DASHBOARD_TOKEN = secret('dash');

let server: PgServer;
let project: EmulatorProject;
let restoreEnv: () => void;

beforeAll(async () => {
  requireTerraform();
  restoreEnv = quickMachines();
  server = await startPostgres();
  project = await openEmulatorProject('ff-blunt-');
});

afterAll(async () => {
  await project?.close();
  server?.stop();
  restoreEnv?.();
});

function synthFleet(outdir: string, secretFile: string, backend: { connStr: string; schemaName: string }, policy: string): void {
  const app = new App({ outdir });
  const stack = new TerraformStack(app, 'fleet');
  new PgBackend(stack, backend);
  new FleetProvider(stack, 'cloud', {});
  for (const name of ['arm-1', 'arm-2']) {
    const machine = new Machine(stack, name, { name });
    const sensors = new Module(machine, 'sensors', {
      moduleId: 'acme:sensors',
      version: policy,
      env: { API_TOKEN: Secret.fromEnv(TOKEN_VARIABLE), LOG_LEVEL: 'debug' },
      sensitiveEnv: { CLIENT_SECRET: Secret.fromFile(secretFile) },
    });
    new ModularResource(machine, 'board', { name: 'board-1', api: 'rdk:component:board', model: sensors.model('pi-board') });
  }
  new Rollout(stack, 'careful', { waves: [{ fraction: 0.5 }, { fraction: 1 }], gate: { timeout: '60s', settle: '0s' } });
  app.synth();
}

function synthTerraformStack(outdir: string, secretFile: string, stateFile: string): void {
  const app = new App({ outdir });
  const stack = new TerraformStack(app, 'tf');
  new LocalBackend(stack, { path: stateFile });
  new FleetProvider(stack, 'cloud', {});
  const machine = new Machine(stack, 'tf-1', { name: 'tf-1' });
  new Module(machine, 'sensors', {
    moduleId: 'acme:sensors',
    version: '~1.2',
    env: { API_TOKEN: Secret.fromEnv(TOKEN_VARIABLE), CLIENT_SECRET: Secret.fromFile(secretFile) },
  });
  app.synth();
}

/** The app `fleetform reconcile` runs: the fleet of synthFleet, its secrets by the same references. */
function reconciledApp(secretFile: string, backend: { connStr: string; schemaName: string }, policy: string): string {
  const root = path.resolve(__dirname, '../..');
  return `
const { App, PgBackend, TerraformStack } = require(${JSON.stringify(path.join(root, 'node_modules', 'cdktf'))});
const ff = require(${JSON.stringify(path.join(root, 'dist', 'index.js'))});
const app = new App();
const stack = new TerraformStack(app, 'fleet');
new PgBackend(stack, ${JSON.stringify(backend)});
new ff.FleetProvider(stack, 'cloud', {});
for (const name of ['arm-1', 'arm-2']) {
  const machine = new ff.Machine(stack, name, { name });
  const sensors = new ff.Module(machine, 'sensors', {
    moduleId: 'acme:sensors',
    version: ${JSON.stringify(policy)},
    env: { API_TOKEN: ff.Secret.fromEnv(${JSON.stringify(TOKEN_VARIABLE)}), LOG_LEVEL: 'debug' },
    sensitiveEnv: { CLIENT_SECRET: ff.Secret.fromFile(${JSON.stringify(secretFile)}) },
  });
  new ff.ModularResource(machine, 'board', { name: 'board-1', api: 'rdk:component:board', model: sensors.model('pi-board') });
}
new ff.Rollout(stack, 'careful', { waves: [{ fraction: 0.5 }, { fraction: 1 }], gate: { timeout: '60s', settle: '0s' } });
app.synth();
`;
}

/** A receiver on 127.0.0.1 keeping every body it is sent, as sent. */
async function rawReceiver(): Promise<{
  url: string;
  bodies: string[];
  until(ok: (bodies: string[]) => boolean, deadlineMs: number): Promise<void>;
  close(): Promise<void>;
}> {
  const bodies: string[] = [];
  const waiters: Array<() => void> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(204).end();
      for (const w of [...waiters]) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    bodies,
    until: (ok, deadlineMs) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`the webhook never got what was waited for within ${deadlineMs} ms; bodies: ${bodies.join('\n')}`)),
          deadlineMs,
        );
        const check = (): void => {
          if (!ok(bodies)) return;
          clearTimeout(timer);
          waiters.splice(waiters.indexOf(check), 1);
          resolve();
        };
        waiters.push(check);
        check();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Everything the reconciler at `url` serves that could show a config: its pages and their assets, their JSON, each machine's detail, its status and metrics. */
async function servedTexts(url: string): Promise<Record<string, string>> {
  const texts: Record<string, string> = {};
  const get = async (p: string): Promise<string> => {
    const res = await fetch(`${url}${p}`);
    const text = await res.text();
    expect({ path: p, status: res.status }).toEqual({ path: p, status: 200 });
    texts[`served ${p}`] = text;
    return text;
  };
  const page = await get('/dashboard/');
  for (const [, asset] of page.matchAll(/(?:src|href)="(?:\.\/|\/dashboard\/)?([\w./-]+\.(?:js|css))"/g)) await get(`/dashboard/${asset}`);
  const snapshot = JSON.parse(await get('/dashboard/api/snapshot')) as PageSnapshot;
  const machines = decodeFleet(snapshot.fleet);
  expect(machines.length).toBeGreaterThan(0);
  for (const m of machines) await get(`/dashboard/api/machines/${encodeURIComponent(m.key)}`);
  await get('/api/status');
  await get('/metrics');
  return texts;
}

async function dumpSchema(schema: string): Promise<string> {
  const client = new Client({ connectionString: server.url });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>('SELECT table_name FROM information_schema.tables WHERE table_schema = $1', [
      schema,
    ]);
    expect(tables.rows.length).toBeGreaterThan(0);
    const rows: unknown[] = [];
    for (const { table_name } of tables.rows)
      rows.push(
        table_name,
        (await client.query(`SELECT * FROM ${client.escapeIdentifier(schema)}.${client.escapeIdentifier(table_name)}`)).rows,
      );
    return JSON.stringify(rows);
  } finally {
    await client.end();
  }
}

test('no secret value is written anywhere fleetform writes, on either front end', async () => {
  const captured: Record<string, string> = {};
  let n = 0;
  const keep = (name: string, r: CliResult): CliResult => {
    n++;
    captured[`${n} ${name} stdout`] = r.stdout;
    captured[`${n} ${name} stderr`] = r.stderr;
    return r;
  };
  const secretFile = path.join(project.dir, 'secrets', 'client-secret');
  await fs.mkdir(path.dirname(secretFile), { recursive: true, mode: 0o700 });
  await fs.writeFile(secretFile, `${FILE_SECRET}\n`, { mode: 0o600 });
  const schema = `blunt_${process.pid}`;
  const backend = { connStr: server.url, schemaName: schema };
  const run = async (name: string, ...args: string[]): Promise<CliResult> => keep(name, await project.run(...args));

  // fleetform's engine: a missing variable stops the plan, naming it.
  synthFleet(project.outdir, secretFile, backend, '~1.2');
  const refused = await run('plan without the variable', 'plan');
  expect(refused.code).not.toBe(0);
  expect(refused.stdout + refused.stderr).toContain(`environment variable ${TOKEN_VARIABLE} is not set`);

  project.env[TOKEN_VARIABLE] = TOKEN;
  expect((await run('plan', 'plan')).code).toBe(0);
  expect((await run('plan --json', 'plan', '--json')).code).toBe(0);
  expect((await run('plan --markdown', 'plan', '--markdown')).code).toBe(0);
  const created = await run('apply', 'apply', '--auto-approve');
  expect({ code: created.code, said: created.stderr }).toEqual({ code: 0, said: '' });

  // A new value and a new module version, saved as a plan file and applied from it: a staged rollout in two health-gated waves.
  project.env[TOKEN_VARIABLE] = NEXT_TOKEN;
  synthFleet(project.outdir, secretFile, backend, '~1.3');
  const saved = path.join(project.dir, 'rotation.plan');
  const rotated = await run('plan --out after rotation', 'plan', '--detailed-exitcode', '--out', saved);
  expect(rotated.code).toBe(2);
  expect(rotated.stdout).toContain('API_TOKEN');
  const rollout = await run('apply saved plan (rollout)', 'apply', saved);
  expect({ code: rollout.code, said: rollout.stderr }).toEqual({ code: 0, said: '' });
  const bare = async (name: string, ...args: string[]): Promise<CliResult> => keep(name, await project.runBare(...args));
  // These three only read (none takes the state lock): they run at once.
  const [journal, shown, status] = await Promise.all([
    bare('rollout status', 'rollout', 'status', '--json'),
    bare('state show', 'state', 'show', 'fleetform_machine.arm-1'),
    bare('status', 'status', '--json'),
  ]);
  expect({ code: journal.code, said: journal.stderr }).toEqual({ code: 0, said: '' });
  expect(journal.stdout).toContain('completed');
  expect({ code: shown.code, said: shown.stderr }).toEqual({ code: 0, said: '' });
  expect(shown.stdout).toContain('API_TOKEN');
  expect({ code: status.code, said: status.stderr }).toEqual({ code: 0, said: '' });
  expect((await run('plan after apply', 'plan', '--detailed-exitcode')).code).toBe(0);

  // The service holds the values: the blunt search below would find them if anything copied them.
  const machines = await project.client.appClient.listMachines(project.credentials.locationId);
  const arm = machines.find((m) => m.name === 'arm-1');
  const part = (await project.client.appClient.getMachineParts(arm?.id ?? '')).find((p) => p.mainPart);
  expect(JSON.stringify(part?.config)).toContain(NEXT_TOKEN);
  expect(JSON.stringify(part?.config)).toContain(FILE_SECRET);

  // Adoption of the same organization into a second project: references, then state.
  const adoptDir = path.join(project.dir, 'adopted');
  await fs.mkdir(path.join(adoptDir, 'node_modules'), { recursive: true });
  const root = path.resolve(__dirname, '../..');
  for (const m of ['cdktf', 'constructs', 'tsx', '@types'])
    await fs.symlink(path.join(root, 'node_modules', m), path.join(adoptDir, 'node_modules', m));
  await fs.symlink(root, path.join(adoptDir, 'node_modules', 'fleetform'));
  await fs.writeFile(path.join(adoptDir, 'package.json'), JSON.stringify({ name: 'adopted-fleet', private: true }));
  const adopt = keep('adopt', await fleetform(adoptDir, ['adopt', '--no-jobs'], project.env));
  expect(adopt.code).toBe(0);
  const variables = [...adopt.stdout.matchAll(/^ {2}([A-Z0-9_]+) {2}\(([^:]+): module [\w-]+, (\w+)\)/gm)].map(
    ([, variable, , key]) => [variable as string, key as string] as const,
  );
  expect(variables.map(([, key]) => key).sort()).toEqual(['API_TOKEN', 'CLIENT_SECRET']);
  const adoptEnv = {
    ...project.env,
    ...Object.fromEntries(variables.map(([variable, key]) => [variable, key === 'API_TOKEN' ? NEXT_TOKEN : FILE_SECRET])),
  };
  expect(keep('adopt --finish', await fleetform(adoptDir, ['adopt', '--finish'], adoptEnv)).code).toBe(0);
  const adoptedPlan = keep('adopted plan', await fleetform(adoptDir, ['plan', '--detailed-exitcode'], adoptEnv));
  expect(adoptedPlan.stdout).toContain('No changes.');

  // The Terraform front end, with the provider reading the same references.
  const tfOut = path.join(project.dir, 'tf.out');
  synthTerraformStack(tfOut, secretFile, path.join(project.dir, 'terraform.tf.tfstate'));
  const tfEnv = { ...(await terraformHome(project.dir, project.env)), [TOKEN_VARIABLE]: NEXT_TOKEN };
  const stackDir = path.join(tfOut, 'stacks', 'tf');
  const tf = async (name: string, ...args: string[]) => keep(name, await terraform(stackDir, tfEnv, ...args));
  expect((await tf('terraform init', 'init', '-input=false', '-no-color')).code).toBe(0);
  expect((await tf('terraform plan', 'plan', '-input=false', '-no-color', '-out=tf.plan')).code).toBe(0);
  expect((await tf('terraform show', 'show', '-json', 'tf.plan')).code).toBe(0);
  expect((await tf('terraform apply', 'apply', '-input=false', '-no-color', 'tf.plan')).code).toBe(0);
  expect((await tf('terraform plan again', 'plan', '-input=false', '-no-color', '-detailed-exitcode')).code).toBe(0);

  // The reconciler rolls the first value (and version) back by itself, telling webhooks (JSON and Slack text) and serving its dashboard.
  const reconciledDir = path.join(project.dir, 'reconciled');
  await fs.mkdir(reconciledDir, { recursive: true });
  await fs.writeFile(path.join(reconciledDir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'node main.js' }));
  await fs.writeFile(path.join(reconciledDir, 'main.js'), reconciledApp(secretFile, backend, '~1.2'));
  const hook = await rawReceiver();
  const reconciler = await startReconcile(
    reconciledDir,
    ['--apply', 'auto', '--drift', 'warn', '--interval', '1m', '--poll', '100ms', '--webhook', hook.url, '--webhook', `slack:${hook.url}`],
    {
      ...process.env,
      ...project.env,
      [TOKEN_VARIABLE]: TOKEN,
      FLEETFORM_DASHBOARD_TOKEN: DASHBOARD_TOKEN,
    },
  );
  try {
    // Both receivers (JSON and Slack text) have the apply's end.
    await hook.until(
      (bodies) => bodies.some((b) => b.includes('"type":"apply-finished"')) && bodies.some((b) => b.includes('apply finished')),
      180_000,
    );
    expect(hook.bodies.join('\n')).toContain('"type":"wave-passed"');
    Object.assign(captured, await servedTexts(reconciler.url));
    hook.bodies.forEach((b, i) => (captured[`webhook body ${i + 1}`] = b));
  } finally {
    await reconciler.stop();
    captured['reconcile log'] = reconciler.log();
    await hook.close();
  }
  const rolledBack = (await project.client.appClient.getMachineParts(arm?.id ?? '')).find((p) => p.mainPart);
  expect(JSON.stringify(rolledBack?.config)).toContain(TOKEN);

  const values = [TOKEN, NEXT_TOKEN, FILE_SECRET, DASHBOARD_TOKEN];
  const files = await searchFiles(project.dir, values, ['emulator', 'secrets']);
  // What each step wrote is among what was searched.
  expect(files.files).toEqual(
    expect.arrayContaining([
      path.join('cdktf.out', 'stacks', 'fleet', 'cdk.tf.json'),
      'rotation.plan',
      path.join('adopted', 'stacks', 'adopted.ts'),
      path.join('adopted', 'cdktf.out', 'stacks', 'adopted', 'cdk.tf.json'),
      path.join('tf.out', 'stacks', 'tf', 'cdk.tf.json'),
      path.join('tf.out', 'stacks', 'tf', 'tf.plan'),
      'terraform.tf.tfstate',
      path.join('reconciled', 'cdktf.out', 'stacks', 'fleet', 'cdk.tf.json'),
    ]),
  );
  const state = await dumpSchema(schema);
  expect(state).toContain('API_TOKEN');
  expect([...files.findings, ...searchTexts({ 'PostgreSQL state': state, ...captured }, values)]).toEqual([]);
});
