/**
 * The synthesized JSON is what Terraform reads: a module env placeholder is written
 * `$${environment.HOME}`, Terraform evaluates that to the literal `${environment.HOME}`,
 * and fleetform's engine stores that same literal on the service. Older synthesized output,
 * which wrote the placeholder unescaped, still means the literal to the engine.
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { openEmulatorProject, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(120_000);

const HOME = '${environment.HOME}';
let p: EmulatorProject;
const execFileAsync = promisify(execFile);

beforeEach(async () => {
  p = await openEmulatorProject('ff-tfjson-');
});

afterEach(async () => {
  await p?.close();
});

function stackFile(): string {
  return path.join(p.outdir, 'stacks', 'fleet', 'cdk.tf.json');
}

/** The `config` string of a synthesized machine, as cdk.tf.json writes it. */
async function writtenConfig(machine: string): Promise<string> {
  const doc = JSON.parse(await fs.readFile(stackFile(), 'utf8')) as { resource: { fleetform_machine: Record<string, { config: string }> } };
  const config = doc.resource.fleetform_machine[machine]?.config;
  if (config === undefined) throw new Error(`no machine ${machine} in ${stackFile()}`);
  return config;
}

async function storedEnv(machine: string): Promise<Record<string, string> | undefined> {
  const state = await p.backend().read('fleet');
  const partId = state.resources[`fleetform_machine.${machine}`]?.ids.part_id;
  if (!partId) throw new Error(`no part of ${machine} in state`);
  const part = await p.client.appClient.getMachinePart(partId);
  const config = JSON.parse(JSON.stringify(part.config)) as { modules: Array<{ env?: Record<string, string> }> };
  return config.modules[0]?.env;
}

/**
 * Whether the real `terraform` binary evaluates a JSON-syntax string (or the expression
 * `of` made of it, `local.written`) to `literal`, compared in Terraform itself.
 */
async function terraformReadsAs(written: string, literal: string, of = 'local.written'): Promise<boolean> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-tfconsole-'));
  try {
    const locals = { written, expected_base64: Buffer.from(literal, 'utf8').toString('base64') };
    await fs.writeFile(path.join(dir, 'main.tf.json'), JSON.stringify({ locals }));
    const console = execFileAsync('terraform', ['console'], {
      cwd: dir,
      env: { ...process.env, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1' },
    });
    console.child.stdin?.end(`${of} == base64decode(local.expected_base64)\n`);
    const { stdout } = await console;
    return stdout.trim() === 'true';
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

test('a module env placeholder is written escaped, Terraform reads it as the literal, and apply stores the literal', async () => {
  await execFileAsync('terraform', ['version']).catch((err: unknown) => {
    throw new Error(`the terraform binary is needed on PATH (https://developer.hashicorp.com/terraform/install): ${String(err)}`);
  });
  p.synth({ machines: ['picker-1'], env: { HOME_DIR: HOME } });
  const written = await writtenConfig('picker-1');
  expect(written).toContain('"HOME_DIR":"$${environment.HOME}"');
  expect(written).not.toMatch(/[^$]\$\{environment\./);
  expect(await terraformReadsAs(written, HOME, 'jsondecode(local.written).modules[0].env.HOME_DIR')).toBe(true);
  expect(await terraformReadsAs(written, '/opt/acme/bin:${environment.PATH}', 'jsondecode(local.written).modules[0].env.PATH')).toBe(true);
  expect(await terraformReadsAs('$${environment.HOME}', HOME)).toBe(true);
  expect(await terraformReadsAs('$${environment.HOME}', '$${environment.HOME}')).toBe(false);

  const apply = await p.run('apply', '--auto-approve');
  expect(apply.code).toBe(0);
  const env = await storedEnv('picker-1');
  expect(env?.HOME_DIR).toBe(HOME);
  expect(env?.PATH).toBe('/opt/acme/bin:${environment.PATH}');
  const again = await p.run('plan', '--detailed-exitcode');
  expect(again.code).toBe(0);
});

test('older synthesized output, with placeholders unescaped, still means the literal', async () => {
  p.synth({ machines: ['picker-1'], env: { HOME_DIR: HOME } });
  const apply = await p.run('apply', '--auto-approve');
  expect(apply.stderr).toBe('');
  expect(apply.code).toBe(0);
  const text = await fs.readFile(stackFile(), 'utf8');
  await fs.writeFile(stackFile(), text.replace(/\$\$\{environment\./g, '${environment.'));
  expect(await writtenConfig('picker-1')).toContain('"HOME_DIR":"${environment.HOME}"');
  const plan = await p.run('plan', '--detailed-exitcode');
  expect(plan.stdout).toContain('No changes.');
  expect(plan.code).toBe(0);
  expect((await storedEnv('picker-1'))?.HOME_DIR).toBe(HOME);
});
