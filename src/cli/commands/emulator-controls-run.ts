/** What the emulator controls (`fleetform emulator publish|jobs|clock|status|organization|machine-faults|sensor-reading`) do when they run, loaded then; their names, flags and help are in emulator-controls.ts. */
import { Struct, type JsonObject } from '@bufbuild/protobuf';
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { EmulatorService, type ClockState, type EmulatorServiceType, type ModuleCard } from '../../api/emulator-control';
import { createServiceClient, statusCodeName, type FragmentVisibility } from '../../api/client';
import { FleetformError, InputError } from '../../domain/errors';
import { formatGoDuration, trainingStatusName, type TrainingStatus } from '../../domain';
import { parseTrainingDuration } from '../../emulator/clock/settings';
import { openConnection } from '../connection';
import { formatTable } from '../text-table';
import { parseMachineFault } from '../../emulator/sim/machine-faults';

type Controls = Client<EmulatorServiceType>;

/** Runs `fn` with the control client (and the endpoint it reaches), turning status errors into FleetformErrors. */
async function withControls(method: string, fn: (controls: Controls, endpoint: string) => Promise<void>): Promise<void> {
  const connection = await openConnection({ cwd: process.cwd(), env: process.env });
  try {
    await fn(connection.client.clientFor(EmulatorService), connection.endpoint);
  } catch (err) {
    if (err instanceof ConnectError) {
      throw new FleetformError(`${statusCodeName(err.code)}: ${err.rawMessage}`, {
        path: `EmulatorService.${method}`,
        ...(err.code === Code.Unimplemented
          ? { hint: `${connection.endpoint} is not a fleetform emulator (the controls exist only there)` }
          : {}),
      });
    }
    throw err;
  } finally {
    await connection.close();
  }
}

function statusText(n: number): string {
  return trainingStatusName(n as TrainingStatus);
}

/** The clock as `fleetform emulator clock` prints it. */
export function formatClock(state: ClockState): string {
  const at = state.now ? state.now.toDate().toISOString() : '-';
  return `${at} ${state.frozen ? 'frozen' : 'running'}; training takes ${formatGoDuration(Number(state.trainingDurationMs))}\n`;
}

/** The module cards as a table. */
export function formatModuleCards(cards: readonly ModuleCard[]): string {
  const rows = [['MACHINE', 'PART', 'MODULE', 'MODULE ID', 'POLICY', 'DEPLOYED', 'REGISTRY LATEST', 'RESTARTS']];
  for (const c of cards) {
    const latest =
      c.registryLatestPrerelease !== '' && c.registryLatestPrerelease !== c.registryLatest
        ? `${c.registryLatest || '-'} (prerelease ${c.registryLatestPrerelease})`
        : c.registryLatest || '-';
    rows.push([c.machineName, c.partName, c.moduleName, c.moduleId, c.policy, c.deployedVersion, latest, String(c.restartCount)]);
  }
  return formatTable(rows);
}

/** `emulator publish module`: publishes a module version and prints the machines it moved. */
export async function publishModule(
  moduleId: string,
  version: string,
  opts: { model: { api: string; model: string }[]; minViamServer?: string },
): Promise<void> {
  await withControls('PublishModuleVersion', async (controls) => {
    const res = await controls.publishModuleVersion({
      moduleId,
      version,
      models: opts.model,
      minViamServerVersion: opts.minViamServer ?? '',
    });
    process.stdout.write(`published ${res.moduleId} ${res.version}\n`);
    if (res.updates.length === 0) {
      process.stdout.write('no machine moved (patch pins and policies that do not admit it stay)\n');
    }
    for (const u of res.updates) {
      process.stdout.write(`  ${u.machineName} ${u.moduleName}: ${u.fromVersion} -> ${u.toVersion} (restart #${u.restartCount})\n`);
    }
  });
}

/** `emulator publish script`: publishes a training script version. */
export async function publishScript(itemId: string, version: string): Promise<void> {
  await withControls('PublishTrainingScript', async (controls) => {
    const res = await controls.publishTrainingScript({ itemId, version });
    process.stdout.write(`published training script ${res.itemId} ${res.version}\n`);
  });
}

/** `emulator jobs advance`: moves a training job one step (or to its end). */
export async function advanceJob(id: string, opts: { toEnd?: boolean }): Promise<void> {
  await withControls('AdvanceTrainingJob', async (controls) => {
    const res = await controls.advanceTrainingJob({ id, toEnd: opts.toEnd === true });
    process.stdout.write(`${res.id}: ${statusText(res.previousStatus)} -> ${statusText(res.status)}\n`);
  });
}

/** `emulator jobs fail`: makes a job that has not finished FAILED. */
export async function failJob(id: string, opts: { message: string }): Promise<void> {
  await withControls('FailTrainingJob', async (controls) => {
    const res = await controls.failTrainingJob({ id, message: opts.message });
    process.stdout.write(`${res.id}: ${statusText(res.previousStatus)} -> ${statusText(res.status)}\n`);
  });
}

/** `emulator clock`: prints the emulator's clock. */
export async function showClock(): Promise<void> {
  await withControls('GetClock', async (controls) => {
    process.stdout.write(formatClock(await controls.getClock({})));
  });
}

/** `emulator clock freeze`: stops the clock. */
export async function freezeClock(): Promise<void> {
  await withControls('FreezeClock', async (controls) => {
    process.stdout.write(formatClock(await controls.freezeClock({})));
  });
}

/** `emulator clock resume`: lets a frozen clock run again. */
export async function resumeClock(): Promise<void> {
  await withControls('ResumeClock', async (controls) => {
    process.stdout.write(formatClock(await controls.resumeClock({})));
  });
}

/** `emulator clock step`: moves the clock forward. */
export async function stepClock(duration: string): Promise<void> {
  const ms = parseTrainingDuration(duration, '<duration>');
  await withControls('StepClock', async (controls) => {
    process.stdout.write(formatClock(await controls.stepClock({ milliseconds: BigInt(ms) })));
  });
}

/** `emulator status`: the module card of every machine module, as a table or JSON. */
export async function showModuleCards(opts: { json?: boolean }): Promise<void> {
  await withControls('ListModuleCards', async (controls) => {
    const { cards } = await controls.listModuleCards({});
    if (opts.json) {
      process.stdout.write(
        `${JSON.stringify(
          cards.map((c) => c.toJson({ emitDefaultValues: true })),
          null,
          2,
        )}\n`,
      );
    } else if (cards.length === 0) {
      process.stdout.write('no machine runs a registry module yet\n');
    } else {
      process.stdout.write(formatModuleCards(cards));
    }
  });
}

/** The flags of `emulator organization`. */
export interface OrganizationOptions {
  readonly namespace?: string;
  readonly fragment?: string;
  readonly visibility: string;
  readonly fragmentConfig: string;
  readonly json?: boolean;
}

const VISIBILITIES: Readonly<Record<string, FragmentVisibility>> = {
  public: 'public',
  unlisted: 'public_unlisted',
  private: 'private',
};

/**
 * `emulator organization`: creates an organization (and a fragment of it, made with the new
 * organization's own key, which is used for that call only and never printed).
 */
export async function createOrganization(name: string, opts: OrganizationOptions): Promise<void> {
  const visibility = VISIBILITIES[opts.visibility];
  if (visibility === undefined) {
    throw new InputError(`--visibility: ${JSON.stringify(opts.visibility)} is not a fragment visibility`, {
      path: '--visibility',
      hint: 'use public, unlisted or private',
    });
  }
  const config = jsonObject(opts.fragmentConfig, '--fragment-config');
  await withControls('CreateOrganization', async (controls, endpoint) => {
    const org = await controls.createOrganization({ name, publicNamespace: opts.namespace ?? '' });
    let fragmentId: string | undefined;
    if (opts.fragment !== undefined) {
      const theirs = await createServiceClient({
        serviceHost: endpoint,
        credentials: { type: 'api-key', authEntity: org.apiKeyId, payload: org.apiKey },
      });
      try {
        fragmentId = (await theirs.appClient.createFragment(org.organizationId, opts.fragment, config, visibility)).id;
      } finally {
        await theirs.close();
      }
    }
    const made = { organizationId: org.organizationId, ...(fragmentId === undefined ? {} : { fragmentId, visibility: opts.visibility }) };
    if (opts.json) process.stdout.write(`${JSON.stringify(made, null, 2)}\n`);
    else {
      process.stdout.write(`organization ${name} ${org.organizationId}\n`);
      if (fragmentId !== undefined) process.stdout.write(`fragment ${opts.fragment ?? ''} ${fragmentId} (${opts.visibility})\n`);
    }
  });
}

/** `emulator machine-faults`: replaces the faults of the simulated machines. */
export async function setMachineFaults(specs: string[]): Promise<void> {
  // Checked here first, so a misspelt spec names the argument and the fix.
  specs.forEach((spec, i) => parseMachineFault(spec, `specs[${i}]`));
  await withControls('SetMachineFaults', async (controls) => {
    const res = await controls.setMachineFaults({ specs });
    process.stdout.write(res.specs.length === 0 ? 'no machine faults\n' : `machine faults: ${res.specs.join(', ')}\n`);
  });
}

/** `emulator sensor-reading`: sets (or clears) what a simulated machine's sensor reads. */
export async function setSensorReading(machine: string, sensor: string, readings: string | undefined): Promise<void> {
  const parsed = sensorReadings(readings);
  await withControls('SetSensorReading', async (controls) => {
    const res = await controls.setSensorReading({ machine, sensor, readings: Struct.fromJson(parsed) });
    process.stdout.write(`${machine} ${sensor} reads ${res.readings?.toJsonString() ?? '{}'}\n`);
  });
}

/** The readings argument: a JSON object; none is no readings. */
function sensorReadings(text: string | undefined): JsonObject {
  return text === undefined ? {} : jsonObject(text, 'readings');
}

/** A JSON object given on the command line at `path`. */
function jsonObject(text: string, path: string): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InputError(`${path}: ${JSON.stringify(text)} is not a JSON object`, {
      path,
      hint: 'write it like \'{"allowed": true}\' (quoted for the shell)',
    });
  }
  return value as JsonObject;
}

/** The flags of `emulator module-version`. */
export interface ModuleVersionOptions {
  readonly deprecate?: string | boolean;
  readonly undeprecate?: boolean;
  readonly minViamServer?: string;
}

/** `emulator module-version`: sets a module version's deprecation and oldest viam-server, and prints what it then is. */
export async function setModuleVersionStatus(moduleId: string, version: string, opts: ModuleVersionOptions): Promise<void> {
  if (opts.deprecate !== undefined && opts.undeprecate) {
    throw new InputError('--deprecate and --undeprecate go one at a time', { path: '--undeprecate', hint: 'give one of them' });
  }
  const deprecated = opts.deprecate !== undefined ? true : opts.undeprecate ? false : undefined;
  await withControls('SetModuleVersionStatus', async (controls) => {
    const res = await controls.setModuleVersionStatus({
      moduleId,
      version,
      ...(deprecated === undefined ? {} : { deprecated }),
      deprecationMessage: typeof opts.deprecate === 'string' ? opts.deprecate : '',
      ...(opts.minViamServer === undefined ? {} : { minViamServerVersion: opts.minViamServer }),
    });
    const status = res.deprecated ? `deprecated${res.deprecationMessage ? ` (${res.deprecationMessage})` : ''}` : 'not deprecated';
    process.stdout.write(`${res.moduleId} ${res.version}: ${status}; needs viam-server ${res.minViamServerVersion || 'any'}\n`);
  });
}

/** `emulator viam-server`: sets the viam-server version a simulated machine reports. */
export async function setViamServerVersion(machine: string, version: string): Promise<void> {
  await withControls('SetViamServerVersion', async (controls) => {
    const res = await controls.setViamServerVersion({ machine, version });
    process.stdout.write(`part ${res.partId} reports viam-server ${res.version || 'none'}\n`);
  });
}
