import { TerraformStack } from './cdk';
import type { IConstruct } from 'constructs';
import { z } from 'zod';
import type { Issue } from '../domain';
import type { trainingJobResource } from '../domain/resource-attributes';
import type { IssueSink, KindChecks } from './checks';
import type { Dataset } from './dataset';
import { datasetConstruct, datasetIdOf } from './dataset-ref';
import { camelFirstSegment } from './field-names';
import { propForm, type KindProps } from './kind-construct';
import { propSchemas } from './props';

/** The props every training job gives in another form than its attribute. */
export const trainingJobCommonForms = {
  // An empty dataset id is reported by the app's analysis with the job's other parameters.
  dataset_id: propForm(z.union([propSchemas.text, propSchemas.construct<Dataset>('dataset', 'expected a Dataset or a dataset id')]), {
    prop: 'dataset',
    synthesize: datasetIdOf,
  }),
  retain_on_delete: propForm(z.boolean().optional(), {
    default: () => false,
    synthesize: (retain: boolean) => (retain ? true : undefined),
  }),
} as const;

/** Properties every training job has, of either kind. */
export type TrainingJobCommonProps = Pick<
  KindProps<typeof trainingJobResource.attributes, typeof trainingJobCommonForms>,
  'dataset' | 'organizationId' | 'modelName' | 'modelVersion' | 'retainOnDelete'
>;

/** What the checks of training jobs read of a job of either kind. */
export interface TrainingJobFields extends IConstruct {
  readonly dataset: Dataset | string;
  readonly organizationId: string | undefined;
  readonly modelName: string;
  readonly modelVersion: string;
  /** The job's parameters as the domain rules of its kind check them, with `datasetId` for its dataset. */
  parameterIssues(datasetId: string): Issue[];
}

/**
 * The checks of training jobs, of both kinds together: each job's parameters and dataset,
 * and model versions unique per model across the stack's jobs.
 */
function checkJobs(jobs: readonly TrainingJobFields[], sink: IssueSink, stack: IConstruct): void {
  const models = new Map<string, TrainingJobFields>();
  for (const job of jobs) {
    // A Dataset object stands for a non-empty id.
    const dataset = datasetConstruct(job.dataset);
    for (const issue of job.parameterIssues(dataset ? 'dataset' : (job.dataset as string))) {
      const field = issue.path.startsWith('dataset_id') ? `dataset${issue.path.slice('dataset_id'.length)}` : camelFirstSegment(issue.path);
      sink.add(job, field, issue);
    }
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

/** Registered by both kinds of job, so they are checked together. */
export const trainingJobChecks: KindChecks<TrainingJobFields> = { acrossStack: checkJobs };
