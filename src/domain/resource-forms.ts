import type { ResourceListName } from './config';
import { BUILTIN_MODULE_ID } from './triplet';

/**
 * The forms a resource's API and model are written in, and the one normal form every check
 * and comparison uses. The stored JSON keeps the author's form; only the normal form is
 * compared.
 *
 * API: `api` as a triplet (`rdk:component:camera`) or an object `{namespace, type, subtype}`;
 * when `api` is absent, `type` with an optional `namespace` (`rdk` by default), the middle
 * part coming from the list the entry is in. Model: a triplet, a bare name (`webcam`,
 * meaning `rdk:builtin:webcam`) or an object `{namespace, model_family, name}`; a service
 * with no model is `rdk:builtin:builtin`.
 */

/** The namespace of an API written without one. */
export const DEFAULT_API_NAMESPACE = 'rdk';
/** The model of a service written without one. */
export const DEFAULT_SERVICE_MODEL = `${BUILTIN_MODULE_ID}:builtin`;

const BARE_NAME = /^[\w-]+$/;

/** The kind of API each list holds. */
export function apiKindOf(list: ResourceListName): 'component' | 'service' {
  return list === 'services' ? 'service' : 'component';
}

function field(entry: Readonly<Record<string, unknown>>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(entry, key) ? entry[key] : undefined;
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/**
 * A resource entry's API in its normal form (a triplet as text), whatever form it is
 * written in; the text as written when `api` is neither a string nor an object of the
 * three parts (the checks then say what is wrong with it).
 */
export function normalApi(entry: Readonly<Record<string, unknown>>, list: ResourceListName): string {
  const api = field(entry, 'api');
  if (typeof api === 'string') return api;
  if (api !== undefined && api !== null && typeof api === 'object') {
    const o = api as Record<string, unknown>;
    const [ns, type, subtype] = [text(o.namespace), text(o.type), text(o.subtype)];
    if (ns !== undefined && type !== undefined && subtype !== undefined) return `${ns}:${type}:${subtype}`;
    return '';
  }
  const type = text(field(entry, 'type'));
  if (type === undefined || type === '') return '';
  const namespace = text(field(entry, 'namespace'));
  return `${namespace === undefined || namespace === '' ? DEFAULT_API_NAMESPACE : namespace}:${apiKindOf(list)}:${type}`;
}

/** A resource entry's model in its normal form (a triplet as text); the text as written when it is none of the forms. */
export function normalModel(entry: Readonly<Record<string, unknown>>, list: ResourceListName): string {
  const model = field(entry, 'model');
  if (typeof model === 'string') {
    if (model === '' && list === 'services') return DEFAULT_SERVICE_MODEL;
    return BARE_NAME.test(model) ? `${BUILTIN_MODULE_ID}:${model}` : model;
  }
  if (model !== undefined && model !== null && typeof model === 'object') {
    const o = model as Record<string, unknown>;
    const [ns, family, name] = [text(o.namespace), text(o.model_family), text(o.name)];
    return ns !== undefined && family !== undefined && name !== undefined ? `${ns}:${family}:${name}` : '';
  }
  return list === 'services' ? DEFAULT_SERVICE_MODEL : '';
}

/** Whether an entry writes its API in the legacy form (`type`, maybe `namespace`, no `api`). */
export function usesLegacyApi(entry: Readonly<Record<string, unknown>>): boolean {
  return field(entry, 'api') === undefined && typeof field(entry, 'type') === 'string';
}
