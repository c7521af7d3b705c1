import type { TrainingJob } from '../../api/client';
import { ORGANIZATION_DEFAULT } from '../../domain/service-defaults';
import {
  canCancel,
  canDeleteCompleted,
  checkCustomTrainingJobParams,
  checkTrainingJobParams,
  nextFreeVersion,
  modelFrameworkName,
  modelTypeName,
  parseModelFramework,
  parseModelType,
  trainingStatusName,
  ModelFramework,
  ModelType,
  TrainingStatus,
  type Issue,
} from '../../domain';
import { FleetformError } from '../../domain/errors';
import { customTrainingJobAttributes, trainingJobAttributes } from '../../domain/resource-attributes';
import { z } from 'zod';
import { isObject, UNKNOWN, type JsonObject, type JsonValue } from '../json';
import type { Applied, DesiredValue, Judgement, KindContext, Observation, PlanNote, PlanProblem, ResourceKind } from '../kind';
import { defineKind, type KindDeclaration } from '../kind-declaration';
import type { StateEntry } from '../state/schema';
import { unlessNotFound } from './not-found';

/** What differs between a managed and a custom training job; the rest is shared. */
interface JobFlavour<Schema extends z.ZodObject> {
  readonly declaration: KindDeclaration<Schema>;
  /** Normalized view of the parsed attributes, and the domain's checks of them. */
  normalize(a: z.output<Schema>, organizationId: string): { view: JsonObject; issues: Issue[] };
  /** The same view, built from a job the service returned. */
  fromJob(job: TrainingJob): JsonObject;
  submit(ctx: KindContext, view: JsonObject): Promise<string>;
}

/** Reads back a view value this module wrote: a string, a list of strings or a map of strings. */
const str = (v: JsonValue | undefined): string => (typeof v === 'string' ? v : '');
const strings = (v: JsonValue | undefined): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const record = (v: JsonValue | undefined): Record<string, string> => {
  const out: Record<string, string> = {};
  if (isObject(v)) for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out;
};

/** Parameters whose unspecified value lets the service choose, with that unspecified value. */
const SERVICE_CHOSEN: Readonly<Record<string, string>> = {
  model_framework: modelFrameworkName(ModelFramework.UNSPECIFIED),
  container_version: '',
};

/** Every service-side parameter; retain_on_delete is fleetform's own. */
const PARAMETERS_IGNORED_FOR_CHANGES = new Set(['retain_on_delete']);

/** The attributes both kinds of training job declare alike. */
const commonAttributes = {
  organization_id: {
    schema: trainingJobAttributes.organization_id,
    description: 'Organization the job is submitted to.',
    computed: 'when-unset',
    serviceDefault: ORGANIZATION_DEFAULT,
  },
  dataset_id: { schema: trainingJobAttributes.dataset_id, description: 'Id of the dataset to train on (a Dataset\'s id, or an existing one).' },
  model_name: { schema: trainingJobAttributes.model_name, description: 'Name of the model to train.', forcesReplacement: true },
  model_version: { schema: trainingJobAttributes.model_version, description: 'Version of the model, unique among its versions: a new version trains again.', forcesReplacement: true },
  retain_on_delete: {
    schema: trainingJobAttributes.retain_on_delete,
    description: 'Keep the job on the service when it is removed from code (fleetform only forgets it) instead of canceling or deleting it.',
    computed: 'when-unset',
    serviceDefault: 'false',
  },
} as const;

/** The job id, last in both kinds' tables. */
const jobId = { schema: z.string(), description: 'Id the service assigns to the job.', computed: 'always' } as const;

/** The attributes every job has, read from either kind's parsed attributes. */
const trainingJobCommon = z.object({ organization_id: trainingJobAttributes.organization_id, retain_on_delete: trainingJobAttributes.retain_on_delete });

function jobsOfOrganization(ctx: KindContext, organizationId: string): Promise<readonly TrainingJob[]> {
  return ctx.memo(`training-jobs:${organizationId}`, () => ctx.client.mlTrainingClient.listTrainingJobs(organizationId));
}

/** A job is submitted when there is none yet, or when the model or its version changes (a replace). */
function submitsNewJob(view: JsonObject, prior: StateEntry | undefined): boolean {
  if (!prior) return true;
  const was = prior.attributes ?? {};
  return was.model_name !== view.model_name || was.model_version !== view.model_version;
}

/**
 * What would make the submit fail on the service, found before any write: a model version
 * any job of the model already has (canceled and failed ones too), a training script or
 * script version the registry does not have.
 */
async function submissionProblems<Schema extends z.ZodObject>(ctx: KindContext, flavour: JobFlavour<Schema>, view: JsonObject, prior: StateEntry | undefined): Promise<PlanProblem[]> {
  const problems: PlanProblem[] = [];
  const modelName = str(view.model_name);
  const modelVersion = str(view.model_version);
  if (modelName && modelVersion && modelName !== UNKNOWN && modelVersion !== UNKNOWN) {
    const jobs = (await jobsOfOrganization(ctx, str(view.organization_id))).filter((j) => j.modelName === modelName);
    const clash = jobs.find((j) => j.modelVersion === modelVersion && j.id !== prior?.ids.id);
    if (clash) {
      const next = nextFreeVersion(modelVersion, new Set(jobs.map((j) => j.modelVersion)));
      problems.push({
        path: 'model_version',
        message: `model ${modelName} already has version ${modelVersion} (job ${clash.id}, ${trainingStatusName(clash.status)}); a version is never reused, even by canceled or failed jobs`,
        hint: `set modelVersion to ${next}, the next free version${prior ? '' : `, or manage that job: fleetform import <this address> ${clash.id}`}`,
        existingId: clash.id,
      });
    }
  }
  if (flavour.declaration.type === customTrainingJobDeclaration.type) {
    const itemId = str(view.registry_item_id);
    const version = str(view.registry_item_version);
    if (itemId && itemId !== UNKNOWN) {
      const item = await ctx.memo(`registry-item:${itemId}`, () => unlessNotFound(() => ctx.client.appClient.getRegistryItem(itemId)));
      if (!item) {
        problems.push({ path: 'registry_item_id', message: `the registry has no training script ${itemId}`, hint: 'check registryItemId (`<namespace>:<script-name>`), or publish the script first' });
      } else if (version && version !== UNKNOWN && !item.versions.includes(version)) {
        problems.push({
          path: 'registry_item_version',
          message: `training script ${itemId} has no version ${version}`,
          hint: `use one of its versions: ${item.versions.join(', ') || 'none published'}`,
        });
      }
    }
  }
  return problems;
}

function trainingKind<Schema extends z.ZodObject>(flavour: JobFlavour<Schema>): ResourceKind<Schema> {
  return {
    type: flavour.declaration.type,
    declaration: flavour.declaration,
    replaceOrder: 'create-first',
    serviceChosen: SERVICE_CHOSEN,

    async desire(ctx, attributes, prior): Promise<DesiredValue> {
      const common = trainingJobCommon.parse(attributes);
      const { view, issues } = flavour.normalize(attributes, common.organization_id || ctx.organizationId);
      view.retain_on_delete = common.retain_on_delete === true;
      const problems: PlanProblem[] = issues
        .filter((i) => i.severity === 'error')
        .map((i) => ({ path: i.path, message: i.message, ...(i.hint ? { hint: i.hint } : {}) }));
      const notes: PlanNote[] = issues.filter((i) => i.severity === 'warning').map((i) => ({ level: 'warning', path: i.path, message: i.message }));
      const datasetId = str(view.dataset_id);
      if (datasetId && datasetId !== UNKNOWN) {
        const dataset = await ctx.memo(`dataset:${datasetId}`, () => unlessNotFound(() => ctx.client.datasetClient.getDataset(datasetId)));
        if (!dataset) problems.push({ path: 'dataset_id', message: `dataset ${datasetId} does not exist`, hint: 'declare a Dataset or use the id of an existing one' });
      }
      if (submitsNewJob(view, prior)) problems.push(...(await submissionProblems(ctx, flavour, view, prior)));
      return { view, private: {}, notes, problems };
    },

    async observe(ctx, entry): Promise<Observation | undefined> {
      const id = entry.ids.id;
      const job = id ? await unlessNotFound(() => ctx.client.mlTrainingClient.getTrainingJob(id)) : undefined;
      if (!job) return undefined;
      const view = flavour.fromJob(job);
      view.retain_on_delete = entry.attributes?.retain_on_delete === true;
      const facts: Record<string, string> = { status: trainingStatusName(job.status), job_id: job.id };
      // Parameters left unspecified are the service's choice: what it chose is a fact, not drift.
      for (const [key, unspecified] of Object.entries(SERVICE_CHOSEN)) {
        if (entry.attributes?.[key] !== unspecified || !(key in view)) continue;
        if (view[key] !== unspecified) facts[key] = String(view[key]);
        view[key] = unspecified;
      }
      if (job.errorStatus?.message) facts.error = job.errorStatus.message;
      return { view, version: `${job.status}:${job.lastModified?.toISOString() ?? ''}`, facts };
    },

    judge({ current, desired, observation, prior, replaceReasons }): Judgement {
      const problems: PlanProblem[] = [];
      const notes: PlanNote[] = [];
      if (replaceReasons.length === 0) {
        for (const key of Object.keys({ ...current, ...desired })) {
          if (PARAMETERS_IGNORED_FOR_CHANGES.has(key)) continue;
          // A job adopted after an interrupted submit: what the service chose for a parameter left unspecified is no change.
          if (prior.attributes === null && SERVICE_CHOSEN[key] !== undefined && desired[key] === SERVICE_CHOSEN[key]) continue;
          if (JSON.stringify(current[key]) !== JSON.stringify(desired[key]) && desired[key] !== UNKNOWN) {
            problems.push({
              path: key,
              message: `a training job cannot change ${key} while keeping model ${str(desired.model_name)} version ${str(desired.model_version)}`,
              hint: 'training jobs are immutable and model versions unique: set a new modelVersion to train again',
            });
          }
        }
      } else {
        notes.push({ level: 'info', message: 'a new job is submitted; the old one is canceled or deleted unless retain_on_delete is set' });
      }
      if (observation?.facts.status === trainingStatusName(TrainingStatus.FAILED)) {
        notes.push({
          level: 'warning',
          message: `the job failed${observation.facts.error ? `: ${observation.facts.error}` : ''}; it is not submitted again — set a new modelVersion to retrain`,
        });
      }
      return { problems, notes };
    },

    async create(ctx, desired): Promise<Applied> {
      const id = await flavour.submit(ctx, desired);
      return { ids: { id }, outputs: { id } };
    },

    async update(_ctx, entry): Promise<Applied> {
      return { ids: entry.ids, outputs: entry.outputs };
    },

    async delete(ctx, entry) {
      const id = entry.ids.id;
      if (!id) return 'deleted';
      const job = await unlessNotFound(() => ctx.client.mlTrainingClient.getTrainingJob(id));
      if (!job) return 'deleted';
      if (canCancel(job.status)) {
        await ctx.client.mlTrainingClient.cancelTrainingJob(id);
        return 'pending';
      }
      if (canDeleteCompleted(job.status)) {
        await unlessNotFound(() => ctx.client.mlTrainingClient.deleteCompletedTrainingJob(id));
        return 'deleted';
      }
      return 'pending';
    },

    retainOnDelete: (entry) => entry.attributes?.retain_on_delete === true,

    identity(view) {
      const key: JsonObject = {
        organization_id: str(view.organization_id),
        dataset_id: str(view.dataset_id),
        model_name: str(view.model_name),
        model_version: str(view.model_version),
      };
      if (!key.model_name || !key.model_version || key.dataset_id === UNKNOWN) return undefined;
      return { key, label: `training job ${str(key.model_name)}@${str(key.model_version)}` };
    },

    // A job is named by its model name and version in its organization: the newest unmanaged one of them.
    async findCreated(ctx, key, managedIds): Promise<Applied | undefined> {
      const jobs = await ctx.client.mlTrainingClient.listTrainingJobs(str(key.organization_id));
      const found = jobs
        .filter((j) => j.modelName === key.model_name && j.modelVersion === key.model_version && j.datasetId === key.dataset_id && !managedIds.has(j.id))
        .filter((j) => j.isCustomJob === (flavour.declaration.type === 'fleetform_custom_training_job'))
        .sort((a, b) => (b.createdOn?.getTime() ?? 0) - (a.createdOn?.getTime() ?? 0))[0];
      return found ? { ids: { id: found.id }, outputs: { id: found.id } } : undefined;
    },

    async importById(ctx, id): Promise<Applied | undefined> {
      const job = await unlessNotFound(() => ctx.client.mlTrainingClient.getTrainingJob(id));
      if (!job) return undefined;
      if (job.isCustomJob !== (flavour.declaration.type === customTrainingJobDeclaration.type)) {
        throw new FleetformError(`job ${id} is ${job.isCustomJob ? 'a custom' : 'a managed'} training job`, {
          hint: `import it at a ${job.isCustomJob ? 'fleetform_custom_training_job' : 'fleetform_training_job'} address`,
        });
      }
      return { ids: { id }, outputs: { id } };
    },
  };
}

export const trainingJobDeclaration = defineKind({
  type: 'fleetform_training_job',
  description: "A training job on the service's built-in trainer. Jobs are immutable: a new model version submits a new job.",
  attributes: {
    ...commonAttributes,
    model_type: { schema: trainingJobAttributes.model_type, description: 'Kind of model, e.g. MODEL_TYPE_OBJECT_DETECTION.' },
    model_framework: {
      schema: trainingJobAttributes.model_framework,
      description: 'Framework of the trained model, e.g. MODEL_FRAMEWORK_TFLITE.',
      computed: 'when-unset',
      serviceDefault: "MODEL_FRAMEWORK_UNSPECIFIED: the service's choice",
    },
    tags: { schema: trainingJobAttributes.tags, description: 'Labels to train the model on (at least one).' },
    id: jobId,
  },
});

/** A managed training job. */
export const trainingJobKind = trainingKind({
  declaration: trainingJobDeclaration,
  normalize(a, organizationId) {
    const issues: Issue[] = [];
    let modelType: ModelType = ModelType.UNSPECIFIED;
    try {
      modelType = parseModelType(a.model_type);
    } catch (err) {
      issues.push({ severity: 'error', code: 'model-type', path: 'model_type', message: err instanceof Error ? err.message : String(err) });
    }
    let framework: ModelFramework = ModelFramework.UNSPECIFIED;
    if (a.model_framework !== undefined) {
      try {
        framework = parseModelFramework(a.model_framework);
      } catch (err) {
        issues.push({ severity: 'error', code: 'model-framework', path: 'model_framework', message: err instanceof Error ? err.message : String(err) });
      }
    }
    const view: JsonObject = {
      organization_id: organizationId,
      dataset_id: a.dataset_id,
      model_name: a.model_name,
      model_version: a.model_version,
      model_type: a.model_type,
      model_framework: modelFrameworkName(framework),
      tags: [...a.tags],
    };
    if (modelType !== ModelType.UNSPECIFIED) {
      issues.push(
        ...checkTrainingJobParams({
          datasetId: a.dataset_id,
          modelName: a.model_name,
          modelVersion: a.model_version,
          modelType,
          tags: [...a.tags],
        }).filter((i) => !(i.path === 'dataset_id' && a.dataset_id === UNKNOWN)),
      );
    }
    return { view, issues };
  },
  fromJob(job) {
    return {
      organization_id: job.organizationId,
      dataset_id: job.datasetId,
      model_name: job.modelName,
      model_version: job.modelVersion,
      model_type: modelTypeName(job.modelType),
      model_framework: modelFrameworkName(job.modelFramework),
      tags: [...job.tags],
    };
  },
  submit(ctx, v) {
    return ctx.client.mlTrainingClient.submitTrainingJob(
      str(v.organization_id),
      str(v.dataset_id),
      str(v.model_name),
      str(v.model_version),
      parseModelType(str(v.model_type)),
      strings(v.tags),
      { modelFramework: parseModelFramework(str(v.model_framework)) },
    );
  },
});

export const customTrainingJobDeclaration = defineKind({
  type: 'fleetform_custom_training_job',
  description: 'A training job running a training script from the registry. Jobs are immutable: a new model version submits a new job.',
  attributes: {
    ...commonAttributes,
    registry_item_id: { schema: customTrainingJobAttributes.registry_item_id, description: 'Registry id of the training script, `<namespace>:<script-name>`.' },
    registry_item_version: { schema: customTrainingJobAttributes.registry_item_version, description: 'Version of the training script.' },
    arguments: {
      schema: customTrainingJobAttributes.arguments,
      description: 'Arguments passed to the training script.',
      computed: 'when-unset',
      serviceDefault: '{}',
    },
    container_version: {
      schema: customTrainingJobAttributes.container_version,
      description: 'Version of the container the script runs in.',
      computed: 'when-unset',
      serviceDefault: "empty: the service's choice",
    },
    id: jobId,
  },
});

/** A training job running a custom training script from the registry. */
export const customTrainingJobKind = trainingKind({
  declaration: customTrainingJobDeclaration,
  normalize(a, organizationId) {
    const view: JsonObject = {
      organization_id: organizationId,
      dataset_id: a.dataset_id,
      registry_item_id: a.registry_item_id,
      registry_item_version: a.registry_item_version,
      model_name: a.model_name,
      model_version: a.model_version,
      arguments: { ...a.arguments },
      container_version: a.container_version ?? '',
    };
    const issues = checkCustomTrainingJobParams({
      datasetId: a.dataset_id,
      registryItemId: a.registry_item_id,
      registryItemVersion: a.registry_item_version,
      modelName: a.model_name,
      modelVersion: a.model_version,
    }).filter((i) => !(i.path === 'dataset_id' && a.dataset_id === UNKNOWN));
    return { view, issues };
  },
  fromJob(job) {
    return {
      organization_id: job.organizationId,
      dataset_id: job.datasetId,
      registry_item_id: job.registryItemId,
      registry_item_version: job.registryItemVersion,
      model_name: job.modelName,
      model_version: job.modelVersion,
      arguments: { ...job.arguments },
      container_version: job.containerVersion,
    };
  },
  submit(ctx, v) {
    return ctx.client.mlTrainingClient.submitCustomTrainingJob(
      str(v.organization_id),
      str(v.dataset_id),
      str(v.registry_item_id),
      str(v.registry_item_version),
      str(v.model_name),
      str(v.model_version),
      { arguments: record(v.arguments), containerVersion: str(v.container_version) },
    );
  },
});
