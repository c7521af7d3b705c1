import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const BIN = join(ROOT, 'bin/fleetform.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real command line in a child process. */
function fleetform(...args: string[]): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      done({ code, stdout, stderr });
    });
  });
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fleetform-validate-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe('fleetform config validate', () => {
  test('the shipped example is valid', async () => {
    const r = await fleetform('config', 'validate', 'examples/machine-config.json');
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('examples/machine-config.json: valid machine config (4 components, 1 service, 2 modules; 0 warnings)\n');
    expect(r.code).toBe(0);
  });

  test('valid with warnings: exit 0, warnings printed', async () => {
    const path = file(
      'warn.json',
      JSON.stringify({
        components: [{ name: 's', api: 'rdk:component:sensor', model: 'acme:sensors:hc-sr04' }],
        modules: [{ type: 'registry', name: 'sensors', module_id: 'acme:sensors', version: 'latest' }],
      }),
    );
    const r = await fleetform('config', 'validate', path);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${path}: valid machine config (1 component, 0 services, 1 module; 1 warning)\n`);
    expect(r.stderr).toContain('warning: modules[0].name: module name "sensors" does not follow the convention');
    expect(r.stderr).toContain('hint: name it "acme_sensors"');
  });

  test('broken config: exit 1 with every error, its path and hint', async () => {
    const path = file(
      'broken.json',
      JSON.stringify({
        components: [
          { name: 'board 1', api: 'rdk:component:board', model: 'acme:sensors:pi-board' },
          { name: 'cam', api: 'rdk:component:camera', model: 'other:cams:multi-cam', depends_on: ['cam', 'missing'] },
        ],
        modules: [{ type: 'registry', name: 'acme_sensors', module_id: 'acme:sensors', version: '1.2' }],
        network: { bind_address: 'localhost' },
      }),
    );
    const r = await fleetform('config', 'validate', path);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error: '));
    expect(errors).toEqual([
      'error: network.bind_address: bind_address "localhost" is not host:port: the machine server refuses the whole config',
    ]);
    // What certainly fails one resource or module when the machine runs it is an error too, said so.
    const certain = r.stderr.split('\n').filter((l) => l.startsWith('error (certain failure): '));
    expect(certain).toEqual([
      'error (certain failure): components[0].name: invalid resource name "board 1"',
      'error (certain failure): components[1].model: resource "cam" will not start: model "other:cams:multi-cam" needs a module with module_id "other:cams"; configured module ids: acme:sensors',
      'error (certain failure): components[1].depends_on[0]: resource "cam" depends on itself',
      'error (certain failure): components[1].depends_on[1]: resource "cam" will not start: it depends on "missing", which is not configured',
      'error (certain failure): modules[0].version: module "acme_sensors" will not start: invalid module version "1.2"',
    ]);
    expect(r.stderr).toContain(`${path}: invalid machine config: 6 errors, 0 warnings`);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  test('a dependency cycle is a certain failure: exit 1; --warn-only reports it and exits 0', async () => {
    const path = file(
      'cycle.json',
      JSON.stringify({
        components: [
          { name: 'a', api: 'rdk:component:generic', model: 'rdk:builtin:fake', depends_on: ['b'] },
          { name: 'b', api: 'rdk:component:generic', model: 'rdk:builtin:fake', depends_on: ['a'] },
        ],
      }),
    );
    const r = await fleetform('config', 'validate', path);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error (certain failure): components[0].depends_on: circular dependency: a -> b -> a');
    const lenient = await fleetform('config', 'validate', '--warn-only', path);
    expect(lenient.code).toBe(0);
    expect(lenient.stderr).toContain('warning (certain failure): components[0].depends_on: circular dependency: a -> b -> a');
    expect(lenient.stdout).toContain('valid machine config');
  });

  test('missing file: exit 1, clear message, no stack trace', async () => {
    const path = join(dir, 'nope.json');
    const r = await fleetform('config', 'validate', path);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`error: ${path}: file not found\n  hint: pass the path of a machine config JSON file\n`);
  });

  test('malformed JSON: exit 1, the position, no stack trace', async () => {
    const path = file('malformed.json', '{\n  "components": [],\n}\n');
    const r = await fleetform('config', 'validate', path);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^error: ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: malformed JSON at line 3, column 1: `));
    expect(r.stderr).toContain('hint: fix the JSON syntax');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  test('JSON that is not an object: exit 1', async () => {
    const path = file('array.json', '[1, 2]');
    const r = await fleetform('config', 'validate', path);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: a machine config is a JSON object, found an array');
  });

  test('unpinned registry modules only with --allow-unpinned-modules', async () => {
    const path = file('unpinned.json', JSON.stringify({ modules: [{ type: 'registry', name: 'acme_vision', module_id: 'acme:vision' }] }));
    const strict = await fleetform('config', 'validate', path);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain('error: modules[0].version: a registry module needs "version"');
    const lenient = await fleetform('config', 'validate', '--allow-unpinned-modules', path);
    expect(lenient.code).toBe(0);
  });
});
