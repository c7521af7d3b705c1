/**
 * Each kind of breakage a new user meets, stored on the service as a machine runs it (one
 * machine per kind): adopted, every machine plans "No changes" with its acknowledgment in
 * code (one that matches nothing is a warning, once); with the acknowledgments removed,
 * `validate` and `plan` fail naming each machine's path, the cause and the fix, with no
 * stack trace, and nothing is written.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSdk, type Sdk } from '../../src/api/sdk';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { fleetform, newAdoptionProject } from './fleet-fixture';

jest.setTimeout(300_000);

type ViamClient = Awaited<ReturnType<Sdk['createViamClient']>>;

const sensor = (extra: Record<string, unknown> = {}) => ({
  name: 'ultrasonic-1',
  api: 'rdk:component:sensor',
  model: 'acme:distance:ultrasonic',
  ...extra,
});
const distance = (extra: Record<string, unknown> = {}) => ({
  type: 'registry',
  name: 'acme_distance',
  module_id: 'acme:distance',
  version: '^1',
  ...extra,
});

interface Kind {
  /** The machine's name. */
  readonly machine: string;
  readonly config: Record<string, unknown>;
  /** The acknowledgment adopt writes: the finding's code and its path. */
  readonly code: string;
  readonly path: string;
  /** Words of the cause and of the fix that validate and plan print. */
  readonly cause: string;
  readonly fix: string;
}

const KINDS: readonly Kind[] = [
  {
    machine: 'tilde-version',
    config: { components: [sensor()], modules: [distance({ version: '~1' })] },
    code: 'module-version',
    path: 'modules.acme_distance.version',
    cause: 'invalid module version "~1"',
    fix: '~X.Y',
  },
  {
    machine: 'newest-version',
    config: { components: [sensor()], modules: [distance({ version: 'newest' })] },
    code: 'module-version',
    path: 'modules.acme_distance.version',
    cause: 'invalid module version "newest"',
    fix: 'latest',
  },
  {
    machine: 'misspelt-module',
    config: { components: [sensor({ model: 'acme:distanse:ultrasonic' })], modules: [distance()] },
    code: 'model-module-mismatch',
    path: 'components.ultrasonic-1.model',
    cause: 'model "acme:distanse:ultrasonic" needs a module with module_id "acme:distanse"',
    fix: 'add a module with "module_id": "acme:distanse"',
  },
  {
    machine: 'missing-dependency',
    config: { components: [sensor({ depends_on: ['board'] })], modules: [distance()] },
    code: 'depends-on-missing',
    path: 'components.ultrasonic-1.depends_on[0]',
    cause: 'it depends on "board", which is not configured',
    fix: 'configure that resource',
  },
  {
    machine: 'dependency-cycle',
    config: {
      components: [sensor({ name: 'a', depends_on: ['b'] }), sensor({ name: 'b', depends_on: ['a'] })],
      modules: [distance()],
    },
    code: 'depends-on-cycle',
    path: 'components.a.depends_on',
    cause: 'circular dependency: a -> b -> a',
    fix: 'break the cycle',
  },
  {
    machine: 'module-name-twice',
    config: { components: [sensor()], modules: [distance(), distance({ module_id: 'acme:other' })] },
    code: 'duplicate-module-name',
    path: 'modules.acme_distance.name',
    cause: 'duplicate module name "acme_distance"',
    fix: 'rename or remove one',
  },
  {
    machine: 'invalid-name',
    config: { components: [sensor({ name: '-front camera' })], modules: [distance()] },
    code: 'resource-name',
    path: 'components["-front camera"].name',
    cause: 'invalid resource name "-front camera"',
    fix: 'start with a letter or digit',
  },
];

let emulator: RunningEmulator;
let dataDir: string;
let project: string;
let env: Record<string, string>;
let viam: ViamClient;
const partIds = new Map<string, string>();

async function storedConfigs(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [machine, partId] of partIds) out[machine] = JSON.parse((await viam.appClient.getRobotPart(partId)).configJson) as unknown;
  return out;
}

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-held-out-emu-'));
  emulator = await startEmulator({ dataDir, port: 0 });
  const c = emulator.credentials;
  env = { FLEETFORM_ENDPOINT: emulator.url, FLEETFORM_API_KEY: c.apiKey, FLEETFORM_API_KEY_ID: c.apiKeyId };
  const sdk = await loadSdk();
  viam = await sdk.createViamClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: c.apiKeyId, payload: c.apiKey },
  });
  // The service stores each config: the machine runs what it can.
  for (const kind of KINDS) {
    const robotId = await viam.appClient.newRobot(c.locationId, kind.machine);
    const [part] = await viam.appClient.getRobotParts(robotId);
    if (!part) throw new Error(`${kind.machine} has no part`);
    await viam.appClient.updateRobotPart(part.id, part.name, sdk.Struct.fromJson({ services: [], ...kind.config } as never));
    partIds.set(kind.machine, part.id);
  }
  project = await newAdoptionProject('ff-held-out-', 'held-out');
});

afterAll(async () => {
  await emulator?.close();
  for (const d of [dataDir, project]) if (d) await fs.rm(d, { recursive: true, force: true });
});

/** The line naming the machine's item and the cause, and the hint below it naming the fix and the acknowledgment to write. */
function expectNamed(output: string, kind: Kind): void {
  const lines = output.split('\n');
  const at = lines.findIndex((l) => l.includes(`adopted/${kind.machine}/`) && l.includes(kind.cause));
  expect(at).toBeGreaterThanOrEqual(0);
  expect(lines[at]).toMatch(/^\s*(error: )?adopted\//);
  const hint = lines[at + 1] ?? '';
  expect(hint).toMatch(/^\s+hint: /);
  expect(hint).toContain(kind.fix);
  expect(hint).toContain(`acknowledged: [{ code: '${kind.code}', path: ${JSON.stringify(kind.path)}`);
}

test('adopted, each plans no changes with its acknowledgment; without them validate and plan name each path, cause and fix', async () => {
  const adopted = await fleetform(project, ['adopt'], env);
  expect(adopted.stderr).toBe('');
  expect(adopted.code).toBe(0);
  const file = path.join(project, 'stacks', 'adopted.ts');
  const code = await fs.readFile(file, 'utf8');
  for (const kind of KINDS) {
    const machine = code.slice(code.indexOf(`new Machine(this, '${kind.machine}'`));
    expect(machine.slice(0, machine.indexOf('reason:')).replace(/\s+/g, ' ')).toContain(
      `code: '${kind.code}', path: ${quoted(kind.path)},`,
    );
  }
  const plan = await fleetform(project, ['plan'], env);
  expect(plan.stderr).toBe('');
  expect(plan.code).toBe(0);
  expect(plan.stdout).toContain('No changes.');
  const before = await storedConfigs();

  // An acknowledgment that matches nothing is a warning, once; the plan still has no changes.
  const stale = code.replace(
    "new Machine(this, 'tilde-version', {\n      location: mainLocation,\n      acknowledged: [",
    "new Machine(this, 'tilde-version', {\n      location: mainLocation,\n      acknowledged: [{ code: 'module-version', path: 'modules.gone.version', reason: 'an old module' },",
  );
  expect(stale).not.toBe(code);
  await fs.writeFile(file, stale);
  const unmatched = await fleetform(project, ['plan'], env);
  expect(unmatched.code).toBe(0);
  expect(unmatched.stdout).toContain('No changes.');
  const said = `${unmatched.stdout}${unmatched.stderr}`.split(
    'acknowledgment of module-version at modules.gone.version matches no finding',
  );
  expect(said).toHaveLength(2);
  expect(said[0]?.slice(said[0].lastIndexOf('\n'))).toContain('tilde-version');

  // Every acknowledgment removed: each finding is an error again, named where the machine declares it.
  const without = code.replace(/\s*\{\s*code: '[a-z-]+',\s*path: [^}]*\},?/g, '');
  expect(without).not.toContain('broken when adopted');
  await fs.writeFile(file, without);
  const validate = await fleetform(project, ['validate'], env);
  expect(validate.code).toBe(1);
  expect(validate.stderr).toContain(`${KINDS.length} errors`);
  for (const kind of KINDS) expectNamed(validate.stderr, kind);
  expect(validate.stderr).not.toMatch(/\n\s+at /);
  const refused = await fleetform(project, ['plan'], env);
  expect(refused.code).toBe(1);
  const out = `${refused.stdout}${refused.stderr}`;
  expect(out).toContain(`the app has ${KINDS.length} errors`);
  for (const kind of KINDS) expectNamed(out, kind);
  expect(out).not.toMatch(/\n\s+at /);
  const apply = await fleetform(project, ['apply', '--auto-approve'], env);
  expect(apply.code).toBe(1);
  expect(await storedConfigs()).toEqual(before);
});

/** A path as adopted code writes it: a single-quoted string literal. */
function quoted(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
