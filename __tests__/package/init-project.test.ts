/**
 * `fleetform init` as a newcomer runs it: a new project written by the checkout's command,
 * depending on the packed package (the tarball the package tier packs once), installed with
 * npm from its cache (cdktn, constructs, ts-node, typescript and @types/node at the versions
 * fleetform is tested with, so no network is needed), then planned and applied on the
 * embedded emulator as the printed next steps say; the two machines are then online, and
 * main.ts type-checks.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { packed, useLocalPrebuilds } from './packed';

const ROOT = resolve(__dirname, '../..');
const CLI = join(ROOT, 'bin', 'fleetform.js');
const SETUP_TIMEOUT = 10 * 60_000;

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function run(command: string, args: readonly string[], cwd: string): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const key of ['FLEETFORM_REPORT_FILE', 'FLEETFORM_ENDPOINT', 'CDKTF_OUTDIR', 'NODE_OPTIONS', 'CDKTF_CONTEXT_JSON']) delete env[key];
  return new Promise((done) => {
    execFile(command, [...args], { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

async function mustRun(command: string, args: readonly string[], cwd: string): Promise<Run> {
  const r = await run(command, args, cwd);
  if (r.code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r;
}

let scratch: string;
let project: string;
let init: Run;
beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist', 'cli', 'commands', 'init-run.js')))
    throw new Error('dist/ is missing `init`: run `npm run build` (npm test does) before this suite');
  const built = packed();
  scratch = mkdtempSync(join(tmpdir(), 'fleetform-init-'));
  project = join(scratch, 'my-fleet');
  init = await mustRun('node', [CLI, 'init', 'my-fleet', '--fleetform-spec', built.tarball], scratch);
  useLocalPrebuilds(project, built.prebuilds);
  await mustRun('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], project);
}, SETUP_TIMEOUT);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** The project's own fleetform, the one `npx fleetform` runs there. */
const fleetform = (...args: string[]): Promise<Run> => run(join(project, 'node_modules', '.bin', 'fleetform'), args, project);

describe('fleetform init', () => {
  test('writes the project, depending on the tarball, and says what to run next', () => {
    expect(init.stdout).toContain('Next:\n  cd my-fleet\n  npm install\n  npx fleetform plan');
    const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(manifest.dependencies.fleetform).toMatch(/^file:\.\.\/.*fleetform-0\.1\.0\.tgz$/);
    expect(existsSync(join(project, 'node_modules', 'fleetform', 'dist', 'cdktn.js'))).toBe(true);
  });

  test('refuses a folder holding anything, and with --force writes the project beside what is there', async () => {
    const dir = join(scratch, 'notes');
    mkdirSync(dir);
    writeFileSync(join(dir, 'NOTES.md'), 'mine\n');
    const refused = await run('node', [CLI, 'init', 'notes'], scratch);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('the folder is not empty (NOTES.md)');
    expect(refused.stderr).toContain('--force');
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(dir, 'main.ts'))).toBe(false);
    const forced = await run('node', [CLI, 'init', 'notes', '--force'], scratch);
    expect(forced.code).toBe(0);
    expect(existsSync(join(dir, 'main.ts'))).toBe(true);
    expect(readFileSync(join(dir, 'NOTES.md'), 'utf8')).toBe('mine\n');
  });

  test('the installed fleetform makes the next project depend on the tarball its project named', async () => {
    const made = await fleetform('init', '../second');
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    const first = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const second = JSON.parse(readFileSync(join(scratch, 'second', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    // Both projects sit side by side, so the relative spec is the same.
    expect(second.dependencies.fleetform).toBe(first.dependencies.fleetform);
    expect(resolve(scratch, 'second', (second.dependencies.fleetform ?? '').replace(/^file:/, ''))).toBe(packed().tarball);
  });

  test('its main.ts type-checks with the npm run typecheck it is given', async () => {
    const r = await run(join(project, 'node_modules', '.bin', 'tsc'), ['--noEmit'], project);
    expect(r.stdout + r.stderr).toBe('');
    expect(r.code).toBe(0);
  }, 60_000);

  test('the new project plans and applies its two machines on the embedded emulator', async () => {
    const plan = await fleetform('plan');
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toContain('fleetform_machine.rover-1 will be created');
    expect(plan.stdout).toContain('fleetform_machine.rover-2 will be created');
    expect(plan.stdout).toContain('Plan: 4 to add, 0 to change, 0 to destroy.');
    expect(plan.code).toBe(0);

    const apply = await fleetform('apply', '--auto-approve');
    expect(apply.stdout).toContain('Apply complete! Resources: 4 added, 0 changed, 0 destroyed.');
    expect(apply.code).toBe(0);

    const status = await fleetform('status', '--json');
    expect(status.code).toBe(0);
    const machines = (JSON.parse(status.stdout) as { machines: { machine: string; online: string; modules: { name: string }[] }[] })
      .machines;
    expect(machines.map((m) => m.machine).sort()).toEqual(['rover-1', 'rover-2']);
    for (const machine of machines) {
      expect(machine.online).toBe('online');
      expect(machine.modules.map((m) => m.name)).toEqual(['acme_sensors']);
    }

    // The module both machines run comes from the fragment: status lists it, named with its fragment.
    const text = await fleetform('status');
    expect(text.stdout).toMatch(/^fleet +rover-1 +acme_sensors \(fragment sensor-rig\) +acme:sensors +~1\.2 /m);
    expect(text.stdout).not.toContain('No machine');

    const again = await fleetform('plan', '--detailed-exitcode');
    expect(again.stdout).toContain('No changes.');
    expect(again.code).toBe(0);
  }, 180_000);
});
