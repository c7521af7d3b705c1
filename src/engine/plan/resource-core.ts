import type { ResourceLifecycle } from '../desired/lifecycle';
import { diffJson, type AttributeChange } from '../diff';
import type { JsonObject } from '../json';
import type { Desired, Judgement, Observation, ResourceKind } from '../kind';
import { replaceReasonsOf } from '../kind-declaration';
import { maskPaths, viewSecretPaths } from '../mask';
import type { StateEntry } from '../state/schema';
import { unignoredDrift, withIgnoredChanges } from './lifecycle-rules';
import { withServiceChoices } from './service-choices';

/** What one resource is planned from: the kind, what the stack wants, what exists. */
export interface ResourcePlanInput {
  readonly kind: ResourceKind;
  /** The kind's desired value of the resource (its checks done). */
  readonly desired: Desired;
  /** The attributes the stack gives (references resolved), for secrets its code flags by name. */
  readonly attributes: JsonObject;
  /** The record of the object; undefined when none exists to change (never made, deleted outside, being deleted). */
  readonly existing: StateEntry | undefined;
  /** What the service holds now; undefined when it was not read (the record stands for it). */
  readonly observation: Observation | undefined;
  readonly lifecycle?: ResourceLifecycle | undefined;
  /** Salt and key of the digests secrets are masked by. */
  readonly salt: string;
  readonly key?: Buffer | undefined;
  /**
   * Replace-forcing attributes a front end found changed by its own values (Terraform's
   * planned values, where an unknown counts as a change): when any, they are the reasons.
   */
  readonly forcedReplace?: readonly string[] | undefined;
  /** The front end found the object unchanged by its own values: the kind's judgement is not reported. */
  readonly unchanged?: boolean | undefined;
}

/** The plan of an object about to be made. */
export interface CreatePlan {
  readonly action: 'create';
  /** The desired view, secrets masked, values the service chooses shown as unknown. */
  readonly after: JsonObject;
  readonly changes: readonly AttributeChange[];
}

/** The plan of an existing object. */
export interface ChangePlan {
  /** What the attributes ask for: `no-op` when nothing differs. */
  readonly action: 'no-op' | 'update' | 'replace';
  /** What exists now (observed, else the record), secrets masked. */
  readonly current: JsonObject;
  /** The desired view (ignored attributes as they exist), secrets masked. */
  readonly after: JsonObject;
  readonly changes: readonly AttributeChange[];
  /** Changes made outside since the record, less those under ignored paths. */
  readonly drift: readonly AttributeChange[];
  /** The declared replace-forcing attributes that differ. */
  readonly replaceReasons: readonly string[];
  /** The kind's judgement of the change (empty when the front end found nothing changed). */
  readonly judgement: Judgement;
}

export type ResourcePlan = CreatePlan | ChangePlan;

const NO_JUDGEMENT: Judgement = { problems: [], notes: [] };

/**
 * The desired value of an existing object with its ignored attributes as they exist, and
 * the secret paths of that view (an ignored value the service holds is masked by the same
 * rule as a declared one). Unchanged when nothing is ignored.
 */
export function desiredWithLifecycle(
  kind: ResourceKind,
  desired: Desired,
  existing: JsonObject | undefined,
  lifecycle: ResourceLifecycle | undefined,
  attributes: JsonObject,
): Desired {
  const view = withIgnoredChanges(desired.view, existing, lifecycle);
  if (view === desired.view) return desired;
  return { ...desired, view, sensitivePaths: viewSecretPaths(kind, view, desired.sensitivePaths, attributes) };
}

/**
 * An object adopted rather than written (no applied attributes): what the service chose for a
 * parameter the stack leaves unspecified is no change.
 */
function withChoicesLeftUnspecified(observed: JsonObject, after: JsonObject, kind: ResourceKind): JsonObject {
  let view = observed;
  for (const [key, unspecified] of Object.entries(kind.declaration.serviceChosen))
    if (after[key] === unspecified && observed[key] !== undefined) view = { ...view, [key]: unspecified };
  return view;
}

/**
 * Plans one resource from what the stack wants and what exists, by its kind's declaration:
 * the masked views, the diff, the replace reasons and the kind's judgement. Both the
 * engine's planner and the Terraform provider plan through it. It calls no service and writes nothing:
 * what exists is read by its callers.
 */
export function planResourceChange(input: ResourcePlanInput): ResourcePlan {
  const { kind, desired, existing, observation, salt, key } = input;
  if (!existing) {
    const after = withServiceChoices(maskPaths(desired.view, desired.sensitivePaths, salt, key), kind.declaration.serviceChosen);
    return { action: 'create', after, changes: diffJson(undefined, after) };
  }
  const wanted = desiredWithLifecycle(
    kind,
    desired,
    observation?.view ?? existing.attributes ?? undefined,
    input.lifecycle,
    input.attributes,
  );
  const after = maskPaths(wanted.view, wanted.sensitivePaths, salt, key);
  // What the service holds is masked by the same rule as what the stack declares: a secret
  // added outside fleetform never shows in clear as drift.
  const known = [...desired.sensitivePaths, ...existing.sensitive_paths];
  const observedView = observation
    ? maskPaths(observation.view, viewSecretPaths(kind, observation.view, known, input.attributes), salt, key)
    : undefined;
  const current =
    existing.attributes === null && observedView
      ? withChoicesLeftUnspecified(observedView, after, kind)
      : (observedView ?? existing.attributes ?? {});
  const drift = existing.attributes && observedView ? unignoredDrift(diffJson(existing.attributes, observedView), input.lifecycle) : [];
  const changes = diffJson(current, after);
  const forced = input.forcedReplace ?? [];
  const replaceReasons = forced.length > 0 ? [...forced] : replaceReasonsOf(kind.declaration, current, after);
  const judged = kind.judge?.({
    current,
    desired: after,
    observation,
    prior: existing,
    replaceReasons: [...replaceReasons],
    ...(desired.kindData ? { desiredData: desired.kindData } : {}),
  });
  const judgement = judged && !input.unchanged ? judged : NO_JUDGEMENT;
  const action = changes.length === 0 ? 'no-op' : replaceReasons.length > 0 ? 'replace' : 'update';
  return { action, current, after, changes, drift, replaceReasons, judgement };
}
