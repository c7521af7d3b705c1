/**
 * The package as users get it: `npm pack` of the built package, installed into a scratch
 * CDKTF app (cdktf, constructs, typescript and ts-node from the registry, nothing linked to
 * this checkout), then used with the toolchains CDKTF users have: tsc, node on compiled
 * JavaScript, ts-node, an ES module, the cdktf-cli and the fleetform command.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { packed, useLocalPrebuilds } from './packed';

const ROOT = resolve(__dirname, '../..');
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  devDependencies: Record<string, string>;
};
const CDKTF_CLI = join(ROOT, 'node_modules', '.bin', 'cdktf');
/** The scratch app's own tsc and ts-node, run straight from its node_modules/.bin (npx adds a second of npm per run). */
const bin = (project: string, name: string): string => join(project, 'node_modules', '.bin', name);
const SETUP_TIMEOUT = 15 * 60_000;
/** The newest constructs: cdktf's peer range takes it (cdktn 0.24's stops below it; the cdktn package suite uses 10.7). */
const CONSTRUCTS = '10.8.1';

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** stderr without the warnings npm prints about this machine's own npm configuration. */
function withoutNpmWarnings(text: string): string {
  return text
    .split('\n')
    .filter((line) => !line.startsWith('npm warn '))
    .join('\n');
}

function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const inherited: NodeJS.ProcessEnv = { ...process.env };
  for (const key of ['FLEETFORM_REPORT_FILE', 'CDKTF_OUTDIR', 'NODE_OPTIONS', 'CDKTF_CONTEXT_JSON']) delete inherited[key];
  const childEnv: NodeJS.ProcessEnv = { ...inherited, NO_COLOR: '1', CHECKPOINT_DISABLE: '1', ...env };
  return new Promise((done) => {
    execFile(command, [...args], { cwd, env: childEnv, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      done({ code, stdout, stderr: withoutNpmWarnings(stderr) });
    });
  });
}

async function mustRun(command: string, args: readonly string[], cwd: string, env?: NodeJS.ProcessEnv): Promise<Run> {
  const r = await run(command, args, cwd, env);
  if (r.code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r;
}

const STACK_BODY = `
const app = new App();
const stack = new TerraformStack(app, 'yard');
new FleetProvider(stack, 'cloud');
const mower = new Machine(stack, 'mower-1');
const drive = new Module(mower, 'drive', { moduleId: 'acme:sensors', version: '~1.2' });
new ModularResource(mower, 'board', { name: 'board-1', api: 'rdk:component:board', model: drive.model('pi-board') });
const grass = new Dataset(stack, 'grass');
new TrainingJob(stack, 'grass-detector', { dataset: grass, modelName: 'grass', modelVersion: '1', modelType: ModelType.OBJECT_DETECTION, tags: ['grass'] });
app.synth();
`;

const TS_APP = `import { App, TerraformStack } from 'cdktf';
import { Dataset, FleetProvider, Machine, ModelType, ModularResource, Module, TrainingJob } from 'fleetform';
${STACK_BODY}`;

const CJS_APP = `'use strict';
const { App, TerraformStack } = require('cdktf');
const { Dataset, FleetProvider, Machine, ModelType, ModularResource, Module, TrainingJob } = require('fleetform');
${STACK_BODY}`;

const ESM_APP = `import { App, TerraformStack } from 'cdktf';
import { Dataset, FleetProvider, Machine, ModelType, ModularResource, Module, TrainingJob } from 'fleetform';
const dynamic = await import('fleetform');
if (dynamic.Machine !== Machine) throw new Error('import() and import give different copies');
${STACK_BODY}`;

/** The cdktf TypeScript template's compiler options (cdktf init --template=typescript). */
const TEMPLATE_TSCONFIG = {
  compilerOptions: {
    alwaysStrict: true,
    declaration: true,
    experimentalDecorators: true,
    inlineSourceMap: true,
    inlineSources: true,
    lib: ['es2018'],
    module: 'CommonJS',
    noEmitOnError: true,
    noFallthroughCasesInSwitch: true,
    noImplicitAny: true,
    noImplicitReturns: true,
    noImplicitThis: true,
    noUnusedLocals: true,
    noUnusedParameters: true,
    resolveJsonModule: true,
    strict: true,
    strictNullChecks: true,
    strictPropertyInitialization: true,
    stripInternal: true,
    target: 'ES2018',
    incremental: true,
    skipLibCheck: true,
  },
  include: ['**/*.ts'],
  exclude: ['node_modules', 'cdktf.out', 'wrong-types', 'with-null'],
};

const NODENEXT_TSCONFIG = {
  compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, skipLibCheck: true, noEmit: true },
  files: ['main.ts'],
};

/** A module of a user's own code typed with the client entry; the type-check test compiles it beside the app. */
const CLIENT_MODULE = `import { createServiceClient, ServiceError, type Machine, type ServiceClient } from 'fleetform/client';
import { createServiceClient as atRoot } from 'fleetform';
export const nameOf = (m: Machine): string => m.name;
export const make: typeof createServiceClient = atRoot;
export const errorOf = (e: unknown): ServiceError | undefined => (e instanceof ServiceError ? e : undefined);
export type Client = ServiceClient;
`;

/** The app with a resource of another provider (null_resource) beside the fleet's. */
const WITH_NULL_APP = TS_APP.replace(
  'import { Dataset,',
  "import { Resource as NullResource } from '@cdktf/provider-null/lib/resource';\nimport { NullProvider } from '@cdktf/provider-null/lib/provider';\nimport { Dataset,",
).replace('app.synth();', "new NullProvider(stack, 'null');\nnew NullResource(stack, 'marker');\napp.synth();");

let scratch: string;
let app: string;
beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist', 'index.js')))
    throw new Error('dist/ is missing: run `npm run build` (npm test does) before this suite');
  const { tarball, prebuilds } = packed();
  scratch = mkdtempSync(join(tmpdir(), 'fleetform-package-'));
  app = join(scratch, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'yard-fleet', version: '1.0.0', private: true }, null, 2));
  useLocalPrebuilds(app, prebuilds);
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(TEMPLATE_TSCONFIG, null, 2));
  writeFileSync(
    join(app, 'tsconfig.nodenext.json'),
    JSON.stringify({ ...NODENEXT_TSCONFIG, files: ['main.ts', 'client-entry/client.ts'] }, null, 2),
  );
  writeFileSync(
    join(app, 'cdktf.json'),
    JSON.stringify({ language: 'typescript', app: 'npx ts-node main.ts', projectId: 'yard', sendCrashReports: 'false' }, null, 2),
  );
  writeFileSync(join(app, 'main.ts'), TS_APP);
  mkdirSync(join(app, 'client-entry'));
  writeFileSync(join(app, 'client-entry', 'client.ts'), CLIENT_MODULE);
  // Its own cdktf app; ts-node only transpiles it when fleetform runs it: the type-check test checks its types.
  const withNull = join(app, 'with-null');
  mkdirSync(withNull);
  writeFileSync(join(withNull, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'npx ts-node --transpile-only main.ts' }));
  writeFileSync(join(withNull, 'tsconfig.json'), JSON.stringify({ ...TEMPLATE_TSCONFIG, exclude: [] }));
  writeFileSync(join(withNull, 'main.ts'), WITH_NULL_APP);
  const dev = PACKAGE.devDependencies;
  await mustRun(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      tarball,
      `cdktf@${dev.cdktf}`,
      `constructs@${CONSTRUCTS}`,
      `typescript@${dev.typescript}`,
      `ts-node@${dev['ts-node']}`,
      `@types/node@${dev['@types/node']}`,
      `@cdktf/provider-null@${dev['@cdktf/provider-null']}`,
    ],
    app,
  );
}, SETUP_TIMEOUT);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

function synthesized(outdir: string, stack = 'yard'): unknown {
  return JSON.parse(readFileSync(join(outdir, 'stacks', stack, 'cdk.tf.json'), 'utf8'));
}

describe('the installed package', () => {
  test('is installed from the tarball, not linked to this checkout', () => {
    const installed = join(app, 'node_modules', 'fleetform');
    expect(existsSync(join(installed, 'dist', 'index.js'))).toBe(true);
    expect(existsSync(join(installed, 'dist', 'index.d.ts'))).toBe(true);
    expect(existsSync(join(installed, 'src'))).toBe(false);
    expect(existsSync(join(installed, '__tests__'))).toBe(false);
    expect(JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).version).toBe(PACKAGE.version);
  });

  test('installs beside cdktf and constructs 10.8 without cdktn: both libraries are optional peers', () => {
    expect(JSON.parse(readFileSync(join(app, 'node_modules', 'constructs', 'package.json'), 'utf8')).version).toBe(CONSTRUCTS);
    expect(existsSync(join(app, 'node_modules', 'cdktf', 'package.json'))).toBe(true);
    expect(existsSync(join(app, 'node_modules', 'cdktn'))).toBe(false);
  });

  test('a correct app, one with a null_resource and a module of the client entry type-check under the cdktf template tsconfig and under nodenext', async () => {
    // One tsc per tsconfig: client-entry/client.ts (both) and with-null/main.ts (the template's include) beside main.ts.
    const template = await run(bin(app, 'tsc'), ['--noEmit', '-p', 'tsconfig.json'], app);
    expect(template.stdout + template.stderr).toBe('');
    expect(template.code).toBe(0);
    const nodenext = await run(bin(app, 'tsc'), ['-p', 'tsconfig.nodenext.json'], app);
    expect(nodenext.stdout + nodenext.stderr).toBe('');
    expect(nodenext.code).toBe(0);
  }, 120_000);

  test('tsc fails on an unknown prop, a wrong type and a missing prop, naming each', async () => {
    const dir = join(app, 'wrong-types');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'wrong.ts'),
      `import { App, TerraformStack } from 'cdktf';
import { Machine, Module, TrainingJob, ModelType } from 'fleetform';
const stack = new TerraformStack(new App(), 's');
const m = new Machine(stack, 'm');
new Module(m, 'drive', { moduleId: 'acme:drive', verison: '1.2.3' });
new TrainingJob(stack, 'j', { dataset: 'd', modelName: 'x', modelVersion: '1', modelType: ModelType.OBJECT_DETECTION, tags: 'cat' });
new TrainingJob(stack, 'k', { dataset: 'd', modelName: 'x', modelVersion: '2', tags: ['cat'] });
`,
    );
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        ...TEMPLATE_TSCONFIG,
        include: ['wrong.ts'],
        compilerOptions: { ...TEMPLATE_TSCONFIG.compilerOptions, incremental: false },
      }),
    );
    const r = await run(bin(app, 'tsc'), ['--noEmit', '-p', 'tsconfig.json'], dir);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toMatch(
      /wrong\.ts\(5,\d+\): error TS\d+: .*'verison' does not exist in type 'ModuleProps'. Did you mean to write 'version'\?/,
    );
    expect(r.stdout).toMatch(/wrong\.ts\(6,\d+\): error TS2322: Type 'string' is not assignable to type 'readonly string\[\]'/);
    expect(r.stdout).toMatch(/wrong\.ts\(7,\d+\): error TS2345: [\s\S]*Property 'modelType' is missing/);
  }, 120_000);

  test('the client is fleetform/client (required, imported; typed: the type-check test); the root still gives it, marked deprecated', async () => {
    const cjs = await mustRun(
      'node',
      [
        '-e',
        "const c = require('fleetform/client'); const r = require('fleetform'); console.log(typeof c.createServiceClient, c.createServiceClient === r.createServiceClient, c.ServiceError === r.ServiceError, 'Machine' in c)",
      ],
      app,
    );
    expect(cjs.stdout.trim()).toBe('function true true false');
    writeFileSync(
      join(app, 'client.mjs'),
      "import { createServiceClient } from 'fleetform/client';\nimport * as root from 'fleetform';\nconsole.log(createServiceClient === root.createServiceClient);\n",
    );
    expect((await mustRun('node', ['client.mjs'], app)).stdout.trim()).toBe('true');
    const declarations = readFileSync(join(app, 'node_modules', 'fleetform', 'dist', 'root-client.d.ts'), 'utf8');
    expect(declarations).toMatch(/@deprecated Import it from `fleetform\/client`[^\n]*\n\s*export declare const createServiceClient/);
  }, 180_000);

  test('the app synthesizes with node on compiled JavaScript, with ts-node and as an ES module, the same each time', async () => {
    writeFileSync(join(app, 'main.js'), CJS_APP);
    writeFileSync(join(app, 'main.mjs'), ESM_APP);
    await mustRun('node', ['main.js'], app, { CDKTF_OUTDIR: join(scratch, 'out-cjs') });
    await mustRun(bin(app, 'ts-node'), ['main.ts'], app, { CDKTF_OUTDIR: join(scratch, 'out-ts') });
    await mustRun('node', ['main.mjs'], app, { CDKTF_OUTDIR: join(scratch, 'out-esm') });
    const cjs = synthesized(join(scratch, 'out-cjs'));
    expect(cjs).toMatchObject({
      resource: { fleetform_machine: { 'mower-1': { name: 'mower-1' } }, fleetform_dataset: { grass: { name: 'grass' } } },
    });
    expect(synthesized(join(scratch, 'out-ts'))).toEqual(cjs);
    expect(synthesized(join(scratch, 'out-esm'))).toEqual(cjs);
  }, 180_000);

  test('a JavaScript app with a wrong prop fails at synth naming the construct, the prop and the fix', async () => {
    const dir = join(app, 'wrong-js');
    mkdirSync(dir);
    writeFileSync(join(dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'node main.js' }));
    writeFileSync(join(dir, 'main.js'), CJS_APP.replace("version: '~1.2'", "verison: '~1.2'"));
    const plain = await run('node', ['main.js'], dir, { CDKTF_OUTDIR: join(dir, 'out') });
    expect(plain.code).not.toBe(0);
    expect(plain.stderr).toContain('Module: unknown prop "verison"');
    const viaCli = await run('npx', ['fleetform', 'validate'], dir);
    expect(viaCli.code).toBe(1);
    expect(viaCli.stderr).toMatch(/^error: main\.js:\d+:\d+: yard\/mower-1\/drive: Module: unknown prop "verison"$/m);
    expect(viaCli.stderr).toContain('yard/mower-1/drive: Module: unknown prop "verison"');
    expect(viaCli.stderr).toContain('hint: did you mean "version"?');
    expect(viaCli.stderr).not.toMatch(/\n\s+at /);
  }, 120_000);

  test('fleetform synth runs the cdktf.json app as cdktf synth does, with the same output', async () => {
    const ours = await mustRun('npx', ['fleetform', 'synth', '--output', join(scratch, 'out-fleetform')], app);
    expect(ours.stdout).toMatch(/^synthesized 1 stack \(yard\)/);
    await mustRun(CDKTF_CLI, ['synth', '--output', join(scratch, 'out-cdktf')], app, { CDKTF_HOME: join(scratch, 'cdktf-home') });
    expect(synthesized(join(scratch, 'out-fleetform'))).toEqual(synthesized(join(scratch, 'out-cdktf')));
  }, 300_000);

  describe('against the embedded emulator', () => {
    test('npx fleetform plan and apply manage the fleet; resources of other providers are left to Terraform', async () => {
      const dir = join(app, 'with-null');
      const plan = await run('npx', ['fleetform', 'plan'], dir);
      expect(plan.stderr).toBe('note: leaving 1 resource of other providers to Terraform (cdktf deploy): null_resource.marker\n');
      expect(plan.code).toBe(0);
      expect(plan.stdout).toContain('# fleetform_machine.mower-1 will be created');
      expect(plan.stdout).not.toContain('null_resource');
      const apply = await run('npx', ['fleetform', 'apply', '--auto-approve'], dir);
      expect(apply.code).toBe(0);
      const again = await run('npx', ['fleetform', 'plan', '--detailed-exitcode'], dir);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain('No changes');
    }, 300_000);
  });

  describe('the client from the package root', () => {
    let dataDir: string;
    let emulator: RunningEmulator;
    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'fleetform-root-'));
      emulator = await startEmulator({ dataDir, clock: 'frozen' });
    });
    afterAll(async () => {
      await emulator.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    test('the documented flow works with require("fleetform") in plain Node', async () => {
      writeFileSync(
        join(app, 'client.js'),
        `'use strict';
const { createServiceClient, ModelType, ServiceError, TrainingStatus } = require('fleetform');
(async () => {
  const { FLEET_URL, KEY_ID, KEY, ORG, DATASET } = process.env;
  const client = await createServiceClient({ serviceHost: FLEET_URL, credentials: { type: 'api-key', authEntity: KEY_ID, payload: KEY } });
  try {
    const id = await client.mlTrainingClient.submitTrainingJob(ORG, DATASET, 'boxes', '1', ModelType.OBJECT_DETECTION, ['box']);
    const job = await client.mlTrainingClient.getTrainingJob(id);
    const pending = await client.mlTrainingClient.listTrainingJobs(ORG, TrainingStatus.PENDING);
    await client.mlTrainingClient.cancelTrainingJob(id);
    const err = await client.mlTrainingClient.deleteCompletedTrainingJob(id).catch((e) => e);
    console.log(JSON.stringify({ status: job.status, listed: pending.map((j) => j.id).includes(id), serviceError: err instanceof ServiceError, code: err.code }));
  } finally {
    await client.close();
  }
})();
`,
      );
      const { apiKeyId, apiKey, organizationId, datasetId } = emulator.credentials;
      const r = await mustRun('node', ['client.js'], app, {
        FLEET_URL: emulator.url,
        KEY_ID: apiKeyId,
        KEY: apiKey,
        ORG: organizationId,
        DATASET: datasetId,
      });
      expect(JSON.parse(r.stdout)).toEqual({ status: 1, listed: true, serviceError: true, code: 'FAILED_PRECONDITION' });
    }, 60_000);
  });
});
