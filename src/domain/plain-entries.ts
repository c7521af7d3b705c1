/**
 * The verdicts of ModularResourceSchema and ModuleConfigSchema (config.ts) on the entries
 * every well-formed config is made of, without running zod: a fleet validates tens of
 * thousands of entries per synth. Each check recognizes a subset of what its schema
 * accepts (object literals holding fields of the right types) and says nothing of anything
 * else (undefined), which is then parsed by the schema itself, errors and all. The fields
 * they return are the input's own: the validation only reads them.
 */
import type { ModularResource, ModuleConfig } from './config';
import { ModuleSettingsShape } from './config-language';

const hasOwn = Object.prototype.hasOwnProperty;
const isEnumerable = Object.prototype.propertyIsEnumerable;

/** An object literal: the object kinds zod takes as objects without looking further. */
function isObjectLiteral(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;
}

/**
 * An object literal zod takes as a record with string keys: no `constructor` key of its
 * own (zod looks at the constructor to tell plain objects) and no symbol keys.
 */
export function isPlainRecord(v: unknown): v is Record<string, unknown> {
  return isObjectLiteral(v) && !hasOwn.call(v, 'constructor') && Object.getOwnPropertySymbols(v).length === 0;
}

function isStringArray(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'string') return false;
  return true;
}

const isOptionalString = (v: unknown): boolean => v === undefined || typeof v === 'string';

/**
 * A resource entry ModularResourceSchema accepts: an object literal with string `name`,
 * `model` and `api`, `attributes` (if any) a plain record and `depends_on` (if any) an
 * array of strings. Undefined when the schema must decide.
 */
export function plainResourceEntry(item: unknown): ModularResource | undefined {
  if (!isObjectLiteral(item)) return undefined;
  const { name, model, api, attributes, depends_on: dependsOn } = item;
  if (typeof name !== 'string' || typeof model !== 'string' || typeof api !== 'string') return undefined;
  // Fields with structure of their own are left to the schema.
  if (item.frame !== undefined || item.service_configs !== undefined || item.log_configuration !== undefined) return undefined;
  if (attributes !== undefined && !isPlainRecord(attributes)) return undefined;
  if (dependsOn !== undefined && !isStringArray(dependsOn)) return undefined;
  const entry: ModularResource = { name, model, api };
  if (attributes !== undefined) entry.attributes = attributes as Record<string, unknown>;
  if (dependsOn !== undefined) entry.depends_on = dependsOn as string[];
  return entry;
}

const MODULE_FIELDS = ['type', 'name', 'module_id', 'version', 'executable_path'] as const;
const MODULE_SETTINGS = Object.keys(ModuleSettingsShape);

/**
 * A module entry ModuleConfigSchema accepts, `env` left out (the validation checks it from
 * the entry's own keys and parses the entry without it): an object literal whose fields are
 * its own enumerable properties, `type` "registry" or "local", a string `name`, and
 * `module_id`, `version` and `executable_path` strings when present. Undefined when the
 * schema must decide.
 */
export function plainModuleEntry(item: unknown): ModuleConfig | undefined {
  if (!isObjectLiteral(item)) return undefined;
  for (const field of MODULE_FIELDS) {
    // The schema sees only own enumerable fields when env is left out (a copy of them).
    if (item[field] !== undefined && !isEnumerable.call(item, field)) return undefined;
  }
  // Fields with rules of their own (log level, timeouts, ...) are left to the schema.
  for (const field of MODULE_SETTINGS) if (item[field] !== undefined) return undefined;
  const { type, name, module_id: moduleId, version, executable_path: executablePath } = item;
  if ((type !== 'registry' && type !== 'local') || typeof name !== 'string') return undefined;
  if (!isOptionalString(moduleId) || !isOptionalString(version) || !isOptionalString(executablePath)) return undefined;
  const entry: ModuleConfig = { type, name };
  if (moduleId !== undefined) entry.module_id = moduleId as string;
  if (version !== undefined) entry.version = version as string;
  if (executablePath !== undefined) entry.executable_path = executablePath as string;
  return entry;
}
