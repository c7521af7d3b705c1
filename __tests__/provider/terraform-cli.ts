import { spawn, spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { createServiceClient } from '../../src/api/client';
import { startEmulator } from '../../src/emulator';
import { impliedMirror, installProvider } from '../../src/cli/commands/provider-install';

export const TERRAFORM = process.env.TERRAFORM_BINARY_NAME || 'terraform';

/** The Terraform CLI is a real part of these tests: missing, they fail saying how to get it. */
export function requireTerraform(): string {
  const probe = spawnSync(TERRAFORM, ['version', '-json'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      `the Terraform CLI (${TERRAFORM}) is not on PATH: install Terraform 1.11 (https://developer.hashicorp.com/terraform/install, or Debian's/HashiCorp's apt repository) or set TERRAFORM_BINARY_NAME to an OpenTofu binary`,
    );
  }
  return (JSON.parse(probe.stdout) as { terraform_version: string }).terraform_version;
}

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command and collects its output; never rejects on a non-zero exit. */
export function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/**
 * An environment where Terraform finds fleetform's provider offline and nothing of the
 * user's own setup: a scratch HOME with the provider in its implied local mirror, an
 * empty CLI configuration, no checkpoint calls. The provider is laid out in-process by what
 * `fleetform provider install` runs (the command itself is tested in provider-install.test.ts),
 * which spares a CLI start per project.
 */
export async function terraformHome(dir: string, serviceEnv: Record<string, string>): Promise<NodeJS.ProcessEnv> {
  const home = path.join(dir, 'home');
  await fs.mkdir(home, { recursive: true });
  const cliConfig = path.join(home, '.terraformrc');
  await fs.writeFile(cliConfig, '');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...serviceEnv,
    HOME: home,
    TF_CLI_CONFIG_FILE: cliConfig,
    TF_IN_AUTOMATION: '1',
    CHECKPOINT_DISABLE: '1',
    NO_COLOR: '1',
    FLEETFORM_SECRET_KEY_FILE: path.join(home, 'fleetform-secret.key'),
  };
  delete env.TF_LOG;
  installProvider(impliedMirror(env));
  return env;
}

/** Runs terraform with `-no-color -input=false` where the command takes them. */
export function terraform(cwd: string, env: NodeJS.ProcessEnv, ...args: string[]): Promise<RunResult> {
  return run(TERRAFORM, args, cwd, env);
}

/** The machines on the embedded emulator a project's commands used (its .fleetform/emulator). */
export async function machinesOnService(dir: string): Promise<string[]> {
  const emulator = await startEmulator({ dataDir: path.join(dir, '.fleetform', 'emulator'), port: 0 });
  const { apiKey, apiKeyId, locationId } = emulator.credentials;
  const client = await createServiceClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey },
  });
  try {
    return (await client.appClient.listMachines(locationId)).map((m) => m.name).sort();
  } finally {
    client.close();
    await emulator.close();
  }
}

/**
 * What a failed cdktf/cdktn command said, for an assertion's message: every `Error` block of
 * its output (stacks deploy in parallel, so the failing one's is rarely at the end), then
 * the tail and stderr.
 */
export function commandFailure(r: RunResult): { code: number; failure: string } {
  if (r.code === 0) return { code: 0, failure: '' };
  const lines = r.stdout.split('\n');
  const errors = lines.flatMap((line, i) => (/\bError\b/.test(line) ? [lines.slice(i, i + 12).join('\n')] : []));
  return { code: r.code, failure: `${errors.join('\n...\n')}\n--- last lines ---\n${r.stdout.slice(-1500)}\n${r.stderr}` };
}
