import { TerraformResource } from './cdk';
import type { Construct } from 'constructs';
import { registerChecks, type IssueSink } from './checks';
import { kindOf, markKind } from './kinds';
import { logicalIdFor } from './logical-id';
import { registerFleetConstruct } from './registry';
import { checkProps, propSchemas } from './props';
import { camelShape, datasetAttributes } from '../domain/resource-attributes';
import { z } from 'zod';
import { terraformLiterals } from './terraform-literal';

/** Properties of a {@link Dataset}. */
export interface DatasetProps {
  /**
   * Name of the dataset in its organization.
   * @default the construct id
   */
  readonly name?: string;
  /**
   * Organization owning the dataset.
   * @default the provider's `organizationId`, else the only organization the API key sees
   */
  readonly organizationId?: string;
}

/** The run-time check of {@link DatasetProps}: strict, without coercion. */
export const datasetPropsSchema = z.strictObject({
  ...camelShape(datasetAttributes, ['organization_id']),
  // An empty name is reported by the app's analysis, with duplicate names.
  name: propSchemas.text.optional(),
}) satisfies z.ZodType<DatasetProps>;

/** A dataset to train models on: one `fleetform_dataset` resource. */
export class Dataset extends TerraformResource {
  /** The Terraform resource type. */
  static readonly tfResourceType = 'fleetform_dataset';

  /** Whether x is a Dataset (of any copy of this library). */
  static isDataset(x: unknown): x is Dataset {
    return kindOf(x) === 'dataset';
  }

  /** Name of the dataset. */
  readonly name: string;
  /** Organization, when given. */
  readonly organizationId: string | undefined;

  constructor(scope: Construct, id: string, props: DatasetProps = {}) {
    super(scope, id, { terraformResourceType: Dataset.tfResourceType });
    markKind(this, 'dataset');
    checkProps(this, 'Dataset', datasetPropsSchema, props);
    this.overrideLogicalId(logicalIdFor(this));
    this.name = props.name ?? id;
    this.organizationId = props.organizationId;
    registerFleetConstruct(this);
  }

  /** The dataset id the service assigns: a reference resolved at apply, e.g. `${fleetform_dataset.boxes.id}`. */
  get datasetId(): string {
    return this.getStringAttribute('id');
  }

  protected override synthesizeAttributes(): Record<string, unknown> {
    const attributes: Record<string, unknown> = { name: this.name };
    if (this.organizationId !== undefined) attributes.organization_id = this.organizationId;
    return terraformLiterals(attributes);
  }
}

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
      sink.error(dataset, 'name', 'duplicate-dataset-name', `dataset name "${dataset.name}" is also used by ${first.node.path}`, 'dataset names are unique per organization; rename one');
    } else seen.set(key, dataset);
  }
}

registerChecks<Dataset>('dataset', { acrossStack: checkDatasetNames });
