import { Construct } from 'constructs';
import { TerraformStack } from './cdk';
import { FleetformError } from '../domain/errors';
import { parseWindow } from '../domain/sync-windows';
import { RECONCILE_DOCUMENT_KEY, ReconcilePolicySchema, type ReconcilePolicy as ReconcilePolicyValue } from '../domain/reconcile-policy';

/** Properties of a {@link ReconcilePolicy}: each unset one follows the reconciler's flags. */
export interface ReconcilePolicyProps {
  /** `auto` applies through the stack's rollout, `approve` waits for an approval, `plan-only` never applies. */
  readonly apply?: 'auto' | 'approve' | 'plan-only';
  /** `heal` applies the code again over drift, `warn` reports it, `off` ignores it. */
  readonly drift?: 'heal' | 'warn' | 'off';
  /** Windows, e.g. `deny:0 9 * * 1-5:8h:Europe/Berlin`: no apply of the stack starts outside them. */
  readonly windows?: readonly string[];
}

/**
 * How `fleetform reconcile` treats this stack. One per stack; synthesized into the stack
 * document's `//` block, which Terraform ignores.
 */
export class ReconcilePolicy extends Construct {
  readonly policy: ReconcilePolicyValue;
  constructor(scope: Construct, id: string, props: ReconcilePolicyProps) {
    super(scope, id);
    const parsed = ReconcilePolicySchema.safeParse({ ...props, ...(props.windows ? { windows: [...props.windows] } : {}) });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new FleetformError(`ReconcilePolicy: ${issue ? `${issue.path.join('.') || '(whole)'}: ${issue.message}` : 'not valid'}`, {
        path: this.node.path,
        hint: "apply: 'auto' | 'approve' | 'plan-only'; drift: 'heal' | 'warn' | 'off'; windows: ['deny:0 9 * * 1-5:8h:Europe/Berlin']",
      });
    }
    (parsed.data.windows ?? []).forEach((w, i) => {
      try {
        parseWindow(w, `windows[${i}]`);
      } catch (err) {
        const e = err as FleetformError;
        throw new FleetformError(`ReconcilePolicy: windows[${i}]: ${e.message}`, { path: this.node.path, hint: e.hint });
      }
    });
    this.policy = parsed.data;
    TerraformStack.of(this).addOverride(`//.${RECONCILE_DOCUMENT_KEY}`, this.policy);
  }
}
