import { FleetformError } from '../../domain/errors';
import { pathOf } from '../../domain/json-path';
import { FRAGMENT_ROLLOUTS_DOCUMENT_KEY, ROLLOUT_DOCUMENT_KEY, RolloutPolicySchema, type RolloutPolicy } from '../../domain/rollout';
import { isObject, type JsonObject } from '../json';
import { RECONCILE_DOCUMENT_KEY, ReconcilePolicySchema, type ReconcilePolicy } from '../../domain/reconcile-policy';

/** The stack's rollout policy, from its document's `//` block; undefined when it declares none. */
export function rolloutOf(doc: JsonObject, file: string): RolloutPolicy | undefined {
  const comments = isObject(doc['//']) ? doc['//'] : undefined;
  const raw = comments?.[ROLLOUT_DOCUMENT_KEY];
  if (raw === undefined) return undefined;
  const parsed = RolloutPolicySchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new FleetformError(
    `the stack's rollout policy is not valid: ${issue ? `${pathOf(issue.path) || '(whole)'}: ${issue.message}` : 'unreadable'}`,
    {
      path: `${file}#//.${ROLLOUT_DOCUMENT_KEY}`,
      hint: 'declare it with the Rollout construct and synthesize again',
    },
  );
}

/** The rollouts of the stack's fragments, from its document's `//` block, in the order declared. */
export function fragmentRolloutsOf(doc: JsonObject, file: string): RolloutPolicy[] {
  const comments = isObject(doc['//']) ? doc['//'] : undefined;
  const raw = comments?.[FRAGMENT_ROLLOUTS_DOCUMENT_KEY];
  if (raw === undefined) return [];
  const where = `${file}#//.${FRAGMENT_ROLLOUTS_DOCUMENT_KEY}`;
  const hint = 'declare it with the Rollout construct (its fragment prop) and synthesize again';
  if (!isObject(raw)) throw new FleetformError("the stack's fragment rollouts are not an object of policies", { path: where, hint });
  return Object.entries(raw).map(([name, value]) => {
    const parsed = RolloutPolicySchema.safeParse(value);
    if (parsed.success && parsed.data.fragment !== undefined) return parsed.data;
    const issue = parsed.success ? undefined : parsed.error.issues[0];
    throw new FleetformError(
      `the rollout ${name} is not valid: ${issue ? `${pathOf(issue.path) || '(whole)'}: ${issue.message}` : 'it names no fragment'}`,
      { path: `${where}.${name}`, hint },
    );
  });
}

/** The stack's reconcile policy, from its document's `//` block; undefined when it declares none. */
export function reconcilePolicyOf(doc: JsonObject, file: string): ReconcilePolicy | undefined {
  const comments = isObject(doc['//']) ? doc['//'] : undefined;
  const raw = comments?.[RECONCILE_DOCUMENT_KEY];
  if (raw === undefined) return undefined;
  const parsed = ReconcilePolicySchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new FleetformError(
    `the stack's reconcile policy is not valid: ${issue ? `${pathOf(issue.path) || '(whole)'}: ${issue.message}` : 'unreadable'}`,
    {
      path: `${file}#//.${RECONCILE_DOCUMENT_KEY}`,
      hint: 'declare it with the ReconcilePolicy construct and synthesize again',
    },
  );
}
