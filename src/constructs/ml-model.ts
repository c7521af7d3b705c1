import * as path from 'node:path';
import { TerraformResource } from './cdk';
import type { Construct } from 'constructs';
import { registerChecks, type IssueSink } from './checks';
import { kindOf, markKind } from './kinds';
import { logicalIdFor } from './logical-id';
import { registerFleetConstruct } from './registry';
import { checkProps, propSchemas } from './props';
import { camelShape, mlModelAttributes } from '../domain/resource-attributes';
import { z } from 'zod';
import { terraformLiterals } from './terraform-literal';
import type { ITrainedModelSource } from './machine-parts';

/** Properties of an {@link MlModel}. */
export interface MlModelProps {
  /**
   * Name of the model in its organization.
   * @default the construct id
   */
  readonly name?: string;
  /** The version this upload makes (a registry version never changes: a new file is a new version). */
  readonly version: string;
  /** The model file (tflite, onnx, ...), relative to the app's folder or absolute. */
  readonly path: string;
  /** What the model does, written in its metadata, e.g. `object_detection`. */
  readonly modelType?: string;
  /** Its framework, written in its metadata, e.g. `tflite` or `onnx`. */
  readonly modelFramework?: string;
  /**
   * Organization owning the model.
   * @default the provider's `organizationId`, else at plan time the API key's organization
   */
  readonly organizationId?: string;
}

/** The run-time check of {@link MlModelProps}: strict, without coercion. */
export const mlModelPropsSchema = z.strictObject({
  ...camelShape(mlModelAttributes, ['version', 'path', 'model_type', 'model_framework', 'organization_id']),
  name: propSchemas.text.optional(),
}) satisfies z.ZodType<MlModelProps>;

/**
 * A model made elsewhere, uploaded as one version of an ML model of the registry: one
 * `fleetform_ml_model` resource. A machine deploys it like a trained one:
 * `machine.deployModel(model, { name: 'detector' })`.
 */
export class MlModel extends TerraformResource implements ITrainedModelSource {
  /** The Terraform resource type. */
  static readonly tfResourceType = 'fleetform_ml_model';

  /** Whether x is an MlModel (of any copy of this library). */
  static isMlModel(x: unknown): x is MlModel {
    return kindOf(x) === MlModel.tfResourceType;
  }

  /** Name of the model (its package name). */
  readonly modelName: string;
  /** The version this upload makes. */
  readonly modelVersion: string;
  /** The model file, absolute. */
  readonly path: string;
  readonly modelType: string | undefined;
  readonly modelFramework: string | undefined;
  /** Organization, when given. */
  readonly organizationId: string | undefined;

  constructor(scope: Construct, id: string, props: MlModelProps) {
    super(scope, id, { terraformResourceType: MlModel.tfResourceType });
    markKind(this, MlModel.tfResourceType);
    checkProps(this, 'MlModel', mlModelPropsSchema, props);
    this.overrideLogicalId(logicalIdFor(this));
    this.modelName = props.name ?? id;
    this.modelVersion = props.version;
    this.path = path.resolve(props.path);
    this.modelType = props.modelType;
    this.modelFramework = props.modelFramework;
    this.organizationId = props.organizationId;
    registerFleetConstruct(this);
  }

  protected override synthesizeAttributes(): Record<string, unknown> {
    const attributes: Record<string, unknown> = { name: this.modelName, version: this.modelVersion, path: this.path };
    if (this.modelType !== undefined) attributes.model_type = this.modelType;
    if (this.modelFramework !== undefined) attributes.model_framework = this.modelFramework;
    if (this.organizationId !== undefined) attributes.organization_id = this.organizationId;
    return terraformLiterals(attributes);
  }
}

/** One upload per model version in a stack. */
function checkModelVersions(models: readonly MlModel[], sink: IssueSink): void {
  const seen = new Map<string, MlModel>();
  for (const model of models) {
    const key = `${model.organizationId ?? ''}\u0000${model.modelName}\u0000${model.modelVersion}`;
    const first = seen.get(key);
    if (first) sink.error(model, 'version', 'duplicate-model-version', `model ${model.modelName} version ${model.modelVersion} is also uploaded by ${first.node.path}`, 'give each upload its own version');
    else seen.set(key, model);
  }
}

registerChecks<MlModel>(MlModel.tfResourceType, { acrossStack: checkModelVersions });
