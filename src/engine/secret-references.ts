import { readFileSync } from 'node:fs';
import { childPath } from '../domain/json-path';
import {
  pathKeys,
  resolveSecretReference,
  secretReferenceSchema,
  withValueAt,
  type SecretReference,
  type SecretReferences,
  type SecretSource,
} from '../domain/secret-reference';
import { isObject, Unknown, type JsonObject, type JsonValue } from './json';
import type { PlanProblem } from './kind';
import type { SensitiveParts } from './kind-declaration';
import { processRedactor } from './redactor';

/**
 * Secrets by reference, on the engine's side: where a plan or an apply reads the values a
 * resource's `secrets` references name and puts them at their paths of its config, so the
 * service stores the values while code, synthesized files and Terraform hold references.
 */

/**
 * The values apps handed over while this process ran them (Secret.fromValue), by id: held in
 * memory only, never written anywhere.
 */
const appSecretValues = new Map<string, string>();

/**
 * Keeps the values an app run handed over, for the plans and applies that follow it in this
 * process: they replace those of the run before (ids are unique within one run only).
 */
export function receiveAppSecrets(values: ReadonlyMap<string, string>): void {
  appSecretValues.clear();
  for (const [id, value] of values) {
    appSecretValues.set(id, value);
    processRedactor.add(value);
  }
}

/** The environment, files and app values of this process: what `fleetform plan|apply` and the provider read. */
export const processSecretSource: SecretSource = {
  app: (id) => appSecretValues.get(id),
  env: (name) => process.env[name],
  file: (path) => {
    try {
      return { value: readFileSync(path, 'utf8') };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return {
        error:
          code === 'ENOENT'
            ? 'no such file'
            : code === 'EACCES'
              ? 'permission denied'
              : code === 'EISDIR'
                ? 'it is a folder'
                : (code ?? 'unreadable'),
      };
    }
  },
};

/** The references of a `secrets` attribute as given (anything else reads as none: the attribute's schema reports it). */
export function referencesOf(attribute: unknown): SecretReferences {
  if (!isObject(attribute)) return {};
  const refs: Record<string, SecretReference> = {};
  for (const [path, raw] of Object.entries(attribute)) {
    const parsed = secretReferenceSchema.safeParse(raw);
    if (parsed.success) refs[path] = parsed.data;
  }
  return refs;
}

/**
 * A config document (list form) with the value of every reference at its path, and a
 * problem for each reference that gives no value or whose path is nowhere in the config:
 * each names the resource, the field and where the value was to come from, so the plan
 * stops before any call.
 */
export function withResolvedSecrets(
  config: Record<string, unknown>,
  attribute: unknown,
  owner: string,
  source: SecretSource = processSecretSource,
): { config: Record<string, unknown>; problems: PlanProblem[] } {
  const refs = Object.entries(referencesOf(attribute));
  if (refs.length === 0) return { config, problems: [] };
  const problems: PlanProblem[] = [];
  let out = config;
  for (const [path, ref] of refs) {
    const at = childPath('secrets', path);
    const keys = pathKeys(path);
    if (!keys) {
      problems.push({
        path: at,
        message: `secret reference path ${JSON.stringify(path)} of ${owner} is not a config path`,
        hint: 'write it as plans name fields, e.g. modules.acme_sensors.env.API_TOKEN',
      });
      continue;
    }
    const resolved = resolveSecretReference(ref, source);
    if ('unresolved' in resolved) {
      problems.push({
        path: at,
        message: `${owner} needs the secret ${path}: ${resolved.unresolved.message}`,
        hint: resolved.unresolved.hint,
      });
      // The entry stays, its value not given here: a secret not given is no removal of it, and the plan says how to give it.
      const notGiven = Unknown.notGiven(`${resolved.unresolved.message}; ${resolved.unresolved.hint}`);
      out = withValueAt(out, keys, notGiven) ?? out;
      continue;
    }
    processRedactor.add(resolved.value);
    const placed = withValueAt(out, keys, resolved.value);
    if (!placed) {
      problems.push({
        path: at,
        message: `secret ${path} of ${owner} names no field of its config`,
        hint: 'synthesize the app again: the reference must name an entry the config has',
      });
      continue;
    }
    out = placed;
  }
  return { config: out, problems };
}

/** The paths of a view (its attribute `config` keyed as plans name it) that references fill. */
export function referencedViewPaths(attributes: Readonly<Record<string, unknown>>, attributeName = 'config'): string[] {
  return Object.keys(referencesOf(attributes.secrets)).map((path) =>
    path.startsWith('[') ? `${attributeName}${path}` : `${attributeName}.${path}`,
  );
}

/**
 * A keyed config view without the values references fill: what the attributes of code
 * would hold beside those references (the view is not changed).
 */
export function withoutReferencedValues(view: JsonObject, attribute: unknown): JsonObject {
  let out = view;
  for (const path of Object.keys(referencesOf(attribute))) {
    const keys = pathKeys(path);
    if (keys) out = removedAt(out, keys) as JsonObject;
  }
  return out;
}

function removedAt(node: JsonValue, keys: ReadonlyArray<string | number>): JsonValue {
  const [key, ...rest] = keys;
  if (key === undefined) return node;
  if (Array.isArray(node) && typeof key === 'number' && key < node.length) {
    const copy = [...node];
    copy[key] = removedAt(node[key] as JsonValue, rest);
    return copy;
  }
  if (!isObject(node) || typeof key !== 'string' || !(key in node)) return node;
  if (rest.length === 0) {
    const { [key]: _gone, ...others } = node;
    return others;
  }
  const inner = removedAt(node[key] as JsonValue, rest);
  // An object the removal empties goes with it (a module whose env held only secrets has none).
  if (isObject(inner) && Object.keys(inner).length === 0 && isObject(node[key]) && Object.keys(node[key] as JsonObject).length > 0) {
    const { [key]: _gone, ...others } = node;
    return others;
  }
  return { ...node, [key]: inner };
}

/** Sensitive parts of an attribute with the paths its resource's references fill added. */
export function withReferencedParts(parts: SensitiveParts, attributeName = 'config'): SensitiveParts {
  return {
    describe: `${parts.describe}, and the values its \`secrets\` references fill`,
    paths: (view, attributes) => [...new Set([...parts.paths(view, attributes), ...referencedViewPaths(attributes, attributeName)])],
  };
}
