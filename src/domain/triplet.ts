/**
 * API and model triplets (`<namespace>:<component|service>:<name>` and
 * `<namespace>:<module-name>:<model-name>`). Each part is `[\w-]+`.
 */

const TRIPLET = /^([\w-]+):([\w-]+):([\w-]+)$/;

/** A parsed API triplet, e.g. `rdk:component:sensor`. */
export interface ApiTriplet {
  namespace: string;
  type: 'component' | 'service';
  name: string;
}

/** A parsed model triplet, e.g. `acme:sensors:hc-sr04`. */
export interface ModelTriplet {
  namespace: string;
  moduleName: string;
  modelName: string;
}

/** What parseApiTriplet accepts, and the services among it (tests without match objects). */
const API_TRIPLET = /^[\w-]+:(?:component|service):[\w-]+$/;
const SERVICE_API_TRIPLET = /^[\w-]+:service:[\w-]+$/;

/** Whether parseApiTriplet accepts s. */
export function isApiTriplet(s: string): boolean {
  return API_TRIPLET.test(s);
}

/** Whether s is an API triplet of a service (parseApiTriplet(s)?.type === 'service'). */
export function isServiceApi(s: string): boolean {
  return SERVICE_API_TRIPLET.test(s);
}

/** Whether parseModelTriplet accepts s. */
export function isModelTriplet(s: string): boolean {
  return TRIPLET.test(s);
}

/** Parses an API triplet; undefined when malformed or the middle part is neither `component` nor `service`. */
export function parseApiTriplet(s: string): ApiTriplet | undefined {
  const m = TRIPLET.exec(s);
  if (!m) return undefined;
  const [, namespace, type, name] = m as unknown as [string, string, string, string];
  if (type !== 'component' && type !== 'service') return undefined;
  return { namespace, type, name };
}

/** Parses a model triplet; undefined when malformed. */
export function parseModelTriplet(s: string): ModelTriplet | undefined {
  const m = TRIPLET.exec(s);
  if (!m) return undefined;
  const [, namespace, moduleName, modelName] = m as unknown as [string, string, string, string];
  return { namespace, moduleName, modelName };
}

/** The module id a model comes from (its first two parts, `namespace:module-name`), or undefined when malformed. */
export function moduleIdOfModel(s: string): string | undefined {
  const t = parseModelTriplet(s);
  return t ? `${t.namespace}:${t.moduleName}` : undefined;
}

/** Formats an API triplet back to text. */
export function formatApiTriplet(t: ApiTriplet): string {
  return `${t.namespace}:${t.type}:${t.name}`;
}

/** Formats a model triplet back to text. */
export function formatModelTriplet(t: ModelTriplet): string {
  return `${t.namespace}:${t.moduleName}:${t.modelName}`;
}

/** The module id of the machine server's built-in models: see isBuiltinModel. */
export const BUILTIN_MODULE_ID = 'rdk:builtin';

/**
 * Built-in models of the machine server (`rdk:builtin:<model>`) come from no module,
 * so they are exempt from the rule that a model's prefix names a configured module.
 */
export function isBuiltinModel(s: string): boolean {
  return moduleIdOfModel(s) === BUILTIN_MODULE_ID;
}

const MODULE_ID = /^([\w-]+):([\w-]+)$/;

/** Whether parseModuleId accepts s. */
export function isModuleId(s: string): boolean {
  return MODULE_ID.test(s);
}

/** Parses a module id `<namespace or organization id>:<module-name>`. */
export function parseModuleId(s: string): { namespace: string; name: string } | undefined {
  const m = MODULE_ID.exec(s);
  if (!m) return undefined;
  return { namespace: m[1] as string, name: m[2] as string };
}
