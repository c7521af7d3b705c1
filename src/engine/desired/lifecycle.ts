import { FleetformError } from '../../domain/errors';
import { isObject, type JsonObject, type JsonValue } from '../json';

/** A resource's `lifecycle` block, as the engine honours it. */
export interface ResourceLifecycle {
  /** Any plan that would delete or replace the object is an error. */
  readonly preventDestroy: boolean;
  /** Set: the replace order the resource asks for, over its kind's default. */
  readonly createBeforeDestroy?: boolean;
  /** Attributes (or paths into one) whose declared value is not applied once the object exists, or every one. */
  readonly ignoreChanges: 'all' | readonly string[];
  /** Resources (or one of their attributes) whose planned change replaces this one. */
  readonly replaceTriggeredBy: readonly TriggerReference[];
}

/** `fleetform_dataset.a` or `fleetform_dataset.a.id` (an instance key may follow the name). */
export interface TriggerReference {
  readonly address: string;
  readonly attribute?: string;
}

export const NO_LIFECYCLE: ResourceLifecycle = { preventDestroy: false, ignoreChanges: [], replaceTriggeredBy: [] };

const LIFECYCLE_KEYS = ['prevent_destroy', 'create_before_destroy', 'ignore_changes', 'replace_triggered_by'] as const;

/** `${x}` -> `x`: cdktf writes some references wrapped, some bare. */
export function unwrapExpression(text: string): string {
  return text.replace(/^\$\{(.*)\}$/s, '$1').trim();
}

const TRIGGER = /^(fleetform_[a-z_]+\.[A-Za-z0-9_-]+(?:\[\d+\]|\["[^"]*"\])?)(?:\.([A-Za-z0-9_]+))?$/;

function refuse(at: string, message: string, hint: string): never {
  throw new FleetformError(message, { path: at, hint });
}

function flag(value: JsonValue | undefined, at: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  return refuse(at, 'expected true or false', 'write a literal boolean: the engine does not evaluate expressions here');
}

/** `config.components.sensor-1.attributes`, `config.modules[0]`, `config.components["a.b"]`: one path into the resource's view. */
const IGNORE_PATH = /^[a-z_][a-z0-9_]*(?:\.[A-Za-z0-9_-]+|\[\d+\]|\["[^"]*"\])*$/;

/** The keys along an ignore_changes path (an index is a key of the view, which keys lists by name or position). */
export function ignorePathKeys(path: string): string[] {
  return [...path.matchAll(/^([a-z_][a-z0-9_]*)|\.([A-Za-z0-9_-]+)|\[(\d+)\]|\["([^"]*)"\]/g)].map(
    (m) => (m[1] ?? m[2] ?? m[3] ?? m[4]) as string,
  );
}

function ignoreChangesOf(value: JsonValue | undefined, at: string): 'all' | string[] {
  if (value === undefined || value === null) return [];
  if (value === 'all' || value === '${all}') return 'all';
  if (!Array.isArray(value))
    return refuse(at, 'expected "all" or a list of attribute names', 'e.g. ignoreChanges: ["config"] or ignoreChanges: "all"');
  return value.map((entry, i) => {
    const name = typeof entry === 'string' ? unwrapExpression(entry) : '';
    if (!IGNORE_PATH.test(name)) {
      return refuse(
        `${at}[${i}]`,
        `ignore_changes lists ${JSON.stringify(entry)}, which is not an attribute name or a path into one`,
        'name a top-level attribute (e.g. "config"), a path into it as plans show it (e.g. "config.components.sensor-1.attributes"), or "all"',
      );
    }
    return name;
  });
}

function triggersOf(value: JsonValue | undefined, at: string): TriggerReference[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return refuse(at, 'expected a list of resource references', 'e.g. replaceTriggeredBy: [otherResource]');
  return value.map((entry, i) => {
    const m = typeof entry === 'string' ? TRIGGER.exec(unwrapExpression(entry)) : null;
    if (!m) {
      return refuse(
        `${at}[${i}]`,
        `replace_triggered_by lists ${JSON.stringify(entry)}, which is not a reference to a fleetform resource or one of its attributes`,
        'pass a resource of the same stack (or resource.id-style attribute reference)',
      );
    }
    return { address: m[1] as string, ...(m[2] ? { attribute: m[2] } : {}) };
  });
}

/** Reads a resource's `lifecycle` block; an argument the engine does not know is refused by name. */
export function parseLifecycle(value: JsonValue | undefined, at: string): ResourceLifecycle {
  if (value === undefined || value === null) return NO_LIFECYCLE;
  if (!isObject(value))
    return refuse(at, 'lifecycle must be an object', "set the lifecycle block through the construct's lifecycle property");
  const block: JsonObject = value;
  for (const key of Object.keys(block)) {
    if (!(LIFECYCLE_KEYS as readonly string[]).includes(key)) {
      refuse(
        `${at}.${key}`,
        `lifecycle argument ${key} is not implemented by fleetform's engine`,
        `the engine honours ${LIFECYCLE_KEYS.join(', ')}; deploy with Terraform for others`,
      );
    }
  }
  const createBeforeDestroy = flag(block.create_before_destroy, `${at}.create_before_destroy`);
  return {
    preventDestroy: flag(block.prevent_destroy, `${at}.prevent_destroy`) ?? false,
    ...(createBeforeDestroy === undefined ? {} : { createBeforeDestroy }),
    ignoreChanges: ignoreChangesOf(block.ignore_changes, `${at}.ignore_changes`),
    replaceTriggeredBy: triggersOf(block.replace_triggered_by, `${at}.replace_triggered_by`),
  };
}

/**
 * Meta-arguments the engine does not carry out. Each is refused by name before any call:
 * a silently dropped one would do something other than what the stack says.
 */
export function refuseUnhonoured(body: JsonObject, at: string): void {
  for (const key of ['provisioner', 'connection'] as const) {
    if (body[key] !== undefined) {
      refuse(
        `${at}.${key}`,
        `${key} is not carried out by fleetform's engine`,
        'remove it, or deploy this stack with `cdktf deploy` (the fleetform Terraform provider)',
      );
    }
  }
  const provider = body.provider;
  if (provider !== undefined && provider !== null) {
    const name = typeof provider === 'string' ? unwrapExpression(provider) : '';
    if (name !== 'fleetform') {
      refuse(
        `${at}.provider`,
        `provider ${JSON.stringify(provider)}: fleetform's engine uses one fleetform provider block per stack and no aliases`,
        'put resources for another organization or location in their own stack, or deploy with `cdktf deploy`',
      );
    }
  }
}
