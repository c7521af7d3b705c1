import { TerraformResource } from 'cdktf';
import type { Construct } from 'constructs';
import { modelFrameworkName, modelTypeName, type ModelFramework, type ModelType } from '../domain';
import type { Dataset } from './dataset';
import { kindOf, markKind } from './kinds';
import { logicalIdFor } from './logical-id';
import { registerFleetConstruct } from './registry';
import { commonJobAttributes, type TrainingJobCommonProps } from './training-common';

/** Properties of a {@link TrainingJob}: the parameters of SubmitTrainingJob (seed 4.3). */
export interface TrainingJobProps extends TrainingJobCommonProps {
  /** Kind of model, e.g. `ModelType.OBJECT_DETECTION`. */
  readonly modelType: ModelType;
  /**
   * Framework of the trained model, e.g. `ModelFramework.TFLITE`.
   * @default the service's choice
   */
  readonly modelFramework?: ModelFramework;
  /** Labels to train the model on (at least one). */
  readonly tags: readonly string[];
}

/** A training job on the service's built-in trainer: one `fleetform_training_job` resource. */
export class TrainingJob extends TerraformResource {
  /** The Terraform resource type. */
  static readonly tfResourceType = 'fleetform_training_job';

  /** Whether x is a TrainingJob (of any copy of this library). */
  static isTrainingJob(x: unknown): x is TrainingJob {
    return kindOf(x) === 'training-job';
  }

  /** Dataset trained on: a Dataset of this stack or a dataset id. */
  readonly dataset: Dataset | string;
  /** Organization, when given. */
  readonly organizationId: string | undefined;
  /** Name of the trained model. */
  readonly modelName: string;
  /** Version of the trained model. */
  readonly modelVersion: string;
  /** Kind of model. */
  readonly modelType: ModelType;
  /** Framework, when given. */
  readonly modelFramework: ModelFramework | undefined;
  /** Labels trained on. */
  readonly tags: readonly string[];
  /** Whether the job stays in the service when removed from the code. */
  readonly retainOnDelete: boolean;

  constructor(scope: Construct, id: string, props: TrainingJobProps) {
    super(scope, id, { terraformResourceType: TrainingJob.tfResourceType });
    markKind(this, 'training-job');
    this.overrideLogicalId(logicalIdFor(this));
    this.dataset = props.dataset;
    this.organizationId = props.organizationId;
    this.modelName = props.modelName;
    this.modelVersion = props.modelVersion;
    this.modelType = props.modelType;
    this.modelFramework = props.modelFramework;
    this.tags = [...props.tags];
    this.retainOnDelete = props.retainOnDelete ?? false;
    registerFleetConstruct(this);
  }

  /** The job id the service assigns, known after apply. */
  get jobId(): string {
    return this.getStringAttribute('id');
  }

  protected override synthesizeAttributes(): Record<string, unknown> {
    const attributes = commonJobAttributes(this.organizationId, this.dataset);
    attributes.model_name = this.modelName;
    attributes.model_version = this.modelVersion;
    attributes.model_type = modelTypeName(this.modelType);
    if (this.modelFramework !== undefined) attributes.model_framework = modelFrameworkName(this.modelFramework);
    attributes.tags = [...this.tags];
    if (this.retainOnDelete) attributes.retain_on_delete = true;
    return attributes;
  }
}
