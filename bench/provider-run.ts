/**
 * The provider's overhead: the same synthesized fleet planned with no changes by
 * `terraform plan` (through terraform-provider-fleetform) and by `fleetform plan`, each
 * against its own emulator where its own apply created the fleet, timed as whole commands
 * (median of RUNS). Prints one JSON line.
 * Usage: provider-run.ts SIZE [--runs N]
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createServiceClient } from '../src/api/client';
import { EmulatorService } from '../src/api/emulator-control';
import { spawnEmulator, type BenchEmulator } from './emulator';
import { EXTRA_MODULES, FLEET_STACK } from './fleet';
import { synthInChild } from './session';
import { median, r3, runMain } from './stats';

const ROOT = path.resolve(__dirname, '..');
const BIN = path.join(ROOT, 'bin', 'fleetform.js');
const TERRAFORM = process.env.TERRAFORM_BINARY_NAME || 'terraform';

/** The emulator's env for a command, with the benchmark's two extra registry modules published. */
async function prepared(emu: BenchEmulator): Promise<Record<string, string>> {
  const { apiKeyId, apiKey } = emu.credentials;
  const client = await createServiceClient({
    serviceHost: emu.url,
    credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey },
  });
  try {
    const control = client.clientFor(EmulatorService);
    for (const m of EXTRA_MODULES)
      await control.publishModuleVersion({ moduleId: m.moduleId, version: m.version, models: m.models.map((x) => ({ ...x })) });
  } finally {
    client.close();
  }
  return { FLEETFORM_ENDPOINT: emu.url, FLEETFORM_API_KEY_ID: apiKeyId, FLEETFORM_API_KEY: apiKey };
}

/** Runs a command to completion; `expect` lists the exit codes that mean it worked. */
function timedRun(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv, expect: readonly number[] = [0]): number {
  const started = performance.now();
  const r = spawnSync(command, args, { cwd, env, encoding: 'utf8', maxBuffer: 1 << 28 });
  const seconds = (performance.now() - started) / 1000;
  if (!expect.includes(r.status ?? -1)) throw new Error(`${command} ${args.join(' ')} exited ${r.status}: ${r.stderr.slice(-2000)}`);
  return seconds;
}

async function main(): Promise<void> {
  const size = Number(process.argv[2] ?? 1000);
  const i = process.argv.indexOf('--runs');
  const runs = i > 0 ? Number(process.argv[i + 1]) : 3;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetform-bench-provider-'));
  const forTerraform = await spawnEmulator();
  const forFleetform = await spawnEmulator();
  try {
    const outdir = path.join(work, 'out');
    synthInChild(outdir, size, 0);
    const home = path.join(work, 'home');
    fs.mkdirSync(home);
    fs.writeFileSync(path.join(home, '.terraformrc'), '');
    const base: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: home,
      TF_CLI_CONFIG_FILE: path.join(home, '.terraformrc'),
      CHECKPOINT_DISABLE: '1',
      TF_IN_AUTOMATION: '1',
      FLEETFORM_SECRET_KEY_FILE: path.join(home, 'key'),
    };
    timedRun(process.execPath, [BIN, 'provider', 'install'], work, base);

    const tfEnv = { ...base, ...(await prepared(forTerraform)) };
    const stackDir = path.join(outdir, 'stacks', FLEET_STACK);
    timedRun(TERRAFORM, ['init', '-input=false', '-no-color'], stackDir, tfEnv);
    const terraformApplyS = timedRun(TERRAFORM, ['apply', '-input=false', '-no-color', '-auto-approve'], stackDir, tfEnv);
    const terraformPlans = Array.from({ length: runs }, () =>
      timedRun(TERRAFORM, ['plan', '-input=false', '-no-color', '-lock=false', '-detailed-exitcode'], stackDir, tfEnv),
    );

    const ffEnv = { ...base, ...(await prepared(forFleetform)) };
    const project = path.join(work, 'project');
    fs.mkdirSync(project);
    const fleetformApplyS = timedRun(process.execPath, [BIN, 'apply', '--auto-approve', '--synth-out', outdir], project, ffEnv);
    const fleetformPlans = Array.from({ length: runs }, () =>
      timedRun(process.execPath, [BIN, 'plan', '--detailed-exitcode', '--synth-out', outdir], project, ffEnv),
    );

    const terraformPlanS = median(terraformPlans);
    const fleetformPlanS = median(fleetformPlans);
    process.stdout.write(
      `${JSON.stringify({
        size,
        runs,
        terraform_plan_s: r3(terraformPlanS),
        fleetform_plan_s: r3(fleetformPlanS),
        terraform_to_fleetform: r3(terraformPlanS / fleetformPlanS),
        terraform_apply_s: r3(terraformApplyS),
        fleetform_apply_s: r3(fleetformApplyS),
      })}\n`,
    );
  } finally {
    await forTerraform.stop();
    await forFleetform.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

runMain(main);
