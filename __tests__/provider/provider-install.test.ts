/** `fleetform provider install`: the provider laid out where Terraform's offline installer looks. */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { packageVersion } from '../../src/constructs/package-version';
import { terraformPlatform } from '../../src/cli/commands/provider-install';

const BIN = path.resolve(__dirname, '../../bin/fleetform.js');

test('--dir lays the provider out as HOST/fleetform/fleetform/VERSION/OS_ARCH for both registries, executable', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-plugins-'));
  try {
    const r = spawnSync(process.execPath, [BIN, 'provider', 'install', '--dir', dir], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`terraform init -plugin-dir=${dir}`);
    for (const host of ['registry.terraform.io', 'registry.opentofu.org']) {
      const file = path.join(
        dir,
        host,
        'fleetform',
        'fleetform',
        packageVersion(),
        terraformPlatform(),
        `terraform-provider-fleetform_v${packageVersion()}`,
      );
      expect(fs.statSync(file).mode & 0o111).toBe(0o111);
      // Started by hand (no magic cookie), the installed executable says what it is and exits 1.
      const started = spawnSync(file, [], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
      expect(started.status).toBe(1);
      expect(started.stdout).toBe('');
      expect(started.stderr).toContain('this is a Terraform provider');
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("with no --dir it installs into Terraform's implied local mirror under HOME, where terraform init looks offline", () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-home-'));
  try {
    const r = spawnSync(process.execPath, [BIN, 'provider', 'install'], { encoding: 'utf8', env: { ...process.env, HOME: home } });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('terraform init finds it offline');
    const file = path.join(
      home,
      '.terraform.d',
      'plugins',
      'registry.terraform.io',
      'fleetform',
      'fleetform',
      packageVersion(),
      terraformPlatform(),
      `terraform-provider-fleetform_v${packageVersion()}`,
    );
    expect(fs.statSync(file).mode & 0o111).toBe(0o111);
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
});

test('Terraform platform names', () => {
  expect(terraformPlatform('linux', 'x64')).toBe('linux_amd64');
  expect(terraformPlatform('darwin', 'arm64')).toBe('darwin_arm64');
  expect(terraformPlatform('win32', 'x64')).toBe('windows_amd64');
});

test('output piped into a reader that stops early ends the run quietly', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-plugins-'));
  try {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [BIN, 'provider', 'install', '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
