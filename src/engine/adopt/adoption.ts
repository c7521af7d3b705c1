import type { DataPipelineDetail, MachinePart, TrainingJob } from '../../api/client';
import {
  customTrainingJobResource,
  dataPipelineResource,
  datasetResource,
  locationResource,
  organizationDefaultsResource,
  trainingJobResource,
} from '../../domain/resource-attributes';
import { TrainingStatus } from '../../domain/training';
import type { DatasetType } from '../../domain/dataset-type';
import { storedFailureAcknowledgments, type Acknowledgment } from '../../domain/certainty';
import {
  FRAGMENT_RESOLVED_ISSUES,
  fragmentLookup,
  leavesImportOut,
  resolveMachineConfig,
  type FragmentLookup,
} from '../../domain/fragments';
import { validateMachineConfig } from '../../domain/validate';
import { storedServerFailures } from '../../domain/module-version-status';
import { machineDeclaration } from '../kinds/machine';
import { machinePartDeclaration } from '../kinds/machine-part';
import { stableStringify } from '../json';
import { importsCode, secretVariables } from './fragment-code';
import { planFragments, type FragmentDecl, type ImportDecl, type Reference } from './fragment-adoption';
import type { Inventory, InventoryMachine } from './inventory';
import { isEmptyConfig, machineConfigCode, secretVariableName, type MachineConfigCode, type SecretVariable } from './machine-code';
import { ConstructIds } from './names';

/**
 * The certain failures of a stored config, as code acknowledges them. Those only what it
 * runs can judge (a module, a dependency's target its fragments may bring) are judged on it
 * resolved with the organization's fragments at their latest revision; when an import is
 * not among them, or at another revision, plan judges them and they only may fail.
 */
function configFailures(config: Record<string, unknown>, fragments: FragmentLookup): Acknowledgment[] {
  const found = validateMachineConfig(config, { allowUnpinnedModules: true });
  const imports = Array.isArray(config.fragments) && config.fragments.length > 0;
  if (!imports) return storedFailureAcknowledgments(config, found, NO_CODES);
  const resolution = resolveMachineConfig({ machine: 'adopted', config, fragments });
  if (resolution.errors.some(leavesImportOut)) return storedFailureAcknowledgments(config, found, FRAGMENT_RESOLVED_ISSUES);
  const runs = validateMachineConfig(resolution.config, { allowUnpinnedModules: true });
  const judged = {
    errors: [],
    warnings: [
      ...found.warnings.filter((w) => !FRAGMENT_RESOLVED_ISSUES.has(w.code)),
      ...runs.warnings.filter((w) => FRAGMENT_RESOLVED_ISSUES.has(w.code)),
    ],
  };
  return storedFailureAcknowledgments(resolution.config, judged, NO_CODES);
}

/** The organization's fragments at their latest revision (and the tags naming it), as a lookup. */
function latestFragments(fragments: Inventory['fragments']): FragmentLookup {
  return fragmentLookup(
    fragments.map(({ fragment, tags }) => ({
      id: fragment.id,
      name: fragment.name,
      revisions: [{ revision: fragment.revision, config: fragment.config }],
      tags: Object.fromEntries(tags.map((t) => [t.tag, t.revision])),
    })),
  );
}

/**
 * The certain failures of a stored part, as code acknowledges them: its config's (see
 * configFailures), then each module pinned to a version needing a newer viam-server than
 * the part reports.
 */
function storedFailures(part: MachinePart, fragments: FragmentLookup, inventory: Inventory): Acknowledgment[] {
  const versionsOf = (id: string) => inventory.moduleVersions?.get(id)?.map((v) => ({ ...v, models: [] }));
  return [...configFailures(part.config, fragments), ...storedServerFailures(part.config, versionsOf, inventory.viamServers?.get(part.id))];
}

const NO_CODES: ReadonlySet<string> = new Set();

export type { FragmentDecl, FragmentTagDecl, ImportDecl, Reference } from './fragment-adoption';

export interface LocationDecl {
  readonly constructId: string;
  readonly id: string;
  readonly name: string;
  readonly parent: Reference | undefined;
}

export interface MachineDecl {
  readonly constructId: string;
  readonly id: string;
  readonly name: string;
  readonly location: Reference;
  /** The machine's own config, or the shared block (index into `blocks`) that declares it. */
  readonly config: MachineConfigCode | number;
  /** The fragments it imports: its own, never shared in a block. */
  readonly imports: readonly ImportDecl[];
  /** Its parts other than the main one, each a `Part` inside it. */
  readonly parts: readonly PartDecl[];
  /** The certain failures of its stored config, acknowledged in code. */
  readonly acknowledged: readonly Acknowledgment[];
}

/** A part of a machine other than its main one, with its own config. */
export interface PartDecl {
  /** Its construct id inside its machine. */
  readonly constructId: string;
  readonly id: string;
  readonly name: string;
  readonly config: MachineConfigCode;
  readonly imports: readonly ImportDecl[];
  /** The certain failures of its stored config, acknowledged in code. */
  readonly acknowledged: readonly Acknowledgment[];
}

/** A config several machines have exactly alike: declared once, in a function each of them calls. */
export interface SharedBlock {
  readonly functionName: string;
  readonly config: MachineConfigCode;
  readonly machines: readonly string[];
}

export interface DatasetDecl {
  readonly constructId: string;
  readonly id: string;
  readonly name: string;
  readonly type: DatasetType;
}

/** A data pipeline: its construct id and the pipeline as the service reports it. */
export interface DataPipelineDecl {
  readonly constructId: string;
  readonly pipeline: DataPipelineDetail;
}

export interface JobDecl {
  readonly constructId: string;
  readonly dataset: Reference;
  readonly job: TrainingJob;
}

/** The organization's default fragments: one `OrganizationDefaults`, its fragments referred to as the machines' imports are. */
export interface OrganizationDefaultsDecl {
  readonly constructId: string;
  readonly imports: readonly ImportDecl[];
}

/** An object left out, and why. */
export interface Skipped {
  readonly what: string;
  readonly reason: string;
}

/** Everything adoption writes: the declarations, the addresses to import and what it left alone. */
export interface Adoption {
  readonly organizationId: string;
  readonly locations: readonly LocationDecl[];
  /** Nested fragments before the fragments importing them; all before the machines. */
  readonly fragments: readonly FragmentDecl[];
  readonly machines: readonly MachineDecl[];
  readonly blocks: readonly SharedBlock[];
  readonly datasets: readonly DatasetDecl[];
  readonly jobs: readonly JobDecl[];
  /** Absent when the inventory read none. */
  readonly dataPipelines?: readonly DataPipelineDecl[];
  /** The organization's default fragments, when it has any and no stack manages them. */
  readonly defaults?: OrganizationDefaultsDecl;
  /** Each adopted object's address in the generated stack and its id on the service. */
  readonly imports: readonly { readonly address: string; readonly id: string }[];
  readonly skipped: readonly Skipped[];
  /** Secret env entries of modules, and secret variables of fragment imports (`fragment` names the fragment; `module` is empty). */
  readonly secrets: readonly AdoptedSecret[];
  /** Config sections and parts fleetform leaves on the service as they are, per machine. */
  readonly untouched: readonly { readonly machine: string; readonly what: readonly string[] }[];
}

export type AdoptedSecret = SecretVariable & { readonly machine: string; readonly fragment?: string };

export interface AdoptionOptions {
  /** Ids already managed by a stack, by resource type: such objects are skipped and named. */
  readonly managed: ReadonlyMap<string, ReadonlySet<string>>;
}

const MACHINE = machineDeclaration.type;
const PART = machinePartDeclaration.type;
const LOCATION = locationResource.type;
const DATASET = datasetResource.type;
const DEFAULTS = organizationDefaultsResource.type;
const JOB = trainingJobResource.type;
const CUSTOM_JOB = customTrainingJobResource.type;
const DATA_PIPELINE = dataPipelineResource.type;

/** Locations ordered so that every parent comes before the locations inside it. */
function parentsFirst<T extends { id: string; parentLocationId: string }>(locations: readonly T[]): T[] {
  const byId = new Map(locations.map((l) => [l.id, l]));
  const out: T[] = [];
  const placed = new Set<string>();
  const place = (l: T, seen: Set<string>): void => {
    if (placed.has(l.id) || seen.has(l.id)) return;
    seen.add(l.id);
    const parent = byId.get(l.parentLocationId);
    if (parent) place(parent, seen);
    placed.add(l.id);
    out.push(l);
  };
  for (const l of locations) place(l, new Set());
  return out;
}

/** A function name for a block shared by machines: their names' common start, else a number. */
function blockFunctionName(machines: readonly string[], taken: Set<string>): string {
  const first = machines[0] ?? '';
  let common = first;
  for (const m of machines) while (!m.startsWith(common)) common = common.slice(0, -1);
  const words = common.split(/[^A-Za-z0-9]+/).filter((w) => w !== '');
  const base =
    words.length > 0 && /^[A-Za-z]/.test(words[0] ?? '')
      ? words.map((w, i) => (i === 0 ? w.toLowerCase() : w[0]?.toUpperCase() + w.slice(1).toLowerCase())).join('')
      : 'shared';
  let name = `${base}Config`;
  for (let n = 2; taken.has(name); n++) name = `${base}Config${n}`;
  taken.add(name);
  return name;
}

/** What two machines share when their configs are alike in everything, secret values included (not the variables' names). */
function sameConfigKey(config: MachineConfigCode, secrets: readonly SecretVariable[]): string {
  const values = new Map(secrets.map((s) => [s.variable, s.value]));
  const modules = config.modules.map((m) => ({
    ...m,
    sensitiveEnv: Object.fromEntries(Object.entries(m.sensitiveEnv).map(([k, v]) => [k, values.get(v) ?? v])),
  }));
  return stableStringify(
    JSON.parse(
      JSON.stringify({
        modules,
        resources: config.resources,
        packages: config.packages,
        entries: config.entries,
        settings: config.settings,
        overrides: config.overrides,
        emptyLists: config.emptyLists,
      }),
    ) as Parameters<typeof stableStringify>[0],
  );
}

/** The config with its secrets read from variables named after `prefix` instead of one machine. */
function renameSecrets(
  config: MachineConfigCode,
  secrets: readonly SecretVariable[],
  prefix: string,
): { config: MachineConfigCode; secrets: SecretVariable[] } {
  const renamed: SecretVariable[] = [];
  const modules = config.modules.map((m) => {
    const sensitiveEnv: Record<string, string> = {};
    for (const [key, old] of Object.entries(m.sensitiveEnv)) {
      const variable = secretVariableName(prefix, m.name, key);
      sensitiveEnv[key] = variable;
      const value = secrets.find((s) => s.variable === old)?.value ?? '';
      renamed.push({ variable, module: m.name, key, value });
    }
    return { ...m, sensitiveEnv };
  });
  return { config: { ...config, modules }, secrets: renamed };
}

/** The import with its secret-looking variables read from environment variables named after the machine, the fragment and the prefix. */
function withSecretVariables(i: ImportDecl, machine: string, secrets: AdoptedSecret[]): ImportDecl {
  const found = Object.entries(secretVariables(i));
  if (found.length === 0 || !i.variables) return i;
  const variables = { ...i.variables };
  const read: Record<string, string> = {};
  for (const [key, value] of found) {
    delete variables[key];
    const base = secretVariableName(machine, i.label, i.prefix ?? '', key);
    let variable = base;
    for (let n = 2; secrets.some((s) => s.variable === variable && s.value !== value); n++) variable = `${base}_${n}`;
    read[key] = variable;
    secrets.push({ variable, module: '', key, value, machine, fragment: i.label });
  }
  const { variables: _all, ...rest } = i;
  return { ...rest, ...(Object.keys(variables).length > 0 ? { variables } : {}), secretVariables: read };
}

/** What planParts needs of the adoption around it. */
interface PartPlanning {
  readonly fragmentPlan: ReturnType<typeof planFragments>;
  readonly managedAs: (type: string, id: string) => boolean;
  readonly skipped: Skipped[];
  readonly secrets: AdoptedSecret[];
  /** The machine's list of what stays on the service as it is. */
  readonly untouched: string[];
  /** The organization's fragments, as its parts' configs are resolved with them. */
  readonly fragments: FragmentLookup;
  /** What adoption read, for the registry's versions and the parts' viam-server. */
  readonly inventory: Inventory;
}

/**
 * A machine's parts other than its main one, each a `Part` inside it with its own config
 * (its address `<machine construct>_<part construct>`, as the construct's logical id is);
 * a part another stack manages, or whose config code cannot declare exactly, is skipped and named.
 */
function planParts(
  machine: InventoryMachine,
  machineConstructId: string,
  planning: PartPlanning,
): { decls: PartDecl[]; imports: { address: string; id: string }[] } {
  const ids = new ConstructIds();
  const decls: PartDecl[] = [];
  const imports: { address: string; id: string }[] = [];
  for (const part of machine.parts.filter((p) => !p.mainPart).sort(byName)) {
    const what = `part ${part.name} (${part.id}) of machine ${machine.name}`;
    if (planning.managedAs(PART, part.id)) {
      planning.skipped.push({ what, reason: 'another stack manages it' });
      continue;
    }
    const label = `${machine.name}-${part.name}`;
    const made = machineConfigCode(part.config, label);
    if (!made.ok) {
      planning.skipped.push({ what, reason: made.reason });
      continue;
    }
    const parsed = importsCode(part.config);
    const resolved = parsed.ok ? planning.fragmentPlan.resolve(parsed.imports) : parsed;
    if (!resolved.ok) {
      planning.skipped.push({ what, reason: resolved.reason });
      continue;
    }
    const constructId = ids.take(part.name, 'part');
    for (const s of made.secrets) planning.secrets.push({ ...s, machine: `${machine.name} (part ${part.name})` });
    planning.untouched.push(...made.untouched.map((s) => `config section "${s}" of part ${part.name}`));
    const partImports = resolved.imports.map((i) => withSecretVariables(i, label, planning.secrets));
    decls.push({
      constructId,
      id: part.id,
      name: part.name,
      config: made.code,
      imports: partImports,
      acknowledged: storedFailures(part, planning.fragments, planning.inventory),
    });
    imports.push({ address: `${PART}.${machineConstructId}_${constructId}`, id: part.id });
  }
  return { decls, imports };
}

/** Whether a job is over without a result code could keep (canceled, or being canceled). */
function isCanceled(job: TrainingJob): boolean {
  return job.status === TrainingStatus.CANCELED || job.status === TrainingStatus.CANCELING;
}

/** Orders by name, the order declarations are written in. */
function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** What planning an adoption gathers as it goes: the construct ids taken, what it adopts, skips and finds. */
interface AdoptionRun {
  readonly ids: ConstructIds;
  managedAs(type: string, id: string): boolean;
  readonly skipped: Skipped[];
  readonly imports: { address: string; id: string }[];
  readonly secrets: AdoptedSecret[];
  readonly untouched: { machine: string; what: string[] }[];
  readonly inventory: Inventory;
}

/** The run once the organization's fragments are planned, as machines import them. */
interface MachinePlanning extends AdoptionRun {
  /** The organization's fragments at their latest revision. */
  readonly fragments: FragmentLookup;
  readonly fragmentPlan: ReturnType<typeof planFragments>;
}

function startAdoption(inventory: Inventory, options: AdoptionOptions): AdoptionRun {
  return {
    ids: new ConstructIds(),
    managedAs: (type, id) => options.managed.get(type)?.has(id) ?? false,
    skipped: [],
    imports: [],
    secrets: [],
    untouched: [],
    inventory,
  };
}

/** A `Fragment` per fragment of the organization (see planFragments), and how imports of them resolve. */
function planOrganizationFragments(run: AdoptionRun): MachinePlanning {
  const fragmentPlan = planFragments(run.inventory.fragments, {
    ids: run.ids,
    managedAs: run.managedAs,
    skip: (what, reason) => run.skipped.push({ what, reason }),
    adopt: (address, id) => run.imports.push({ address, id }),
  });
  return { ...run, fragments: latestFragments(run.inventory.fragments), fragmentPlan };
}

/** A `Location` per location, parents first; and how a machine refers to its location. */
function planLocations(run: AdoptionRun): { locations: LocationDecl[]; locationRef: (id: string) => Reference } {
  const locationConstruct = new Map<string, string>();
  const locations: LocationDecl[] = [];
  for (const l of parentsFirst(run.inventory.locations)) {
    if (run.managedAs(LOCATION, l.id)) {
      run.skipped.push({ what: `location ${l.name} (${l.id})`, reason: 'another stack manages it' });
      continue;
    }
    const constructId = run.ids.take(l.name, 'location');
    locationConstruct.set(l.id, constructId);
    const parentConstruct = locationConstruct.get(l.parentLocationId);
    locations.push({
      constructId,
      id: l.id,
      name: l.name,
      parent: l.parentLocationId === '' ? undefined : parentConstruct ? { construct: parentConstruct } : { id: l.parentLocationId },
    });
    run.imports.push({ address: `${LOCATION}.${constructId}`, id: l.id });
  }
  const locationRef = (id: string): Reference => {
    const construct = locationConstruct.get(id);
    return construct ? { construct } : { id };
  };
  return { locations, locationRef };
}

/** A machine planned, before machines alike share their config. */
interface PendingMachine {
  readonly machine: InventoryMachine;
  readonly constructId: string;
  readonly config: MachineConfigCode;
  readonly imports: readonly ImportDecl[];
  readonly parts: readonly PartDecl[];
  readonly secrets: readonly SecretVariable[];
  /** Machines with the same key share one config function. */
  readonly key: string;
  readonly acknowledged: readonly Acknowledgment[];
}

/** The machine with its main part's config and its other parts; undefined (and named as skipped) when it cannot be adopted. */
function planMachine(machine: InventoryMachine, run: MachinePlanning): PendingMachine | undefined {
  const label = `machine ${machine.name} (${machine.id})`;
  const skip = (reason: string): undefined => {
    run.skipped.push({ what: label, reason });
    return undefined;
  };
  if (run.managedAs(MACHINE, machine.id)) return skip('another stack manages it');
  const main = machine.parts.find((p) => p.mainPart);
  if (!main) return skip('it has no main part');
  const made = machineConfigCode(main.config, machine.name);
  if (!made.ok) return skip(made.reason);
  const parsed = importsCode(main.config);
  const resolved = parsed.ok ? run.fragmentPlan.resolve(parsed.imports) : parsed;
  if (!resolved.ok) return skip(resolved.reason);
  const constructId = run.ids.take(machine.name, 'machine');
  const left = made.untouched.map((s) => `config section "${s}"`);
  const parts = planParts(machine, constructId, { ...run, untouched: left });
  if (left.length > 0) run.untouched.push({ machine: machine.name, what: left });
  const imported = resolved.imports.map((i) => withSecretVariables(i, machine.name, run.secrets));
  run.imports.push({ address: `${MACHINE}.${constructId}`, id: machine.id }, ...parts.imports);
  return {
    machine,
    constructId,
    config: made.code,
    imports: imported,
    parts: parts.decls,
    secrets: made.secrets,
    key: sameConfigKey(made.code, made.secrets),
    acknowledged: storedFailures(main, run.fragments, run.inventory),
  };
}

/**
 * Machines whose config is alike (two or more, not empty) share one block, their secrets read
 * from one set of variables named after it; the others keep their config inline.
 */
function shareAlikeConfigs(pending: readonly PendingMachine[], run: AdoptionRun): { blocks: SharedBlock[]; blockOf: Map<string, number> } {
  const groups = new Map<string, PendingMachine[]>();
  for (const p of pending) groups.set(p.key, [...(groups.get(p.key) ?? []), p]);
  const blocks: SharedBlock[] = [];
  const blockOf = new Map<string, number>();
  const functionNames = new Set<string>();
  for (const [key, members] of groups) {
    const first = members[0];
    if (!first) continue;
    if (members.length < 2 || isEmptyConfig(first.config)) {
      for (const m of members) for (const s of m.secrets) run.secrets.push({ ...s, machine: m.machine.name });
      continue;
    }
    const machineNames = members.map((m) => m.machine.name);
    const functionName = blockFunctionName(machineNames, functionNames);
    const renamed = renameSecrets(first.config, first.secrets, functionName.replace(/Config\d*$/, '') || functionName);
    for (const s of renamed.secrets) run.secrets.push({ ...s, machine: machineNames.join(', ') });
    blockOf.set(key, blocks.length);
    blocks.push({ functionName, config: renamed.config, machines: machineNames });
  }
  return { blocks, blockOf };
}

/** A `Machine` per machine that can be adopted, and the blocks machines alike share. */
function planMachines(run: MachinePlanning, locationRef: (id: string) => Reference): { machines: MachineDecl[]; blocks: SharedBlock[] } {
  const pending: PendingMachine[] = [];
  for (const machine of [...run.inventory.machines].sort(byName)) {
    const planned = planMachine(machine, run);
    if (planned) pending.push(planned);
  }
  const { blocks, blockOf } = shareAlikeConfigs(pending, run);
  const machines = pending.map((p) => ({
    constructId: p.constructId,
    id: p.machine.id,
    name: p.machine.name,
    location: locationRef(p.machine.locationId),
    config: blockOf.get(p.key) ?? p.config,
    imports: p.imports,
    parts: p.parts,
    acknowledged: p.acknowledged,
  }));
  return { machines, blocks };
}

/** A `Dataset` per dataset of a type this version knows; and the construct of each dataset id. */
function planDatasets(run: AdoptionRun): { datasets: DatasetDecl[]; datasetConstruct: Map<string, string> } {
  const datasetConstruct = new Map<string, string>();
  const datasets: DatasetDecl[] = [];
  for (const d of [...run.inventory.datasets].sort(byName)) {
    if (run.managedAs(DATASET, d.id)) {
      run.skipped.push({ what: `dataset ${d.name} (${d.id})`, reason: 'another stack manages it' });
      continue;
    }
    if (d.type === undefined) {
      run.skipped.push({
        what: `dataset ${d.name} (${d.id})`,
        reason: `its type (number ${d.typeNumber}) is one this version of fleetform does not know`,
      });
      continue;
    }
    const constructId = run.ids.take(d.name, 'dataset');
    datasetConstruct.set(d.id, constructId);
    datasets.push({ constructId, id: d.id, name: d.name, type: d.type });
    run.imports.push({ address: `${DATASET}.${constructId}`, id: d.id });
  }
  return { datasets, datasetConstruct };
}

/** A training job construct per job not canceled, its dataset referred to by construct when adopted too. */
function planJobs(run: AdoptionRun, datasetConstruct: ReadonlyMap<string, string>): JobDecl[] {
  const jobs: JobDecl[] = [];
  const jobOrder = (a: TrainingJob, b: TrainingJob) =>
    byName({ name: `${a.modelName}\u0000${a.modelVersion}` }, { name: `${b.modelName}\u0000${b.modelVersion}` });
  for (const job of [...run.inventory.jobs].sort(jobOrder)) {
    const what = `training job ${job.modelName} ${job.modelVersion} (${job.id})`;
    const type = job.isCustomJob ? CUSTOM_JOB : JOB;
    if (run.managedAs(type, job.id)) {
      run.skipped.push({ what, reason: 'another stack manages it' });
      continue;
    }
    if (isCanceled(job)) {
      run.skipped.push({
        what,
        reason: `${job.status === TrainingStatus.CANCELED ? 'it was canceled' : 'it is being canceled'}: nothing of it is left to manage`,
      });
      continue;
    }
    const constructId = run.ids.take(`${job.modelName}-${job.modelVersion}`, 'job');
    const construct = datasetConstruct.get(job.datasetId);
    jobs.push({ constructId, dataset: construct ? { construct } : { id: job.datasetId }, job });
    run.imports.push({ address: `${type}.${constructId}`, id: job.id });
  }
  return jobs;
}

/** A `DataPipeline` per data pipeline. */
function planDataPipelines(run: AdoptionRun): DataPipelineDecl[] {
  const dataPipelines: DataPipelineDecl[] = [];
  for (const pipeline of [...(run.inventory.dataPipelines ?? [])].sort(byName)) {
    if (run.managedAs(DATA_PIPELINE, pipeline.id)) {
      run.skipped.push({ what: `data pipeline ${pipeline.name} (${pipeline.id})`, reason: 'another stack manages it' });
      continue;
    }
    const constructId = run.ids.take(pipeline.name, 'pipeline');
    dataPipelines.push({ constructId, pipeline });
    run.imports.push({ address: `${DATA_PIPELINE}.${constructId}`, id: pipeline.id });
  }
  return dataPipelines;
}

/**
 * Turns an organization's inventory into declarations: a `Location` per location (parents
 * first), a `Fragment` per fragment of the organization with a `FragmentTag` per tag (see
 * planFragments), a `Machine` per machine with `useFragment` per import with its main part's config as `Module`s and
 * `ModularResource`s, a `Dataset` per dataset, a training job construct per job that is not
 * canceled. Machines whose whole managed config is alike (the same modules and resources,
 * secrets included) share one function; a single machine's config is written inline.
 * Objects another stack manages, and machines whose config code cannot declare exactly,
 * are skipped and named. Pure: no I/O.
 */
export function planAdoption(inventory: Inventory, options: AdoptionOptions): Adoption {
  // Construct ids are taken, and imports listed, in this order.
  const run = startAdoption(inventory, options);
  const { locations, locationRef } = planLocations(run);
  const planning = planOrganizationFragments(run);
  const { machines, blocks } = planMachines(planning, locationRef);
  const { datasets, datasetConstruct } = planDatasets(run);
  const jobs = planJobs(run, datasetConstruct);
  const dataPipelines = planDataPipelines(run);
  const defaults = planDefaults(inventory, planning.fragmentPlan, run.ids, run);
  return {
    organizationId: inventory.organizationId,
    locations,
    fragments: planning.fragmentPlan.fragments,
    machines,
    blocks,
    datasets,
    jobs,
    ...(inventory.dataPipelines === undefined ? {} : { dataPipelines }),
    ...(defaults ? { defaults } : {}),
    imports: run.imports,
    skipped: run.skipped,
    secrets: run.secrets,
    untouched: run.untouched,
  };
}

/** The organization's default fragments as one declaration, its fragments as code refers to them; none when it has none. */
function planDefaults(
  inventory: Inventory,
  fragmentPlan: ReturnType<typeof planFragments>,
  ids: ConstructIds,
  sink: {
    managedAs(type: string, id: string): boolean;
    readonly skipped: Skipped[];
    readonly imports: { address: string; id: string }[];
  },
): OrganizationDefaultsDecl | undefined {
  const list = inventory.defaultFragments ?? [];
  const organizationId = inventory.organizationId;
  if (list.length === 0) return undefined;
  const what = `the default fragments of organization ${organizationId}`;
  if (sink.managedAs(DEFAULTS, organizationId)) {
    sink.skipped.push({ what, reason: 'another stack manages them' });
    return undefined;
  }
  const resolved = fragmentPlan.resolve(list.map(({ id, ...rest }) => ({ fragmentId: id, ...rest })));
  if (!resolved.ok) {
    sink.skipped.push({ what, reason: resolved.reason });
    return undefined;
  }
  const constructId = ids.take('defaults', 'defaults');
  sink.imports.push({ address: `${DEFAULTS}.${constructId}`, id: organizationId });
  return { constructId, imports: resolved.imports };
}
