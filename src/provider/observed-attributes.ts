import type { Applied, KindContext, Observation, ResourceKind, StateEntry } from '../engine/provider-core';
import { terraformAttribute } from './attributes';
import type { TerraformObject } from './values/terraform-value';

/** Whether a kind declares attributes the service changes on its own (a training job's status). */
export function hasObserved(kind: ResourceKind): boolean {
  return Object.values(kind.declaration.attributes).some((f) => f.observed);
}

/** The state with the attributes the service changes on its own as the observation read them (null when it has none). */
export function withObserved(kind: ResourceKind, state: TerraformObject, observation: Observation | undefined): TerraformObject {
  if (!hasObserved(kind)) return state;
  const out: TerraformObject = { ...state };
  for (const f of Object.values(kind.declaration.attributes))
    if (f.observed) out[f.name] = terraformAttribute(f, observation?.observed?.[f.name] ?? null);
  return out;
}

/** The object a write just made or changed, read again when its kind has attributes the service changes on its own. */
export async function observeWritten(
  kind: ResourceKind,
  ctx: KindContext,
  applied: Applied,
  entryOf: (applied: Applied) => StateEntry,
): Promise<Observation | undefined> {
  return hasObserved(kind) ? kind.observe(ctx, entryOf(applied)) : undefined;
}
