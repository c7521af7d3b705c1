import * as path from 'node:path';
import { mlModelResource } from '../domain/resource-attributes';
import { registerChecks, type IssueSink } from './checks';
import { kindConstruct, propForm, type KindProps } from './kind-construct';
import { constructTypeOf } from './construct-types';
import type { ITrainedModelSource } from './machine-parts';

const mlModelForms = {
  name: propForm(mlModelResource.attributes.name.schema.optional(), { default: (constructId: string) => constructId }),
  // Relative to the app's folder, synthesized absolute: the plan may run elsewhere.
  path: propForm(mlModelResource.attributes.path.schema, { synthesize: (file: string) => path.resolve(file) }),
} as const;

/** Properties of an {@link MlModel}: its attributes under camelCase names, `name` defaulting to the construct id, `path` relative to the app's folder or absolute. */
export type MlModelProps = KindProps<typeof mlModelResource.attributes, typeof mlModelForms>;

/**
 * A model made elsewhere, uploaded as one version of an ML model of the registry: one
 * `fleetform_ml_model` resource. A machine deploys it like a trained one:
 * `machine.deployModel(model, { name: 'detector' })`.
 */
export class MlModel
  extends kindConstruct(mlModelResource, { constructName: 'MlModel', forms: mlModelForms, ids: { packageId: 'id' } })
  implements ITrainedModelSource
{
  /** Whether x is an MlModel (of any copy of this library). */
  static isMlModel(x: unknown): x is MlModel {
    return constructTypeOf(x) === MlModel.tfResourceType;
  }

  /** Name of the model (its package name). */
  get modelName(): string {
    return this.name;
  }

  /** The version this upload makes. */
  get modelVersion(): string {
    return this.version;
  }
}

/** The run-time check of {@link MlModelProps}: strict, without coercion. */
export const mlModelPropsSchema = MlModel.propsSchema;

/** One upload per model version in a stack. */
function checkModelVersions(models: readonly MlModel[], sink: IssueSink): void {
  const seen = new Map<string, MlModel>();
  for (const model of models) {
    const key = `${model.organizationId ?? ''}\u0000${model.modelName}\u0000${model.modelVersion}`;
    const first = seen.get(key);
    if (first)
      sink.error(
        model,
        'version',
        'duplicate-model-version',
        `model ${model.modelName} version ${model.modelVersion} is also uploaded by ${first.node.path}`,
        'give each upload its own version',
      );
    else seen.set(key, model);
  }
}

registerChecks<MlModel>(MlModel.tfResourceType, { acrossStack: checkModelVersions });
