import { TerraformStack, Token } from 'cdktf';
import type { IConstruct } from 'constructs';
import { checkCustomTrainingJobParams, checkTrainingJobParams, type Issue } from '../domain';
import { childPath } from '../domain/json-path';
import { someStringIncludes } from '../domain/strings-within';
import { validateMachineConfig } from '../domain/validate';
import type { AppReport } from './app-hook';
import type { CustomTrainingJob } from './custom-training-job';
import type { Dataset } from './dataset';
import type { FleetIssue } from './fleet-issue';
import { perGeneration } from './generation';
import { kindOf, type FleetKind } from './kinds';
import type { Machine } from './machine';
import { assembleMachine, type ConfigEntrySource } from './machine-config';
import type { ModularResource } from './modular-resource';
import type { Module } from './module';
import type { FleetProvider } from './provider';
import { datasetConstruct } from './dataset-ref';
import type { TrainingJob } from './training-job';

/** Every problem of an app, and each construct's own. */
export interface AppAnalysis {
  /** In construct tree order. */
  readonly issues: readonly FleetIssue[];
  readonly byConstruct: ReadonlyMap<IConstruct, readonly FleetIssue[]>;
  /** The stack each issue's construct lives in. */
  readonly stackOf: ReadonlyMap<FleetIssue, IConstruct>;
  readonly report: AppReport;
}

type AnyJob = TrainingJob | CustomTrainingJob;

/** The fleetform constructs of one stack, by kind, in tree order. */
interface StackContents {
  readonly stack: TerraformStack;
  readonly providers: FleetProvider[];
  readonly machines: Machine[];
  readonly datasets: Dataset[];
  readonly jobs: AnyJob[];
}

/**
 * The stacks of an app in tree order, each with the fleetform constructs found below it
 * (what `stack.node.findAll()` finds, nested stacks included), in one walk of the tree.
 */
function stacksOf(root: IConstruct): StackContents[] {
  const all: StackContents[] = [];
  const enclosing: StackContents[] = [];
  const visit = (c: IConstruct): void => {
    const isStack = TerraformStack.isStack(c);
    if (isStack) {
      const contents: StackContents = { stack: c, providers: [], machines: [], datasets: [], jobs: [] };
      all.push(contents);
      enclosing.push(contents);
    }
    const kind = kindOf(c);
    if (kind !== undefined) for (const contents of enclosing) addContent(contents, c, kind);
    for (const child of c.node.children) visit(child);
    if (isStack) enclosing.pop();
  };
  visit(root);
  return all;
}

function addContent(contents: StackContents, c: IConstruct, kind: FleetKind): void {
  switch (kind) {
    case 'provider':
      contents.providers.push(c as FleetProvider);
      break;
    case 'machine':
      contents.machines.push(c as Machine);
      break;
    case 'dataset':
      contents.datasets.push(c as Dataset);
      break;
    case 'training-job':
    case 'custom-training-job':
      contents.jobs.push(c as AnyJob);
      break;
    default:
      break;
  }
}

/** Collects issues against constructs, keeping the order they are found in. */
class IssueSink {
  readonly byConstruct = new Map<IConstruct, FleetIssue[]>();

  add(construct: IConstruct, field: string, issue: Omit<Issue, 'path'>): void {
    const entry: FleetIssue = {
      severity: issue.severity,
      code: issue.code,
      constructPath: construct.node.path,
      field,
      message: issue.message,
      ...(issue.hint === undefined ? {} : { hint: issue.hint }),
    };
    const list = this.byConstruct.get(construct);
    if (list) list.push(entry);
    else this.byConstruct.set(construct, [entry]);
  }

  error(construct: IConstruct, field: string, code: string, message: string, hint?: string): void {
    this.add(construct, field, hint === undefined ? { severity: 'error', code, message } : { severity: 'error', code, message, hint });
  }
}

/** `depends_on[0]` -> `dependsOn[0]`: the first segment of a wire path in camelCase. */
function camelFirstSegment(path: string): string {
  const m = /^([a-z0-9]+(?:_[a-z0-9]+)+)(.*)$/.exec(path);
  if (!m) return path;
  const camel = (m[1] as string).replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  return `${camel}${m[2] as string}`;
}

/** The key of an `env.KEY` or `env["KEY"]` path, if it is one. */
function envKeyOf(path: string): string | undefined {
  const dotted = /^env\.([A-Za-z_$][\w$]*)$/.exec(path);
  if (dotted) return dotted[1];
  const bracketed = /^env\[("(?:[^"\\]|\\.)*")\]$/.exec(path);
  if (bracketed) return JSON.parse(bracketed[1] as string) as string;
  return undefined;
}

/** The construct's own field name for the wire path of a value inside its config entry. */
function fieldOfEntry(source: ConfigEntrySource, rest: string): string {
  if (kindOf(source.construct) === 'module') {
    const module = source.construct as Module;
    const key = envKeyOf(rest);
    if (key !== undefined && key in module.sensitiveEnv && !(key in module.env)) {
      return `sensitiveEnv${rest.slice('env'.length)}`;
    }
  }
  return camelFirstSegment(rest);
}

/** How cdktf marks a string token inside a string: `${TfToken[TOKEN.12]}`. */
const STRING_TOKEN_MARK = '${TfToken[';

const ENTRY_PATH = /^((?:components|services|modules)\[\d+\])(?:\.(.*)|(\[.*))?$/;

/** Strings holding unresolved CDKTF tokens, by wire path: a machine config takes literal values only. */
function tokenPaths(value: unknown, path: string, into: string[]): string[] {
  if (typeof value === 'string') {
    if (Token.isUnresolved(value)) into.push(path);
  } else if (Array.isArray(value)) value.forEach((v, i) => tokenPaths(v, childPath(path, i), into));
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) tokenPaths(v, childPath(path, k), into);
  }
  return into;
}

/** Adds issues found at wire paths of a machine config to the construct behind each entry. */
class EntryAttribution {
  private byPath: Map<string, ConfigEntrySource> | undefined;

  constructor(
    private readonly machine: Machine,
    private readonly sources: readonly ConfigEntrySource[],
    private readonly sink: IssueSink,
  ) {}

  add(path: string, issue: Omit<Issue, 'path'>): void {
    const m = ENTRY_PATH.exec(path);
    this.byPath ??= new Map(this.sources.map((s) => [s.path, s]));
    const source = m ? this.byPath.get(m[1] as string) : undefined;
    if (!m || !source) {
      this.sink.add(this.machine, path, issue);
      return;
    }
    this.sink.add(source.construct, fieldOfEntry(source, m[2] ?? m[3] ?? ''), issue);
  }
}

const NO_PATHS: ReadonlySet<string> = new Set();

function checkMachine(machine: Machine, sink: IssueSink): void {
  const { config, sources } = assembleMachine(machine);
  const attribution = new EntryAttribution(machine, sources, sink);
  const tokens = someStringIncludes(config, STRING_TOKEN_MARK) ? new Set(tokenPaths(config, '', [])) : NO_PATHS;
  for (const path of tokens) {
    attribution.add(path, {
      severity: 'error',
      code: 'unresolved-token',
      message: 'a machine config takes literal values; this one is a reference resolved only at apply',
      hint: 'write the value itself; references to other resources are not supported inside machine configs',
    });
  }
  // Dependencies on resources of other machines: reported here, not again as missing names.
  const foreign = new Set<string>();
  for (const source of sources) {
    if (kindOf(source.construct) !== 'modular-resource') continue;
    const { dependsOn } = source.construct as ModularResource;
    for (let i = 0; i < dependsOn.length; i++) {
      const dep = dependsOn[i] as ModularResource | string;
      if (typeof dep !== 'string' && dep.machine !== machine) foreign.add(`${source.path}.depends_on[${i}]`);
    }
  }
  const result = validateMachineConfig(config, { allowUnpinnedModules: true });
  for (const issue of [...result.errors, ...result.warnings]) {
    if (issue.code === 'placeholder' && tokens.has(issue.path)) continue;
    if (foreign.has(issue.path)) continue;
    attribution.add(issue.path, issue);
  }

  for (const source of sources) {
    if (kindOf(source.construct) === 'modular-resource') {
      const resource = source.construct as ModularResource;
      for (let i = 0; i < resource.dependsOn.length; i++) {
        const dep = resource.dependsOn[i] as ModularResource | string;
        if (typeof dep !== 'string' && dep.machine !== machine) {
          sink.error(
            resource,
            `dependsOn[${i}]`,
            'depends-on-other-machine',
            `depends on ${dep.node.path}, a resource of another machine (${dep.machine.node.path})`,
            'dependencies are between resources of one machine',
          );
        }
      }
    } else {
      const module = source.construct as Module;
      for (const key of Object.keys(module.sensitiveEnv)) {
        if (key in module.env) {
          sink.error(module, `sensitiveEnv.${key}`, 'duplicate-env', `${key} is set in both env and sensitiveEnv`, 'keep it in sensitiveEnv only');
        }
      }
    }
  }
}

function checkMachineNames(machines: readonly Machine[], sink: IssueSink): void {
  const seen = new Map<string, Machine>();
  for (const machine of machines) {
    if (machine.name.trim() === '') {
      sink.error(machine, 'name', 'machine-name', 'machine name is empty', 'name the machine, or leave name out to use the construct id');
      continue;
    }
    const key = `${machine.locationId ?? ''}\u0000${machine.name}`;
    const first = seen.get(key);
    if (first) {
      sink.error(machine, 'name', 'duplicate-machine-name', `machine name "${machine.name}" is also used by ${first.node.path}`, 'machine names are unique per location; rename one');
    } else seen.set(key, machine);
  }
}

function checkDatasets(datasets: readonly Dataset[], sink: IssueSink): void {
  const seen = new Map<string, Dataset>();
  for (const dataset of datasets) {
    if (dataset.name.trim() === '') {
      sink.error(dataset, 'name', 'dataset-name', 'dataset name is empty', 'name the dataset, or leave name out to use the construct id');
      continue;
    }
    const key = `${dataset.organizationId ?? ''}\u0000${dataset.name}`;
    const first = seen.get(key);
    if (first) {
      sink.error(dataset, 'name', 'duplicate-dataset-name', `dataset name "${dataset.name}" is also used by ${first.node.path}`, 'dataset names are unique per organization; rename one');
    } else seen.set(key, dataset);
  }
}

/** Job parameters as the domain checks them; a Dataset object stands for a non-empty id. */
function jobIssues(job: AnyJob): Issue[] {
  const datasetId = datasetConstruct(job.dataset) ? 'dataset' : (job.dataset as string);
  if (kindOf(job) === 'training-job') {
    const j = job as TrainingJob;
    return checkTrainingJobParams({
      datasetId,
      modelName: j.modelName,
      modelVersion: j.modelVersion,
      modelType: j.modelType,
      ...(j.modelFramework === undefined ? {} : { modelFramework: j.modelFramework }),
      tags: j.tags,
    });
  }
  const j = job as CustomTrainingJob;
  return checkCustomTrainingJobParams({
    datasetId,
    registryItemId: j.registryItemId,
    registryItemVersion: j.registryItemVersion,
    modelName: j.modelName,
    modelVersion: j.modelVersion,
    arguments: j.arguments,
    ...(j.containerVersion === undefined ? {} : { containerVersion: j.containerVersion }),
  });
}

function checkJobs(stack: TerraformStack, jobs: readonly AnyJob[], sink: IssueSink): void {
  const models = new Map<string, AnyJob>();
  for (const job of jobs) {
    for (const issue of jobIssues(job)) {
      const field = issue.path.startsWith('dataset_id') ? `dataset${issue.path.slice('dataset_id'.length)}` : camelFirstSegment(issue.path);
      sink.add(job, field, issue);
    }
    const dataset = datasetConstruct(job.dataset);
    if (dataset && TerraformStack.of(dataset) !== stack) {
      sink.error(
        job,
        'dataset',
        'dataset-other-stack',
        `dataset ${dataset.node.path} belongs to another stack`,
        'declare the dataset in this stack, or pass its id as a string',
      );
    }
    const key = `${job.organizationId ?? ''}\u0000${job.modelName}\u0000${job.modelVersion}`;
    const first = models.get(key);
    if (first) {
      sink.error(
        job,
        'modelVersion',
        'duplicate-model-version',
        `model "${job.modelName}" version "${job.modelVersion}" is also trained by ${first.node.path}`,
        'model versions are unique per model; give this job another modelVersion',
      );
    } else models.set(key, job);
  }
}

function checkProviders(providers: readonly FleetProvider[], sink: IssueSink): void {
  const [first, ...rest] = providers;
  for (const extra of rest) {
    sink.error(extra, '', 'duplicate-provider', `a stack has one FleetProvider; ${first?.node.path} is already one`, 'remove this one, or move it to a stack of its own');
  }
}

/** Resources of one type whose logical ids (and so addresses) coincide. */
function checkLogicalIds(contents: StackContents, sink: IssueSink): void {
  const elements = [...contents.machines, ...contents.datasets, ...contents.jobs];
  const seen = new Map<string, Machine | Dataset | AnyJob>();
  for (const element of elements) {
    const address = `${element.terraformResourceType}.${element.friendlyUniqueId}`;
    const first = seen.get(address);
    if (first) {
      sink.error(
        element,
        '',
        'address-collision',
        `its address ${address} is also the address of ${first.node.path}`,
        'an address joins the construct ids below the stack with "_"; a "/" inside one id becomes "--" and other characters Terraform does not allow become "_"; rename one of the constructs',
      );
    } else seen.set(address, element);
  }
}

function analyze(root: IConstruct): AppAnalysis {
  const stacks = stacksOf(root);
  const sink = new IssueSink();
  const summary = { stacks: stacks.length, machines: 0, datasets: 0, trainingJobs: 0 };
  for (const contents of stacks) {
    summary.machines += contents.machines.length;
    summary.datasets += contents.datasets.length;
    summary.trainingJobs += contents.jobs.length;
    checkProviders(contents.providers, sink);
    checkLogicalIds(contents, sink);
    checkMachineNames(contents.machines, sink);
    for (const machine of contents.machines) checkMachine(machine, sink);
    checkDatasets(contents.datasets, sink);
    checkJobs(contents.stack, contents.jobs, sink);
  }
  const issues: FleetIssue[] = [];
  const stackOf = new Map<FleetIssue, IConstruct>();
  // Issues in construct tree order (a sound app has none: no walk then).
  if (sink.byConstruct.size > 0) {
    for (const c of root.node.findAll()) {
      const own = sink.byConstruct.get(c);
      if (!own) continue;
      const stack = TerraformStack.of(c);
      for (const issue of own) {
        issues.push(issue);
        stackOf.set(issue, stack);
      }
    }
  }
  return { issues, byConstruct: sink.byConstruct, stackOf, report: { issues, summary } };
}

/**
 * Validates a whole app with the domain rules and returns every problem at once, each
 * attributed to the construct and field it concerns. Computed once per change of the
 * construct tree, so every construct's validation can consult it cheaply.
 */
export const analyzeApp: (root: IConstruct) => AppAnalysis = perGeneration(analyze);
