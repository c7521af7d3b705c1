import { FleetformError } from '../../domain/errors';
import { pathOf } from '../../domain/json-path';
import { PROMOTIONS_DOCUMENT_KEY, PromotionPolicySchema, type PromotionPolicy } from '../../domain/model-promotion';
import { isObject, type JsonObject } from '../json';

/** The stack's model promotions, from its document's `//` block, in the order declared. */
export function promotionsOf(doc: JsonObject, file: string): PromotionPolicy[] {
  const comments = isObject(doc['//']) ? doc['//'] : undefined;
  const raw = comments?.[PROMOTIONS_DOCUMENT_KEY];
  if (raw === undefined) return [];
  const where = `${file}#//.${PROMOTIONS_DOCUMENT_KEY}`;
  const hint = 'declare it with the ModelPromotion construct and synthesize again';
  if (!isObject(raw)) throw new FleetformError("the stack's model promotions are not an object of promotions", { path: where, hint });
  return Object.entries(raw).map(([name, value]) => {
    const parsed = PromotionPolicySchema.safeParse(value);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    throw new FleetformError(
      `the model promotion ${name} is not valid: ${issue ? `${pathOf(issue.path) || '(whole)'}: ${issue.message}` : 'unreadable'}`,
      { path: `${where}.${name}`, hint },
    );
  });
}
