import { Construct } from 'constructs';
import { z } from 'zod';
import { TerraformResource, TerraformStack } from './cdk';
import { FleetformError } from '../domain/errors';
import { PROMOTIONS_DOCUMENT_KEY, PromotionPolicySchema, type PromotionPolicy } from '../domain/model-promotion';
import { constructTypeOf } from './construct-types';
import type { ITrainedModelSource } from './machine-parts';
import { checkProps } from './props';
import { Rollout, type RolloutProps } from './rollout';

/** Properties of a {@link ModelPromotion}. */
export interface ModelPromotionProps {
  /** The TrainingJob, CustomTrainingJob or MlModel whose versions are promoted; machines deploy it with `deployModel`. */
  readonly model: ITrainedModelSource;
  /**
   * How a new version reaches the machines: the stack's (or a fragment's) Rollout, or its
   * props (a Rollout is made, named as the promotion). Its analysis is the evidence: a wave's
   * machines against those still on the previous version (`baseline`).
   */
  readonly rollout: Rollout | RolloutProps;
  /**
   * Versions rejected before that may roll out again (each once more: a new rejection
   * records the new evidence).
   * @default none: a rejected version never rolls out again
   */
  readonly allowRejected?: readonly string[];
}

const MODEL_KINDS: ReadonlySet<string> = new Set(['training-job', 'custom-training-job', 'fleetform_ml_model']);

/** The run-time check of {@link ModelPromotionProps}: strict, without coercion. */
export const modelPromotionPropsSchema = z.strictObject({
  model: z.custom<ITrainedModelSource>(
    (x) => MODEL_KINDS.has(constructTypeOf(x) ?? ''),
    'expected a TrainingJob, CustomTrainingJob or MlModel',
  ),
  rollout: z.custom<Rollout | RolloutProps>((x) => typeof x === 'object' && x !== null, 'expected a Rollout or its props'),
  allowRejected: z.array(z.string().min(1)).optional(),
});

const promotions = new WeakMap<TerraformStack, Map<string, ModelPromotion>>();

/**
 * A model's versions promoted by evidence: when the code names a new version (a training
 * job's `modelVersion`, an upload's `version`), the machines that deploy it get it through
 * the rollout's waves; a version its rollout stops on (a failed analysis, a failed gate) goes
 * back off the machines written and is marked rejected in state, so it never rolls out again
 * unless `allowRejected` names it: machines keep the last promoted version meanwhile.
 * Synthesized into the stack document's `//` block, which Terraform ignores.
 */
export class ModelPromotion extends Construct {
  /** The promotion as the engine reads it. */
  readonly policy: PromotionPolicy;
  /** The rollout its versions go through. */
  readonly rollout: Rollout;

  constructor(scope: Construct, id: string, props: ModelPromotionProps) {
    super(scope, id);
    checkProps(this, 'ModelPromotion', modelPromotionPropsSchema, props);
    const stack = TerraformStack.of(this);
    if (TerraformStack.of(props.model) !== stack)
      throw new FleetformError(`ModelPromotion: model ${props.model.node.path} belongs to another stack`, {
        path: this.node.path,
        hint: 'declare the promotion in the stack of its training job or upload',
      });
    const byModel = promotions.get(stack) ?? new Map<string, ModelPromotion>();
    const other = byModel.get(props.model.modelName);
    if (other)
      throw new FleetformError(`model ${props.model.modelName} already has the promotion ${other.node.path}`, {
        path: this.node.path,
        hint: 'one promotion per model: give it every version the code allows again',
      });
    this.rollout = props.rollout instanceof Rollout ? props.rollout : new Rollout(this, id, props.rollout);
    this.policy = PromotionPolicySchema.parse({
      name: id,
      model: props.model.modelName,
      source: sourceAddress(props.model),
      rollout: this.rollout.policy.name,
      allow_rejected: [...new Set(props.allowRejected ?? [])],
    });
    promotions.set(stack, byModel.set(props.model.modelName, this));
    stack.addOverride(`//.${PROMOTIONS_DOCUMENT_KEY}`, Object.fromEntries([...byModel.values()].map((p) => [p.policy.name, p.policy])));
  }
}

/** The address of the resource that makes the model's versions (`fleetform_training_job.<name>`). */
function sourceAddress(model: ITrainedModelSource): string {
  return model instanceof TerraformResource ? `${model.terraformResourceType}.${model.friendlyUniqueId}` : model.node.path;
}
