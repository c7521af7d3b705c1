import type { Construct } from 'constructs';
import { checkCustomTrainingJobParams, type Issue } from '../domain';
import { registerChecks } from './checks';
import { kindOf } from './kinds';
import { registerFleetConstruct } from './registry';
import { TrainingJobBase, trainingJobChecks, trainingJobCommonPropsShape, type TrainingJobCommonProps } from './training-common';
import { z } from 'zod';
import { camelShape, customTrainingJobAttributes } from '../domain/resource-attributes';

/** Properties of a {@link CustomTrainingJob}: the parameters of SubmitCustomTrainingJob. */
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

/** The run-time check of {@link CustomTrainingJobProps}: strict, without coercion. */
export const customTrainingJobPropsSchema = z.strictObject({
  ...trainingJobCommonPropsShape,
  ...camelShape(customTrainingJobAttributes, ['registry_item_id', 'registry_item_version', 'arguments', 'container_version']),
}) satisfies z.ZodType<CustomTrainingJobProps>;

/** A training job running a training script from the registry: one `fleetform_custom_training_job` resource. */
export class CustomTrainingJob extends TrainingJobBase {
  /** The Terraform resource type. */
  static readonly tfResourceType = 'fleetform_custom_training_job';

  /** Whether x is a CustomTrainingJob (of any copy of this library). */
  static isCustomTrainingJob(x: unknown): x is CustomTrainingJob {
    return kindOf(x) === 'custom-training-job';
  }

  /** Registry id of the training script. */
  readonly registryItemId: string;
  /** Version of the training script. */
  readonly registryItemVersion: string;
  /** Arguments of the training script. */
  readonly arguments: Readonly<Record<string, string>>;
  /** Container version, when given. */
  readonly containerVersion: string | undefined;

  constructor(scope: Construct, id: string, props: CustomTrainingJobProps) {
    super(scope, id, { terraformResourceType: CustomTrainingJob.tfResourceType, kind: 'custom-training-job', constructName: 'CustomTrainingJob', propsSchema: customTrainingJobPropsSchema }, props);
    this.registryItemId = props.registryItemId;
    this.registryItemVersion = props.registryItemVersion;
    this.arguments = { ...props.arguments };
    this.containerVersion = props.containerVersion;
    registerFleetConstruct(this);
  }

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

  protected override jobAttributes(): Record<string, unknown> {
    const attributes: Record<string, unknown> = {};
    attributes.registry_item_id = this.registryItemId;
    attributes.registry_item_version = this.registryItemVersion;
    attributes.model_name = this.modelName;
    attributes.model_version = this.modelVersion;
    if (Object.keys(this.arguments).length > 0) attributes.arguments = { ...this.arguments };
    if (this.containerVersion !== undefined) attributes.container_version = this.containerVersion;
    return attributes;
  }
}

registerChecks('custom-training-job', trainingJobChecks);
