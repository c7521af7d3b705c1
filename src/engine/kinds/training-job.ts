import type { TrainingJob } from '../../api/client';
import {
  canCancel,
  canDeleteCompleted,
  checkCustomTrainingJobParams,
  checkTrainingJobParams,
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
import { isObject, UNKNOWN, type JsonObject, type JsonValue } from '../json';
import type { Applied, Desired, Judgement, KindContext, Observation, PlanNote, PlanProblem, ResourceKind } from '../kind';
import { unlessNotFound } from './not-found';

/** What differs between a managed and a custom training job; the rest is shared. */
interface JobFlavour {
  readonly type: string;
  /** Normalized view of synthesized attributes, and the domain's checks of them. */
  normalize(a: JsonObject, organizationId: string): { view: JsonObject; issues: Issue[] };
  /** The same view, built from a job the service returned. */
  fromJob(job: TrainingJob): JsonObject;
  submit(ctx: KindContext, view: JsonObject): Promise<string>;
}

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

function jobsOfOrganization(ctx: KindContext, organizationId: string): Promise<readonly TrainingJob[]> {
  return ctx.memo(`training-jobs:${organizationId}`, () => ctx.client.mlTrainingClient.listTrainingJobs(organizationId));
}

function trainingKind(flavour: JobFlavour): ResourceKind {
  return {
    type: flavour.type,
    replaceOrder: 'create-first',

    async desire(ctx, attributes, prior): Promise<Desired> {
      const organizationId = str(attributes.organization_id) || ctx.organizationId;
      const { view, issues } = flavour.normalize(attributes, organizationId);
      view.retain_on_delete = attributes.retain_on_delete === true;
      const problems: PlanProblem[] = issues
        .filter((i) => i.severity === 'error')
        .map((i) => ({ path: i.path, message: i.message, ...(i.hint ? { hint: i.hint } : {}) }));
      const notes: PlanNote[] = issues.filter((i) => i.severity === 'warning').map((i) => ({ level: 'warning', path: i.path, message: i.message }));
      const datasetId = str(view.dataset_id);
      if (datasetId && datasetId !== UNKNOWN) {
        const dataset = await ctx.memo(`dataset:${datasetId}`, () => unlessNotFound(() => ctx.client.datasetClient.getDataset(datasetId)));
        if (!dataset) problems.push({ path: 'dataset_id', message: `dataset ${datasetId} does not exist`, hint: 'declare a Dataset or use the id of an existing one' });
      }
      if (!prior) {
        const jobs = await jobsOfOrganization(ctx, organizationId);
        const clash = jobs.find((j) => j.modelName === view.model_name && j.modelVersion === view.model_version);
        if (clash) {
          problems.push({
            path: 'model_version',
            message: `model ${str(view.model_name)} already has a version ${str(view.model_version)} (job ${clash.id}); versions must be unique`,
            hint: 'choose a new modelVersion, or import the existing job: fleetform import ADDRESS ' + clash.id,
          });
        }
      }
      return { view, sensitivePaths: [], private: {}, notes, problems };
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

    judge(current, desired, observation): Judgement {
      const problems: PlanProblem[] = [];
      const notes: PlanNote[] = [];
      const replaceReasons: string[] = [];
      if (current.model_name !== desired.model_name) replaceReasons.push('model_name');
      if (current.model_version !== desired.model_version) replaceReasons.push('model_version');
      if (replaceReasons.length === 0) {
        for (const key of Object.keys({ ...current, ...desired })) {
          if (PARAMETERS_IGNORED_FOR_CHANGES.has(key)) continue;
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
      return { replaceReasons, problems, notes };
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
        .filter((j) => j.isCustomJob === (flavour.type === 'fleetform_custom_training_job'))
        .sort((a, b) => (b.createdOn?.getTime() ?? 0) - (a.createdOn?.getTime() ?? 0))[0];
      return found ? { ids: { id: found.id }, outputs: { id: found.id } } : undefined;
    },

    async importById(ctx, id): Promise<Applied | undefined> {
      const job = await unlessNotFound(() => ctx.client.mlTrainingClient.getTrainingJob(id));
      if (!job) return undefined;
      if (job.isCustomJob !== (flavour.type === customTrainingJobKind.type)) {
        throw new FleetformError(`job ${id} is ${job.isCustomJob ? 'a custom' : 'a managed'} training job`, {
          hint: `import it at a ${job.isCustomJob ? 'fleetform_custom_training_job' : 'fleetform_training_job'} address`,
        });
      }
      return { ids: { id }, outputs: { id } };
    },
  };
}

/** A managed training job (seed 4.3). */
export const trainingJobKind: ResourceKind = trainingKind({
  type: 'fleetform_training_job',
  normalize(a, organizationId) {
    const issues: Issue[] = [];
    let modelType: ModelType = ModelType.UNSPECIFIED;
    try {
      modelType = parseModelType(str(a.model_type));
    } catch (err) {
      issues.push({ severity: 'error', code: 'model-type', path: 'model_type', message: err instanceof Error ? err.message : String(err) });
    }
    let framework: ModelFramework = ModelFramework.UNSPECIFIED;
    if (a.model_framework !== undefined && a.model_framework !== null) {
      try {
        framework = parseModelFramework(str(a.model_framework));
      } catch (err) {
        issues.push({ severity: 'error', code: 'model-framework', path: 'model_framework', message: err instanceof Error ? err.message : String(err) });
      }
    }
    const view: JsonObject = {
      organization_id: organizationId,
      dataset_id: str(a.dataset_id),
      model_name: str(a.model_name),
      model_version: str(a.model_version),
      model_type: str(a.model_type),
      model_framework: modelFrameworkName(framework),
      tags: strings(a.tags),
    };
    if (modelType !== ModelType.UNSPECIFIED) {
      issues.push(
        ...checkTrainingJobParams({
          datasetId: view.dataset_id as string,
          modelName: view.model_name as string,
          modelVersion: view.model_version as string,
          modelType,
          tags: view.tags as string[],
        }).filter((i) => !(i.path === 'dataset_id' && view.dataset_id === UNKNOWN)),
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

/** A training job running a custom training script from the registry (seed 4.4). */
export const customTrainingJobKind: ResourceKind = trainingKind({
  type: 'fleetform_custom_training_job',
  normalize(a, organizationId) {
    const view: JsonObject = {
      organization_id: organizationId,
      dataset_id: str(a.dataset_id),
      registry_item_id: str(a.registry_item_id),
      registry_item_version: str(a.registry_item_version),
      model_name: str(a.model_name),
      model_version: str(a.model_version),
      arguments: record(a.arguments),
      container_version: str(a.container_version),
    };
    const issues = checkCustomTrainingJobParams({
      datasetId: str(view.dataset_id),
      registryItemId: str(view.registry_item_id),
      registryItemVersion: str(view.registry_item_version),
      modelName: str(view.model_name),
      modelVersion: str(view.model_version),
    }).filter((i) => !(i.path === 'dataset_id' && view.dataset_id === UNKNOWN));
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
