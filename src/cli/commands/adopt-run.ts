/** What `fleetform adopt` does when it runs, loaded then; its name, flags and help are in adopt.ts. */
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { FleetformError, InputError } from '../../domain/errors';
import {
  type Adoption,
  type CdkFlavour,
  planAdoption,
  readInventory,
  renderAdoption,
  renderMain,
  summary,
} from '../../engine/project-code';
import type { AppRunner } from '../app-runner';
import type { EngineCommandOptions } from '../engine-options';
import { openConnection, type Connection } from '../connection';
import { runningFleetformSpec } from '../fleetform-source';
import { timePhase } from '../phase-timings';
import { projectBackend } from '../state-backend';
import { withWorkspace } from '../workspace';

export interface AdoptOptions extends EngineCommandOptions {
  readonly organization?: string;
  readonly location?: string[];
  readonly out: string;
  readonly stackName: string;
  readonly jobs: boolean;
  readonly terraform?: boolean;
  readonly force?: boolean;
  readonly cdk?: string;
  /** `--finish` imports even when a secret variable the adoption named is unset. */
  readonly allowMissingSecrets?: boolean;
}

/** Reads adoption keeps in flight, each on a connection of its own. */
const READS_IN_FLIGHT = 64;

/** What one adoption left for the import step: the stack, each object's address and id, and the names of the secret variables its code reads (never their values). */
interface AdoptionRecord {
  readonly stack: string;
  readonly imports: Adoption['imports'];
  readonly secrets?: readonly { readonly variable: string; readonly where: string }[];
}

/** What `adopt --terraform` says to run next: the provider where terraform finds it, then the CDK's deploy (or terraform itself). */
export function terraformNextSteps(cdk: CdkFlavour, stack: string): string {
  const dir = `cdktf.out/stacks/${stack}`;
  return [
    '',
    `The code imports every adopted object: \`${cdk} deploy\` (or \`terraform apply\`) adopts them into Terraform state. Next:`,
    '  fleetform provider install    # the fleetform/fleetform Terraform provider, where `terraform init` finds it',
    `  npx ${cdk} deploy ${stack}    # with the CDK's command line: npm install --save-dev ${cdk}-cli`,
    `  # or: fleetform synth && terraform -chdir=${dir} init && terraform -chdir=${dir} apply`,
    '',
  ].join('\n');
}

/** The install that lets the adopted code run: this same fleetform (by `fleetformSpec`; it is not on the npm registry), the CDK and tsx. */
export function adoptedCodeInstall(fleetformSpec: string, cdk: CdkFlavour): string {
  return `npm install ${fleetformSpec} ${cdk} constructs && npm install --save-dev tsx typescript`;
}

/** Where an adopted secret's value is on the service now, as adopt's report and --finish's refusal say it. */
function secretPlace(s: Adoption['secrets'][number]): string {
  return `${s.machine}: ${s.fragment !== undefined ? `import of fragment ${s.fragment}, variable ${s.key}` : s.module === '' ? `config ${s.key}` : `module ${s.module}, ${s.key}`}`;
}

/** The secret variables of the record that `env` does not set (an empty value is unset: the code would write it). */
export function missingSecrets(record: Pick<AdoptionRecord, 'secrets'>, env: NodeJS.ProcessEnv): { variable: string; where: string }[] {
  const seen = new Set<string>();
  return (record.secrets ?? []).filter((s) => !env[s.variable] && !seen.has(s.variable) && seen.add(s.variable));
}

/** Refuses --finish while a secret variable the code reads is unset: the first plan would write it empty over the service's value. */
export function refuseMissingSecrets(record: Pick<AdoptionRecord, 'secrets' | 'stack'>, env: NodeJS.ProcessEnv): void {
  const missing = missingSecrets(record, env);
  if (missing.length === 0) return;
  const names = missing.map((m) => m.variable);
  throw new InputError(
    `${missing.length} secret variable(s) the adopted code reads are not set: ${missing.map((m) => `${m.variable} (${m.where})`).join(', ')}`,
    {
      path: names[0],
      hint: `set each to the value the service holds now (e.g. \`export ${names[0]}=...\` in this shell, or your secret store), then run \`fleetform adopt --finish${record.stack === 'adopted' ? '' : ` --stack-name ${record.stack}`}\` again; --allow-missing-secrets imports without them`,
    },
  );
}

function recordFile(cwd: string, stack: string): string {
  return path.join(cwd, '.fleetform', `adopted-${stack}.json`);
}

/** `adopted` -> `AdoptedStack`; `line-a` -> `LineAStack`. */
function className(stack: string): string {
  const words = stack.split(/[^A-Za-z0-9]+/).filter((w) => w !== '');
  const name = words.map((w) => (w[0] ?? '').toUpperCase() + w.slice(1)).join('');
  return /^[A-Za-z]/.test(name) ? `${name}Stack` : `Stack${name}`;
}

/** cdktn when the project depends on it and not on cdktf; cdktf otherwise, or as `--cdk` says. */
async function cdkOf(cwd: string, flag: string | undefined): Promise<CdkFlavour> {
  if (flag !== undefined) {
    if (flag === 'cdktf' || flag === 'cdktn') return flag;
    throw new InputError(`unknown CDK ${JSON.stringify(flag)}`, { path: '--cdk', hint: 'use cdktf or cdktn' });
  }
  try {
    const pkg = JSON.parse(await fs.readFile(path.join(cwd, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    const deps = { ...pkg.dependencies, ...pkg.devDependencies, ...pkg.peerDependencies };
    return deps.cdktn !== undefined && deps.cdktf === undefined ? 'cdktn' : 'cdktf';
  } catch {
    return 'cdktf';
  }
}

async function organizationOf(connection: Connection, flag: string | undefined): Promise<string> {
  const chosen = flag || process.env.FLEETFORM_ORGANIZATION_ID || connection.organizationId;
  if (chosen) return chosen;
  const organizations = await connection.client.appClient.listOrganizations();
  const only = organizations[0];
  if (organizations.length === 1 && only) return only.id;
  throw new InputError(organizations.length === 0 ? 'the API key sees no organization' : 'the API key sees several organizations', {
    path: '--organization',
    hint:
      organizations.length === 0
        ? 'use an API key of the organization to adopt'
        : `choose one: ${organizations.map((o) => `${o.name} (${o.id})`).join(', ')}`,
  });
}

/** Every id a stack of the project manages, by resource type: adoption leaves those objects to it. */
async function managedIds(cwd: string): Promise<Map<string, Set<string>>> {
  const backend = await projectBackend(cwd);
  const managed = new Map<string, Set<string>>();
  for (const stack of await backend.stacks()) {
    const state = await backend.read(stack);
    for (const entry of Object.values(state.resources)) {
      const ids = managed.get(entry.type) ?? new Set<string>();
      for (const id of Object.values(entry.ids)) ids.add(id);
      managed.set(entry.type, ids);
    }
  }
  return managed;
}

/** Writes `text` to `file`, refusing to replace an existing file unless `force`. */
async function writeNew(file: string, text: string, force: boolean): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, text, { flag: force ? 'w' : 'wx', mode: 0o644 });
}

function progress(label: string): ((done: number, total: number) => void) | undefined {
  if (!process.stderr.isTTY) return undefined;
  let last = 0;
  return (done, total) => {
    const now = Date.now();
    if (done !== total && now - last < 100) return;
    last = now;
    process.stderr.write(`\r${label} ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')}${done === total ? '\n' : ''}`);
  };
}

function report(adoption: Adoption): string {
  let out = '';
  if (adoption.skipped.length > 0) {
    out += `\nLeft out (${adoption.skipped.length}):\n`;
    for (const s of adoption.skipped) out += `  ${s.what}: ${s.reason}\n`;
  }
  if (adoption.untouched.length > 0) {
    out += '\nKept on the service as they are (fleetform does not manage them):\n';
    for (const u of adoption.untouched) out += `  machine ${u.machine}: ${u.what.join(', ')}\n`;
  }
  if (adoption.secrets.length > 0) {
    out += '\nSecrets are read from the environment at synth; set these before `fleetform plan` (their values are on the service now):\n';
    for (const s of adoption.secrets) out += `  ${s.variable}  (${secretPlace(s)})\n`;
  }
  return out;
}

/** Imports the recorded objects into the stack's state, under its lock; false when the app does not declare the stack. */
async function importRecorded(opts: AdoptOptions, apps: AppRunner, record: AdoptionRecord): Promise<boolean> {
  return withWorkspace({ ...opts, stack: undefined }, apps, async (ws) => {
    const stack = ws.stacks.find((s) => s.name === record.stack);
    if (!stack) return false;
    const state = await ws.backend.read(stack.name);
    if (Object.keys(state.resources).length > 0 && !opts.force) {
      throw new FleetformError(`stack ${stack.name} already has state (${Object.keys(state.resources).length} resources)`, {
        path: '--stack-name',
        hint: 'adopt into a new stack name, or give --force to add to it',
      });
    }
    const release = await ws.engine.lock([stack.name], 'adopt');
    try {
      await timePhase('adopt_import', () => ws.engine.importResources(stack, record.imports, progress('Importing')));
    } finally {
      await release();
    }
    return true;
  });
}

/** `fleetform adopt`: writes an existing organization as code, and imports it into state now or with --finish. */
export async function runAdopt(opts: AdoptOptions & { finish?: boolean }, apps: AppRunner): Promise<void> {
  const cwd = process.cwd();
  if (!/^[A-Za-z][A-Za-z0-9_-]*$/.test(opts.stackName)) {
    throw new InputError(`stack name ${JSON.stringify(opts.stackName)} is not a name a stack can have`, {
      path: '--stack-name',
      hint: 'start with a letter; use letters, digits, "_" and "-"',
    });
  }
  if (opts.finish) {
    const file = recordFile(cwd, opts.stackName);
    if (!existsSync(file))
      throw new InputError(`nothing to finish: ${path.relative(cwd, file)} does not exist`, {
        path: '--finish',
        hint: 'run `fleetform adopt` first',
      });
    const record = JSON.parse(await fs.readFile(file, 'utf8')) as AdoptionRecord;
    await finish(opts, apps, record, file);
    return;
  }
  const outFile = path.resolve(cwd, opts.out);
  if (existsSync(outFile) && !opts.force)
    throw new InputError(`${opts.out} exists`, { path: '--out', hint: 'choose another file, or give --force to write over it' });
  const cdk = await cdkOf(cwd, opts.cdk);
  const managed = await managedIds(cwd);

  const connection = await openConnection({ cwd, env: process.env, maxConnections: READS_IN_FLIGHT });
  let adoption: Adoption;
  try {
    const organizationId = await organizationOf(connection, opts.organization);
    const inventory = await timePhase('adopt_read', () =>
      readInventory(connection.client, {
        organizationId,
        locationIds: opts.location ?? [],
        includeJobs: opts.jobs,
        concurrency: READS_IN_FLIGHT,
        onProgress: progress('Reading machines'),
      }),
    );
    adoption = await timePhase('adopt_declare', () => planAdoption(inventory, { managed }));
  } finally {
    await connection.close();
  }

  const name = className(opts.stackName);
  const mainFile = await appEntryOf(cwd);
  // Written as the app's entry, the file makes the App itself: the project synthesizes as it is.
  const appStackName = path.resolve(mainFile) === outFile ? opts.stackName : undefined;
  await timePhase('adopt_write', async () =>
    writeNew(
      outFile,
      renderAdoption(adoption, {
        className: name,
        cdk,
        terraformImports: opts.terraform ?? false,
        ...(appStackName === undefined ? {} : { appStackName }),
      }),
      opts.force ?? false,
    ),
  );
  const written = [path.relative(cwd, outFile)];
  if (appStackName === undefined && !existsSync(mainFile)) {
    const relative = path.relative(path.dirname(mainFile), outFile).replace(/\.ts$/, '').split(path.sep).join('/');
    await writeNew(mainFile, renderMain(name, relative.startsWith('.') ? relative : `./${relative}`, opts.stackName, cdk), false);
    written.push(path.relative(cwd, mainFile));
  }
  if (!existsSync(path.join(cwd, 'cdktf.json'))) {
    await writeNew(
      path.join(cwd, 'cdktf.json'),
      `${JSON.stringify({ language: 'typescript', app: 'node --import tsx main.ts', terraformProviders: [], terraformModules: [], context: {} }, null, 2)}\n`,
      false,
    );
    written.push('cdktf.json');
  }
  process.stdout.write(`Adopted organization ${adoption.organizationId}: ${summary(adoption)}.\nWrote ${written.join(', ')}.\n`);
  process.stdout.write(`The code runs with: ${adoptedCodeInstall(runningFleetformSpec(cwd), cdk)}\n`);
  process.stdout.write(report(adoption));
  if (opts.terraform) {
    process.stdout.write(terraformNextSteps(cdk, opts.stackName));
    return;
  }
  const record: AdoptionRecord = {
    stack: opts.stackName,
    imports: adoption.imports,
    secrets: adoption.secrets.map((s) => ({ variable: s.variable, where: secretPlace(s) })),
  };
  const file = recordFile(cwd, opts.stackName);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, `${JSON.stringify(record, null, 2)}\n`);
  if (missingSecrets(record, process.env).length > 0) {
    process.stdout.write(
      `\nSet the variables above, then run \`fleetform adopt --finish${opts.stackName === 'adopted' ? '' : ` --stack-name ${opts.stackName}`}\` to write the state.\n`,
    );
    return;
  }
  await finish(opts, apps, record, file);
}

/**
 * The file the project's app runs: the `.ts` or `.js` file cdktf.json's `app` command names
 * (`node --import tsx main.ts`), else main.ts, which adopt writes with cdktf.json when the
 * project has neither.
 */
async function appEntryOf(cwd: string): Promise<string> {
  const config = path.join(cwd, 'cdktf.json');
  if (!existsSync(config)) return path.join(cwd, 'main.ts');
  let app: unknown;
  try {
    app = (JSON.parse(await fs.readFile(config, 'utf8')) as { app?: unknown }).app;
  } catch {
    app = undefined;
  }
  const entry = typeof app === 'string' ? app.split(/\s+/).find((word) => /\.(ts|mts|cts|js|mjs|cjs)$/.test(word)) : undefined;
  return path.resolve(cwd, entry ?? 'main.ts');
}

async function finish(opts: AdoptOptions, apps: AppRunner, record: AdoptionRecord, file: string): Promise<void> {
  if (!opts.allowMissingSecrets) refuseMissingSecrets(record, process.env);
  const imported = await importRecorded(opts, apps, record);
  if (!imported) {
    process.stdout.write(
      `\nThe app does not declare stack ${record.stack} yet: add \`new ${className(record.stack)}(app, '${record.stack}')\` to main.ts, then run \`fleetform adopt --finish${record.stack === 'adopted' ? '' : ` --stack-name ${record.stack}`}\`.\n`,
    );
    return;
  }
  await fs.rm(file, { force: true });
  process.stdout.write(
    `\nImported ${record.imports.length.toLocaleString('en-US')} objects into stack ${record.stack}. \`fleetform plan\` now shows what differs from the code (nothing, until you edit it).\n`,
  );
}
