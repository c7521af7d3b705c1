import type { JsonObject, JsonValue } from '../json';
import type { RolloutPolicy } from '../../domain/rollout';
import type { ReconcilePolicy } from '../../domain/reconcile-policy';
import type { PromotionPolicy } from '../../domain/model-promotion';
import type { ResourceLifecycle } from './lifecycle';

/** The provider block of a stack: where and as whom its resources live. */
export interface ProviderSettings {
  readonly organizationId?: string;
  readonly locationId?: string;
  readonly endpoint?: string;
}

/** One resource as the synthesized stack declares it. */
export interface DesiredResource {
  readonly address: string;
  readonly type: string;
  readonly name: string;
  /** Attributes as synthesized: may hold `${type.name.output}` references. */
  readonly attributes: JsonObject;
  /** Addresses this resource must follow: explicit depends_on, references and replace triggers. */
  readonly dependsOn: readonly string[];
  /** Its `lifecycle` block, when it has one. */
  readonly lifecycle?: ResourceLifecycle;
}

/** A `TerraformOutput` of the stack: a value (maybe referencing resources) shown after apply. */
export interface DesiredOutput {
  readonly name: string;
  readonly value: JsonValue;
  readonly sensitive: boolean;
}

/** Where the stack keeps its state, as the stack's Terraform backend block says. */
export type StackBackend =
  | { readonly type: 'local' }
  | { readonly type: 'pg'; readonly connStr?: string; readonly schemaName?: string }
  /** A backend fleetform cannot use (s3, remote...): named so the error can say which. */
  | { readonly type: 'other'; readonly name: string };

export interface DesiredStack {
  readonly name: string;
  readonly provider: ProviderSettings;
  readonly resources: readonly DesiredResource[];
  /** Where its state lives (local files when the stack declares no backend). */
  readonly backend?: StackBackend;
  /** The stack's outputs, evaluated against the state after apply. */
  readonly outputs?: readonly DesiredOutput[];
  /** Addresses of the stack's resources of other providers: Terraform's to manage, not the engine's. */
  readonly foreign: readonly string[];
  /** `moved` blocks (cdktf's moveTo/moveToId/moveFromId): the object at `from` is now managed at `to`. */
  readonly moves?: ReadonlyArray<{ readonly from: string; readonly to: string }>;
  /** Its rollout policy: machine config changes are applied in waves behind a health gate. */
  readonly rollout?: RolloutPolicy;
  /** Its fragments' rollout policies: a fragment's new revision reaches its machines in waves behind a health gate. */
  readonly fragmentRollouts?: readonly RolloutPolicy[];
  /** How `fleetform reconcile` treats it, as its code says (unset fields follow the reconciler's flags). */
  readonly reconcile?: ReconcilePolicy;
  /** Its model promotions: a model's new version reaches its machines through a rollout, and one it stops on is rejected. */
  readonly promotions?: readonly PromotionPolicy[];
}
