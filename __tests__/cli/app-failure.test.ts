/**
 * An app's own failure reaches its user: the app's message, its exit status and the last
 * few lines of its stderr, with a hint for a known setup mistake, in every command that
 * runs the app. The apps load fleetform as a user's project does, by package name, as an
 * ES module (`import('fleetform')`), from a temporary project folder.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const BIN = join(ROOT, 'bin/fleetform.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function fleetform(cwd: string, ...args: string[]): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const key of ['FLEETFORM_REPORT_FILE', 'CDKTF_OUTDIR', 'FLEETFORM_ENDPOINT', 'FLEETFORM_API_KEY']) delete env[key];
  return new Promise((done) => {
    execFile(process.execPath, [BIN, ...args], { cwd, env }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'fleetform-app-failure-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A project whose node_modules holds cdktf, constructs and fleetform (this checkout) as installed packages. */
function project(name: string, files: Record<string, string>, app = 'node main.mjs'): string {
  const dir = join(tmp, name);
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  for (const dep of ['cdktf', 'constructs']) symlinkSync(join(ROOT, 'node_modules', dep), join(dir, 'node_modules', dep));
  symlinkSync(ROOT, join(dir, 'node_modules', 'fleetform'));
  writeFileSync(join(dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app }));
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

const PRELUDE = [
  "const { App, TerraformStack } = await import('cdktf');",
  "const { FleetProvider, Machine, Module, Dataset } = await import('fleetform');",
  'const app = new App();',
  "const stack = new TerraformStack(app, 's');",
  "new FleetProvider(stack, 'cloud');",
  "const machine = new Machine(stack, 'm');",
];

/** An ES module app that catches its error, says it in its own words and exits with its own status. */
const CAUGHT = [
  'try {',
  ...PRELUDE.map((l) => `  ${l}`),
  "  new Module(machine, 'sensors', { moduleId: 'acme:sensors', modulId: 'typo' });",
  '  app.synth();',
  '} catch (err) {',
  "  console.error('deploy-fleet: could not build the fleet');",
  '  console.error(err);',
  '  process.exit(3);',
  '}',
].join('\n');

describe('an ES module app that fails with its own message', () => {
  test.each([['validate'], ['synth'], ['plan'], ['apply', '--auto-approve'], ['import', 'fleetform_machine.m', 'some-id']])(
    '%s shows the message, the exit status and a few lines of stderr',
    async (...args) => {
      const dir = project(`caught-${args[0]}`, { 'main.mjs': CAUGHT });
      const r = await fleetform(dir, ...args);
      expect(r.code).toBe(1);
      expect(r.stderr).not.toContain('Cannot convert undefined or null to object');
      expect(r.stderr).toContain('the app (node main.mjs) exited with code 3; it wrote to stderr:\n');
      expect(r.stderr).toContain('  deploy-fleet: could not build the fleet\n');
      expect(r.stderr).toContain('PropsError: Module: unknown prop "modulId"');
      // Stack frames are counted, not shown.
      expect(r.stderr).not.toMatch(/^\s+at /m);
      expect(r.stderr).toMatch(/ {4}\.\.\. \d+ stack frames/);
    },
  );

  test('an uncaught error of a construct is the error, at the line of the ES module that caused it', async () => {
    const main = [...PRELUDE, "new Dataset(stack, 'images', { nam: 'images' });", 'app.synth();'].join('\n');
    const r = await fleetform(project('uncaught', { 'main.mjs': main }), 'validate');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'error: main.mjs:7:1: s/images: Dataset: unknown prop "nam"\n  hint: did you mean "name"?; Dataset takes: name, organizationId, type\n1 error, 0 warnings\n',
    );
  });

  test('a long stderr is cut to its last lines, saying how many were left out', async () => {
    const main = ['for (let i = 1; i <= 50; i++) console.error(`line ${i}`);', 'process.exit(4);'].join('\n');
    const r = await fleetform(project('chatty', { 'main.mjs': main }), 'validate');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      [
        'error: the app (node main.mjs) exited with code 4; it wrote to stderr:',
        '  (42 earlier lines not shown)',
        ...Array.from({ length: 8 }, (_, i) => `  line ${43 + i}`),
        '1 error, 0 warnings',
        '',
      ].join('\n'),
    );
  });

  test('an app that fails silently says so', async () => {
    const r = await fleetform(project('silent-exit', { 'main.mjs': 'process.exit(5);' }), 'synth');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: the app (node main.mjs) exited with code 5 and wrote nothing to stderr\n');
  });
});

describe('known setup mistakes get a hint', () => {
  test('fleetform not installed in the project', async () => {
    const dir = project('missing-package', { 'main.mjs': "await import('fleetform-not-installed');" });
    const r = await fleetform(dir, 'validate');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Cannot find package 'fleetform-not-installed'");
    expect(r.stderr).toContain('  hint: install fleetform-not-installed in the project (npm install fleetform-not-installed)');
  });

  test('TypeScript run by plain node', async () => {
    const dir = project(
      'plain-node-ts',
      { 'main.ts': 'const x: number = 1;\nexport {};\n', 'package.json': '{"type":"module"}' },
      'node main.ts',
    );
    const r = await fleetform(dir, 'plan');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Unknown file extension ".ts"');
    expect(r.stderr).toContain('hint: Node does not run TypeScript by itself here: set "app" in cdktf.json to "npx tsx main.ts"');
  });

  test('an app command that does not exist', async () => {
    const r = await fleetform(project('no-command', {}, 'fleetform-no-such-command main.ts'), 'validate');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the app (fleetform-no-such-command main.ts) exited with code 127; it wrote to stderr:');
    expect(r.stderr).toContain('hint: the command in cdktf.json "app" was not found');
  });
});
