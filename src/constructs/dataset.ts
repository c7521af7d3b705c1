import { datasetResource } from '../domain/resource-attributes';
import { registerChecks, type IssueSink } from './checks';
import { kindConstruct, propForm, type KindProps } from './kind-construct';
import { constructTypeOf } from './construct-types';
import { propSchemas } from './props';

const datasetForms = {
  // An empty name is reported by the app's analysis, with duplicate names.
  name: propForm(propSchemas.text.optional(), { default: (constructId: string) => constructId }),
} as const;

/** Properties of a {@link Dataset}: its attributes under camelCase names, `name` defaulting to the construct id. */
export type DatasetProps = KindProps<typeof datasetResource.attributes, typeof datasetForms>;

/** A dataset to train models on: one `fleetform_dataset` resource; `datasetId` is the id the service assigns, a reference resolved at apply. */
export class Dataset extends kindConstruct(datasetResource, {
  constructName: 'Dataset',
  kind: 'dataset',
  forms: datasetForms,
  ids: { datasetId: 'id' },
}) {
  /** Whether x is a Dataset (of any copy of this library). */
  static isDataset(x: unknown): x is Dataset {
    return constructTypeOf(x) === 'dataset';
  }
}

/** The run-time check of {@link DatasetProps}: strict, without coercion. */
export const datasetPropsSchema = Dataset.propsSchema;

/** Dataset names: not empty, unique per organization. */
function checkDatasetNames(datasets: readonly Dataset[], sink: IssueSink): void {
  const seen = new Map<string, Dataset>();
  for (const dataset of datasets) {
    if (dataset.name.trim() === '') {
      sink.error(dataset, 'name', 'dataset-name', 'dataset name is empty', 'name the dataset, or leave name out to use the construct id');
      continue;
    }
    const key = `${dataset.organizationId ?? ''}\u0000${dataset.name}`;
    const first = seen.get(key);
    if (first) {
      sink.error(
        dataset,
        'name',
        'duplicate-dataset-name',
        `dataset name "${dataset.name}" is also used by ${first.node.path}`,
        'dataset names are unique per organization; rename one',
      );
    } else seen.set(key, dataset);
  }
}

registerChecks<Dataset>('dataset', { acrossStack: checkDatasetNames });
