import { Construct } from 'constructs';
import { TerraformStack } from './cdk';
import { FleetformError } from '../domain/errors';
import { parseWindow } from '../domain/sync-windows';
import { RECONCILE_DOCUMENT_KEY, ReconcilePolicySchema, type ReconcilePolicy as ReconcilePolicyValue } from '../domain/reconcile-policy';
import { locationIdOf, type ILocation } from './location';

/** Windows of one location: they hold for its machines, on top of the stack's. */
export interface LocationWindowsProps {
  /** A Location of this stack, or the id of an existing location. */
  readonly location: ILocation | string;
  /** Windows, e.g. `deny:0 9 * * 1-5:8h:Europe/Berlin`: no machine of the location is written outside them. */
  readonly windows: readonly string[];
}

/** Properties of a {@link ReconcilePolicy}: each unset one follows the reconciler's flags. */
export interface ReconcilePolicyProps {
  /** `auto` applies through the stack's rollout, `approve` waits for an approval, `plan-only` never applies. */
  readonly apply?: 'auto' | 'approve' | 'plan-only';
  /** `heal` applies the code again over drift, `warn` reports it, `off` ignores it. */
  readonly drift?: 'heal' | 'warn' | 'off';
  /** Windows, e.g. `deny:0 9 * * 1-5:8h:Europe/Berlin`: no apply of the stack starts outside them. */
  readonly windows?: readonly string[];
  /** Windows per location: a machine of a location is written only while the stack's windows and its location's are open. */
  readonly locations?: readonly LocationWindowsProps[];
}

const HINT =
  "apply: 'auto' | 'approve' | 'plan-only'; drift: 'heal' | 'warn' | 'off'; windows: ['deny:0 9 * * 1-5:8h:Europe/Berlin']; locations: [{ location, windows: [...] }]";

/**
 * How `fleetform reconcile` treats this stack. One per stack; synthesized into the stack
 * document's `//` block, which Terraform ignores.
 */
export class ReconcilePolicy extends Construct {
  readonly policy: ReconcilePolicyValue;
  constructor(scope: Construct, id: string, props: ReconcilePolicyProps) {
    super(scope, id);
    const stack = TerraformStack.of(this);
    (props.locations ?? []).forEach((l, i) => {
      if (typeof l.location !== 'string' && TerraformStack.of(l.location) !== stack)
        throw new FleetformError(`ReconcilePolicy: locations[${i}].location: location ${l.location.node.path} belongs to another stack`, {
          path: this.node.path,
          hint: 'declare the windows in the stack of the location, or name the location by its id',
        });
    });
    const parsed = ReconcilePolicySchema.safeParse({
      ...props,
      ...(props.windows ? { windows: [...props.windows] } : {}),
      ...(props.locations
        ? {
            locations: props.locations.map((l) => ({
              location: l.location ? locationIdOf(l.location) : l.location,
              windows: l.windows ? [...l.windows] : l.windows,
            })),
          }
        : {}),
    });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new FleetformError(`ReconcilePolicy: ${issue ? `${issue.path.join('.') || '(whole)'}: ${issue.message}` : 'not valid'}`, {
        path: this.node.path,
        hint: HINT,
      });
    }
    const windows = [
      ...(parsed.data.windows ?? []).map((w, i) => ({ w, where: `windows[${i}]` })),
      ...(parsed.data.locations ?? []).flatMap((l, i) => l.windows.map((w, j) => ({ w, where: `locations[${i}].windows[${j}]` }))),
    ];
    for (const { w, where } of windows) {
      try {
        parseWindow(w, where);
      } catch (err) {
        const e = err as FleetformError;
        throw new FleetformError(`ReconcilePolicy: ${where}: ${e.message}`, { path: this.node.path, hint: e.hint });
      }
    }
    this.policy = parsed.data;
    stack.addOverride(`//.${RECONCILE_DOCUMENT_KEY}`, this.policy);
  }
}
