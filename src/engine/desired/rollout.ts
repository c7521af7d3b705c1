import { FleetformError } from '../../domain/errors';
import { pathOf } from '../../domain/json-path';
import { ROLLOUT_DOCUMENT_KEY, RolloutPolicySchema, type RolloutPolicy } from '../../domain/rollout';
import { isObject, type JsonObject } from '../json';

/** The stack's rollout policy, from its document's `//` block; undefined when it declares none. */
export function rolloutOf(doc: JsonObject, file: string): RolloutPolicy | undefined {
  const comments = isObject(doc['//']) ? doc['//'] : undefined;
  const raw = comments?.[ROLLOUT_DOCUMENT_KEY];
  if (raw === undefined) return undefined;
  const parsed = RolloutPolicySchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new FleetformError(`the stack's rollout policy is not valid: ${issue ? `${pathOf(issue.path) || '(whole)'}: ${issue.message}` : 'unreadable'}`, {
    path: `${file}#//.${ROLLOUT_DOCUMENT_KEY}`,
    hint: 'declare it with the Rollout construct and synthesize again',
  });
}
