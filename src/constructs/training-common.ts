import { TerraformResource, TerraformStack } from './cdk';
import type { IConstruct } from 'constructs';
import type { Issue } from '../domain';
import type { IssueSink, KindChecks } from './checks';
import { camelFirstSegment } from './field-names';
import { z } from 'zod';
import { checkProps, propSchemas } from './props';
import { camelShape, trainingJobAttributes } from '../domain/resource-attributes';
import type { Construct } from 'constructs';
import type { Dataset } from './dataset';
import { datasetConstruct, datasetIdOf } from './dataset-ref';
import { markKind } from './kinds';
import { logicalIdFor } from './logical-id';
import { terraformLiterals } from './terraform-literal';

/** Properties every training job has. */
export interface TrainingJobCommonProps {
  /** Dataset to train on: a {@link Dataset} of the same stack, or the id of an existing dataset. */
  readonly dataset: Dataset | string;
  /**
   * Organization to submit the job to.
   * @default the provider's `organizationId`, else the only organization the API key sees
   */
  readonly organizationId?: string;
  /** Name of the model to train. */
  readonly modelName: string;
  /** Version of the model; unique among the versions of that model. */
  readonly modelVersion: string;
  /**
   * Keep the job in the service when it is removed from the code (the engine then only
   * forgets it) instead of cancelling or deleting it.
   * @default false
   */
  readonly retainOnDelete?: boolean;
}

/** The run-time check of the props every training job has (spread into each job's schema). */
export const trainingJobCommonPropsShape = {
  ...camelShape(trainingJobAttributes, ['organization_id', 'model_name', 'model_version', 'retain_on_delete']),
  // An empty dataset id is reported by the app's analysis with the job's other parameters.
  dataset: z.union([propSchemas.text, propSchemas.construct<Dataset>('dataset', 'expected a Dataset or a dataset id')]),
};

/**
 * What the two kinds of training job share: the fields of {@link TrainingJobCommonProps},
 * the job id, and the attributes around each kind's own (`organization_id` and `dataset_id`
 * first, `retain_on_delete` last, the order the attributes are declared in). Each subclass registers itself once
 * its own fields are set.
 */
export abstract class TrainingJobBase extends TerraformResource {
  /** Dataset trained on: a Dataset of this stack or a dataset id. */
  readonly dataset: Dataset | string;
  /** Organization, when given. */
  readonly organizationId: string | undefined;
  /** Name of the trained model. */
  readonly modelName: string;
  /** Version of the trained model. */
  readonly modelVersion: string;
  /** Whether the job stays in the service when removed from the code. */
  readonly retainOnDelete: boolean;

  protected constructor(
    scope: Construct,
    id: string,
    resource: {
      readonly terraformResourceType: string;
      readonly kind: 'training-job' | 'custom-training-job';
      /** The construct's name in errors, and the strict schema of its props. */
      readonly constructName: string;
      readonly propsSchema: z.ZodObject;
    },
    props: TrainingJobCommonProps,
  ) {
    super(scope, id, { terraformResourceType: resource.terraformResourceType });
    markKind(this, resource.kind);
    checkProps(this, resource.constructName, resource.propsSchema, props);
    this.overrideLogicalId(logicalIdFor(this));
    this.dataset = props.dataset;
    this.organizationId = props.organizationId;
    this.modelName = props.modelName;
    this.modelVersion = props.modelVersion;
    this.retainOnDelete = props.retainOnDelete ?? false;
  }

  /** The job id the service assigns, known after apply. */
  get jobId(): string {
    return this.getStringAttribute('id');
  }

  /** The attributes of this kind of job, between `dataset_id` and `retain_on_delete`. */
  protected abstract jobAttributes(): Record<string, unknown>;

  /** The job's parameters as the domain rules of its kind check them, with `datasetId` for its dataset. */
  abstract parameterIssues(datasetId: string): Issue[];

  protected override synthesizeAttributes(): Record<string, unknown> {
    const attributes: Record<string, unknown> = {};
    if (this.organizationId !== undefined) attributes.organization_id = this.organizationId;
    attributes.dataset_id = datasetIdOf(this.dataset);
    Object.assign(attributes, this.jobAttributes());
    if (this.retainOnDelete) attributes.retain_on_delete = true;
    return terraformLiterals(attributes);
  }
}

/**
 * The checks of training jobs, of both kinds together: each job's parameters and dataset,
 * and model versions unique per model across the stack's jobs.
 */
function checkJobs(jobs: readonly TrainingJobBase[], sink: IssueSink, stack: IConstruct): void {
  const models = new Map<string, TrainingJobBase>();
  for (const job of jobs) {
    // A Dataset object stands for a non-empty id.
    const dataset = datasetConstruct(job.dataset);
    for (const issue of job.parameterIssues(dataset ? 'dataset' : (job.dataset as string))) {
      const field = issue.path.startsWith('dataset_id') ? `dataset${issue.path.slice('dataset_id'.length)}` : camelFirstSegment(issue.path);
      sink.add(job, field, issue);
    }
    if (dataset && TerraformStack.of(dataset) !== stack) {
      sink.error(job, 'dataset', 'dataset-other-stack', `dataset ${dataset.node.path} belongs to another stack`, 'declare the dataset in this stack, or pass its id as a string');
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

/** Registered by both kinds of job, so they are checked together. */
export const trainingJobChecks: KindChecks<TrainingJobBase> = { acrossStack: checkJobs };
