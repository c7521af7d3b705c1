import { warningIssue, type Issue } from './issue';

/**
 * What a dataset's members are: `binary` (binary data objects, the service's zero and the
 * type of every dataset created without one) or `sequence` (sequences). A dataset's type is
 * fixed when it is created.
 */
export const DATASET_TYPES = ['binary', 'sequence'] as const;
export type DatasetType = (typeof DATASET_TYPES)[number];

/** The type of a dataset created without one. */
export const DEFAULT_DATASET_TYPE: DatasetType = 'binary';

/** Wire numbers of viam.app.dataset.v1.DatasetType. */
const DATASET_TYPE_NUMBERS: Readonly<Record<DatasetType, number>> = { binary: 0, sequence: 1 };

/** The wire number of a dataset type. */
export function datasetTypeNumber(type: DatasetType): number {
  return DATASET_TYPE_NUMBERS[type];
}

/** The dataset type of a wire number; undefined for a number this version does not know. */
export function datasetTypeOf(number: number): DatasetType | undefined {
  return DATASET_TYPES.find((t) => DATASET_TYPE_NUMBERS[t] === number);
}

/** The code of the warning for a training job on a sequence dataset. */
export const SEQUENCE_TRAINING_CODE = 'dataset-sequence-training';

/**
 * The warning for a training job on a sequence dataset: training reads binary data, and
 * whether the service refuses such a job or the job fails is not known, so it may fail.
 */
export function sequenceTrainingIssue(path: string, dataset: string): Issue {
  return warningIssue(
    SEQUENCE_TRAINING_CODE,
    path,
    `dataset ${dataset} holds sequences, and training jobs train on binary data: the job may be refused or fail`,
    'train on a dataset of type binary',
  );
}
