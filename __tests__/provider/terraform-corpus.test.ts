/**
 * Configs people wrote for real machines (a varied sample of the fixture corpus: builtin
 * models, the older `type` form, remotes with credentials, frames, data capture, network and
 * auth settings, jobs) as `fleetform_machine` resources under the real Terraform CLI against
 * the emulator: apply creates them, the next plan changes nothing, and the service holds
 * each config exactly as written (JSON-equal, key order aside).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { escapeTemplate } from '../../src/domain/template-escape';
import { acknowledgedAttribute, storedFailureAcknowledgments } from '../../src/domain/certainty';
import { validateMachineConfig } from '../../src/domain';
import { openEmulatorProject, type EmulatorProject } from '../e2e/fleet-fixture';
import { realConfigs } from '../fixtures/real-configs';
import { requireTerraform, terraform, terraformHome } from './terraform-cli';

jest.setTimeout(300_000);

/** The sample, each for what it brings. */
const SAMPLE = [
  'viamrobotics__docs__example-configs-motor-encoded.json', // builtin models (no module)
  'viamrobotics__rdk__robots-configs-gripper-cam.json', // the older `type` form
  'viamrobotics__rdk__etc-configs-remote_local_auth.json', // remotes with credentials, network
  'viam-labs__teach-frames__readme.json', // frames
  'viamrobotics__rdk__services-datamanager-data-many_collectors.json', // data capture (service_configs)
  'viamrobotics__rdk__etc-configs-fake_local_auth.json', // auth handlers with keys
  'viamrobotics__rdk__robot-impl-data-fake_jobs.json', // jobs
] as const;

let project: EmulatorProject;

afterAll(async () => {
  await project?.close();
});

/** JSON with object keys sorted: equality with key order aside. */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sorted((value as Record<string, unknown>)[k])]),
  );
}

/** A machine name from a fixture file name. */
function machineName(file: string): string {
  return file
    .replace(/\.json$/, '')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .slice(-50)
    .replace(/^-+/, '');
}

test('a sample of real configs applies through terraform as written; the next plan changes nothing; the service holds each exactly', async () => {
  requireTerraform();
  const corpus = new Map(realConfigs().map((r) => [r.file, r.config]));
  const configs = SAMPLE.map((file) => {
    const config = corpus.get(file);
    if (!config) throw new Error(`no corpus config ${file}`);
    return { name: machineName(file), config };
  });
  project = await openEmulatorProject('ff-terraform-corpus-');
  const env = await terraformHome(project.dir, project.env);
  const dir = path.join(project.dir, 'corpus');
  await fs.mkdir(dir);
  const resources = Object.fromEntries(
    configs.map(({ name, config }, i) => {
      // What each config certainly breaks is acknowledged, as adoption writes it.
      const found = validateMachineConfig(config, { allowUnpinnedModules: true });
      const acknowledged = acknowledgedAttribute(storedFailureAcknowledgments(config, found, new Set()));
      return [
        `m${i}`,
        { name, config: escapeTemplate(JSON.stringify(config)), ...(Object.keys(acknowledged).length > 0 ? { acknowledged } : {}) },
      ];
    }),
  );
  const main = {
    terraform: { required_providers: { fleetform: { source: 'fleetform/fleetform', version: '0.1.0' } } },
    provider: { fleetform: {} },
    resource: { fleetform_machine: resources },
  };
  await fs.writeFile(path.join(dir, 'main.tf.json'), JSON.stringify(main, null, 2));
  const tf = (...args: string[]) => terraform(dir, env, ...args);
  expect((await tf('init', '-input=false', '-no-color')).stderr).toBe('');

  const apply = await tf('apply', '-input=false', '-no-color', '-auto-approve');
  expect(apply.stderr).toBe('');
  expect(apply.stdout).toContain(`Apply complete! Resources: ${configs.length} added, 0 changed, 0 destroyed.`);
  const again = await tf('plan', '-input=false', '-no-color', '-detailed-exitcode');
  expect(again.stderr).toBe('');
  expect(again.stdout).toContain('No changes.');
  expect(again.code).toBe(0);

  const machines = await project.client.appClient.listMachines(project.credentials.locationId);
  for (const { name, config } of configs) {
    const machine = machines.find((m) => m.name === name);
    const [part] = await project.client.appClient.getMachineParts(machine?.id ?? '');
    // Exactly as written: no list added, none left out.
    expect({ name, config: sorted(part?.config) }).toEqual({ name, config: sorted(config) });
  }
});
