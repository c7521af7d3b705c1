/**
 * A value the plan does not know yet and a secret's digest are typed values, never text:
 * a user's module env entry and a component attribute whose text reads like either are
 * the user's text everywhere, from synth through plan, a saved plan, apply and state.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isSensitiveDigest, isUnknown, SensitiveDigest, unknownValue } from '../../src/engine/json';
import { planValuesText, readPlanValuesText } from '../../src/engine/plan/plan-text';
import { openEmulatorProject, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(120_000);

const LIKE_UNKNOWN = '(known after apply)';
const LIKE_DIGEST = 'sensitive:hmac-sha256:abcd';
let p: EmulatorProject;

beforeEach(async () => {
  p = await openEmulatorProject('ff-plan-value-strings-');
});

afterEach(async () => {
  await p?.close();
});

interface PartConfig {
  modules: Array<{ env?: Record<string, string> }>;
  components: Array<{ name: string; attributes?: Record<string, unknown> }>;
}

async function servicePart(): Promise<PartConfig> {
  const partId = (await p.backend().read('fleet')).resources['fleetform_machine.picker-1']?.ids.part_id;
  if (!partId) throw new Error('no part of picker-1 in state');
  return JSON.parse(JSON.stringify((await p.client.appClient.getMachinePart(partId)).config)) as PartConfig;
}

test('env and attribute text equal to an unknown or a digest round-trips through synth, plan, saved plan, apply and state', async () => {
  p.synth({ machines: ['picker-1'] });
  expect((await p.run('apply', '--auto-approve')).code).toBe(0);

  // Env entries and component attributes reading like an unknown or a digest, and a secret whose text reads like a digest.
  const strings = { LIKE_UNKNOWN, LIKE_DIGEST };
  p.synth({ machines: ['picker-1'], env: strings, sensorAttributes: strings, token: LIKE_DIGEST });
  const synthesized = await fs.readFile(path.join(p.outdir, 'stacks', 'fleet', 'cdk.tf.json'), 'utf8');
  expect(synthesized).toContain(JSON.stringify(LIKE_UNKNOWN).slice(1, -1));
  expect(synthesized).toContain(LIKE_DIGEST);

  const plan = await p.run('plan', '--detailed-exitcode');
  expect(plan.code).toBe(2);
  // Shown as the text it is (quoted), never as a value not known yet or a hidden secret.
  expect(plan.stdout).toContain(`+ config.modules.acme_sensors.env.LIKE_UNKNOWN = ${JSON.stringify(LIKE_UNKNOWN)}`);
  expect(plan.stdout).toContain(`+ config.modules.acme_sensors.env.LIKE_DIGEST = ${JSON.stringify(LIKE_DIGEST)}`);
  expect(plan.stdout).toContain(`+ config.components.ultrasonic-1.attributes.LIKE_UNKNOWN = ${JSON.stringify(LIKE_UNKNOWN)}`);
  expect(plan.stdout).toContain(`+ config.components.ultrasonic-1.attributes.LIKE_DIGEST = ${JSON.stringify(LIKE_DIGEST)}`);
  // The secret is hidden, whatever its text reads like.
  expect(plan.stdout).toMatch(/~ config\.modules\.acme_sensors\.env\.API_TOKEN = \(sensitive\) -> \(sensitive\)/);

  const planFile = path.join(p.dir, 'strings.plan');
  expect((await p.run('plan', '--out', planFile)).code).toBe(0);
  const apply = await p.run('apply', planFile);
  expect(apply.stderr).toBe('');
  expect(apply.code).toBe(0);

  const part = await servicePart();
  expect(part.modules[0]?.env).toEqual({ PATH: '/opt/acme/bin:${environment.PATH}', LIKE_UNKNOWN, LIKE_DIGEST, API_TOKEN: LIKE_DIGEST });
  expect(part.components.find((c) => c.name === 'ultrasonic-1')?.attributes).toMatchObject(strings);

  // State holds the env text as written; the secret only as a keyed digest of it.
  const stateDir = path.join(p.dir, '.fleetform', 'state');
  const stateFiles = (await fs.readdir(stateDir)).filter((f) => f.startsWith('fleet') && f.endsWith('.json'));
  expect(stateFiles).toHaveLength(1);
  const stateText = await fs.readFile(path.join(stateDir, stateFiles[0] as string), 'utf8');
  expect(stateText).toContain(`"LIKE_UNKNOWN": ${JSON.stringify(LIKE_UNKNOWN)}`);
  expect(stateText).toContain(`"LIKE_DIGEST": ${JSON.stringify(LIKE_DIGEST)}`);
  expect(stateText).not.toContain(`"API_TOKEN": ${JSON.stringify(LIKE_DIGEST)}`);
  const entry = (await p.backend().read('fleet')).resources['fleetform_machine.picker-1'];
  const env = (
    (entry?.attributes?.config as { modules: Record<string, { env: Record<string, unknown> }> }).modules.acme_sensors as {
      env: Record<string, unknown>;
    }
  ).env;
  expect(env.LIKE_UNKNOWN).toBe(LIKE_UNKNOWN);
  expect(env.LIKE_DIGEST).toBe(LIKE_DIGEST);
  expect(isSensitiveDigest(env.API_TOKEN)).toBe(true);
  expect(env.API_TOKEN).not.toBe(SensitiveDigest.fromText(LIKE_DIGEST));
  const attributes = (entry?.attributes?.config as { components: Record<string, { attributes: Record<string, unknown> }> }).components[
    'ultrasonic-1'
  ]?.attributes;
  expect(attributes).toMatchObject(strings);

  // The next plan has nothing to change.
  const again = await p.run('plan', '--detailed-exitcode');
  expect(again.stdout + again.stderr).toContain('No changes');
  expect(again.code).toBe(0);
});

test('a saved plan keeps its typed values apart from data that reads like them, or like their tags', () => {
  const digest = SensitiveDigest.of('hmac-sha256', 'abcd');
  const data = {
    a: unknownValue,
    b: LIKE_UNKNOWN,
    c: digest,
    d: LIKE_DIGEST,
    e: { $fleetform: 'unknown' },
    f: [{ $fleetform: 'sensitive', algorithm: 'sha256', hex: 'ab' }],
  };
  const read = readPlanValuesText(planValuesText(data)) as typeof data;
  expect(isUnknown(read.a)).toBe(true);
  expect(read.b).toBe(LIKE_UNKNOWN);
  expect(read.c).toBe(digest);
  expect(read.d).toBe(LIKE_DIGEST);
  expect(read.e).toStrictEqual({ $fleetform: 'unknown' });
  expect(read.f).toStrictEqual([{ $fleetform: 'sensitive', algorithm: 'sha256', hex: 'ab' }]);
});
