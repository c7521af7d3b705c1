import type { Construct } from 'constructs';
import { checkTrainingJobParams, ModelFramework, ModelType, modelFrameworkName, modelTypeName, type Issue } from '../domain';
import { registerChecks } from './checks';
import { kindOf } from './kinds';
import { registerFleetConstruct } from './registry';
import { TrainingJobBase, trainingJobChecks, trainingJobCommonPropsShape, type TrainingJobCommonProps } from './training-common';
import { z } from 'zod';
import { camelShape, trainingJobAttributes } from '../domain/resource-attributes';

/** Properties of a {@link TrainingJob}: the parameters of SubmitTrainingJob. */
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

/** The run-time check of {@link TrainingJobProps}: strict, without coercion. */
export const trainingJobPropsSchema = z.strictObject({
  ...trainingJobCommonPropsShape,
  ...camelShape(trainingJobAttributes, ['tags']),
  modelType: z.enum(ModelType),
  modelFramework: z.enum(ModelFramework).optional(),
}) satisfies z.ZodType<TrainingJobProps>;

/** A training job on the service's built-in trainer: one `fleetform_training_job` resource. */
export class TrainingJob extends TrainingJobBase {
  /** The Terraform resource type. */
  static readonly tfResourceType = 'fleetform_training_job';

  /** Whether x is a TrainingJob (of any copy of this library). */
  static isTrainingJob(x: unknown): x is TrainingJob {
    return kindOf(x) === 'training-job';
  }

  /** Kind of model. */
  readonly modelType: ModelType;
  /** Framework, when given. */
  readonly modelFramework: ModelFramework | undefined;
  /** Labels trained on. */
  readonly tags: readonly string[];

  constructor(scope: Construct, id: string, props: TrainingJobProps) {
    super(scope, id, { terraformResourceType: TrainingJob.tfResourceType, kind: 'training-job', constructName: 'TrainingJob', propsSchema: trainingJobPropsSchema }, props);
    this.modelType = props.modelType;
    this.modelFramework = props.modelFramework;
    this.tags = [...props.tags];
    registerFleetConstruct(this);
  }

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

  protected override jobAttributes(): Record<string, unknown> {
    const attributes: Record<string, unknown> = {};
    attributes.model_name = this.modelName;
    attributes.model_version = this.modelVersion;
    attributes.model_type = modelTypeName(this.modelType);
    if (this.modelFramework !== undefined) attributes.model_framework = modelFrameworkName(this.modelFramework);
    attributes.tags = [...this.tags];
    return attributes;
  }
}

registerChecks('training-job', trainingJobChecks);
