/**
 * `fleetform config validate` judges each kind of breakage as a new user meets it: what the
 * machine will certainly fail is an error (exit 1) with its path, cause and fix; what it
 * only may fail is a warning (exit 0).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const BIN = join(resolve(__dirname, '../..'), 'bin/fleetform.js');

function fleetform(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: '1' } }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fleetform-certain-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

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
  readonly what: string;
  readonly config: Record<string, unknown>;
  /** The line the command prints: its path and its cause. */
  readonly line: string;
  /** Words of the fix it prints. */
  readonly fix: string;
}

const CERTAIN: readonly Kind[] = [
  {
    what: 'a version ~1',
    config: { components: [sensor()], modules: [distance({ version: '~1' })] },
    line: 'modules[0].version: module "acme_distance" will not start: invalid module version "~1"',
    fix: '~X.Y',
  },
  {
    what: 'a version "newest"',
    config: { components: [sensor()], modules: [distance({ version: 'newest' })] },
    line: 'invalid module version "newest"',
    fix: 'latest',
  },
  {
    what: 'a model of a misspelt module',
    config: { components: [sensor({ model: 'acme:distanse:ultrasonic' })], modules: [distance()] },
    line: 'components[0].model: resource "ultrasonic-1" will not start: model "acme:distanse:ultrasonic" needs a module with module_id "acme:distanse"; configured module ids: acme:distance',
    fix: 'add a module with "module_id": "acme:distanse"',
  },
  { what: 'a model and no module at all', config: { components: [sensor()] }, line: 'configured module ids: (none)', fix: 'add a module' },
  {
    what: 'a depends_on naming nothing',
    config: { components: [sensor({ depends_on: ['board'] })], modules: [distance()] },
    line: 'components[0].depends_on[0]: resource "ultrasonic-1" will not start: it depends on "board", which is not configured',
    fix: 'configure that resource',
  },
  {
    what: 'a dependency cycle',
    config: { components: [sensor({ depends_on: ['b'] }), sensor({ name: 'b', depends_on: ['ultrasonic-1'] })], modules: [distance()] },
    line: 'circular dependency: ultrasonic-1 -> b -> ultrasonic-1',
    fix: 'break the cycle',
  },
  {
    what: 'a resource depending on itself',
    config: { components: [sensor({ depends_on: ['ultrasonic-1'] })], modules: [distance()] },
    line: 'depends on itself',
    fix: 'remove it from its own depends_on',
  },
  {
    what: 'two modules of one name',
    config: { components: [sensor()], modules: [distance(), distance({ module_id: 'acme:other' })] },
    line: 'modules[1].name: duplicate module name "acme_distance"',
    fix: 'rename or remove one',
  },
  {
    what: 'one module twice',
    config: { components: [sensor()], modules: [distance(), distance({ name: 'acme_distance_2' })] },
    line: 'module "acme:distance" is configured twice',
    fix: 'keep one entry per module',
  },
  {
    what: 'two resources of one name and API',
    config: { components: [sensor(), sensor()], modules: [distance()] },
    line: 'duplicate resource name "ultrasonic-1"',
    fix: 'rename one',
  },
  {
    what: 'a resource named "-front camera"',
    config: { components: [sensor({ name: '-front camera' })], modules: [distance()] },
    line: 'components[0].name: invalid resource name "-front camera"',
    fix: 'start with a letter or digit',
  },
  {
    what: 'a model that is no triplet',
    config: { components: [sensor({ model: 'acme:ultrasonic' })], modules: [distance()] },
    line: 'invalid model "acme:ultrasonic"',
    fix: '<namespace>:<module-name>:<model-name>',
  },
  {
    what: 'a placeholder no package provides',
    config: { components: [sensor({ attributes: { model_path: '${packages.detector}/model.tflite' } })], modules: [distance()] },
    line: 'failed to find a package named "detector"',
    fix: 'declare a package named "detector"',
  },
  {
    what: 'a registry module without module_id',
    config: { modules: [{ type: 'registry', name: 'acme_distance', version: '^1' }] },
    line: 'a registry module needs "module_id"',
    fix: 'add "module_id"',
  },
  {
    what: 'two data managers',
    config: {
      services: [
        { name: 'dm1', api: 'rdk:service:data_manager', model: 'rdk:builtin:builtin' },
        { name: 'dm2', api: 'rdk:service:data_manager', model: 'rdk:builtin:builtin' },
      ],
    },
    line: 'a machine runs at most one data manager',
    fix: 'keep one data_manager service',
  },
  {
    what: 'a capture method the API has no collector for',
    config: {
      components: [
        {
          name: 'cam',
          api: 'rdk:component:camera',
          model: 'rdk:builtin:fake',
          service_configs: [{ type: 'data_manager', attributes: { capture_methods: [{ method: 'Readings', capture_frequency_hz: 1 }] } }],
        },
      ],
      services: [{ name: 'dm', api: 'rdk:service:data_manager', model: 'rdk:builtin:builtin' }],
    },
    line: 'components[0].service_configs[0].attributes.capture_methods[0].method: resource "cam" (rdk:component:camera) cannot capture "Readings"',
    fix: 'use one of: NextPointCloud, ReadImage, GetImages',
  },
  {
    what: 'a trigger whose webhook is no URL',
    config: {
      triggers: [
        {
          name: 'alert',
          event: { type: 'part_online' },
          notifications: [{ type: 'webhook', value: 'not a url', seconds_between_notifications: 10 }],
        },
      ],
    },
    line: 'triggers[0].notifications[0].value: trigger "alert" cannot notify',
    fix: 'give the full URL',
  },
];

const POSSIBLE: readonly Kind[] = [
  {
    what: 'a model a local module without module_id may provide',
    config: { components: [sensor()], modules: [{ type: 'local', name: 'distance', executable_path: '/opt/distance/run' }] },
    line: 'a local module without module_id may provide it',
    fix: 'add a module with "module_id"',
  },
  {
    what: 'a builtin model fleetform does not know',
    config: { components: [sensor({ model: 'rdk:builtin:ultrasonic-v9' })] },
    line: 'may not start',
    fix: 'check the model name',
  },
];

describe.each(CERTAIN)('a certain failure: $what', (kind) => {
  test('exit 1 with its path, cause and fix, and no stack trace; --warn-only exits 0', async () => {
    const file = join(dir, `${kind.what.replace(/\W+/g, '-')}.json`);
    writeFileSync(file, JSON.stringify(kind.config));
    const r = await fleetform('config', 'validate', file);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const line = r.stderr.split('\n').findIndex((l) => l.startsWith('error (certain failure): ') && l.includes(kind.line));
    expect(line).toBeGreaterThanOrEqual(0);
    expect(r.stderr.split('\n')[line + 1]).toMatch(/^ {2}hint: /);
    expect(r.stderr.split('\n')[line + 1]).toContain(kind.fix);
    expect(r.stderr).toContain(`${file}: invalid machine config:`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const lenient = await fleetform('config', 'validate', '--warn-only', file);
    expect(lenient.code).toBe(0);
    expect(lenient.stderr).toContain('warning (certain failure): ');
    expect(lenient.stderr).toContain(kind.line);
  });
});

describe.each(POSSIBLE)('a possible failure: $what', (kind) => {
  test('exit 0 with a warning naming its path, cause and fix', async () => {
    const file = join(dir, `${kind.what.replace(/\W+/g, '-')}.json`);
    writeFileSync(file, JSON.stringify(kind.config));
    const r = await fleetform('config', 'validate', file);
    expect(r.stderr).not.toContain('error');
    expect(r.code).toBe(0);
    const lines = r.stderr.split('\n');
    const line = lines.findIndex((l) => l.startsWith('warning: ') && l.includes(kind.line));
    expect(line).toBeGreaterThanOrEqual(0);
    expect(lines[line + 1]).toContain(kind.fix);
    expect(r.stdout).toContain('valid machine config');
  });
});
