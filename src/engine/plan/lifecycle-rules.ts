import { ignorePathKeys, type ResourceLifecycle } from '../desired/lifecycle';
import type { DesiredStack } from '../desired/stack';
import type { AttributeChange } from '../diff';
import { isObject, setOwn, type JsonObject, type JsonValue } from '../json';
import type { PlanProblem } from '../kind';
import type { ResourceChange } from '../plan-model';

/** The replace order of a resource: its lifecycle's create_before_destroy when set, else its kind's. */
export function replaceOrderOf(
  lifecycle: ResourceLifecycle | undefined,
  kindOrder: 'create-first' | 'delete-first',
): 'create-first' | 'delete-first' {
  const asked = lifecycle?.createBeforeDestroy;
  if (asked === undefined) return kindOrder;
  return asked ? 'create-first' : 'delete-first';
}

/** A copy of `value` with `replacement` at the keys (removed there when undefined); the rest shared. */
function withAt(value: JsonValue | undefined, keys: readonly string[], replacement: JsonValue | undefined): JsonValue | undefined {
  if (keys.length === 0) return replacement;
  const [key, ...rest] = keys as [string, ...string[]];
  const base: JsonObject = isObject(value) ? value : {};
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(base)) setOwn(out, k, v);
  const inner = withAt(base[key], rest, replacement);
  if (inner === undefined) delete out[key];
  else setOwn(out, key, inner);
  return out;
}

function valueAt(value: JsonValue | undefined, keys: readonly string[]): JsonValue | undefined {
  let current = value;
  for (const key of keys) current = isObject(current) && Object.prototype.hasOwnProperty.call(current, key) ? current[key] : undefined;
  return current;
}

/**
 * The desired view with ignored attributes (or paths into one) taken from what exists:
 * once an object exists, an ignored value stays what the service holds (`all`: every one).
 */
export function withIgnoredChanges(
  view: JsonObject,
  existing: JsonObject | undefined,
  lifecycle: ResourceLifecycle | undefined,
): JsonObject {
  const ignore = lifecycle?.ignoreChanges ?? [];
  if (!existing || ignore.length === 0) return view;
  if (ignore === 'all') return existing;
  let out: JsonValue | undefined = view;
  for (const path of ignore) {
    const keys = ignorePathKeys(path);
    out = withAt(out, keys, valueAt(existing, keys));
  }
  return out as JsonObject;
}

/** Changes made outside, less those under ignored paths: apply leaves those as they are. */
export function unignoredDrift(drift: readonly AttributeChange[], lifecycle: ResourceLifecycle | undefined): AttributeChange[] {
  const ignore = lifecycle?.ignoreChanges ?? [];
  if (ignore === 'all') return [];
  const prefixes = ignore.map((path) => ignorePathKeys(path).join('.'));
  return drift.filter((c) => !prefixes.some((p) => c.path === p || c.path.startsWith(`${p}.`) || c.path.startsWith(`${p}[`)));
}

/** ignore_changes entries that name no attribute of the kind: problems, as Terraform refuses them. */
export function unknownIgnoredAttributes(lifecycle: ResourceLifecycle | undefined, attributes: readonly string[]): PlanProblem[] {
  const ignore = lifecycle?.ignoreChanges ?? [];
  if (ignore === 'all') return [];
  return ignore
    .filter((path) => !attributes.includes(ignorePathKeys(path)[0] as string))
    .map((path) => ({
      path: 'lifecycle.ignore_changes',
      message: `ignore_changes names ${path}, but the resource has no attribute ${ignorePathKeys(path)[0] as string}`,
      hint: `its attributes: ${attributes.join(', ')}`,
    }));
}

/** The triggers of replace_triggered_by that fire, given the changes planned for what they name. */
export function firedTriggers(lifecycle: ResourceLifecycle | undefined, planned: ReadonlyMap<string, ResourceChange>): string[] {
  const fired: string[] = [];
  for (const trigger of lifecycle?.replaceTriggeredBy ?? []) {
    const change = planned.get(trigger.address);
    if (!change) continue;
    const label = trigger.attribute ? `${trigger.address}.${trigger.attribute}` : trigger.address;
    if (change.action === 'create' || change.action === 'replace') fired.push(`replace_triggered_by ${label} (${change.action})`);
    else if (change.action === 'update') {
      const attribute = trigger.attribute;
      const touched =
        attribute === undefined ||
        change.changes.some((c) => c.path === attribute || c.path.startsWith(`${attribute}.`) || c.path.startsWith(`${attribute}[`));
      if (touched) fired.push(`replace_triggered_by ${label} (update)`);
    }
  }
  return fired;
}

/**
 * A plan that would delete or replace an object whose stack sets prevent_destroy stops
 * with an error naming it, before apply makes any call. An object the stack no longer
 * declares has no lifecycle left to protect it, as in Terraform.
 */
export function guardPreventDestroy(stack: DesiredStack, changes: Map<string, ResourceChange>): void {
  for (const resource of stack.resources) {
    if (!resource.lifecycle?.preventDestroy) continue;
    const change = changes.get(resource.address);
    if (!change || (change.action !== 'delete' && change.action !== 'replace')) continue;
    const problem: PlanProblem = {
      path: 'lifecycle.prevent_destroy',
      message: `${resource.address} has lifecycle.prevent_destroy set, and this plan would ${change.action === 'delete' ? 'destroy' : 'replace (destroy and create)'} it`,
      hint:
        change.action === 'delete'
          ? 'remove prevent_destroy from the resource first if it really must go, or leave it out of the destroy (--target)'
          : `remove prevent_destroy first if it really must be replaced, or undo the change that forces it: ${change.replaceReasons.join('; ') || 'see the plan'}`,
    };
    changes.set(resource.address, { ...change, problems: [...change.problems, problem] });
  }
}
