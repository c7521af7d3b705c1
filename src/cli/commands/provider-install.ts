import type { Command } from 'commander';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InputError } from '../../domain/errors';
import { packageVersion } from '../../constructs/package-version';

/** The package's root: dist/cli/commands/ (compiled) or src/cli/commands/ (from source) is three levels down. */
const PACKAGE_ROOT = path.resolve(__dirname, '..', '..', '..');

/** Registry hosts Terraform and OpenTofu expand `fleetform/fleetform` to. */
const HOSTS = ['registry.terraform.io', 'registry.opentofu.org'] as const;

/** Terraform's platform name, e.g. linux_amd64. */
export function terraformPlatform(platform: NodeJS.Platform = process.platform, arch: string = process.arch): string {
  const archs: Record<string, string> = { x64: 'amd64', arm64: 'arm64', ia32: '386', arm: 'arm' };
  return `${platform === 'win32' ? 'windows' : platform}_${archs[arch] ?? arch}`;
}

/** The executable Terraform runs: a shell script that execs this Node on this package's provider. */
function wrapperScript(): string {
  const entry = path.join(PACKAGE_ROOT, 'bin', 'terraform-provider-fleetform.js');
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return `#!/bin/sh\n# fleetform's Terraform provider, installed by \`fleetform provider install\`.\nexec ${quote(process.execPath)} ${quote(entry)} "$@"\n`;
}

/** Writes the provider into a plugin directory laid out as HOST/fleetform/fleetform/VERSION/OS_ARCH/; returns the files written. */
export function installProvider(dir: string): string[] {
  const compiled = path.join(PACKAGE_ROOT, 'dist', 'cli', 'provider-main.js');
  if (!fs.existsSync(compiled))
    throw new InputError(`the compiled provider is missing (${compiled})`, { hint: 'run `npm run build` in the fleetform checkout' });
  const version = packageVersion();
  const written: string[] = [];
  for (const host of HOSTS) {
    const folder = path.join(dir, host, 'fleetform', 'fleetform', version, terraformPlatform());
    fs.mkdirSync(folder, { recursive: true });
    const file = path.join(folder, `terraform-provider-fleetform_v${version}`);
    fs.writeFileSync(file, wrapperScript(), { mode: 0o755 });
    fs.chmodSync(file, 0o755);
    written.push(file);
  }
  return written;
}

/** Terraform's implied local mirror, searched by `terraform init` with no CLI configuration. */
export function impliedMirror(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.HOME || os.homedir(), '.terraform.d', 'plugins');
}

export function register(program: Command): void {
  const provider = program.command('provider').description('the Terraform/OpenTofu provider (fleetform/fleetform)');
  provider
    .command('install')
    .description(
      'install the provider where `terraform init` finds it offline (~/.terraform.d/plugins), or in DIR for `terraform init -plugin-dir DIR`',
    )
    .option('--dir <dir>', 'plugin directory to install into')
    .action((options: { dir?: string }) => {
      const dir = path.resolve(options.dir ?? impliedMirror());
      const written = installProvider(dir);
      const version = packageVersion();
      process.stdout.write(
        `installed fleetform/fleetform ${version} (${terraformPlatform()}):\n${written.map((f) => `  ${f}\n`).join('')}`,
      );
      process.stdout.write(
        options.dir
          ? `use it with: terraform init -plugin-dir=${dir}\n`
          : `terraform init finds it offline; declare it as:\n  required_providers { fleetform = { source = "fleetform/fleetform", version = "${version}" } }\n`,
      );
    });
}
