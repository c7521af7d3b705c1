import { z } from 'zod';
import { checkTrainingJobParams, ModelFramework, ModelType, modelFrameworkName, modelTypeName, type Issue } from '../domain';
import { trainingJobResource } from '../domain/resource-attributes';
import { registerChecks } from './checks';
import { kindConstruct, propForm, type KindProps } from './kind-construct';
import { constructTypeOf } from './construct-types';
import { trainingJobChecks, trainingJobCommonForms } from './training-common';

const trainingJobForms = {
  ...trainingJobCommonForms,
  model_type: propForm(z.enum(ModelType), { synthesize: modelTypeName }),
  model_framework: propForm(z.enum(ModelFramework).optional(), { synthesize: modelFrameworkName }),
  tags: propForm(z.array(z.string()).readonly(), {}),
} as const;

/** Properties of a {@link TrainingJob}: the parameters of SubmitTrainingJob, `modelType` and `modelFramework` as enums. */
export type TrainingJobProps = KindProps<typeof trainingJobResource.attributes, typeof trainingJobForms>;

/** A training job on the service's built-in trainer: one `fleetform_training_job` resource; `jobId` is the id the service assigns. */
export class TrainingJob extends kindConstruct(trainingJobResource, {
  constructName: 'TrainingJob',
  kind: 'training-job',
  forms: trainingJobForms,
  ids: { jobId: 'id' },
}) {
  /** Whether x is a TrainingJob (of any copy of this library). */
  static isTrainingJob(x: unknown): x is TrainingJob {
    return constructTypeOf(x) === 'training-job';
  }

  /** The job's parameters as the domain rules check them, with `datasetId` for its dataset. */
  parameterIssues(datasetId: string): Issue[] {
    return checkTrainingJobParams({
      datasetId,
      modelName: this.modelName,
      modelVersion: this.modelVersion,
      modelType: this.modelType,
      ...(this.modelFramework === undefined ? {} : { modelFramework: this.modelFramework }),
      tags: this.tags,
    });
  }
}

/** The run-time check of {@link TrainingJobProps}: strict, without coercion. */
export const trainingJobPropsSchema = TrainingJob.propsSchema;

registerChecks('training-job', trainingJobChecks);
