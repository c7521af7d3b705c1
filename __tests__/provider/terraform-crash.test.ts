/**
 * Kills on the Terraform path: the provider dies (SIGKILL) at a create the service has
 * answered but Terraform never saw, and its host `terraform apply` with it. One more
 * `terraform apply` adopts what the interrupted create made (no orphan, no duplicate,
 * nothing lost), `terraform plan` is then clean, and no provider process is left. A runner
 * without the recorded intent gets an error naming the exact `terraform import` command.
 * `npm run crash-trials -- --terraform` draws 100 points (see POINTS).
 */
import { spawn } from 'node:child_process';
import { promises as fs, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import * as path from 'node:path';
import { openEmulatorProject, type EmulatorProject } from '../e2e/fleet-fixture';
import { requireTerraform, TERRAFORM, terraform, terraformHome } from './terraform-cli';

jest.setTimeout(300_000);

/** The RPCs a create of the fixture's fleet makes, where a kill may land (before the call or after its answer). */
const CREATE_CALLS = [
  'NewRobot',
  'NewRobot#2',
  'GetRobotParts',
  'GetRobotParts#2',
  'GetRobotPart',
  'UpdateRobotPart',
  'UpdateRobotPart#2',
  'CreateDataset',
];

/** `count` kill points drawn with a seeded generator (mulberry32), half of them aimed at `terraform` itself. */
function drawnPoints(count: number, seed: number): string[] {
  let t = seed >>> 0;
  const next = (): number => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r ^= r + Math.imul(r ^ (r >>> 7), 61 | r);
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
  return Array.from({ length: count }, () => {
    if (next() < 0.5) return 'terraform';
    const call = CREATE_CALLS[Math.floor(next() * CREATE_CALLS.length)] as string;
    return next() < 0.5 ? call : `${call}:after`;
  });
}

/**
 * A point is a FLEETFORM_TEST_KILL_AT_CALL value for the provider, or `terraform`: SIGKILL of
 * `terraform apply` itself once a create was answered (its provider must then exit alone).
 * CI runs the fixed list; TF_CRASH_TRIALS=N (TF_CRASH_SEED) draws N points; TF_CRASH_POINTS lists them.
 */
const POINTS = process.env.TF_CRASH_POINTS
  ? process.env.TF_CRASH_POINTS.split(',')
  : process.env.TF_CRASH_TRIALS
    ? drawnPoints(Number(process.env.TF_CRASH_TRIALS), Number(process.env.TF_CRASH_SEED ?? 20261124))
    : // A machine's create answered after another was recorded, a dataset's, and terraform itself killed.
      ['NewRobot#2:after', 'CreateDataset:after', 'terraform'];

/** Provider processes still running whose working directory is under `dir`. */
function providersUnder(dir: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z') continue;
      if (!cmd.includes('terraform-provider-fleetform')) continue;
      if (readlinkSync(`/proc/${entry}/cwd`).startsWith(dir)) found.push(Number(entry));
    } catch {
      // Ended while being read.
    }
  }
  return found;
}

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Counts {
  orphans: number;
  duplicates: number;
  lost: number;
}

/** Machines and datasets on the service against Terraform's state and the declared names. */
async function audit(p: EmulatorProject, declared: readonly string[]): Promise<Counts> {
  const state = JSON.parse(await fs.readFile(path.join(p.dir, 'terraform.fleet.tfstate'), 'utf8')) as {
    resources: { instances: { attributes: { id?: string } }[] }[];
  };
  const managed = new Set(state.resources.flatMap((r) => r.instances.map((i) => i.attributes.id)));
  const machines = await p.client.appClient.listMachines(p.credentials.locationId);
  // The emulator's seeded dataset is nobody's to manage.
  const datasets = (await p.client.datasetClient.listDatasets(p.credentials.organizationId)).filter(
    (d) => d.id !== p.credentials.datasetId,
  );
  const objects = [...machines.map((m) => ({ id: m.id, name: m.name })), ...datasets.map((d) => ({ id: d.id, name: d.name }))];
  return {
    orphans: objects.filter((o) => !managed.has(o.id)).length,
    duplicates: declared.filter((n) => objects.filter((o) => o.name === n).length > 1).length,
    lost: declared.filter((n) => !objects.some((o) => o.name === n)).length,
  };
}

/** Starts `terraform apply` and SIGKILLs it once an intent records a create the service answered. */
async function killTerraformMidCreate(dir: string, env: NodeJS.ProcessEnv): Promise<{ code: number }> {
  const child = spawn(TERRAFORM, ['apply', '-input=false', '-no-color', '-auto-approve'], { cwd: dir, env, stdio: 'ignore' });
  const ended = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
  const intents = path.join(dir, '.fleetform', 'provider-intents');
  const answered = (): boolean => {
    try {
      return readdirSync(intents).some((f) => f.endsWith('.json') && readFileSync(path.join(intents, f), 'utf8').includes('"ids"'));
    } catch {
      return false;
    }
  };
  let done = false;
  void ended.then(() => (done = true));
  while (!done && !answered()) await new Promise((r) => setTimeout(r, 5));
  if (!done) child.kill('SIGKILL');
  return { code: await ended };
}

beforeAll(() => {
  requireTerraform();
});

test.each(POINTS)(
  'terraform apply whose provider is killed at %s: one more apply adopts, nothing orphaned or duplicated',
  async (point) => {
    const p = await openEmulatorProject('ff-tf-crash-');
    try {
      const env = await terraformHome(p.dir, p.env);
      p.synth({ machines: ['c-1', 'c-2'] });
      const dir = path.join(p.outdir, 'stacks', 'fleet');
      expect((await terraform(dir, env, 'init', '-input=false', '-no-color')).code).toBe(0);
      const killed =
        point === 'terraform'
          ? await killTerraformMidCreate(dir, env)
          : await terraform(dir, { ...env, FLEETFORM_TEST_KILL_AT_CALL: point }, 'apply', '-input=false', '-no-color', '-auto-approve');
      // Every CI point is a call the apply makes: it was killed. A drawn point may name a call it never makes.
      if (!process.env.TF_CRASH_TRIALS) expect([point, killed.code]).not.toEqual([point, 0]);
      await until(
        () => providersUnder(p.dir).length === 0,
        15_000,
        `provider processes left after the killed apply: ${providersUnder(p.dir).join(', ')}`,
      );

      const recovery = await terraform(dir, env, 'apply', '-input=false', '-no-color', '-auto-approve');
      if (process.env.TF_CRASH_DEBUG)
        process.stdout.write(
          `RECOVERY ${recovery.stdout
            .split('\n')
            .filter((l) => /Creat|adopt|Warning|rror|Apply/.test(l))
            .join('\n')}\n${recovery.stderr}\n`,
        );
      expect([point, recovery.code, recovery.stderr]).toEqual([point, 0, '']);
      const plan = await terraform(dir, env, 'plan', '-input=false', '-no-color', '-detailed-exitcode');
      expect([point, plan.code, plan.stdout]).toEqual([point, 0, expect.stringContaining('No changes.')]);
      const counts = await audit(p, ['c-1', 'c-2', 'boxes']);
      process.stdout.write(`terraform kill at ${point}: ${JSON.stringify(counts)}\n`);
      expect(counts).toEqual({ orphans: 0, duplicates: 0, lost: 0 });
      await until(() => providersUnder(p.dir).length === 0, 15_000, 'provider processes left');
    } finally {
      await p.close();
    }
  },
);

test('a runner without the intent gets the exact terraform import command', async () => {
  const p = await openEmulatorProject('ff-tf-crash-');
  try {
    const env = await terraformHome(p.dir, p.env);
    p.synth({ machines: ['c-1'] });
    const dir = path.join(p.outdir, 'stacks', 'fleet');
    expect((await terraform(dir, env, 'init', '-input=false', '-no-color')).code).toBe(0);
    const killed = await terraform(
      dir,
      { ...env, FLEETFORM_TEST_KILL_AT_CALL: 'NewRobot:after' },
      'apply',
      '-input=false',
      '-no-color',
      '-auto-approve',
    );
    expect(killed.code).toBe(1);
    // Another runner: the intents of this one are not there.
    await fs.rm(path.join(dir, '.fleetform', 'provider-intents'), { recursive: true, force: true });
    const machine = (await p.client.appClient.listMachines(p.credentials.locationId)).find((m) => m.name === 'c-1');
    if (!machine) throw new Error('the killed apply made no machine');
    const plan = await terraform(dir, env, 'plan', '-input=false', '-no-color');
    expect(plan.code).toBe(1);
    expect(plan.stderr.replace(/\s+/g, ' ')).toContain(`terraform import fleetform_machine.c-1 ${machine.id}`);
    const imported = await terraform(dir, env, 'import', '-input=false', '-no-color', 'fleetform_machine.c-1', machine.id);
    expect(imported.code).toBe(0);
    expect((await terraform(dir, env, 'apply', '-input=false', '-no-color', '-auto-approve')).code).toBe(0);
    expect(await audit(p, ['c-1', 'boxes'])).toEqual({ orphans: 0, duplicates: 0, lost: 0 });
  } finally {
    await p.close();
  }
});
