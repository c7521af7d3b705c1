import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const BIN = join(ROOT, 'bin/fleetform.js');
const SRC = join(ROOT, 'src');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real command line in a child process. */
function fleetform(cwd: string, ...args: string[]): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.FLEETFORM_REPORT_FILE;
  delete env.CDKTF_OUTDIR;
  return new Promise((done) => {
    execFile(process.execPath, [BIN, ...args], { cwd, env }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      done({ code, stdout, stderr });
    });
  });
}

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'fleetform-app-commands-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A project folder holding main.ts (importing fleetform from this checkout) and cdktf.json. */
function project(name: string, body: string): string {
  const dir = join(tmp, name);
  mkdirSync(dir);
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'npx tsx main.ts' }));
  writeFileSync(
    join(dir, 'main.ts'),
    [
      "import { App, TerraformStack } from 'cdktf';",
      `import { FleetProvider, Fragment, Machine, Module, ModularResource, TrainingJob, ModelType } from ${JSON.stringify(SRC)};`,
      body,
    ].join('\n'),
  );
  return dir;
}

const BROKEN = `
const app = new App();
const stack = new TerraformStack(app, 'broken');
new FleetProvider(stack, 'cloud');
const m = new Machine(stack, 'm');
const sensors = new Module(m, 'sensors', { moduleId: 'acme:sensors', version: '~1.2' });
new ModularResource(m, 'arm', { api: 'rdk:component:arm', model: 'acme:arm-control:six-axis' });
new ModularResource(m, 'cam', { api: 'rdk:widget:camera', model: sensors.model('multi-cam'), dependsOn: ['ghost'] });
new TrainingJob(stack, 'job', { dataset: 'd', modelName: 'm', modelVersion: '1', modelType: ModelType.UNSPECIFIED, tags: ['box'] });
app.synth();
`;

describe('fleetform validate / synth on the example fleet', () => {
  test('validate reports a valid fleet', async () => {
    const r = await fleetform(ROOT, 'validate');
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      'valid: 2 stacks (training, warehouse), 1 fragment, 1 fragment tag, 5 machines, 1 dataset, 1 training job, 1 custom training job; 0 warnings\n',
    );
    expect(r.code).toBe(0);
  });

  test('synth writes the stacks and the manifest to the output folder', async () => {
    const out = join(tmp, 'example-out');
    const r = await fleetform(ROOT, 'synth', '--output', out);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^synthesized 2 stacks \(training, warehouse\), 1 fragment, 1 fragment tag, 5 machines, 1 dataset, 1 training job, 1 custom training job to /,
    );
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { stacks: Record<string, unknown> };
    expect(Object.keys(manifest.stacks).sort()).toEqual(['training', 'warehouse']);
    const warehouse = JSON.parse(readFileSync(join(out, 'stacks', 'warehouse', 'cdk.tf.json'), 'utf8')) as {
      resource: { fleetform_machine: Record<string, { config: string }> };
    };
    expect(Object.keys(warehouse.resource.fleetform_machine).sort()).toEqual([
      'inspector-1',
      'packer-1',
      'picker-1',
      'picker-2',
      'picker-3',
    ]);
    // Synthesized documents may hold secret values: owner-only files in owner-only folders.
    expect(statSync(join(out, 'stacks', 'warehouse', 'cdk.tf.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(out, 'manifest.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(out, 'stacks')).mode & 0o777).toBe(0o700);
  });
});

describe('fleetform validate / synth on a broken app', () => {
  test('validate lists every error and warning with its construct path and field, without stack traces, and exits 1', async () => {
    const dir = project('broken-validate', BROKEN);
    const r = await fleetform(dir, 'validate');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const lines = (kind: string) =>
      r.stderr
        .split('\n')
        .filter((l) => l.startsWith(`${kind}: `))
        .map((l) => l.split(': ').slice(1, 3).join(': '));
    // What certainly fails one resource when the machine runs it is an error in code too, named with its construct and field.
    expect(lines('error')).toEqual(['broken/m/arm: model', 'broken/m/cam: api', 'broken/m/cam: dependsOn[0]', 'broken/job: modelType']);
    expect(lines('warning')).toEqual([]);
    expect(r.stderr).toMatch(/^ {2}hint: /m);
    expect(r.stderr).toMatch(/4 errors, 0 warnings\n$/);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  test("a machine's model of a module neither it nor the fragment it imports from the stack has is an error with path, cause and fix", async () => {
    const dir = project(
      'fragment-module',
      [
        'const app = new App();',
        "const stack = new TerraformStack(app, 's');",
        "new FleetProvider(stack, 'cloud');",
        "const rig = new Fragment(stack, 'rig', { name: 'sensor-rig' });",
        "new Module(rig, 'sensors', { moduleId: 'acme:sensors', version: '^1' });",
        "const m = new Machine(stack, 'rover').useFragment(rig);",
        "new ModularResource(m, 'sonar', { api: 'rdk:component:sensor', model: 'acme:sensorz:hc-sr04' });",
        "new ModularResource(m, 'range', { api: 'rdk:component:sensor', model: 'acme:sensors:hc-sr04' });",
        'app.synth();',
      ].join('\n'),
    );
    const r = await fleetform(dir, 'validate');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      'error: s/rover/sonar: model: resource "sonar" will not start: model "acme:sensorz:hc-sr04" needs a module with module_id "acme:sensorz"; configured module ids: acme:sensors',
    );
    expect(r.stderr).toMatch(/^ {2}hint: add a module with "module_id": "acme:sensorz"/m);
    expect(r.stderr).not.toContain('s/rover/range');
    expect(r.stderr).toMatch(/1 error, 0 warnings\n$/);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  test('synth writes nothing and keeps the previous output', async () => {
    const dir = project('broken-synth', BROKEN);
    mkdirSync(join(dir, 'cdktf.out'));
    writeFileSync(join(dir, 'cdktf.out', 'previous.txt'), 'kept');
    const r = await fleetform(dir, 'synth');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error: broken\/job: modelType: /);
    expect(r.stderr).toMatch(/nothing was written\n$/);
    expect(readFileSync(join(dir, 'cdktf.out', 'previous.txt'), 'utf8')).toBe('kept');
    expect(existsSync(join(dir, 'cdktf.out', 'manifest.json'))).toBe(false);
  });

  test('an app that throws is reported with its message and source location, not a stack trace', async () => {
    const dir = project(
      'crashing',
      [
        'const app = new App();',
        "const stack = new TerraformStack(app, 's');",
        "new Machine(stack, 'm');",
        "throw new TypeError('boom');",
      ].join('\n'),
    );
    const r = await fleetform(dir, 'validate');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: main.ts:6:7: TypeError: boom\n1 error, 0 warnings\n');
  });

  test('a wiring mistake thrown by a construct names the construct and the fix', async () => {
    const dir = project(
      'wiring',
      [
        'const app = new App();',
        "const stack = new TerraformStack(app, 's');",
        "new Module(stack, 'loose', { moduleId: 'acme:sensors' });",
        'app.synth();',
      ].join('\n'),
    );
    const r = await fleetform(dir, 'validate');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: main\.ts:5:1: s\/loose: Module must be declared inside a Machine or a Fragment\n {2}hint: pass the machine/,
    );
  });

  test('an app that never synthesizes is an error', async () => {
    const dir = project('silent', ['const app = new App();', "new Machine(new TerraformStack(app, 's'), 'm');"].join('\n'));
    const r = await fleetform(dir, 'synth');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error: the app \(npx tsx main\.ts\) synthesized nothing\n {2}hint: call app\.synth\(\)/);
    expect(existsSync(join(dir, 'cdktf.out'))).toBe(false);
  });

  test('warnings print but do not fail', async () => {
    const dir = project(
      'warning',
      [
        'const app = new App();',
        "const m = new Machine(new TerraformStack(app, 's'), 'm');",
        "new Module(m, 'sensors', { moduleId: 'acme:sensors', version: '~1.2', name: 'sensors' });",
        'app.synth();',
      ].join('\n'),
    );
    const r = await fleetform(dir, 'synth');
    expect(r.stderr).toBe(
      'warning: s/m/sensors: name: module name "sensors" does not follow the convention <namespace>_<module-name>\n  hint: name it "acme_sensors"\n',
    );
    expect(r.code).toBe(0);
    expect(existsSync(join(dir, 'cdktf.out', 'stacks', 's', 'cdk.tf.json'))).toBe(true);
  });
});
