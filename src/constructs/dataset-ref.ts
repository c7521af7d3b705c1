import type { Dataset } from './dataset';
import { constructTypeOf } from './construct-types';

/** The `dataset_id` value of a job: a reference to a Dataset's id, or the literal id. */
export function datasetIdOf(dataset: Dataset | string): string {
  return typeof dataset === 'string' ? dataset : dataset.datasetId;
}

/** A Dataset object given as the `dataset` of a job, if it is one (of any copy of this library). */
export function datasetConstruct(dataset: Dataset | string): Dataset | undefined {
  return constructTypeOf(dataset) === 'dataset' ? (dataset as Dataset) : undefined;
}
