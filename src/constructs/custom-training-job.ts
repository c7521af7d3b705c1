import { z } from 'zod';
import { checkCustomTrainingJobParams, type Issue } from '../domain';
import { customTrainingJobResource } from '../domain/resource-attributes';
import { registerChecks } from './checks';
import { kindConstruct, propForm, type KindProps } from './kind-construct';
import { constructTypeOf } from './construct-types';
import { trainingJobChecks, trainingJobCommonForms } from './training-common';

const customTrainingJobForms = {
  ...trainingJobCommonForms,
  arguments: propForm(z.record(z.string(), z.string()).optional(), {
    default: () => ({}),
    synthesize: (args: Readonly<Record<string, string>>) => (Object.keys(args).length > 0 ? { ...args } : undefined),
  }),
} as const;

/** Properties of a {@link CustomTrainingJob}: the parameters of SubmitCustomTrainingJob. */
export type CustomTrainingJobProps = KindProps<typeof customTrainingJobResource.attributes, typeof customTrainingJobForms>;

/** A training job running a training script from the registry: one `fleetform_custom_training_job` resource; `jobId` is the id the service assigns. */
export class CustomTrainingJob extends kindConstruct(customTrainingJobResource, {
  constructName: 'CustomTrainingJob',
  kind: 'custom-training-job',
  forms: customTrainingJobForms,
  ids: { jobId: 'id' },
}) {
  /** Whether x is a CustomTrainingJob (of any copy of this library). */
  static isCustomTrainingJob(x: unknown): x is CustomTrainingJob {
    return constructTypeOf(x) === 'custom-training-job';
  }

  /** The job's parameters as the domain rules check them, with `datasetId` for its dataset. */
  parameterIssues(datasetId: string): Issue[] {
    return checkCustomTrainingJobParams({
      datasetId,
      registryItemId: this.registryItemId,
      registryItemVersion: this.registryItemVersion,
      modelName: this.modelName,
      modelVersion: this.modelVersion,
      arguments: this.arguments,
      ...(this.containerVersion === undefined ? {} : { containerVersion: this.containerVersion }),
    });
  }
}

/** The run-time check of {@link CustomTrainingJobProps}: strict, without coercion. */
export const customTrainingJobPropsSchema = CustomTrainingJob.propsSchema;

registerChecks('custom-training-job', trainingJobChecks);
