import type { TrainingJob } from '../../api/client';
import {
  canCancel,
  canDeleteCompleted,
  checkContainerVersion,
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
import { sequenceTrainingIssue } from '../../domain/dataset-type';
import { FleetformError, errorMessage } from '../../domain/errors';
import { customTrainingJobResource, trainingJobResource } from '../../domain/resource-attributes';
import type { z } from 'zod';
import { isUnknown, unknownValue, type JsonObject, type JsonValue } from '../json';
import type { Applied, DesiredValue, Judgement, KindContext, Observation, PlanNote, PlanProblem, ResourceKind } from '../kind';
import { defineKind, ignoredForChangesOf, keepServiceChoices, type KindDeclaration, type ViewOf } from '../kind-declaration';
import type { StateEntry } from '../state/schema';
import { datasetMemoKey, readDataset } from './dataset';
import { unlessNotFound } from './not-found';
import { awaitJobEnd, jobOutcome } from './training-job-outcome';
import { jobLogTailData, jobLogTailOf, logTailNote, readJobLogTail } from './training-log-tail';

export const trainingJobDeclaration = defineKind(trainingJobResource);
export const customTrainingJobDeclaration = defineKind(customTrainingJobResource);

/** Reads a value of a masked view (a judge's or a plan's), which may hold a mask where a string was. */
const str = (v: JsonValue | undefined): string => (typeof v === 'string' ? v : '');

/** What the view of every training job holds, whichever its flavour. */
type JobView = ViewOf<typeof trainingJobDeclaration> | ViewOf<typeof customTrainingJobDeclaration>;

/** What differs between a managed and a custom training job; the rest is shared. */
interface JobFlavour<D extends KindDeclaration<z.ZodObject, JobView>, V extends JobView = ViewOf<D>> {
  readonly declaration: D;
  /** Which flavour this is, as the service's jobs say it (their isCustomJob). */
  readonly isCustomJob: boolean;
  /** Normalized view of the parsed attributes (the organization left out is the run's), and the domain's checks of them. */
  normalize(a: z.output<D['schema']>, organizationId: string): { view: V; issues: Issue[] };
  /** The same view, built from a job the service returned; retain_on_delete is fleetform's own, kept in state. */
  fromJob(job: TrainingJob, retainOnDelete: boolean): V;
  /** What of this flavour's own parameters would fail at submit (problems) or may (notes), found before any write. */
  submitFindings(ctx: KindContext, view: V): Promise<SubmitFindings>;
  submit(ctx: KindContext, view: V): Promise<string>;
}

/** What a flavour finds of a job about to be submitted. */
interface SubmitFindings {
  readonly problems: readonly PlanProblem[];
  readonly notes: readonly PlanNote[];
}

const NO_FINDINGS: SubmitFindings = { problems: [], notes: [] };

function jobsOfOrganization(ctx: KindContext, organizationId: string): Promise<readonly TrainingJob[]> {
  return ctx.memo(`training-jobs:${organizationId}`, () => ctx.client.mlTrainingClient.listTrainingJobs(organizationId));
}

/** A job is submitted when there is none yet, or when the model or its version changes (a replace). */
function submitsNewJob(view: JsonObject, prior: StateEntry | undefined): boolean {
  if (!prior || prior.status === 'deleting') return true;
  const was = prior.attributes ?? {};
  return was.model_name !== view.model_name || was.model_version !== view.model_version;
}

/**
 * What would make the submit fail on the service, found before any write: a model version
 * any job of the model already has (canceled and failed ones too), and what the flavour's
 * own parameters lack (a training script or script version the registry does not have).
 */
async function submissionProblems<D extends KindDeclaration<z.ZodObject, JobView>>(
  ctx: KindContext,
  flavour: JobFlavour<D>,
  view: ViewOf<D>,
  prior: StateEntry | undefined,
): Promise<SubmitFindings> {
  const problems: PlanProblem[] = [];
  const { model_name: modelName, model_version: modelVersion } = view;
  if (modelName && modelVersion && !isUnknown(modelName) && !isUnknown(modelVersion)) {
    const jobs = (await jobsOfOrganization(ctx, view.organization_id)).filter((j) => j.modelName === modelName);
    // A job whose deletion has started still holds its version.
    const own = prior?.status === 'deleting' ? undefined : prior?.ids.id;
    const clash = jobs.find((j) => j.modelVersion === modelVersion && j.id !== own);
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
  const own = await flavour.submitFindings(ctx, view);
  return { problems: [...problems, ...own.problems], notes: own.notes };
}

/** A training script or script version the registry does not have. */
async function scriptProblems(ctx: KindContext, itemId: string, version: string): Promise<PlanProblem[]> {
  if (!itemId || isUnknown(itemId)) return [];
  const item = await ctx.memo(`registry-item:${itemId}`, () => unlessNotFound(() => ctx.client.appClient.getRegistryItem(itemId)));
  if (!item)
    return [
      {
        path: 'registry_item_id',
        message: `the registry has no training script ${itemId}`,
        hint: 'check registryItemId (`<namespace>:<script-name>`), or publish the script first',
      },
    ];
  if (version && !isUnknown(version) && !item.versions.includes(version)) {
    return [
      {
        path: 'registry_item_version',
        message: `training script ${itemId} has no version ${version}`,
        hint: `use one of its versions: ${item.versions.join(', ') || 'none published'}`,
      },
    ];
  }
  return [];
}

/** A container version the service does not list (certain to fail), or one past its end of life (a warning). */
async function containerFindings(ctx: KindContext, version: string): Promise<SubmitFindings> {
  if (!version || isUnknown(version)) return NO_FINDINGS;
  const containers = await ctx.memo('training-containers', () => ctx.client.mlTrainingClient.listSupportedContainers());
  const issues = checkContainerVersion(version, containers, new Date());
  return {
    problems: issues
      .filter((i) => i.severity === 'error')
      .map((i) => ({ path: i.path, message: i.message, ...(i.hint ? { hint: i.hint } : {}) })),
    notes: issues
      .filter((i) => i.severity === 'warning')
      .map((i) => ({ level: 'warning', path: i.path, message: i.hint ? `${i.message}; ${i.hint}` : i.message })),
  };
}

/**
 * A job's dataset deleted since it was submitted (a destroy that kept the job): the job keeps
 * what it trained, and stands for the dataset the code gives it now (state's, else the one
 * this apply makes); the dataset it was trained on is a fact.
 */
async function keptDataset<V extends JobView>(
  ctx: KindContext,
  view: V,
  entry: StateEntry,
): Promise<{ view: V; facts: Record<string, string> }> {
  const recorded = entry.attributes?.dataset_id;
  if (!view.dataset_id || view.dataset_id === recorded) return { view, facts: {} };
  const datasetId = view.dataset_id;
  const dataset = await ctx.memo(datasetMemoKey(datasetId), () => readDataset(ctx, datasetId));
  if (dataset) return { view, facts: {} };
  const standsFor = typeof recorded === 'string' ? recorded : unknownValue;
  return { view: { ...view, dataset_id: standsFor }, facts: { trained_on: `dataset ${datasetId}, deleted since` } };
}

/** A job still training or trained: what a destroy that retains it keeps. */
function isKept(status: TrainingStatus): boolean {
  return canCancel(status) || status === TrainingStatus.COMPLETED;
}

/** A warning of the domain's as a plan note, its hint after the message. */
function noteOf(issue: Issue): PlanNote {
  return { level: 'warning', path: issue.path, message: issue.hint ? `${issue.message} (${issue.hint})` : issue.message };
}

/** An attribute as the checks read it: one known only at apply (a dataset this apply creates) checks as given. */
function textForChecks(value: string): string {
  return isUnknown(value) ? 'known-at-apply' : value;
}

function trainingKind<D extends KindDeclaration<z.ZodObject, JobView>>(flavour: JobFlavour<D>): ResourceKind<D> {
  const { serviceChosen } = flavour.declaration;
  const ignoredForChanges = ignoredForChangesOf(flavour.declaration);
  return {
    type: flavour.declaration.type,
    declaration: flavour.declaration,
    replaceOrder: 'create-first',

    async desire(ctx, attributes, prior): Promise<DesiredValue<ViewOf<D>>> {
      const { view, issues } = flavour.normalize(attributes, ctx.organizationId);
      const problems: PlanProblem[] = issues
        .filter((i) => i.severity === 'error')
        .map((i) => ({ path: i.path, message: i.message, ...(i.hint ? { hint: i.hint } : {}) }));
      const notes: PlanNote[] = issues
        .filter((i) => i.severity === 'warning')
        .map((i) => ({ level: 'warning', path: i.path, message: i.message }));
      const datasetId = view.dataset_id;
      // A dataset this apply creates is checked as its plan declares it (its stand-in).
      const checkedId = isUnknown(datasetId) ? datasetId.standIn : datasetId;
      const dataset = checkedId ? await ctx.memo(datasetMemoKey(checkedId), () => readDataset(ctx, checkedId)) : undefined;
      if (datasetId && !isUnknown(datasetId) && !dataset)
        problems.push({
          path: 'dataset_id',
          message: `dataset ${datasetId} does not exist`,
          hint: 'declare a Dataset or use the id of an existing one',
        });
      if (submitsNewJob(view, prior)) {
        const found = await submissionProblems(ctx, flavour, view, prior);
        problems.push(...found.problems);
        notes.push(...found.notes);
        if (dataset?.type === 'sequence') notes.push(noteOf(sequenceTrainingIssue('dataset_id', dataset.name)));
      }
      return { view, private: {}, notes, problems };
    },

    async observe(ctx, entry): Promise<Observation<ViewOf<D>> | undefined> {
      const id = entry.ids.id;
      const job = id ? await unlessNotFound(() => ctx.client.mlTrainingClient.getTrainingJob(id)) : undefined;
      if (!job) return undefined;
      // Parameters left unspecified are the service's choice: what it chose is a fact, not drift.
      const retained = entry.attributes ? entry.attributes.retain_on_delete === true : entry.private.found_as === 'retained';
      const { view: chosenView, facts: chosen } = keepServiceChoices(flavour.declaration, flavour.fromJob(job, retained), entry.attributes);
      const { view, facts: trained } = await keptDataset(ctx, chosenView, entry);
      const facts: Record<string, string> = { status: trainingStatusName(job.status), job_id: job.id, ...chosen, ...trained };
      if (job.errorStatus?.message) facts.error = job.errorStatus.message;
      const version = `${job.status}:${job.lastModified?.toISOString() ?? ''}`;
      if (job.status !== TrainingStatus.FAILED) return { view, version, facts, observed: jobOutcome(job, undefined) };
      const tail = await readJobLogTail(ctx, job.id);
      return { view, version, facts, kindData: { log_tail: jobLogTailData(tail) }, observed: jobOutcome(job, tail) };
    },

    judge({ current, desired, observation, prior, replaceReasons }): Judgement {
      const problems: PlanProblem[] = [];
      const notes: PlanNote[] = [];
      if (replaceReasons.length === 0) {
        for (const key of Object.keys({ ...current, ...desired })) {
          if (ignoredForChanges.has(key)) continue;
          // A job adopted after an interrupted submit: what the service chose for a parameter left unspecified is no change.
          if (prior.attributes === null && serviceChosen[key] !== undefined && desired[key] === serviceChosen[key]) continue;
          // An unknown on either side is no change: a value known at apply, or a kept job whose dataset is gone standing for the one code gives.
          if (isUnknown(desired[key]) || isUnknown(current[key])) continue;
          if (JSON.stringify(current[key]) !== JSON.stringify(desired[key])) {
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
        const tail = jobLogTailOf(observation.kindData?.log_tail);
        if (tail && observation.facts.job_id) notes.push(logTailNote(observation.facts.job_id, tail));
      }
      return { problems, notes };
    },

    async create(ctx, desired, checkpoint): Promise<Applied> {
      const id = await flavour.submit(ctx, desired);
      const submitted: Applied = { ids: { id }, outputs: { id } };
      // A run that waits for training waits here too (the job recorded first), so what the job trained is known when its create ends.
      if ((ctx.trainingWaitMs ?? 0) > 0) {
        await checkpoint(submitted);
        await awaitJobEnd(ctx, id, `${desired.model_name}@${desired.model_version}`);
      }
      return submitted;
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
      if (!key.model_name || !key.model_version || isUnknown(key.dataset_id)) return undefined;
      return { key, label: `training job ${str(key.model_name)}@${str(key.model_version)}` };
    },

    // A job is named by its model name and version in its organization: the newest unmanaged one of them.
    async findCreated(ctx, key, managedIds): Promise<Applied | undefined> {
      const jobs = await ctx.client.mlTrainingClient.listTrainingJobs(str(key.organization_id));
      const found = jobs
        .filter(
          (j) =>
            j.modelName === key.model_name &&
            j.modelVersion === key.model_version &&
            j.datasetId === key.dataset_id &&
            !managedIds.has(j.id),
        )
        .filter((j) => j.isCustomJob === flavour.isCustomJob)
        .sort((a, b) => (b.createdOn?.getTime() ?? 0) - (a.createdOn?.getTime() ?? 0))[0];
      return found ? { ids: { id: found.id }, outputs: { id: found.id } } : undefined;
    },

    // A kept job is named again by its flavour, model name and model version (a version is never
    // reused); a canceled or failed one trained nothing to keep: its version stays taken.

    async findRetained(ctx, attributes, managedIds): Promise<Applied | undefined> {
      const modelName = attributes.model_name;
      const modelVersion = attributes.model_version;
      if (typeof modelName !== 'string' || typeof modelVersion !== 'string') return undefined;
      const organizationId =
        typeof attributes.organization_id === 'string' && attributes.organization_id ? attributes.organization_id : ctx.organizationId;
      const found = (await jobsOfOrganization(ctx, organizationId)).find(
        (j) =>
          j.modelName === modelName &&
          j.modelVersion === modelVersion &&
          j.isCustomJob === flavour.isCustomJob &&
          !managedIds.has(j.id) &&
          isKept(j.status),
      );
      return found ? { ids: { id: found.id }, outputs: { id: found.id } } : undefined;
    },

    async importById(ctx, id): Promise<Applied | undefined> {
      const job = await unlessNotFound(() => ctx.client.mlTrainingClient.getTrainingJob(id));
      if (!job) return undefined;
      if (job.isCustomJob !== flavour.isCustomJob) {
        throw new FleetformError(`job ${id} is ${job.isCustomJob ? 'a custom' : 'a managed'} training job`, {
          hint: `import it at a ${job.isCustomJob ? customTrainingJobDeclaration.type : trainingJobDeclaration.type} address`,
        });
      }
      return { ids: { id }, outputs: { id } };
    },
  };
}

/** A managed training job. */
export const trainingJobKind = trainingKind({
  declaration: trainingJobDeclaration,
  isCustomJob: false,
  normalize(a, organizationId) {
    const issues: Issue[] = [];
    let modelType: ModelType = ModelType.UNSPECIFIED;
    try {
      modelType = parseModelType(a.model_type);
    } catch (err) {
      issues.push({ severity: 'error', code: 'model-type', path: 'model_type', message: errorMessage(err) });
    }
    let framework: ModelFramework = ModelFramework.UNSPECIFIED;
    if (a.model_framework !== undefined) {
      try {
        framework = parseModelFramework(a.model_framework);
      } catch (err) {
        issues.push({ severity: 'error', code: 'model-framework', path: 'model_framework', message: errorMessage(err) });
      }
    }
    const view = {
      organization_id: a.organization_id || organizationId,
      dataset_id: a.dataset_id,
      model_name: a.model_name,
      model_version: a.model_version,
      model_type: a.model_type,
      model_framework: modelFrameworkName(framework),
      tags: [...a.tags],
      retain_on_delete: a.retain_on_delete === true,
    };
    if (modelType !== ModelType.UNSPECIFIED) {
      issues.push(
        ...checkTrainingJobParams({
          datasetId: textForChecks(a.dataset_id),
          modelName: a.model_name,
          modelVersion: a.model_version,
          modelType,
          tags: [...a.tags],
        }).filter((i) => !(i.path === 'dataset_id' && isUnknown(a.dataset_id))),
      );
    }
    return { view, issues };
  },
  fromJob(job, retainOnDelete) {
    return {
      organization_id: job.organizationId,
      dataset_id: job.datasetId,
      model_name: job.modelName,
      model_version: job.modelVersion,
      model_type: modelTypeName(job.modelType),
      model_framework: modelFrameworkName(job.modelFramework),
      tags: [...job.tags],
      retain_on_delete: retainOnDelete,
    };
  },
  submitFindings: async () => NO_FINDINGS,
  submit(ctx, v) {
    return ctx.client.mlTrainingClient.submitTrainingJob(
      v.organization_id,
      v.dataset_id,
      v.model_name,
      v.model_version,
      parseModelType(v.model_type),
      [...v.tags],
      {
        modelFramework: parseModelFramework(v.model_framework),
      },
    );
  },
});

/** A training job running a custom training script from the registry. */
export const customTrainingJobKind = trainingKind({
  declaration: customTrainingJobDeclaration,
  isCustomJob: true,
  normalize(a, organizationId) {
    const view = {
      organization_id: a.organization_id || organizationId,
      dataset_id: a.dataset_id,
      registry_item_id: a.registry_item_id,
      registry_item_version: a.registry_item_version,
      model_name: a.model_name,
      model_version: a.model_version,
      arguments: { ...a.arguments },
      container_version: a.container_version ?? '',
      retain_on_delete: a.retain_on_delete === true,
    };
    const issues = checkCustomTrainingJobParams({
      datasetId: textForChecks(a.dataset_id),
      registryItemId: a.registry_item_id,
      registryItemVersion: a.registry_item_version,
      modelName: a.model_name,
      modelVersion: a.model_version,
    }).filter((i) => !(i.path === 'dataset_id' && isUnknown(a.dataset_id)));
    return { view, issues };
  },
  fromJob(job, retainOnDelete) {
    return {
      organization_id: job.organizationId,
      dataset_id: job.datasetId,
      registry_item_id: job.registryItemId,
      registry_item_version: job.registryItemVersion,
      model_name: job.modelName,
      model_version: job.modelVersion,
      arguments: { ...job.arguments },
      container_version: job.containerVersion,
      retain_on_delete: retainOnDelete,
    };
  },
  async submitFindings(ctx, v) {
    const [script, container] = await Promise.all([
      scriptProblems(ctx, v.registry_item_id, v.registry_item_version),
      containerFindings(ctx, v.container_version),
    ]);
    return { problems: [...script, ...container.problems], notes: container.notes };
  },
  submit(ctx, v) {
    return ctx.client.mlTrainingClient.submitCustomTrainingJob(
      v.organization_id,
      v.dataset_id,
      v.registry_item_id,
      v.registry_item_version,
      v.model_name,
      v.model_version,
      {
        arguments: { ...v.arguments },
        containerVersion: v.container_version,
      },
    );
  },
});
