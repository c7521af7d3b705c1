import { TerraformResource } from 'cdktf';
import type { Construct } from 'constructs';
import type { Dataset } from './dataset';
import { kindOf, markKind } from './kinds';
import { logicalIdFor } from './logical-id';
import { registerFleetConstruct } from './registry';
import { commonJobAttributes, type TrainingJobCommonProps } from './training-common';

/** Properties of a {@link CustomTrainingJob}: the parameters of SubmitCustomTrainingJob (seed 4.4). */
export interface CustomTrainingJobProps extends TrainingJobCommonProps {
  /** Registry id of the training script, `<namespace>:<script-name>`, e.g. `acme:trainer`. */
  readonly registryItemId: string;
  /** Version of the training script, e.g. `0.3.0`. */
  readonly registryItemVersion: string;
  /**
   * Arguments passed to the training script.
   * @default {}
   */
  readonly arguments?: Readonly<Record<string, string>>;
  /**
   * Version of the container the script runs in.
   * @default the service's choice
   */
  readonly containerVersion?: string;
}

/** A training job running a training script from the registry: one `fleetform_custom_training_job` resource. */
export class CustomTrainingJob extends TerraformResource {
  /** The Terraform resource type. */
  static readonly tfResourceType = 'fleetform_custom_training_job';

  /** Whether x is a CustomTrainingJob (of any copy of this library). */
  static isCustomTrainingJob(x: unknown): x is CustomTrainingJob {
    return kindOf(x) === 'custom-training-job';
  }

  /** Dataset trained on: a Dataset of this stack or a dataset id. */
  readonly dataset: Dataset | string;
  /** Organization, when given. */
  readonly organizationId: string | undefined;
  /** Registry id of the training script. */
  readonly registryItemId: string;
  /** Version of the training script. */
  readonly registryItemVersion: string;
  /** Name of the trained model. */
  readonly modelName: string;
  /** Version of the trained model. */
  readonly modelVersion: string;
  /** Arguments of the training script. */
  readonly arguments: Readonly<Record<string, string>>;
  /** Container version, when given. */
  readonly containerVersion: string | undefined;
  /** Whether the job stays in the service when removed from the code. */
  readonly retainOnDelete: boolean;

  constructor(scope: Construct, id: string, props: CustomTrainingJobProps) {
    super(scope, id, { terraformResourceType: CustomTrainingJob.tfResourceType });
    markKind(this, 'custom-training-job');
    this.overrideLogicalId(logicalIdFor(this));
    this.dataset = props.dataset;
    this.organizationId = props.organizationId;
    this.registryItemId = props.registryItemId;
    this.registryItemVersion = props.registryItemVersion;
    this.modelName = props.modelName;
    this.modelVersion = props.modelVersion;
    this.arguments = { ...props.arguments };
    this.containerVersion = props.containerVersion;
    this.retainOnDelete = props.retainOnDelete ?? false;
    registerFleetConstruct(this);
  }

  /** The job id the service assigns, known after apply. */
  get jobId(): string {
    return this.getStringAttribute('id');
  }

  protected override synthesizeAttributes(): Record<string, unknown> {
    const attributes = commonJobAttributes(this.organizationId, this.dataset);
    attributes.registry_item_id = this.registryItemId;
    attributes.registry_item_version = this.registryItemVersion;
    attributes.model_name = this.modelName;
    attributes.model_version = this.modelVersion;
    if (Object.keys(this.arguments).length > 0) attributes.arguments = { ...this.arguments };
    if (this.containerVersion !== undefined) attributes.container_version = this.containerVersion;
    if (this.retainOnDelete) attributes.retain_on_delete = true;
    return attributes;
  }
}
