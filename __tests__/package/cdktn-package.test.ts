/**
 * The package as a CDK Terrain user gets it: `npm pack` of the built package, installed
 * into a fresh cdktn 0.24 project (cdktn, constructs 10.7, typescript from the registry; the
 * tsconfig of cdktn-cli's own TypeScript template), importing `fleetform/cdktn`. The
 * optional peers install nothing the project did not ask for; the project type-checks with
 * `tsc --strict`, synthesizes as CommonJS and as an ES module, `cdktn synth` (cdktn-cli on
 * the dev tree's Node 22) and `fleetform synth` give the same stacks, and `npx fleetform
 * apply` manages the fleet on the embedded emulator; the wrong entry and a project with
 * neither library fail with fleetform's error naming the fix. (Constructs
 * 10.8, outside cdktn 0.24's peer range, is covered by the cdktf package suite.)
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { packed, useLocalPrebuilds } from './packed';

const ROOT = resolve(__dirname, '../..');
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
const TEMPLATE = join(ROOT, 'node_modules', 'cdktn-cli', 'bundle', 'templates', 'typescript');
const NODE22 = join(ROOT, 'node_modules', 'node', 'bin', 'node');
const CDKTN_CLI = join(ROOT, 'node_modules', 'cdktn-cli', 'bin', 'cdktn');
/** cdktn 0.24's peer range of constructs is >=10.6.0 <10.8.0. */
const CONSTRUCTS = '10.7.2';
const SETUP_TIMEOUT = 10 * 60_000;

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const inherited: NodeJS.ProcessEnv = { ...process.env };
  for (const key of ['FLEETFORM_REPORT_FILE', 'CDKTF_OUTDIR', 'NODE_OPTIONS', 'CDKTF_CONTEXT_JSON']) delete inherited[key];
  return new Promise((done) => {
    execFile(
      command,
      [...args],
      { cwd, env: { ...inherited, NO_COLOR: '1', ...env }, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        done({
          code,
          stdout,
          stderr: stderr
            .split('\n')
            .filter((line) => !line.startsWith('npm warn '))
            .join('\n'),
        });
      },
    );
  });
}

async function mustRun(command: string, args: readonly string[], cwd: string, env?: NodeJS.ProcessEnv): Promise<Run> {
  const r = await run(command, args, cwd, env);
  if (r.code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r;
}

const STACK_BODY = `
class YardStack extends TerraformStack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    new FleetProvider(this, 'cloud');
    const mower = new Machine(this, 'mower-1');
    const drive = new Module(mower, 'drive', { moduleId: 'acme:sensors', version: '~1.2' });
    new ModularResource(mower, 'board', { name: 'board-1', api: 'rdk:component:board', model: drive.model('pi-board') });
    const grass = new Dataset(this, 'grass');
    new TrainingJob(this, 'grass-detector', { dataset: grass, modelName: 'grass', modelVersion: '1', modelType: ModelType.OBJECT_DETECTION, tags: ['grass'] });
    // The constructs are cdktn resources: they type as cdktn's TerraformResource.
    const asResource: TerraformResource = mower;
    void asResource;
  }
}

const app = new App();
new YardStack(app, 'yard');
app.synth();
`;

const TS_APP = `import { Construct } from 'constructs';
import { App, TerraformResource, TerraformStack } from 'cdktn';
import { Dataset, FleetProvider, Machine, ModelType, ModularResource, Module, TrainingJob } from 'fleetform/cdktn';
${STACK_BODY}`;

const ESM_APP = `import { App, TerraformStack } from 'cdktn';
import { Dataset, FleetProvider, Machine, ModelType, ModularResource, Module, TrainingJob } from 'fleetform/cdktn';
const dynamic = await import('fleetform/cdktn');
if (dynamic.Machine !== Machine) throw new Error('import() and import give different copies');
${STACK_BODY.replace(/constructor\(scope: Construct, id: string\)/, 'constructor(scope, id)').replace(/const asResource: TerraformResource = mower;\n\s*void asResource;\n/, '')}`;

let scratch: string;
let tarball: string;
let app: string;
let bare: string;
beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist', 'cdktn.js')))
    throw new Error('dist/cdktn.js is missing: run `npm run build` (npm test does) before this suite');
  for (const needed of [join(TEMPLATE, 'tsconfig.json'), NODE22])
    if (!existsSync(needed)) throw new Error(`${needed} is missing: run \`npm install\` (cdktn-cli and node 22 are devDependencies)`);
  const built = packed();
  tarball = built.tarball;
  scratch = mkdtempSync(join(tmpdir(), 'fleetform-cdktn-package-'));
  app = join(scratch, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'yard-fleet', version: '1.0.0', private: true }, null, 2));
  writeFileSync(join(app, 'tsconfig.json'), readFileSync(join(TEMPLATE, 'tsconfig.json')));
  useLocalPrebuilds(app, built.prebuilds);
  writeFileSync(
    join(app, 'cdktf.json'),
    JSON.stringify({ language: 'typescript', app: 'npx ts-node main.ts', projectId: 'yard', sendCrashReports: 'false' }, null, 2),
  );
  writeFileSync(join(app, 'main.ts'), TS_APP);
  // A project with neither library, for the last test, installs at the same time (npm waits mostly on the disk).
  bare = join(scratch, 'bare');
  mkdirSync(bare);
  writeFileSync(join(bare, 'package.json'), JSON.stringify({ name: 'bare', version: '1.0.0', private: true }));
  const bareInstall = mustRun(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball, `constructs@${CONSTRUCTS}`],
    bare,
  );
  const dev = PACKAGE.devDependencies;
  const appInstall = mustRun(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      tarball,
      `cdktn@${dev.cdktn}`,
      `constructs@${CONSTRUCTS}`,
      `typescript@${dev.typescript}`,
      `ts-node@${dev['ts-node']}`,
      `@types/node@${dev['@types/node']}`,
    ],
    app,
  );
  await Promise.all([appInstall, bareInstall]);
}, SETUP_TIMEOUT);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** The project's own tsc, run straight from its node_modules/.bin (npx adds a second of npm per run). */
const tsc = (project: string): string => join(project, 'node_modules', '.bin', 'tsc');

/**
 * The app compiled by tsc --strict under the template tsconfig, to JavaScript under cdktf.out
 * (which the template excludes, so no later compile sees the output): made once, by whichever
 * test needs it first; the type-check test reads its diagnostics, the CommonJS synth runs its output.
 */
let compiling: Promise<Run> | undefined;
const compiledApp = (): Promise<Run> =>
  (compiling ??= run(tsc(app), ['--strict', '-p', 'tsconfig.json', '--outDir', join(app, 'cdktf.out', 'js')], app));

const installedVersion = (project: string, name: string): string | undefined => {
  const manifest = join(project, 'node_modules', name, 'package.json');
  return existsSync(manifest) ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version : undefined;
};

describe('fleetform in a fresh cdktn 0.24 project', () => {
  test('installs beside cdktn without cdktf: both libraries are optional peers', () => {
    expect(installedVersion(app, 'cdktn')).toBe(PACKAGE.devDependencies.cdktn);
    expect(installedVersion(app, 'constructs')).toBe(CONSTRUCTS);
    expect(installedVersion(app, 'cdktf')).toBeUndefined();
    expect(existsSync(join(app, 'node_modules', 'fleetform', 'dist', 'cdktn.d.ts'))).toBe(true);
  });

  test('type-checks with tsc --strict under the template tsconfig and under nodenext (the exports map)', async () => {
    const r = await compiledApp();
    expect(r.stdout + r.stderr).toBe('');
    expect(r.code).toBe(0);
    const nodenext = {
      compilerOptions: {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        strict: true,
        skipLibCheck: true,
        noEmit: true,
      },
      files: ['main.ts'],
    };
    writeFileSync(join(app, 'tsconfig.nodenext.json'), JSON.stringify(nodenext));
    const viaExports = await run(tsc(app), ['-p', 'tsconfig.nodenext.json'], app);
    expect(viaExports.stdout + viaExports.stderr).toBe('');
    expect(viaExports.code).toBe(0);
  }, 120_000);

  test('tsc refuses a wrong prop through fleetform/cdktn, naming it', async () => {
    // A project of its own beside the app (sharing its node_modules), so the app's tsconfig never sees it.
    const dir = join(scratch, 'wrong-types');
    mkdirSync(dir);
    symlinkSync(join(app, 'node_modules'), join(dir, 'node_modules'));
    writeFileSync(join(dir, 'tsconfig.json'), readFileSync(join(TEMPLATE, 'tsconfig.json')));
    writeFileSync(join(dir, 'wrong.ts'), TS_APP.replace("version: '~1.2'", "verison: '~1.2'"));
    const r = await run(tsc(app), ['--noEmit', '--strict', '-p', 'tsconfig.json'], dir);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toMatch(/wrong\.ts\(\d+,\d+\): error TS\d+: .*'verison' does not exist in type 'ModuleProps'/);
  }, 120_000);

  test('synthesizes as CommonJS (tsc output) and as an ES module, the same each time', async () => {
    const compiled = await compiledApp();
    if (compiled.code !== 0) throw new Error(`tsc exited ${compiled.code}\n${compiled.stdout}\n${compiled.stderr}`);
    const outDir = join(app, 'cdktf.out', 'js');
    writeFileSync(join(app, 'main.mjs'), ESM_APP);
    await mustRun('node', [join(outDir, 'main.js')], app, { CDKTF_OUTDIR: join(scratch, 'out-cjs') });
    await mustRun('node', ['main.mjs'], app, { CDKTF_OUTDIR: join(scratch, 'out-esm') });
    const read = (out: string) => JSON.parse(readFileSync(join(scratch, out, 'stacks', 'yard', 'cdk.tf.json'), 'utf8')) as unknown;
    expect(read('out-cjs')).toMatchObject({
      resource: { fleetform_machine: { 'mower-1': { name: 'mower-1' } }, fleetform_dataset: { grass: { name: 'grass' } } },
    });
    expect(read('out-esm')).toEqual(read('out-cjs'));
  }, 180_000);

  test('cdktn synth and fleetform synth run the cdktf.json app with the same output', async () => {
    const ours = await mustRun('npx', ['fleetform', 'synth', '--output', join(scratch, 'out-fleetform')], app);
    expect(ours.stdout).toMatch(/^synthesized 1 stack \(yard\)/);
    await mustRun(NODE22, [CDKTN_CLI, 'synth', '--output', join(scratch, 'out-cdktn')], app, {
      CI: '1',
      CHECKPOINT_DISABLE: '1',
      HOME: join(scratch, 'home'),
    });
    const read = (out: string) => JSON.parse(readFileSync(join(scratch, out, 'stacks', 'yard', 'cdk.tf.json'), 'utf8')) as unknown;
    expect(read('out-fleetform')).toEqual(read('out-cdktn'));
  }, 300_000);

  test('npx fleetform plan and apply manage the fleet on the embedded emulator', async () => {
    const plan = await run('npx', ['fleetform', 'plan'], app);
    expect({ code: plan.code, stderr: plan.stderr }).toEqual({ code: 0, stderr: '' });
    expect(plan.stdout).toContain('# fleetform_machine.mower-1 will be created');
    const apply = await run('npx', ['fleetform', 'apply', '--auto-approve'], app);
    expect({ code: apply.code, stderr: apply.stderr }).toEqual({ code: 0, stderr: '' });
    const again = await run('npx', ['fleetform', 'plan', '--detailed-exitcode'], app);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('No changes');
  }, 300_000);

  test('the cdktf entry in a cdktn project fails naming the entry to import instead', async () => {
    const r = await run('node', ['-e', "require('fleetform')"], app);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('fleetform: the constructs need the cdktf package, which is not installed');
    expect(r.stderr).toContain("this project has cdktn: import the constructs from 'fleetform/cdktn' instead of 'fleetform'");
  }, 60_000);

  test('a project with neither library fails saying what to install', async () => {
    expect(installedVersion(bare, 'cdktf')).toBeUndefined();
    expect(installedVersion(bare, 'cdktn')).toBeUndefined();
    for (const entry of ['fleetform', 'fleetform/cdktn']) {
      const r = await run('node', ['-e', `require('${entry}')`], bare);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(
        `${entry}: the constructs need the ${entry === 'fleetform' ? 'cdktf' : 'cdktn'} package, which is not installed`,
      );
      expect(r.stderr).toContain("install CDK Terrain for a new project (npm install cdktn constructs) and import from 'fleetform/cdktn'");
    }
  }, 60_000);
});
