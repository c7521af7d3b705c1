import { Dataset } from './dataset';

/** Properties every training job has (seed 4.3 and 4.4). */
export interface TrainingJobCommonProps {
  /** Dataset to train on: a {@link Dataset} of the same stack, or the id of an existing dataset. */
  readonly dataset: Dataset | string;
  /**
   * Organization to submit the job to.
   * @default the provider's `organizationId`, else at plan time the API key's organization
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

/** The `dataset_id` value of a job: a reference to a Dataset's id, or the literal id. */
export function datasetIdOf(dataset: Dataset | string): string {
  return typeof dataset === 'string' ? dataset : dataset.datasetId;
}

/** The attributes every training job synthesizes, in contract order. */
export function commonJobAttributes(
  organizationId: string | undefined,
  dataset: Dataset | string,
): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  if (organizationId !== undefined) attributes.organization_id = organizationId;
  attributes.dataset_id = datasetIdOf(dataset);
  return attributes;
}

/** A Dataset object given as the `dataset` of a job, if it is one. */
export function datasetConstruct(dataset: Dataset | string): Dataset | undefined {
  return Dataset.isDataset(dataset) ? dataset : undefined;
}
